/// What a terminal would show after receiving some output: a minimal VT100/xterm
/// emulator.
///
/// Tests of interactive programs cannot compare raw output, because a line
/// editor redraws with cursor moves and erasures whose exact bytes depend on
/// the library version and the terminal description; the screen they produce
/// is what the user sees and what stays stable. Only what line editors and
/// ordinary programs emit is modelled: printable text (wide East Asian
/// characters take two cells), CR, LF, BS, TAB, cursor movement, erasing,
/// inserting and deleting characters and lines, insert mode and autowrap with
/// xterm's pending wrap. Colours, modes and any other sequence are consumed and
/// ignored. Output may arrive in arbitrary pieces: an incomplete escape
/// sequence or UTF-8 character waits for the next ``feed(_:)-(String)``.
struct ScreenModel: Sendable {
    let columns: Int
    let rows: Int
    /// Rows of cells; a cell holds one character, or "" behind a wide one.
    private var cells: [[String]]
    /// Rows that scrolled off the top, oldest first, trailing spaces trimmed.
    private(set) var scrollback: [String] = []
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    /// xterm's "last column flag": a character written in the last column
    /// wraps only when the next character arrives.
    private var wrapPending = false
    private var insertMode = false
    private var saved = (row: 0, column: 0)
    private var pending: [UInt8] = []

    init(columns: Int = 100, rows: Int = 40) {
        precondition(columns > 0 && rows > 0)
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    init(_ output: String, columns: Int = 100, rows: Int = 40) {
        self.init(columns: columns, rows: rows)
        feed(output)
    }

    /// The screen's rows, trailing spaces trimmed.
    var lines: [String] { cells.map(Self.trimmed) }

    /// The screen's rows with all their cells, blanks included.
    var paddedLines: [String] { cells.map { $0.joined() } }

    /// The rows joined with newlines, trailing empty rows dropped.
    var text: String {
        var lines = lines
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// Everything written so far: the scrollback, then the screen.
    var fullText: String {
        var lines = scrollback + lines
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// The row the cursor is on, trailing spaces trimmed.
    var cursorLine: String { lines[cursorRow] }

    mutating func feed(_ text: String) { feed(Array(text.utf8)) }

    mutating func feed(_ bytes: [UInt8]) {
        let input = pending.isEmpty ? bytes : pending + bytes
        pending = []
        var i = 0
        while i < input.count {
            let byte = input[i]
            let used: Int?
            switch byte {
            case 0x1B: used = escape(input, at: i)
            case 0x80...: used = character(input, at: i)
            default: control(byte); used = 1
            }
            guard let used else {
                // Incomplete; keep it unless it is garbage that never ends.
                if input.count - i < 4096 { pending = Array(input[i...]) }
                return
            }
            i += used
        }
    }

    // MARK: Characters

    private mutating func control(_ byte: UInt8) {
        switch byte {
        case 0x0D: cursorColumn = 0; wrapPending = false
        case 0x0A, 0x0B, 0x0C: lineFeed()
        case 0x08: if cursorColumn > 0 { cursorColumn -= 1 }; wrapPending = false
        case 0x09: cursorColumn = min(columns - 1, (cursorColumn / 8 + 1) * 8); wrapPending = false
        case 0x20..<0x7F: put(String(UnicodeScalar(byte)), width: 1)
        default: break // BEL, NUL and the rest
        }
    }

    /// Decodes one UTF-8 character; nil when it is cut off at the end.
    private mutating func character(_ input: [UInt8], at i: Int) -> Int? {
        let lead = input[i]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        var end = i + 1
        while end < i + length, end < input.count, input[end] & 0xC0 == 0x80 { end += 1 }
        if end < i + length && end == input.count { return nil }
        let scalar = String(decoding: input[i..<end], as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
        put(String(scalar), width: Self.width(of: scalar))
        return end - i
    }

    private mutating func put(_ character: String, width: Int) {
        if width == 0 {
            // A combining mark joins the character before the cursor.
            let column = wrapPending ? cursorColumn : max(0, cursorColumn - 1)
            var target = column
            while target > 0 && cells[cursorRow][target].isEmpty { target -= 1 }
            cells[cursorRow][target] += character
            return
        }
        if wrapPending || cursorColumn + width > columns {
            cursorColumn = 0
            lineFeed()
        }
        wrapPending = false
        if insertMode { insertBlanks(width) }
        clearHalves(at: cursorColumn, width: width)
        cells[cursorRow][cursorColumn] = character
        if width == 2 { cells[cursorRow][cursorColumn + 1] = "" }
        cursorColumn += width
        if cursorColumn >= columns {
            cursorColumn = columns - 1
            wrapPending = true
        }
    }

    /// Overwriting half of a wide character blanks its other half.
    private mutating func clearHalves(at column: Int, width: Int) {
        if cells[cursorRow][column].isEmpty, column > 0 { cells[cursorRow][column - 1] = " " }
        let after = column + width
        if after < columns, cells[cursorRow][after].isEmpty { cells[cursorRow][after] = " " }
    }

    private mutating func lineFeed() {
        wrapPending = false
        if cursorRow == rows - 1 { scrollUp(1) } else { cursorRow += 1 }
    }

    private mutating func scrollUp(_ count: Int) {
        for _ in 0..<min(count, rows) {
            scrollback.append(Self.trimmed(cells.removeFirst()))
            cells.append(blankRow)
        }
    }

    private var blankRow: [String] { Array(repeating: " ", count: columns) }

    // MARK: Escape sequences

    /// Handles the sequence starting with ESC at i; the bytes it took, or nil
    /// when it is incomplete.
    private mutating func escape(_ input: [UInt8], at i: Int) -> Int? {
        guard i + 1 < input.count else { return nil }
        let next = input[i + 1]
        switch next {
        case UInt8(ascii: "["): return controlSequence(input, at: i)
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
            // A string (OSC, DCS...) ends with BEL or ESC \.
            var j = i + 2
            while j < input.count {
                if input[j] == 0x07 { return j + 1 - i }
                if input[j] == 0x1B {
                    guard j + 1 < input.count else { return nil }
                    if input[j + 1] == UInt8(ascii: "\\") { return j + 2 - i }
                }
                j += 1
            }
            return nil
        case 0x20...0x2F:
            // Intermediate bytes, then one final byte: charset selection and the like.
            var j = i + 1
            while j < input.count, (0x20...0x2F).contains(input[j]) { j += 1 }
            return j < input.count ? j + 1 - i : nil
        case UInt8(ascii: "7"): saved = (cursorRow, cursorColumn)
        case UInt8(ascii: "8"): (cursorRow, cursorColumn) = saved; wrapPending = false
        case UInt8(ascii: "D"): lineFeed()
        case UInt8(ascii: "E"): cursorColumn = 0; lineFeed()
        case UInt8(ascii: "M"): reverseIndex()
        case UInt8(ascii: "c"): self = ScreenModel(columns: columns, rows: rows)
        default: break // ESC =, ESC > and anything unknown
        }
        return 2
    }

    private mutating func reverseIndex() {
        wrapPending = false
        if cursorRow > 0 {
            cursorRow -= 1
        } else {
            cells.removeLast()
            cells.insert(blankRow, at: 0)
        }
    }

    private mutating func controlSequence(_ input: [UInt8], at i: Int) -> Int? {
        var j = i + 2
        while j < input.count, (0x20...0x3F).contains(input[j]) { j += 1 }
        guard j < input.count else { return nil }
        let body = String(decoding: input[(i + 2)..<j], as: UTF8.self)
        let final = Character(UnicodeScalar(input[j]))
        let length = j + 1 - i
        // Private (`ESC[?25l`) and intermediate-byte sequences change modes we do not model.
        if let first = body.first, "<=>?".contains(first) { return length }
        if body.contains(where: { (" "..."/").contains($0) }) { return length }
        let parameters = body.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func parameter(_ index: Int, default value: Int) -> Int {
            guard index < parameters.count, let given = parameters[index] else { return value }
            return given == 0 && value == 1 ? 1 : given
        }
        let n = parameter(0, default: 1)
        if "ABCDEFGHfdJKSTLM@PX".contains(final) { wrapPending = false }
        switch final {
        case "A": cursorRow = max(0, cursorRow - n)
        case "B": cursorRow = min(rows - 1, cursorRow + n)
        case "C": cursorColumn = min(columns - 1, cursorColumn + n)
        case "D": cursorColumn = max(0, min(columns - 1, cursorColumn) - n)
        case "E": cursorRow = min(rows - 1, cursorRow + n); cursorColumn = 0
        case "F": cursorRow = max(0, cursorRow - n); cursorColumn = 0
        case "G", "`": cursorColumn = min(columns - 1, max(0, n - 1))
        case "d": cursorRow = min(rows - 1, max(0, n - 1))
        case "H", "f":
            cursorRow = min(rows - 1, max(0, n - 1))
            cursorColumn = min(columns - 1, max(0, parameter(1, default: 1) - 1))
        case "J": eraseDisplay(parameter(0, default: 0))
        case "K": eraseLine(parameter(0, default: 0))
        case "@": insertBlanks(n)
        case "P":
            let count = min(n, columns - cursorColumn)
            cells[cursorRow].removeSubrange(cursorColumn..<(cursorColumn + count))
            cells[cursorRow] += Array(repeating: " ", count: count)
        case "X":
            for c in cursorColumn..<min(columns, cursorColumn + n) { cells[cursorRow][c] = " " }
        case "L":
            for _ in 0..<min(n, rows - cursorRow) { cells.removeLast(); cells.insert(blankRow, at: cursorRow) }
        case "M":
            for _ in 0..<min(n, rows - cursorRow) { cells.remove(at: cursorRow); cells.append(blankRow) }
        case "S": scrollUp(n)
        case "T": for _ in 0..<min(n, rows) { cells.removeLast(); cells.insert(blankRow, at: 0) }
        case "h", "l": if parameters.contains(4) { insertMode = final == "h" }
        case "s": saved = (cursorRow, cursorColumn)
        case "u": (cursorRow, cursorColumn) = saved
        default: break // m (colours), n (reports), r (margins), t and the rest
        }
        return length
    }

    private mutating func insertBlanks(_ count: Int) {
        let count = min(count, columns - cursorColumn)
        cells[cursorRow].insert(contentsOf: Array(repeating: " ", count: count), at: cursorColumn)
        cells[cursorRow].removeLast(count)
    }

    private mutating func eraseLine(_ mode: Int) {
        let range: Range<Int>
        switch mode {
        case 0: range = cursorColumn..<columns
        case 1: range = 0..<min(columns, cursorColumn + 1)
        default: range = 0..<columns
        }
        for c in range { cells[cursorRow][c] = " " }
    }

    private mutating func eraseDisplay(_ mode: Int) {
        switch mode {
        case 0:
            eraseLine(0)
            for r in (cursorRow + 1)..<rows { cells[r] = blankRow }
        case 1:
            eraseLine(1)
            for r in 0..<cursorRow { cells[r] = blankRow }
        default:
            cells = Array(repeating: blankRow, count: rows)
        }
    }

    // MARK: Helpers

    private static func trimmed(_ row: [String]) -> String {
        var text = row.joined()
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Terminal cells a character takes: 0 for combining marks, 2 for East
    /// Asian wide characters and emoji, else 1. Approximate, like terminals.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return value == 0xAD ? 1 : 0
        default: break
        }
        if value == 0x200D || (0xFE00...0xFE0F).contains(value) { return 0 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }
}

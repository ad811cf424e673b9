import Foundation
import PQL

/// JSON records read one at a time from a byte stream, in bounded memory: the elements of one
/// JSON array, or JSON Lines (one value per line; a value may span lines, as pretty-printed
/// objects written one after another do).
///
/// The reader finds where each value ends (tracking strings, escapes and nesting) without
/// parsing it, and hands its bytes to ``JSONRecordParser``; it holds one record and about a
/// megabyte of the file at a time. A document that starts with `[` is an array; anything else
/// is JSON Lines. Errors are ``StoreError``s of kind `importFailed` with the line and column.
///
/// ```swift
/// let json = JSONRecordReader(DataByteStream(Data("{\"a\": 1}\n{\"a\": 2}\n".utf8)))
/// while let bytes = try json.next() { print(json.recordNumber, bytes.count) }   // 1 8, 2 8
/// ```
package final class JSONRecordReader {
    private enum Layout { case array, lines }

    /// The number of the current record (1-based).
    package private(set) var recordNumber = 0
    /// Where the current record starts.
    package private(set) var recordLine = 0
    package private(set) var recordColumn = 0

    private let buffer: ReadBuffer
    private let limit: Int
    private var layout: Layout?
    private var afterValue = false
    private var finished = false
    /// The line and column at `buffer.start`.
    private var line = 1
    private var column = 1

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

    package init(_ stream: ByteStream, limits: ImportLimits = ImportLimits()) {
        buffer = ReadBuffer(stream, maxRecordBytes: limits.maxRecordBytes)
        limit = limits.maxRecordBytes
    }

    /// The bytes the reader holds at most so far (a megabyte, unless a record needed more).
    package var bufferCapacity: Int { buffer.capacity }

    static let hint = "import needs a JSON array of objects, or one object per line (JSON Lines)"

    private func error(_ message: String) -> StoreError {
        StoreError(.importFailed, "JSON line \(line), column \(column): \(message)", hint: Self.hint)
    }

    private func tooLong() -> StoreError {
        StoreError(.importFailed, "JSON line \(line), column \(column): record \(recordNumber) runs past \(limit) bytes",
                   hint: "close every string and bracket (an unclosed one makes the rest of the file one value), or raise ImportLimits.maxRecordBytes")
    }

    /// The next byte after whitespace (consumed, newlines counted); nil at the end of the file.
    private func peekAfterSpace(newlines: Bool = true) throws(StoreError) -> UInt8? {
        while true {
            let p = buffer.base
            var i = buffer.start
            let n = buffer.end
            while i < n {
                let c = p[i]
                if c == Self.space || c == Self.tab || c == Self.cr { column += 1; i += 1; continue }
                if c == Self.lf && newlines { line += 1; column = 1; i += 1; continue }
                break
            }
            buffer.start = i
            if i < n { return p[i] }
            guard try buffer.fill(tooLong: tooLong) else { return nil }
        }
    }

    /// The bytes of the next record (valid until the next call), or nil after the last one.
    package func next() throws(StoreError) -> UnsafeBufferPointer<UInt8>? {
        guard !finished else { return nil }
        if layout == nil {
            while buffer.end - buffer.start < 3, try buffer.fill(tooLong: tooLong) {}
            if buffer.end - buffer.start >= 3, buffer.base[0] == 0xEF, buffer.base[1] == 0xBB, buffer.base[2] == 0xBF { buffer.start += 3 }
            guard let first = try peekAfterSpace() else { finished = true; return nil }
            if first == UInt8(ascii: "[") {
                layout = .array
                buffer.start += 1
                column += 1
                if try peekAfterSpace() == UInt8(ascii: "]") {
                    buffer.start += 1
                    column += 1
                    try finishArray()
                    return nil
                }
            } else {
                layout = .lines
            }
        } else if afterValue {
            if layout == .array {
                guard let c = try peekAfterSpace() else { throw error("expected ',' or ']' in an array, found end of input") }
                buffer.start += 1
                column += 1
                if c == UInt8(ascii: "]") {
                    try finishArray()
                    return nil
                }
                guard c == UInt8(ascii: ",") else {
                    column -= 1
                    throw error("expected ',' or ']' in an array")
                }
            } else if let c = try peekAfterSpace(newlines: false), c != Self.lf {
                throw error("expected a new line after a JSON value (JSON Lines has one value per line)")
            }
        }
        guard try peekAfterSpace() != nil else {
            if layout == .array { throw error("expected a JSON value, found end of input") }
            finished = true
            return nil
        }
        return try value()
    }

    /// After the closing `]`: nothing but whitespace may follow.
    private func finishArray() throws(StoreError) {
        finished = true
        if try peekAfterSpace() != nil { throw error("unexpected text after the JSON array") }
    }

    /// Scanning state of a value, kept across reads so that a long one is scanned once.
    private struct Scan {
        var offset = 0
        var depth = 0
        var inString = false
        var escape = false
        var lines = 0
        /// Scalars since the last newline (or the value's start).
        var scalars = 0
    }

    /// Finds the end of the value at `buffer.start`, reading more as needed.
    private func value() throws(StoreError) -> UnsafeBufferPointer<UInt8> {
        recordNumber += 1
        recordLine = line
        recordColumn = column
        var s = Scan()
        let first = buffer.base[buffer.start]
        let container = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        let valueStart = first == UInt8(ascii: "-") || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
            || first == UInt8(ascii: "n") || (first >= 0x30 && first <= 0x39) || container
        var ended = false
        if !valueStart {
            // Not a value: one byte is enough for the parser to say what it found.
            s.offset = 1
            s.scalars = 1
            ended = true
        }
        while !ended {
            let p = buffer.base + buffer.start
            let n = buffer.end - buffer.start
            var k = s.offset
            while k < n {
                let c = p[k]
                if c & 0xC0 != 0x80 { s.scalars &+= 1 }
                if s.inString {
                    if s.escape { s.escape = false }
                    else if c == UInt8(ascii: "\\") { s.escape = true }
                    else if c == UInt8(ascii: "\"") {
                        s.inString = false
                        if s.depth == 0 { k += 1; ended = true; break }
                    }
                } else if container {
                    switch c {
                    case UInt8(ascii: "\""): s.inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): s.depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        s.depth -= 1
                        if s.depth == 0 { k += 1; ended = true }
                    case Self.lf: s.lines += 1; s.scalars = 0
                    default: break
                    }
                    if ended { break }
                } else if c == Self.space || c == Self.tab || c == Self.cr || c == Self.lf || c == UInt8(ascii: ",")
                            || c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    s.scalars -= 1
                    ended = true
                    break
                }
                k += 1
            }
            s.offset = k
            if ended { break }
            // The value goes on past the bytes read: read more, or hand the parser what there is.
            guard try buffer.fill(tooLong: tooLong) else { break }
        }
        let bytes = UnsafeBufferPointer(start: buffer.base + buffer.start, count: s.offset)
        buffer.start += s.offset
        line += s.lines
        column = s.lines > 0 ? s.scalars + 1 : column + s.scalars
        afterValue = true
        return bytes
    }
}

/// Which kinds of JSON values one key held, for its column's type.
struct JSONColumnKinds {
    var null = false, int = false, double = false, bool = false, string = false, date = false
    /// An integer beyond 64 bits (read exactly, as a decimal).
    var bigInteger = false
    /// An integer a double would round.
    var inexactInteger = false
    /// A double that is not a whole number within 64 bits.
    var fraction = false

    mutating func add(_ value: PredicateValue) {
        switch value {
        case .null: null = true
        case .int(let i):
            int = true
            if !ColumnTypeInference.isExactDouble(i) { inexactInteger = true }
        case .double(let d):
            double = true
            if Int64(exactly: d) == nil { fraction = true }
        case .decimal: bigInteger = true
        case .bool: bool = true
        case .string: string = true
        case .date: date = true
        default: string = true
        }
    }

    /// The narrowest type that holds every value exactly. Integers and fractions make a double
    /// column when a double holds each integer exactly, else an integer column when every
    /// number is whole; other mixtures, and integers beyond 64 bits, are text.
    var type: AttributeType {
        if bigInteger { return .string }
        switch (int, double, bool, string, date) {
        case (true, false, false, false, false): return .integer64
        case (_, true, false, false, false):
            if !inexactInteger { return .double }
            return fraction ? .string : .integer64
        case (false, false, true, false, false): return .boolean
        case (false, false, false, false, true): return .date
        default: return .string
        }
    }
}

/// The value a JSON value becomes in a column of `type`, where that loses nothing: whole
/// numbers to and from doubles when exact, numbers, booleans and dates to text for text
/// columns. Anything else is left for the store to accept or refuse.
enum JSONColumnConversion {
    static func convert(_ value: PredicateValue, to type: AttributeType) -> PredicateValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.int(let i), .double) where ColumnTypeInference.isExactDouble(i): return .double(Double(i))
        case (.double(let d), .integer64):
            if let i = Int64(exactly: d) { return .int(i) }
            return value
        case (.int(let i), .string): return .string(String(i))
        case (.double(let d), .string): return .string(String(d))
        case (.decimal(let d), .string): return .string("\(d)")
        case (.bool(let b), .string): return .string(b ? "true" : "false")
        case (.date(let d), .string): return .string(PQL.ISO8601.string(from: d))
        default: return value
        }
    }
}

/// Reads one JSON record, an object whose values are scalars (or `{"$date": …}`), key by key
/// into columns. Keys met for the first time become columns when `adding`, in the order the
/// record's text has them; numbers are read exactly (``JSONReader``'s exact mode).
struct JSONRecordParser {
    private(set) var names: [String] = []
    private var index: [String: Int] = [:]
    let adding: Bool

    init(columns: [String] = [], adding: Bool) {
        names = columns
        for (i, n) in columns.enumerated() { index[n] = i }
        self.adding = adding
    }

    /// Parses `bytes`, record `number` starting at `line` and `column`, handing each key's
    /// column and value to `set` (a repeated key twice, the last value last).
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, line: Int, column: Int,
                        _ set: (Int, PredicateValue) -> Void) throws(StoreError) {
        func located(_ e: JSONReadError) -> StoreError {
            let l = line + e.line - 1
            let c = e.line == 1 ? column + e.column - 1 : e.column
            // Numbers the reader refuses to round are well-formed JSON: the fix is not the layout.
            let number = e.message.hasPrefix("the number ") || e.message.hasPrefix("the integer ")
            return StoreError(.importFailed, "JSON line \(l), column \(c): \(e.message)",
                              hint: number ? "write it as a string (in quotes) to import it as text" : JSONRecordReader.hint)
        }
        var r = JSONReader(b: bytes)
        r.exactNumbers = true
        // The reader's errors are placed in the record; they become the file's line and column.
        func read<T>(_ body: (inout JSONReader) throws(JSONReadError) -> T) throws(StoreError) -> T {
            do throws(JSONReadError) { return try body(&r) } catch { throw located(error) }
        }
        func fail(_ message: String) -> StoreError { located(r.fail(message)) }
        r.skipSpace()
        guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "{") else {
            let v = try read { (r) throws(JSONReadError) in try r.parseValue() }
            throw StoreError(.importFailed, "JSON record \(number) is \(v.kindDescription), not an object", hint: JSONRecordReader.hint)
        }
        r.advance(by: 1)
        r.skipSpace()
        if r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "}") { return }
        while true {
            r.skipSpace()
            guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "\"") else {
                throw fail(r.offset < bytes.count ? "expected a quoted key in an object" : "expected a quoted key in an object, found end of input")
            }
            let key = try read { (r) throws(JSONReadError) in try r.parseString() }
            r.skipSpace()
            guard r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
            r.advance(by: 1)
            r.skipSpace()
            if r.offset < bytes.count, bytes[r.offset] == UInt8(ascii: "[") {
                throw StoreError(.importFailed, "JSON record \(number): key '\(key)' holds an array, which cannot be a column",
                                 hint: "flatten nested values into keys of their own (e.g. '\(key)_x'), or remove '\(key)'")
            }
            let value = try read { (r) throws(JSONReadError) in try r.parseValue() }
            if case .dictionary = value {
                throw StoreError(.importFailed, "JSON record \(number): key '\(key)' holds \(value.kindDescription), which cannot be a column",
                                 hint: "flatten nested values into keys of their own (e.g. '\(key)_x'), or remove '\(key)'")
            }
            if let c = index[key] {
                set(c, value)
            } else if adding {
                guard names.count < ImportTable.maxColumns else {
                    throw StoreError(.importFailed, "JSON record \(number) brings key '\(key)', beyond the \(ImportTable.maxColumns) columns a table can have",
                                     hint: "a table holds at most \(ImportTable.maxColumns) columns; split the records, or drop keys that are not needed")
                }
                index[key] = names.count
                names.append(key)
                set(names.count - 1, value)
            } else {
                throw StoreError(.importFailed, "JSON record \(number) has the key '\(key)', which the first reading of the file did not",
                                 hint: "the file changed during the import; import it again")
            }
            r.skipSpace()
            guard r.offset < bytes.count else { throw fail("expected ',' or '}' in an object, found end of input") }
            if bytes[r.offset] == UInt8(ascii: ",") { r.advance(by: 1); continue }
            if bytes[r.offset] == UInt8(ascii: "}") { return }
            throw fail("expected ',' or '}' in an object")
        }
    }
}

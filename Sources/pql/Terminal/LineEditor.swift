import CLineEdit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line editing, history and completion on a terminal through libedit.
///
/// libedit rather than a hand-rolled editor because it already knows every
/// terminal's escape sequences, wide characters and the emacs key bindings
/// people expect; the C shim `CLineEdit` exists only because Swift cannot call
/// its variadic `el_set` and `history`.
///
/// The editor leaves signals to the program (libedit's own handlers would
/// fight the REPL's): install a SIGINT handler with
/// ``installInterruptHandler(_:)`` so that Ctrl-C at the prompt ends the
/// blocking read and ``read(prompt:)`` returns ``Input/interrupted``.
final class LineEditor {
    /// What one ``read(prompt:)`` produced.
    enum Input: Equatable {
        /// A line the user entered, without its newline.
        case line(String)
        /// Ctrl-C at the prompt: the half-typed line is discarded, and the cursor
        /// is already on a fresh line.
        case interrupted
        /// Ctrl-D on an empty line, end of input or a terminal error; the cursor
        /// is on a fresh line.
        case end
    }

    /// Returns the range of the word being completed and the candidates that
    /// could replace it, given the whole line and the cursor in it.
    typealias Completer = (_ line: String, _ cursor: String.Index) -> (word: Range<String.Index>, candidates: [String])

    /// How many lines the history keeps, in memory and on disk.
    static let historyLimit = 1000
    /// More candidates than this are summarized rather than listed: a screenful
    /// of names helps nobody.
    static let listLimit = 100

    /// The largest history file read: 1,000 lines of long predicates fit many times over; a
    /// larger file is not PQL's history and is neither read nor overwritten.
    static let historyByteLimit = 4 << 20

    private let editor: OpaquePointer
    private let historyFile: URL?
    /// Why the history file is not used, when it is not (for the REPL to say once).
    private(set) var historyProblem: String?

    /// Called on TAB. Without one, TAB inserts a tab.
    ///
    /// One candidate replaces the word (followed by a space unless it ends in
    /// `.` or `(`, where the user will go on typing); several extend the word to
    /// their longest common prefix; when that adds nothing they are listed
    /// below the line, as bash and sqlite3 do.
    var completer: Completer? {
        didSet { installCompleter() }
    }

    /// nil when standard input or output is not a terminal: piped input must be
    /// read verbatim, without prompts or escape sequences.
    init?(program: String, historyFile: URL?) {
        guard Self.isTerminal, let editor = pql_editor_open(program, nil, nil, nil) else { return nil }
        self.editor = editor
        pql_editor_history_set_size(editor, Int32(Self.historyLimit))
        // Only a regular file of a sane size is read (libedit would read /dev/zero or a FIFO
        // forever, and write into a FIFO until a reader came), else the session keeps none.
        var usable = historyFile
        if let path = historyFile?.path {
            switch Self.historyFileState(path) {
            case .missing: break
            case .usable: _ = pql_editor_history_load(editor, path)
            case .unusable(let reason):
                usable = nil
                historyProblem = "not keeping history in \(path): \(reason)"
            }
        }
        self.historyFile = usable
    }

    enum HistoryFileState: Equatable {
        case missing, usable
        case unusable(String)
    }

    /// The first line libedit writes in a history file, and checks when it loads one.
    static let historyCookie = "_HiStOrY_V2_\n"

    /// Whether `path` can be PQL's history file: absent (it will be created), or a regular file
    /// no larger than ``historyByteLimit`` that is empty or a history file (libedit's first
    /// line). Saving rewrites the whole file and makes it 0600, through a symbolic link too:
    /// `PQL_HISTORY` naming a notes file emptied it of its lines.
    static func historyFileState(_ path: String) -> HistoryFileState {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? .missing : .unusable(String(cString: strerror(errno)).lowercased())
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if Int(info.st_size) > historyByteLimit {
                return .unusable("it holds \(Int(info.st_size) >> 20) MiB, more than a history file (\(historyByteLimit >> 20) MiB)")
            }
            return info.st_size == 0 ? .usable : historyHeaderState(path)
        case S_IFDIR: return .unusable("it is a directory")
        case S_IFIFO: return .unusable("it is a pipe, not a regular file")
        case S_IFCHR, S_IFBLK: return .unusable("it is a device, not a regular file")
        default: return .unusable("it is not a regular file")
        }
    }

    /// A file that is not empty is used only when it begins as libedit's history files do.
    private static func historyHeaderState(_ path: String) -> HistoryFileState {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .unusable(String(cString: strerror(errno)).lowercased()) }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: historyCookie.utf8.count)
        let n = pread(fd, &header, header.count, 0)
        guard n == header.count, header == Array(historyCookie.utf8) else {
            return .unusable("it is not a history file (pql's begin with the line _HiStOrY_V2_), and saving would replace what it holds")
        }
        return .usable
    }

    deinit {
        pql_editor_close(editor)
    }

    /// Reads one line, showing the prompt.
    ///
    /// The prompt must be plain text: libedit measures it to place the cursor,
    /// so escape sequences (colours) in it would throw the line off. Standard
    /// output is flushed first so that text printed with `print` appears above
    /// the prompt, not after it.
    func read(prompt: String) -> Input {
        fflush(nil)
        var text: UnsafePointer<CChar>?
        var length: Int32 = 0
        switch pql_editor_read(editor, prompt, &text, &length) {
        case PQL_READ_LINE:
            guard let text else { return .line("") }
            let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
            return .line(String(decoding: bytes, as: UTF8.self))
        case PQL_READ_INTERRUPTED:
            return .interrupted
        default:
            return .end
        }
    }

    /// Adds the line to the history, so Up recalls it, and saves the history
    /// at once: a session that crashes or is killed should not lose it.
    ///
    /// Blank lines and a repeat of the previous line are not kept.
    func remember(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        pql_editor_history_add(editor, line)
        guard let historyFile else { return }
        try? FileManager.default.createDirectory(at: historyFile.deletingLastPathComponent(),
                                                 withIntermediateDirectories: true)
        // Checked again: the path may have become something else since the session began.
        if case .unusable = Self.historyFileState(historyFile.path) { return }
        _ = pql_editor_history_save(editor, historyFile.path)
    }

    /// The number of lines in the history.
    var historyCount: Int { Int(pql_editor_history_count(editor)) }

    // MARK: Completion

    private func installCompleter() {
        guard completer != nil else {
            pql_editor_set_completer(editor, nil, nil)
            return
        }
        // The editor is owned by self and dies with it, so an unretained
        // pointer cannot dangle while libedit can call back.
        pql_editor_set_completer(editor, { context, editor, line, length, cursor in
            guard let context, let editor, let line else { return PQL_COMPLETE_BEEP }
            let me = Unmanaged<LineEditor>.fromOpaque(context).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: line, count: Int(length))
            return me.complete(String(decoding: bytes, as: UTF8.self), byteLength: Int(length),
                               cursor: Int(cursor), editor: editor)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func complete(_ line: String, byteLength: Int, cursor offset: Int,
                          editor: OpaquePointer) -> pql_complete_action {
        // Invalid UTF-8 was repaired while decoding, so byte offsets no longer match.
        guard let completer, line.utf8.count == byteLength, offset <= byteLength,
              let cursor = line.utf8.index(line.utf8.startIndex, offsetBy: offset)
                  .samePosition(in: line.unicodeScalars)
        else { return PQL_COMPLETE_BEEP }
        let (word, found) = completer(line, cursor)
        var seen = Set<String>()
        let candidates = found.filter { seen.insert($0).inserted }
        guard !candidates.isEmpty, word.lowerBound >= line.startIndex, word.upperBound <= line.endIndex
        else { return PQL_COMPLETE_BEEP }

        let typed = line[word]
        let replacement: String
        if candidates.count == 1, let only = candidates.first {
            replacement = only.hasSuffix(".") || only.hasSuffix("(") ? only : only + " "
        } else {
            let prefix = Self.commonPrefix(candidates)
            guard prefix.count > typed.count else {
                pql_editor_print_below(editor, Self.list(candidates, width: Int(pql_editor_columns(editor))))
                return PQL_COMPLETE_REDISPLAY
            }
            replacement = prefix
        }
        if replacement == typed { return PQL_COMPLETE_BEEP }
        // libedit counts characters as Unicode scalars (wchar_t).
        let move = line.unicodeScalars.distance(from: cursor, to: word.upperBound)
        let remove = line.unicodeScalars[word].count
        pql_editor_replace(editor, Int32(move), Int32(remove), replacement)
        return PQL_COMPLETE_REFRESH
    }

    /// The longest string every candidate starts with, compared character by character.
    static func commonPrefix(_ strings: [String]) -> String {
        guard let first = strings.first else { return "" }
        var prefix = Array(first)
        for string in strings.dropFirst() {
            let shared = zip(prefix, string).prefix { $0 == $1 }.count
            prefix.removeSubrange(shared...)
        }
        return String(prefix)
    }

    /// Candidates in columns, filled top to bottom like `ls`, each line ending in
    /// a newline.
    static func list(_ candidates: [String], width: Int) -> String {
        let shown = Array(candidates.prefix(listLimit))
        let widths = shown.map(CellText.width)
        let column = (widths.max() ?? 0) + 2
        let columns = max(1, min(shown.count, (max(width, 1) + 2) / column))
        let rows = (shown.count + columns - 1) / columns
        var text = ""
        for row in 0..<rows {
            var line = ""
            for col in 0..<columns {
                let index = col * rows + row
                guard index < shown.count else { break }
                if col > 0 { line += String(repeating: " ", count: column - widths[index - rows]) }
                line += shown[index]
            }
            text += line + "\n"
        }
        if candidates.count > shown.count {
            text += "… and \(candidates.count - shown.count) more\n"
        }
        return text
    }

    // MARK: Terminal

    /// Whether both standard input and output are a terminal, the condition for
    /// line editing.
    static var isTerminal: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// The width of the terminal on standard output, for laying out results;
    /// `$COLUMNS` when output is not a terminal but the user set it.
    static func terminalWidth() -> Int? {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return nil
    }

    /// Gives the terminal its own settings back for good: the session is over.
    func releaseTerminal() {
        _ = pql_terminal_release()
    }

    /// Installs a SIGINT handler *without* `SA_RESTART`.
    ///
    /// The handler must raise the interrupt flag (`InterruptFlag.raise`): the editor tests it
    /// before each wait for a key, and a wait the signal breaks ends the read only when the flag
    /// is up (any other signal's is resumed). The handler runs in signal context: it should only
    /// set the flag and call `sqlite3_interrupt` (which the sqlite3 shell calls from its handler too).
    static func installInterruptHandler(_ onInterrupt: @escaping @convention(c) (Int32) -> Void) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = onInterrupt
        #else
        action.__sigaction_u.__sa_handler = onInterrupt
        #endif
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
    }
}

import Foundation
import PQL
import PQLStore

/// Where the REPL's results go and how they look beyond `.format`: `.headers`, `.nullvalue`,
/// `.output`, `.once`, `.pager`; and how deep `.read` files are nested.
struct SessionIO {
    var headers = true
    /// `.nullvalue`: nil keeps each format's own (`NULL` in tables, empty in CSV).
    var nullText: String?
    /// `.pager`: page results that do not fit the terminal (only ever at a terminal).
    var pager = true
    /// `.output FILE`: every result until `.output` alone.
    var file: ResultFile?
    /// `.once FILE`: the next result only (before `file`).
    var once: ResultFile?
    /// `.read` files being run, innermost last (a file that reads itself stops, with an error).
    var reading: [String] = []

    /// Whether results go to a file rather than the terminal.
    var redirected: Bool { file != nil || once != nil }
}

/// A file results are written to.
final class ResultFile {
    let path: String
    private let handle: FileHandle

    /// Creates or empties the file, as sqlite3's `.output` does. Opened in place (not
    /// replaced, as an atomic write would): a symbolic link, a device (`/dev/stderr`) or a
    /// FIFO stays what it is.
    ///
    /// A file that is one of `protected` (the open database or data file, and beside a
    /// database its `-wal`, `-shm` and `-journal`), by any name (a symbolic or hard link) is
    /// refused before anything is emptied: `.output out1.sqlite` on `pql out1.sqlite` left a
    /// 22 MB store at 0 bytes. The file is opened first and emptied only once its device and
    /// inode are known not to be one of them.
    init(_ path: String, protecting protected: [String] = []) throws {
        self.path = path
        let expanded = UserPath.expanded(path)
        let fd = open(expanded, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw ReplError("cannot write to '\(path)': \(reason)", hint: "check that its directory exists and may be written")
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var target = stat()
        guard fstat(fd, &target) == 0 else { return }
        for file in protected {
            var info = stat()
            guard stat(file, &info) == 0, info.st_dev == target.st_dev, info.st_ino == target.st_ino else { continue }
            throw ReplError("'\(path)' is \(file == protected.first ? "the file that is open" : "'\(file)', a file of the open database"): results would overwrite it",
                            hint: "write results to another file, as in .output results.csv")
        }
        if target.st_mode & S_IFMT == S_IFREG { _ = ftruncate(fd, 0) }
    }

    func write(_ text: String) throws {
        do { try handle.write(contentsOf: Data(text.utf8)) } catch {
            throw ReplError("cannot write to '\(path)': \(error.localizedDescription)", hint: ".output alone sends results to the terminal again")
        }
    }

}

extension ReplSession {
    /// The renderer for a result of this session: the terminal's width and styling only when
    /// the result goes to the terminal.
    func resultRenderer() -> ResultRenderer {
        let screen = interactive && !io.redirected
        return ResultRenderer(format: format, width: screen ? LineEditor.terminalWidth() : nil, color: color && !io.redirected,
                              headers: io.headers, nullText: io.nullText)
    }

    /// Prints a result (rows or groups) with its notes (the hidden columns, the count): to
    /// the `.once` or `.output` file, through the pager, or to the terminal. The notes are
    /// for the person at the terminal: they never go to a file, and leave CSV or JSON output
    /// clean (on standard error) whatever the format.
    func deliver(_ text: String, notes: String) throws {
        let table = format.needsAllRows
        if let target = io.once ?? io.file {
            io.once = nil
            try target.write(text)
            if table { output(notes) } else { errorOutput(notes) }
            return
        }
        let shown = table ? text + notes : text
        if io.pager && interactive, let command = Pager.command, !Pager.fits(shown) {
            Pager.show(shown, through: command)
        } else {
            writeResult(shown)
        }
        if !table { errorOutput(notes) }
    }

    /// `.output [FILE|stdout]`, `.once FILE`, `.headers on|off`, `.nullvalue [TEXT]`, `.pager [on|off]`.
    func setOutput(_ command: String, _ argument: String) throws {
        let value = Self.unquoted(argument)
        switch command {
        case "output":
            io.file = nil
            if !value.isEmpty && value != "stdout" { io.file = try ResultFile(value, protecting: source.protectedFiles) }
        case "once":
            guard !value.isEmpty else { throw ReplError("which file?", hint: "write .once FILE: the next result goes to FILE") }
            io.once = try ResultFile(value, protecting: source.protectedFiles)
        case "headers":
            if argument.isEmpty { return output("headers \(io.headers ? "on" : "off")\n") }
            io.headers = try Self.onOff(argument, ".headers")
        case "nullvalue": io.nullText = argument.isEmpty ? nil : value
        case "pager":
            if argument.isEmpty { return output("pager \(io.pager ? "on" : "off"): \(Pager.command ?? "none found")\n") }
            io.pager = try Self.onOff(argument, ".pager")
        default: break
        }
    }

    /// `.read FILE`: each line as if typed (predicates, commands, `.read` too), failures
    /// counted, each error followed by the file and line it came from.
    func readScript(_ argument: String) throws {
        let path = Self.unquoted(argument)
        guard !path.isEmpty else { throw ReplError("which file?", hint: "write .read FILE: its lines run as if typed") }
        let expanded = UserPath.expanded(path)
        guard !io.reading.contains(expanded) else {
            throw ReplError("'\(path)' is already being read", hint: "a script that reads itself would never end")
        }
        runScript(try Self.scriptText(path, expanded), named: path, key: expanded)
    }

    /// The most bytes a script (a `.read` file, the startup file) may hold.
    static let scriptByteLimit = 16 << 20

    /// A script's text: a regular file, or a pipe or FIFO read to its end, up to
    /// ``scriptByteLimit``. A device (`/dev/zero` never ends) or a socket is refused before
    /// reading, and a file holding a NUL byte as binary: one error rather than one per line.
    static func scriptText(_ path: String, _ expanded: String) throws(ReplError) -> String {
        var info = stat()
        if stat(expanded, &info) == 0 {
            let kind: String? = switch info.st_mode & S_IFMT {
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            case S_IFSOCK: "a socket"
            default: nil
            }
            if let kind { throw ReplError("'\(path)' is \(kind), not a script", hint: ".read runs a text file (or a pipe) of predicates and commands") }
        }
        let data: Data
        do { data = try InputFile.read(expanded, limit: scriptByteLimit) } catch { throw ReplError(error.message, hint: error.hint) }
        if data.contains(0) {
            throw ReplError("'\(path)' is a binary file, not a script (it holds NUL bytes)", hint: ".read runs a text file of predicates and commands")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs the lines of a script (a `.read` file, the startup file).
    func runScript(_ text: String, named name: String, key: String) {
        io.reading.append(key)
        defer { io.reading.removeLast() }
        // "\r\n" is one Character: split on it as on "\n".
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        if lines.last == "" { lines.removeLast() }
        runEntries(lines.lazy.map(String.init), in: name)
    }

    /// Runs a script's lines (a file's, piped standard input's) as entries: an entry spans
    /// lines as a typed one does (an open bracket or quote goes on), and a failure names its
    /// first line. False when the script quit.
    @discardableResult
    func runEntries(_ lines: some Sequence<String>, in name: String) -> Bool {
        var pending = PendingInput()
        var number = 0, first = 1
        for var line in lines {
            number += 1
            // A byte order mark (editors on Windows write one) is no part of the first entry.
            if number == 1, line.unicodeScalars.first == "\u{FEFF}" { line = String(line.unicodeScalars.dropFirst()) }
            if pending.isEmpty { first = number }
            guard pending.add(line) else { continue }
            let entry = pending.text
            pending.clear()
            if !handle(entry, in: name, line: first) { return false }
        }
        // Input that ends inside a bracket or a string runs as it is, for its error.
        return pending.isEmpty || handle(pending.text, in: name, line: first)
    }

    /// Runs an entry of a script (a file, piped standard input); a failure is followed by the
    /// script's name and the entry's first line, as the error's own `line 1` counts in the entry.
    func handle(_ entry: String, in name: String, line: Int) -> Bool {
        let before = failureCount
        let goOn = handle(entry)
        if failureCount > before { errorOutput("note: in \(name), line \(line)") }
        return goOn
    }

    static func unquoted(_ s: String) -> String {
        if s.count >= 2, let q = s.first, q == "'" || q == "\"", s.last == q { return String(s.dropFirst().dropLast()) }
        return s
    }

    static func onOff(_ argument: String, _ command: String) throws -> Bool {
        switch argument.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw ReplError("write \(command) on or \(command) off")
        }
    }
}

/// The startup file run before the first command: `$XDG_CONFIG_HOME/pql/pqlrc` (by default
/// `~/.config/pql/pqlrc`), else `~/.pqlrc`; `--no-rc` skips it.
enum StartupFile {
    static var path: String? {
        let env = ProcessInfo.processInfo.environment
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home as NSString).appendingPathComponent(".config")
        let candidates = [(config as NSString).appendingPathComponent("pql/pqlrc"), (home as NSString).appendingPathComponent(".pqlrc")]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    static func run(in session: ReplSession) {
        guard let path = path else { return }
        do {
            session.runScript(try ReplSession.scriptText(path, path), named: path, key: path)
        } catch {
            session.errorOutput("pql: cannot read the startup file: \(error.message) (--no-rc skips it)")
        }
    }
}

/// `$PAGER` (default `less -FRX`, else `more`) for results taller or wider than the terminal.
enum Pager {
    /// The shell command, or nil when there is no pager.
    static var command: String? {
        if let p = ProcessInfo.processInfo.environment["PAGER"] { return p.trimmingCharacters(in: .whitespaces).isEmpty ? nil : p }
        if onPath("less") { return "less -FRX" }
        return onPath("more") ? "more" : nil
    }

    private static func onPath(_ program: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    /// Whether `text` fits the terminal on standard output, a line kept for the prompt.
    static func fits(_ text: String) -> Bool {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return true }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        if lines.count > Int(size.ws_row) - 1 { return false }
        return lines.allSatisfy { CellText.width(unstyled($0)) <= Int(size.ws_col) }
    }

    /// Without the table's SGR sequences (`ESC [ … m`), which take no room.
    private static func unstyled(_ line: Substring) -> String {
        guard line.contains("\u{1B}") else { return String(line) }
        var out = "", skipping = false
        for c in line {
            if skipping { if c == "m" { skipping = false }; continue }
            if c == "\u{1B}" { skipping = true; continue }
            out.append(c)
        }
        return out
    }

    /// Runs the pager through `/bin/sh` in pql's process group (it reads keys from the
    /// terminal) and waits for it. A pager quit before the end closes the pipe: SIGPIPE is
    /// ignored meanwhile, so that pql is not killed by it.
    static func show(_ text: String, through command: String) {
        fflush(nil)
        let previous = signal(SIGPIPE, SIG_IGN)
        defer {
            signal(SIGPIPE, previous)
            InterruptFlag.clear()
        }
        // The terminal stays held (no echo, not canonical) while the pager runs: a pager sets
        // the modes it needs and gives back those it found, so keys typed after it ends still
        // wait for the prompt. Given the terminal's own settings, keys typed just as it ended
        // were echoed twice, and a Ctrl-D among them was lost (pql waited on).
        guard let status = { () -> Int32? in
            guard let pipe = popen(command, "w") else { return nil }
            var bytes = Array(text.utf8)
            _ = fwrite(&bytes, 1, bytes.count, pipe)
            return pclose(pipe)
        }() else {
            Output.write(text)
            return
        }
        // 127: the shell found no such command (it said so): the result is not lost.
        if (status >> 8) & 0xFF == 127 {
            Output.error("pql: the pager '\(command)' did not run; .pager off, or set PAGER")
            Output.write(text)
        }
    }
}

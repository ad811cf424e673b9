import Foundation
import Testing

/// `pql` at a terminal, driven through a pseudo-terminal as a person would use it: the banner,
/// a query and its table, completion, history across sessions, Ctrl-C and Ctrl-D.
@Suite(.serialized) struct ReplTerminalTests {
    func start(_ arguments: [String] = [], history: String? = nil, columns: Int = 100) throws -> PseudoTerminal {
        var env = DemoCache.environment
        if let history { env["PQL_HISTORY"] = history }
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: arguments, environment: env, columns: columns, rows: 40)
        // The demo store may be built on first use; after that the prompt comes at once.
        #expect(t.waitFor("Flight> ", timeout: 120), "no prompt: \(t.screen.text)")
        return t
    }

    @Test func opensOnTheDemoAndPrintsATable() throws {
        let t = try start(columns: 80)
        defer { t.kill() }
        let screen = t.screen.text
        #expect(screen.contains("the nycflights13 demo"), "\(screen)")
        #expect(screen.contains("Flight (336,776)"), "\(screen)")
        #expect(screen.contains(".help lists the commands"), "\(screen)")
        t.type("origin == 'JFK' AND dep_delay > 1000")
        t.press(.enter)
        #expect(t.waitFor("4 rows ("), "\(t.screen.text)")
        let lines = t.screen.lines
        // An 80-column terminal shows the columns that fit and names the rest.
        #expect(lines.contains { $0.hasPrefix("year  month  day  dep_time") }, "\(t.screen.text)")
        #expect(lines.allSatisfy { CellWidth.of($0) <= 80 }, "\(t.screen.text)")
        // The note naming them fits on one line: one that wrapped sent this 4-row table to the pager.
        #expect(lines.contains { $0.hasPrefix("(") && $0.hasSuffix(", …; .columns chooses)") },
                "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }

    @Test func tabCompletesCommandsEntitiesAndKeyPaths() throws {
        let t = try start()
        defer { t.kill() }
        t.type(".us")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .use "), "\(t.screen.text)")
        t.type("Airl")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .use Airline "), "\(t.screen.text)")
        t.press(.enter)
        #expect(t.waitForLine("Airline> "))
        t.type(".use Flight")
        t.press(.enter)
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        t.type("airl")
        t.press(.tab)
        #expect(t.waitForLine("Flight> airline."), "\(t.screen.text)")
        t.type("na")
        t.press(.tab)
        #expect(t.waitForLine("Flight> airline.name "), "\(t.screen.text)")
        t.type("BEGINSW")
        t.press(.tab)
        #expect(t.waitForLine("Flight> airline.name BEGINSWITH "), "\(t.screen.text)")
        t.type("'Haw'")
        t.press(.enter)
        #expect(t.waitFor("of 342 …"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // Several candidates are listed when nothing can be added.
        t.type("dep_")
        t.press(.tab)
        t.press(.tab)
        #expect(t.waitFor("dep_delay"), "\(t.screen.text)")
        #expect(t.waitFor("dep_time"), "\(t.screen.text)")
        // Ctrl-C right after the keys, while the list may still be being drawn: it must not be
        // lost between two reads of the terminal (it once was, and .quit joined the old line).
        t.press(.ctrlC)
        #expect(t.waitUntil { $0.lines.contains { $0.hasSuffix("^C") } }, "\(t.screen.text)")
        // Keys typed before libedit is reading again would meet the terminal in cooked mode.
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        t.type(".quit")
        t.press(.enter)
        #expect(t.waitForExit() == 0, "\(t.screen.text)\n---raw---\n\(t.output.suffix(600).debugDescription)")
    }

    @Test func aPostgreSQLPasswordStaysOutOfTheScreenAndTheHistory() throws {
        let history = DemoCache.directory + "/history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: history) }
        let t = try start(history: history, columns: 160)
        defer { t.kill() }
        // Port 1 answers no one: the connection fails at once, and the error names the URL.
        t.type(".open postgres://me:hunter2@127.0.0.1:1/nowhere?sslmode=disable")
        t.press(.enter)
        #expect(t.waitFor("cannot reach the PostgreSQL server"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
        let screen = t.screen.text
        // pql shows the URL without its password (the history keeps *** where it goes).
        #expect(screen.contains("postgres://me@127.0.0.1:1/nowhere"), "\(screen)")
        // The typed line itself was on the screen; nothing pql printed repeats the password.
        #expect(screen.components(separatedBy: "hunter2").count == 2, "\(screen)")
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        // libedit's file spells the space \040.
        #expect(kept.contains("postgres://me:***@127.0.0.1:1/nowhere?sslmode=disable"), "\(kept)")
        #expect(!kept.contains("hunter2"), "\(kept)")
    }

    @Test func historyPersistsAcrossSessions() throws {
        let history = DemoCache.directory + "/history-\(UUID().uuidString)"
        do {
            let t = try start(history: history)
            t.type("dest == 'HNL' AND dep_delay > 300")
            t.press(.enter)
            #expect(t.waitFor(" ms)"), "\(t.screen.text)")
            #expect(t.waitForLine("Flight> "))
            t.press(.ctrlD)
            #expect(t.waitForExit() == 0)
        }
        let t = try start(history: history)
        defer { t.kill() }
        t.press(.up)
        #expect(t.waitForLine("Flight> dest == 'HNL' AND dep_delay > 300"), "\(t.screen.text)")
        t.press(.enter)
        #expect(t.waitFor(" ms)"), "\(t.screen.text)")
    }

    /// A history path that is not a regular file (libedit read /dev/zero until memory ran out)
    /// or is too large to be one is neither read nor written: the session says so and works.
    @Test func historyIsOnlyARegularFileOfSaneSize() throws {
        let dir = DemoCache.directory + "/history-odd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let large = dir + "/large"
        let bytes = Data(repeating: 0x61, count: 5 << 20)
        try bytes.write(to: URL(fileURLWithPath: large))
        for (path, reason) in [("/dev/zero", "it is a device"), (fifo, "it is a pipe"), (dir, "it is a directory"), (large, "it holds 5 MiB")] {
            var env = DemoCache.environment
            env["PQL_HISTORY"] = path
            let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: [], environment: env, columns: 120, rows: 40)
            defer { t.kill() }
            #expect(t.waitFor("Flight> ", timeout: 60), "\(path): \(t.screen.text)")
            #expect(t.screen.text.contains("not keeping history in \(path): \(reason)"), "\(t.screen.text)")
            t.type("dest == 'HNL' AND dep_delay > 1000")
            t.press(.enter)
            #expect(t.waitFor("1 row"), "\(t.screen.text)")
            #expect(t.waitForLine("Flight> "))
            t.press(.ctrlD)
            #expect(t.waitForExit() == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: large)) == bytes)
    }

    /// `PQL_HISTORY` naming a file that is not a history file (notes, through a symbolic link
    /// too) left it holding the session's lines instead of its own, at mode 0600. Such a file is
    /// neither read nor written; an empty one, or one libedit wrote, is the history.
    @Test func historyIsNeverAnotherFile() throws {
        let dir = DemoCache.directory + "/history-notes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notes = dir + "/notes.txt", link = dir + "/link", empty = dir + "/empty"
        let text = "buy milk\ncall Ann\n"
        try text.write(toFile: notes, atomically: true, encoding: .utf8)
        #expect(chmod(notes, 0o644) == 0)
        #expect(symlink(notes, link) == 0)
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for (path, kept) in [(notes, false), (link, false), (empty, true), (empty, true)] {
            var env = DemoCache.environment
            env["PQL_HISTORY"] = path
            let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: [], environment: env, columns: 160, rows: 40)
            defer { t.kill() }
            #expect(t.waitFor("Flight> ", timeout: 60), "\(path): \(t.screen.text)")
            #expect(t.screen.text.contains("not keeping history in \(path): it is not a history file") == !kept, "\(t.screen.text)")
            t.type(".count dest == 'HNL'")
            t.press(.enter)
            #expect(t.waitFor("707"), "\(t.screen.text)")
            #expect(t.waitForLine("Flight> "))
            t.press(.ctrlD)
            #expect(t.waitForExit() == 0)
        }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == text)
        var info = stat()
        #expect(stat(notes, &info) == 0 && info.st_mode & 0o777 == 0o644)
        // The empty file became the history, and the second session read it back.
        #expect(try String(contentsOfFile: empty, encoding: .utf8).hasPrefix("_HiStOrY_V2_\n"))
    }

    @Test func ctrlCCancelsARunningQueryAndTheLine() throws {
        // No work limit: only Ctrl-C stops the long query below.
        let t = try start(["--max-steps", "0"])
        defer { t.kill() }
        // Ctrl-C at the prompt drops the half-typed line.
        t.type("dep_delay > ")
        #expect(t.waitForLine("Flight> dep_delay > "), "\(t.screen.text)")
        let row = t.screen.cursorRow
        t.press(.ctrlC)
        // A fresh, empty prompt below the dropped line.
        #expect(t.waitUntil { $0.cursorRow > row && $0.cursorLine == "Flight>" && $0.cursorColumn == 8 }, "\(t.screen.text)")
        // A correlated subquery over every airline's flights for each flight: hours of work.
        t.type("SUBQUERY(airline.flights, $f, $f.dep_delay > dep_delay).@count > 100000000")
        t.press(.enter)
        usleep(1_500_000)
        t.press(.ctrlC)
        #expect(t.waitFor("Interrupted.", timeout: 30), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        t.type(".count dep_delay > 1000")
        t.press(.enter)
        #expect(t.waitUntil { $0.lines.contains("5") }, "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }
}

extension ReplTerminalTests {
    /// A Ctrl-C that lands while libedit redraws the line after a completion, between two reads
    /// of the terminal, ends the line. It was lost: the signal broke no read, and the next one
    /// waited on (without the fix this failed every time).
    @Test func ctrlCDuringARedrawIsNotLost() throws {
        let t = try startWithSlowWrites()
        defer { t.kill() }
        t.type("dep_")
        t.press(.tab)
        // The list of candidates (the banner names dep_delay, not dep_time); the redraw follows.
        #expect(t.waitFor("dep_time", timeout: 60), "\(t.screen.text)")
        usleep(20_000)
        t.press(.ctrlC)
        // ^C ends whatever part of the line had been redrawn, and a fresh prompt follows.
        #expect(t.waitUntil(timeout: 60) { $0.lines.contains { $0.hasSuffix("^C") } }, "\(t.screen.text)")
        #expect(t.waitForLine("Flight> ", timeout: 60), "\(t.screen.text)")
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }

    /// Keys typed while a result prints wait for the next read and show once (the terminal
    /// echoed them a second time); a Ctrl-D among them ends the session (it reached libedit as a
    /// NUL byte and was lost, and the session waited on); the terminal's own modes come back.
    @Test func keysTypedWhileAResultPrintsWaitForThePrompt() throws {
        let t = try startWithSlowWrites()
        defer { t.kill() }
        t.type("origin == 'JFK' AND dep_delay > 1000")
        t.press(.enter)
        // The table has begun to print, 100 ms a write: type the next entry and leave.
        #expect(t.waitFor("dep_time", timeout: 60), "\(t.screen.text)")
        let next = ".count dest == 'HNL' AND dep_delay > 1000"
        t.type(next)
        t.press(.enter)
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0, "\(t.screen.text)")
        #expect(t.screen.text.contains("4 rows ("), "\(t.screen.text)")
        #expect(t.screen.lines.contains("1"), "\(t.screen.text)")
        #expect(t.screen.text.components(separatedBy: next).count == 2, "\(t.screen.text)")
        let modes = try #require(t.localModes)
        #expect(modes & tcflag_t(ICANON) != 0 && modes & tcflag_t(ECHO) != 0, "local modes \(String(modes, radix: 16))")
    }

    /// `pql` under strace, at its first prompt; strace delays every write it makes by 100 ms: long enough for a key
    /// to land inside a redraw or while a result prints. strace is a test dependency, from
    /// scripts/ensure-system-packages --tests.
    func startWithSlowWrites() throws -> PseudoTerminal {
        let strace = URL(fileURLWithPath: "/usr/bin/strace")
        try #require(FileManager.default.isExecutableFile(atPath: strace.path),
                     "strace is missing: scripts/ensure-system-packages --tests installs it")
        // Build the demo store first, at full speed: building it writes a great deal.
        let warm = try PQLProcess.run(["-c", ".count"], environment: DemoCache.environment)
        #expect(warm.status == 0, "\(warm.stderr)")
        let t = try PseudoTerminal(executable: strace,
                                   arguments: ["-o", "/dev/null", "-e", "inject=write:delay_enter=100000",
                                               PQLProcess.binary.path],
                                   environment: DemoCache.environment, columns: 100, rows: 40)
        #expect(t.waitForLine("Flight> ", timeout: 120), "\(t.screen.text)")
        return t
    }

    /// Eight SUBQUERYs nested over a row's 30-element array: 30⁸ tests inside one row.
    static let expensiveRow = (1...8).reversed().reduce("$v8 > 0") { inner, level in
        "SUBQUERY(xs, $v\(level), \(inner)).@count > 0"
    }

    @Test func ctrlCStopsAnExpensiveRowInMemory() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pql-expensive-\(UUID().uuidString).json")
        try Data(("[{\"xs\": [" + (0..<30).map(String.init).joined(separator: ", ") + "]}]").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let name = file.deletingPathExtension().lastPathComponent.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        var env = DemoCache.environment
        env["PQL_HISTORY"] = FileManager.default.temporaryDirectory.appendingPathComponent("pql-h-\(UUID().uuidString)").path
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: [file.path, "--max-steps", "0"],
                                   environment: env, columns: 200, rows: 40)
        defer { t.kill() }
        let prompt = String(name) + "> "
        #expect(t.waitForLine(prompt), "\(t.screen.text)")
        t.type(Self.expensiveRow)
        t.press(.enter)
        usleep(500_000)
        t.press(.ctrlC)
        // Days of work in one row: stopped at once (the evaluation checks every few thousand
        // steps); before, it went on for as long as it took.
        #expect(t.waitFor("Interrupted.", timeout: 10), "\(t.screen.text)")
        #expect(t.waitForLine(prompt), "\(t.screen.text)")
        // The same row under the default limit: an error naming the limit, by itself.
        t.type(".limits steps 1000000")
        t.press(.enter)
        t.type(Self.expensiveRow)
        t.press(.enter)
        #expect(t.waitFor("steps, its limit", timeout: 30), "\(t.screen.text)")
        #expect(t.waitFor("at: row 1"), "\(t.screen.text)")
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }
}

extension PseudoTerminal {
    /// Waits until the cursor's line reads `text` (trailing spaces included) with the cursor at its end.
    func waitForLine(_ text: String, timeout: Double = 20) -> Bool {
        waitUntil(timeout: timeout) { $0.cursorLine == text.replacingOccurrences(of: " +$", with: "", options: .regularExpression) && $0.cursorColumn == CellWidth.of(text) }
    }
}

/// Terminal cells of a screen line (wide characters take two).
enum CellWidth {
    static func of(_ s: String) -> Int {
        s.unicodeScalars.reduce(0) { $0 + (($1.value >= 0x1100 && $1.properties.isEmojiPresentation) || (0x4E00...0x9FFF).contains($1.value) ? 2 : 1) }
    }
}

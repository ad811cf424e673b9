import Foundation
import Testing

/// Signals at the REPL: the terminal gets its settings back, however pql ends. `kill -TERM`
/// before the first entry left ICANON and ECHO off; `kill -HUP` left the terminal raw after a
/// query; Ctrl-\ printed the Swift runtime's "Program crashed: Signal 3" and waited 30 s.
/// SIGTERM and SIGHUP stop a running query as Ctrl-C does, then end pql with 128 + the signal.
@Suite(.serialized) struct ReplSignalTests {
    func start(_ body: (PseudoTerminal, String) throws -> Void) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pql-signals-\(UUID().uuidString).json")
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
        try body(t, prompt)
    }

    func expectCookedTerminal(_ t: PseudoTerminal) throws {
        let modes = try #require(t.localModes)
        #expect(modes & tcflag_t(ICANON) != 0 && modes & tcflag_t(ECHO) != 0, "local modes \(String(modes, radix: 16))")
    }

    @Test func aKillBeforeTheFirstEntryGivesTheTerminalBack() throws {
        try start { t, _ in
            kill(t.pid, SIGTERM)
            #expect(t.waitForExit() == 143, "\(t.screen.text)")
            try expectCookedTerminal(t)
        }
    }

    @Test func aHangupAfterAQueryGivesTheTerminalBack() throws {
        try start { t, prompt in
            t.type("xs.@count == 30")
            t.press(.enter)
            #expect(t.waitFor("1 row"), "\(t.screen.text)")
            #expect(t.waitForLine(prompt), "\(t.screen.text)")
            kill(t.pid, SIGHUP)
            #expect(t.waitForExit() == 129, "\(t.screen.text)")
            try expectCookedTerminal(t)
        }
    }

    @Test func ctrlBackslashQuitsWithoutACrashReport() throws {
        try start { t, _ in
            t.type("xs.@count")
            t.press(PseudoTerminal.Key(bytes: "\u{1C}"))
            #expect(t.waitForExit(timeout: 20) == 128 + SIGQUIT, "\(t.screen.text)")
            #expect(!t.screen.text.contains("crashed"), "\(t.screen.text)")
            try expectCookedTerminal(t)
        }
    }

    @Test func aKillDuringAQueryStopsItThenEndsPql() throws {
        try start { t, _ in
            t.type(ReplTerminalTests.expensiveRow)
            t.press(.enter)
            usleep(500_000)
            kill(t.pid, SIGTERM)
            // Days of work in one row: stopped as Ctrl-C stops it, then pql ends.
            #expect(t.waitFor("Interrupted.", timeout: 10), "\(t.screen.text)")
            #expect(t.waitForExit(timeout: 20) == 143, "\(t.screen.text)")
            try expectCookedTerminal(t)
        }
    }
}

import Foundation
import Testing

/// `.output`, `.once` and the pager at a terminal, through a pseudo-terminal. The pager is a
/// shell command that writes what it is given to a file, so that a test sees whether it ran.
@Suite(.serialized) struct ReplOutputTerminalTests {
    func scratch() throws -> URL { try scratchDirectory("pql-pager") }

    func start(pagerFile: URL, pager: String? = nil) throws -> PseudoTerminal {
        var env = DemoCache.environment
        env["PAGER"] = pager ?? "cat > '\(pagerFile.path)'"
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: ["--no-history"], environment: env, columns: 100, rows: 30)
        #expect(t.waitFor("Flight> ", timeout: 120), "no prompt: \(t.screen.text)")
        return t
    }

    func enter(_ t: PseudoTerminal, _ line: String) {
        t.type(line)
        t.press(.enter)
    }

    func contents(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    @Test func longAndWideResultsArePagedUnlessOff() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paged = dir.appendingPathComponent("paged.txt")
        let t = try start(pagerFile: paged)
        defer { t.kill() }
        enter(t, ".columns carrier, dep_delay")
        enter(t, ".sort dep_delay desc")
        // 3 rows fit a 30-line terminal: no pager.
        enter(t, ".limit 3")
        enter(t, "dep_delay > 60")
        #expect(t.waitFor("rows 1–3 of 26,581"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        #expect(contents(paged) == nil, "a result that fits is not paged")
        // 40 rows do not: the pager gets the table and its count.
        enter(t, ".limit 40")
        enter(t, "dep_delay > 60")
        #expect(t.waitUntil { _ in self.contents(paged)?.contains("rows 1–40 of 26,581") == true }, "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        let text = contents(paged) ?? ""
        #expect(text.contains("HA            1301\n"), "\(text)")
        #expect(!t.screen.text.contains("rows 1–40"), "\(t.screen.text)")
        try FileManager.default.removeItem(at: paged)
        // Wider than the terminal (JSON Lines of every column): paged too.
        enter(t, ".columns all")
        enter(t, ".format jsonl")
        enter(t, ".limit 2")
        enter(t, "dep_delay > 60")
        #expect(t.waitUntil { _ in self.contents(paged)?.contains("\"carrier\":\"HA\"") == true }, "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        try FileManager.default.removeItem(at: paged)
        // .pager off: on the screen.
        enter(t, ".format table")
        enter(t, ".columns carrier, dep_delay")
        enter(t, ".pager off")
        enter(t, ".limit 40")
        enter(t, "dep_delay > 60")
        #expect(t.waitFor("rows 1–40 of 26,581"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        #expect(contents(paged) == nil, "no pager after .pager off")
        enter(t, ".pager")
        #expect(t.waitFor("pager off: cat > "), "\(t.screen.text)")
        enter(t, ".quit")
        #expect(t.waitForExit() == 0)
    }

    @Test func outputAndOnceWriteFilesNotTheScreenOrThePager() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paged = dir.appendingPathComponent("paged.txt"), once = dir.appendingPathComponent("once.txt"), all = dir.appendingPathComponent("all.csv")
        let t = try start(pagerFile: paged)
        defer { t.kill() }
        enter(t, ".columns carrier, flight, dep_delay")
        enter(t, ".sort dep_delay desc")
        enter(t, ".once \(once.path)")
        enter(t, "dep_delay > 1100")
        #expect(t.waitFor("3 rows ("), "the count stays on the screen: \(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // Plain text in the file: no styling, no count.
        #expect(contents(once) == "carrier  flight  dep_delay\n-------  ------  ---------\nHA           51       1301\nMQ         3535       1137\nMQ         3695       1126\n",
                "\(contents(once) ?? "nil")")
        #expect(!t.screen.text.contains("HA           51"), "\(t.screen.text)")
        // The next result is on the screen again.
        enter(t, "dep_delay > 1130")
        #expect(t.waitFor("HA           51       1301"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // .output: every result, even one that would be paged, until .output alone.
        enter(t, ".format csv")
        enter(t, ".output \(all.path)")
        enter(t, ".limit 60")
        enter(t, "dep_delay > 60")
        enter(t, "dep_delay > 1130")
        #expect(t.waitUntil { _ in self.contents(all)?.hasSuffix("carrier,flight,dep_delay\nHA,51,1301\nMQ,3535,1137\n") == true }, "\(contents(all) ?? "nil")")
        #expect(t.waitForLine("Flight> "))
        #expect(contents(all)?.split(separator: "\n").count == 61 + 3, "\(contents(all) ?? "nil")")
        enter(t, ".output")
        enter(t, ".limit 1")
        enter(t, "dep_delay > 1130")
        #expect(t.waitFor("HA,51,1301"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        #expect(contents(paged) == nil, "nothing was paged")
        #expect(contents(all)?.split(separator: "\n").count == 64)
        enter(t, ".quit")
        #expect(t.waitForExit() == 0)
    }

    @Test func tabCompletesTheNewCommandsAndTheirWords() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let t = try start(pagerFile: dir.appendingPathComponent("paged.txt"))
        defer { t.kill() }
        t.type(".nullv")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .nullvalue "), "\(t.screen.text)")
        t.press(.ctrlC)
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        t.type(".headers of")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .headers off "), "\(t.screen.text)")
        t.press(.enter)
        t.type(".format mark")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .format markdown "), "\(t.screen.text)")
        t.press(.enter)
        enter(t, ".columns carrier, flight")
        enter(t, "dep_delay > 1130")
        #expect(t.waitFor("| HA | 51 |"), "markdown keeps its header whatever .headers says: \(t.screen.text)")
        #expect(t.screen.text.contains("| carrier | flight |"), "\(t.screen.text)")
        enter(t, ".quit")
        #expect(t.waitForExit() == 0)
    }

    /// Keys typed while the pager runs wait for the prompt, shown once, and a Ctrl-D among them
    /// ends the session: the terminal was given its own settings for the pager, so the keys were
    /// echoed as they came and the Ctrl-D became an end-of-file mark, lost (pql waited on).
    @Test func keysTypedWhileThePagerRunsWaitForThePrompt() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paged = dir.appendingPathComponent("paged.txt"), running = dir.appendingPathComponent("running")
        let t = try start(pagerFile: paged, pager: "touch '\(running.path)'; sleep 1; cat > '\(paged.path)'")
        defer { t.kill() }
        enter(t, ".columns carrier, dep_delay")
        enter(t, ".limit 40")
        enter(t, "dep_delay > 60")
        #expect(t.waitUntil(timeout: 60) { _ in FileManager.default.fileExists(atPath: running.path) }, "\(t.screen.text)")
        let next = ".count dest == 'HNL' AND dep_delay > 1000"
        enter(t, next)
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0, "\(t.screen.text)")
        #expect(contents(paged)?.contains("rows 1–40 of 26,581") == true, "\(contents(paged) ?? "nil")")
        #expect(t.screen.lines.contains("1"), "\(t.screen.text)")
        #expect(t.screen.text.components(separatedBy: next).count == 2, "\(t.screen.text)")
        let modes = try #require(t.localModes)
        #expect(modes & tcflag_t(ICANON) != 0 && modes & tcflag_t(ECHO) != 0, "local modes \(String(modes, radix: 16))")
    }

    @Test func aPagerThatDoesNotRunLosesNothing() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let t = try start(pagerFile: dir.appendingPathComponent("paged.txt"), pager: "no-such-pager-\(getpid())")
        defer { t.kill() }
        enter(t, ".columns carrier, dep_delay")
        enter(t, ".limit 40")
        enter(t, ".sort dep_delay desc")
        enter(t, "dep_delay > 60")
        #expect(t.waitFor("rows 1–40 of 26,581"), "the result is printed: \(t.screen.text)")
        #expect(t.output.contains("pql: the pager 'no-such-pager-"), "\(t.output.suffix(3000))")
        #expect(t.waitForLine("Flight> "))
        enter(t, ".quit")
        #expect(t.waitForExit() == 0)
    }
}

import Foundation
import PQLTestSupport
import Testing

/// `pql` for scripts: `--version`, `-c` (repeated, in order), the startup file and `--no-rc`,
/// `.read`, `.output` and `.once`, and the exit status.
@Suite(.serialized) struct ReplScriptingTests {
    /// A scratch home (no startup file unless a test writes one), removed by the caller.
    func home() throws -> URL { try scratchDirectory("pql-script") }

    func run(_ arguments: [String], home: URL, stdin: String? = nil) throws -> PQLProcess {
        try PQLProcess.run(arguments, home: home, stdin: stdin)
    }

    func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func versionIsOneLine() throws {
        let r = try PQLProcess.run(["--version"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.wholeMatch(of: /pql \d+\.\d+\.\d+\n/) != nil, "\(r.stdout)")
        #expect(r.stderr.isEmpty)
    }

    @Test func commandsRunInOrderWithoutBannerThenExit() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let r = try run([":demo:", "-c", ".use Airline", "-c", ".count", "-c", ".columns carrier", "--command", "-1 < 0 AND carrier BEGINSWITH 'A'", "-c", ".sort carrier desc",
                         "-c", "carrier BEGINSWITH 'A'"], home: h, stdin: ".count\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "using Airline\n16\ncarrier\n-------\nAA\nAS\n2 rows\ncarrier\n-------\nAS\nAA\n2 rows\n", "\(r.stdout)")
        #expect(!r.stdout.contains("pql: Apple's"), "no banner")
        let noFile = try run(["-c", ".count dest == 'HNL'"], home: h)
        #expect(noFile.stdout == "707\n", "the demo without FILE: \(noFile.stdout) \(noFile.stderr)")
    }

    @Test func exitStatusIsOneWhenAnyCommandFailed() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let r = try run(["-c", "orgin == 'JFK'", "-c", ".count dest == 'HNL'", "-c", ".nosuch"], home: h)
        #expect(r.status == 1)
        #expect(r.stdout == "707\n", "later commands still run: \(r.stdout)")
        #expect(r.stderr.contains("did you mean 'origin'?"), "\(r.stderr)")
        #expect(r.stderr.contains("unknown command '.nosuch'"), "\(r.stderr)")
        let quit = try run(["-c", ".quit", "-c", "orgin == 1"], home: h)
        #expect(quit.status == 0, "nothing runs after .quit: \(quit.stderr)")
        let piped = try run([], home: h, stdin: ".count dest == 'HNL'\norgin == 1\n")
        #expect(piped.status == 1)
        #expect(piped.stdout == "707\n")
    }

    /// A script gets every row, as sqlite3 and psql give them (a person at a terminal sees a
    /// page of 20), and numbers it can parse.
    @Test func scriptsGetEveryRowAndPlainCounts() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let r = try run(["-c", ".format csv", "-c", "dest == 'HNL'", "-c", ".count origin == 'JFK'"], home: h)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1 + 707 + 1, "a header, 707 flights, the count: \(lines.count) lines")
        #expect(lines.last == "111279")
        let paged = try run(["-c", ".limit 3", "-c", ".format csv", "-c", "dest == 'HNL'"], home: h)
        #expect(paged.stdout.split(separator: "\n").count == 4, "\(paged.stdout)")
    }

    /// Results that cannot be written are an error, never a crash or a silent success.
    @Test func failedWritesEndWithStatusOne() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { Issue.record("this test needs /dev/full"); return }
        for arguments in [["-c", "dest == 'HNL'"], ["query", ":demo:", "--entity", "Airline"], ["query", ":demo:", "--entity", "Airline", "--format", "box"],
                          ["help", "language"], ["--version"], ["query", ":demo:", "--entity", "Airline", "--count"]] {
            let r = try ChildProcess.run(PQLProcess.binary.path, arguments, environment: DemoCache.environment, stdout: .file("/dev/full"))
            let message = r.stderrText
            #expect(r.signal == nil && r.status == 1, "\(arguments): signal \(r.signal ?? 0), status \(r.status) \(message)")
            #expect(message == "pql: cannot write to standard output: No space left on device\n", "\(arguments): \(message)")
        }
    }

    @Test func startupFileRunsFirstUnlessNoRC() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        // ~/.pqlrc when there is no XDG one.
        try write(".use Airline\n.format csv\n", to: h.appendingPathComponent(".pqlrc"))
        let dotfile = try run(["-c", "carrier == 'HA'"], home: h)
        #expect(dotfile.status == 0, "\(dotfile.stderr)")
        #expect(dotfile.stdout == "using Airline\ncarrier,name\nHA,Hawaiian Airlines Inc.\n", "\(dotfile.stdout)")
        let skipped = try run(["--no-rc", "-c", ".count"], home: h)
        #expect(skipped.stdout == "336776\n", "\(skipped.stdout)")
        // $XDG_CONFIG_HOME/pql/pqlrc comes first; a failing line is reported with its place.
        let rc = h.appendingPathComponent(".config/pql/pqlrc")
        try write("-- the airports\n.use Airport\n.limit many\n", to: rc)
        let xdg = try run(["-c", ".count faa BEGINSWITH 'JF'"], home: h)
        #expect(xdg.stdout == "using Airport\n1\n", "\(xdg.stdout)")
        #expect(xdg.stderr.contains("error: .limit needs a number, 0 or more"), "\(xdg.stderr)")
        #expect(xdg.stderr.contains("note: in \(rc.path), line 3"), "\(xdg.stderr)")
        #expect(xdg.status == 1)
        // Piped scripts run it too.
        let piped = try run([], home: h, stdin: ".count faa BEGINSWITH 'JF'\n")
        #expect(piped.stdout == "using Airport\n1\n", "\(piped.stdout)")
        let pipedNoRC = try run(["--no-rc"], home: h, stdin: ".count faa BEGINSWITH 'JF'\n")
        #expect(pipedNoRC.status == 1)
        #expect(pipedNoRC.stderr.contains("no such key") || pipedNoRC.stderr.contains("not found"), "Flight has no faa: \(pipedNoRC.stderr)")
    }

    @Test func readRunsScriptsNestedAndNotRecursive() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let outer = h.appendingPathComponent("outer.pql"), inner = h.appendingPathComponent("inner.pql"), loop = h.appendingPathComponent("loop.pql")
        try write(".use Airline\r\n.read \(inner.path)\nnosuch == 1\n.columns carrier\ncarrier == 'HA'\n", to: outer)
        try write(".format csv\n# a comment\n", to: inner)
        try write(".read \(loop.path)\n", to: loop)
        let r = try run(["-c", ".read \(outer.path)", "-c", ".count"], home: h)
        #expect(r.status == 1)
        #expect(r.stdout == "using Airline\ncarrier\nHA\n1\n", "the settings the scripts made stay: \(r.stdout)")
        #expect(r.stderr.contains("keypath 'nosuch' not found"), "\(r.stderr)")
        #expect(r.stderr.contains("note: in \(outer.path), line 3"), "\(r.stderr)")
        let again = try run(["-c", ".read \(loop.path)"], home: h)
        #expect(again.status == 1)
        #expect(again.stderr.contains("is already being read"), "\(again.stderr)")
        // A script's entries span lines as typed ones do; a failure names the entry's first line.
        let multi = h.appendingPathComponent("multi.pql")
        try write(".use Airline\n.columns carrier\ncarrier IN {\n  'HA',\n  'AS'\n}\n(nosuch ==\n 1)\n", to: multi)
        let spanning = try run(["-c", ".format csv", "-c", ".read \(multi.path)"], home: h)
        #expect(spanning.status == 1)
        #expect(spanning.stdout == "using Airline\ncarrier\nAS\nHA\n" || spanning.stdout == "using Airline\ncarrier\nHA\nAS\n", "\(spanning.stdout)")
        #expect(spanning.stderr.contains("note: in \(multi.path), line 7"), "\(spanning.stderr)")
        let missing = try run([], home: h, stdin: ".read \(h.path)/nope.pql\n.read\n")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.pql"), "\(missing.stderr)")
        #expect(missing.stderr.contains("which file?"), "\(missing.stderr)")
    }

    @Test func outputAndOnceSendResultsToFiles() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let all = h.appendingPathComponent("all.csv"), once = h.appendingPathComponent("once.json")
        try "old contents\n".write(to: all, atomically: true, encoding: .utf8)
        let r = try run(["-c", ".use Airline", "-c", ".columns carrier", "-c", ".sort carrier", "-c", ".format csv", "-c", ".output \(all.path)",
                         "-c", "carrier == 'AA'", "-c", "carrier == 'HA'", "-c", ".format json", "-c", ".once \(once.path)", "-c", "carrier == 'UA'",
                         "-c", ".output", "-c", "carrier == 'DL'", "-c", ".format table", "-c", ".output stdout", "-c", "carrier == 'WN'"], home: h)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOf: all, encoding: .utf8) == "carrier\nAA\ncarrier\nHA\n", "emptied first, then every result")
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: once)) as? [[String: String]] == [["carrier": "UA"]])
        #expect(r.stdout == "using Airline\n[\n  {\"carrier\":\"DL\"}\n]\ncarrier\n-------\nWN\n1 row\n", "\(r.stdout)")
        #expect(r.stderr == "1 row\n1 row\n1 row\n1 row\n", "counts stay out of the files: \(r.stderr)")
        let table = h.appendingPathComponent("table.txt")
        let t = try run(["-c", ".use Airline", "-c", ".once \(table.path)", "-c", "carrier == 'AA'"], home: h)
        #expect(try String(contentsOf: table, encoding: .utf8) == "carrier  name\n-------  ----------------------\nAA       American Airlines Inc.\n")
        #expect(t.stdout == "using Airline\n1 row\n", "\(t.stdout)")
        let bad = try run(["-c", ".output \(h.path)/no/such/dir/x.csv", "-c", ".once"], home: h)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("cannot write to"), "\(bad.stderr)")
        #expect(bad.stderr.contains("which file?"), "\(bad.stderr)")
    }

    @Test func groupResultsFollowFormatAndOutputToo() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let file = h.appendingPathComponent("groups.csv")
        let r = try run(["-c", ".format csv", "-c", ".once \(file.path)", "-c", ".group origin n=count:(flight) where dest == 'HNL'",
                         "-c", ".format markdown", "-c", ".group origin n=count:(flight) where dest == 'HNL'"], home: h)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "origin,n\nEWR,365\nJFK,342\n")
        #expect(r.stdout == "| origin | n |\n|---|---|\n| EWR | 365 |\n| JFK | 342 |\n", "\(r.stdout)")
        #expect(r.stderr == "2 groups\n2 groups\n", "\(r.stderr)")
    }
}

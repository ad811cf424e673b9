import Foundation
import Testing

/// Entries that span lines: an open parenthesis, brace or quote continues on the next line, with
/// a continuation prompt at a terminal; the whole entry runs once and is one history entry.
@Suite(.serialized) struct ReplContinuationTests {
    /// The entries of a libedit history file (its first line is a header; spaces are `\040`).
    static func historyEntries(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { $0.replacingOccurrences(of: "\\040", with: " ") }
    }

    @Test func aPredicateSpansLinesAtATerminal() throws {
        let history = DemoCache.directory + "/history-multi-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: history) }
        var env = DemoCache.environment
        env["PQL_HISTORY"] = history
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: [], environment: env, columns: 120, rows: 40)
        defer { t.kill() }
        #expect(t.waitFor("Flight> ", timeout: 120), "\(t.screen.text)")
        t.type("(origin == 'JFK'")
        t.press(.enter)
        // The continuation prompt is as wide as the prompt, so the lines align.
        #expect(t.waitForLine("   ...> "), "\(t.screen.text)")
        t.type("AND dep_delay > 1000)")
        t.press(.enter)
        #expect(t.waitFor("4 rows ("), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        // Ctrl-C at a continuation prompt drops the pending lines: what follows runs alone.
        t.type("dest IN {'HNL',")
        t.press(.enter)
        #expect(t.waitForLine("   ...> "), "\(t.screen.text)")
        t.press(.ctrlC)
        #expect(t.waitForLine("Flight> "), "\(t.screen.text)")
        t.type("dest == 'HNL' AND dep_delay > 1000")
        t.press(.enter)
        #expect(t.waitFor("1 row ("), "\(t.screen.text)")
        #expect(!t.screen.text.contains("error"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // Up twice recalls the two-line entry as one line.
        t.press(.up)
        t.press(.up)
        #expect(t.waitForLine("Flight> (origin == 'JFK' AND dep_delay > 1000)"), "\(t.screen.text)")
        t.press(.ctrlC)
        #expect(t.waitForLine("Flight> "))
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
        #expect(try Self.historyEntries(history) == ["(origin == 'JFK' AND dep_delay > 1000)", "dest == 'HNL' AND dep_delay > 1000"])
    }

    @Test func groupAndDistinctAtATerminal() throws {
        var env = DemoCache.environment
        env["PQL_HISTORY"] = DemoCache.directory + "/history-group-\(UUID().uuidString)"
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: [], environment: env, columns: 120, rows: 40)
        defer { t.kill() }
        #expect(t.waitFor("Flight> ", timeout: 120), "\(t.screen.text)")
        // Average delay per airline, worst first.
        t.type(".group airline.name average:(dep_delay)")
        t.press(.enter)
        #expect(t.waitFor("16 groups ("), "\(t.screen.text)")
        let lines = t.screen.lines
        let first = try #require(lines.firstIndex { $0.hasPrefix("Frontier Airlines Inc.") }, "\(t.screen.text)")
        #expect(lines[first - 2].hasPrefix("airline.name") && lines[first - 2].hasSuffix("average:(dep_delay)"), "\(t.screen.text)")
        #expect(lines[first].hasSuffix("20.215542521994134"), "\(t.screen.text)")
        #expect(lines[first + 1].hasPrefix("ExpressJet Airlines Inc."), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // Which destinations Delta serves from JFK, on two lines.
        t.type(".distinct dest where origin == 'JFK' AND (airline.name")
        t.press(.enter)
        #expect(t.waitForLine("   ...> "), "\(t.screen.text)")
        t.type("BEGINSWITH 'Delta')")
        t.press(.enter)
        #expect(t.waitFor("the first 20 distinct values"), "\(t.screen.text)")
        let after = t.screen.lines
        let header = try #require(after.lastIndex { $0 == "dest" }, "\(t.screen.text)")
        #expect(after[header + 1] == "----" && after[header + 2] == "ATL" && after[header + 3] == "AUS", "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        // The language page, completed and printed at the prompt.
        t.type(".help lang")
        t.press(.tab)
        #expect(t.waitForLine("Flight> .help language "), "\(t.screen.text)")
        t.press(.enter)
        #expect(t.waitFor("RESERVED WORDS"), "\(t.screen.text)")
        #expect(t.waitForLine("Flight> "))
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }

    @Test func pipedEntriesSpanLinesToo() throws {
        let r = try PQLProcess.run([], stdin: Data("""
            .columns carrier, flight, dep_delay
            .sort dep_delay desc
            (origin == 'JFK'
              AND dep_delay > 1000)
            .count dest IN {
              'HNL', 'ANC'
            }
            carrier == 'UA
            ' OR carrier == "X\\"
            (" AND dep_delay > 1000
            -- a comment with an open ( does not continue
            .count origin == 'LGA'

            """.utf8), environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.starts(with: ["carrier  flight  dep_delay", "-------  ------  ---------", "HA           51       1301", "MQ         3535       1137",
                                    "AA          177       1014", "MQ         3075       1005", "4 rows"]), "\(r.stdout)")
        // 715 flights to HNL and ANC; a string spanning lines keeps its newline (no carrier matches).
        #expect(lines[7] == "715" && lines[8] == "0 rows" && lines[9] == "104662", "\(r.stdout)")
    }

    @Test func inputEndingInsideAnEntryIsReported() throws {
        let r = try PQLProcess.run([], stdin: Data("origin == 'JFK' AND (dep_delay > 1000\n".utf8), environment: DemoCache.environment)
        #expect(r.status == 1)
        #expect(r.stderr.contains("error"), "\(r.stderr)")
    }
}

/// `.distinct`: the different values of key paths, through relationships, in SQL and in memory.
@Suite(.serialized) struct DistinctCommandTests {
    @Test func distinctOnTheDemoFollowsRelationships() throws {
        let r = try PQLProcess.run([], stdin: Data("""
            .limit 0
            .distinct dest where origin == "JFK" AND airline.name BEGINSWITH "Delta"
            .limit 3
            .distinct origin, airline.name where dest == 'HNL'
            .distinct airline.name
            .offset 2
            .distinct origin
            .distinct destination where origin == 'JFK'
            .distinct dest origin

            """.utf8), environment: DemoCache.environment)
        #expect(r.status == 1, "\(r.stderr)")
        let blocks = r.stdout.components(separatedBy: "\n").split { $0.contains("distinct") }.map(Array.init)
        let delta = try #require(blocks.first)
        #expect(delta.prefix(4) == ["dest", "----", "ATL", "AUS"], "\(r.stdout)")
        #expect(delta.count == 31 && delta.last == "TPA", "\(r.stdout)")
        #expect(r.stdout.contains("\nTPA\n29 distinct values\n"), "\(r.stdout)")
        #expect(r.stdout.contains("""
            origin  airline.name
            ------  ----------------------
            EWR     United Air Lines Inc.
            JFK     Hawaiian Airlines Inc.
            2 distinct combinations
            """), "\(r.stdout)")
        #expect(r.stdout.contains("""
            airline.name
            ---------------------------
            AirTran Airways Corporation
            Alaska Airlines Inc.
            American Airlines Inc.
            """), "\(r.stdout)")
        #expect(r.stdout.contains("the first 3 distinct values (.limit N or .limit 0 for more)"), "\(r.stdout)")
        // After .offset 2, the third origin of three.
        #expect(r.stdout.contains("origin\n------\nLGA\n1 distinct value after .offset 2\n"), "\(r.stdout)")
        // A misspelt key path gets the nearest names; words without commas are refused.
        #expect(r.stderr.contains("destination"), "\(r.stderr)")
        #expect(r.stderr.contains("separate key paths with commas"), "\(r.stderr)")
    }

    @Test func distinctOnAFileInMemory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-distinct-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("people.jsonl")
        try """
            {"name": "Ann", "city": "Paris", "address": {"country": "FR"}}
            {"name": "Bo", "city": "Lyon", "address": {"country": "FR"}}
            {"name": "Cy", "city": "Paris", "address": {"country": "FR"}}
            {"name": "Di", "city": "Berlin", "address": {"country": "DE"}}
            {"name": "Ed"}

            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run([file.path], stdin: Data("""
            .distinct city
            .distinct address.country, city where name != 'Bo'

            """.utf8), environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            city
            ------
            NULL
            Berlin
            Lyon
            Paris
            4 distinct values
            address.country  city
            ---------------  ------
            NULL             NULL
            DE               Berlin
            FR               Paris
            3 distinct combinations

            """, "\(r.stdout)")
    }
}

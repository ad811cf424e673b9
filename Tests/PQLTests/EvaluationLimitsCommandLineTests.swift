import Foundation
import Testing

/// The work limits and element positions as `pql` users meet them: `pql filter`'s
/// `--max-steps` and `--max-regex-steps`, errors that say which element or line failed, the
/// REPL's `.limits`, and `.columns` / `.sort` refused at once.
@Suite("pql: evaluation limits and error places")
struct EvaluationLimitsCommandLineTests {
    /// A file named `name` in a new directory (the REPL names the entity after the file).
    static func file(_ name: String, _ text: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("pql filter stops a runaway predicate at its default limit, and --max-steps changes it")
    func filterStepLimit() throws {
        let data = try Self.file("one.json", #"[{"x": 1}]"#)
        defer { try? FileManager.default.removeItem(at: data.deletingLastPathComponent()) }
        // 30⁸ tests of one element: days without a limit.
        let r = try PQLProcess.run(["filter", "--max-steps", "2000000", EvaluationLimitsTests.nested, data.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("error: the evaluation took more than 2,000,000 steps, its limit"), "\(r.stderr)")
        #expect(r.stderr.contains("at: element 0 of the array"), "\(r.stderr)")
        #expect(r.stderr.contains("--max-steps"), "\(r.stderr)")
        let ok = try PQLProcess.run(["filter", "--max-steps", "0", "x == 1", data.path])
        #expect(ok.status == 0 && ok.stdout.contains("\"x\": 1"), "\(ok.stderr)")
        let bad = try PQLProcess.run(["filter", "--max-steps", "-1", "x == 1", data.path])
        #expect(bad.status == 2)
    }

    @Test("pql filter sums regex work over the file and names the line in JSON Lines")
    func filterRegexLimitOnJSONLines() throws {
        let line = #"{"s": "\#(String(repeating: "a", count: 32))b"}"#
        let data = try Self.file("rows.jsonl", Array(repeating: line, count: 2_000).joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(at: data.deletingLastPathComponent()) }
        let r = try PQLProcess.run(["filter", "--max-regex-steps", "50000000", "s MATCHES '(a|aa)+$'", data.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("took more than 50,000,000 regex backtracking steps"), "\(r.stderr)")
        #expect(r.stderr.contains("--max-regex-steps"), "\(r.stderr)")
        #expect(r.stderr.range(of: #"at: line [0-9]+\n"#, options: .regularExpression) != nil, "\(r.stderr)")
    }

    @Test("evaluation errors name the element of an array and the line of JSON Lines")
    func errorPlaces() throws {
        let array = try Self.file("a.json", "[\n  {\"age\": 20},\n  {\"age\": \"forty\"}\n]")
        let lines = try Self.file("a.jsonl", "{\"age\": 20}\n\n{\"age\": 30}\n{\"age\": \"forty\"}\n")
        defer { for f in [array, lines] { try? FileManager.default.removeItem(at: f.deletingLastPathComponent()) } }
        let a = try PQLProcess.run(["filter", "age < 30", array.path])
        #expect(a.status == 1)
        #expect(a.stderr == """
            error: cannot order a string against a number
             --> line 1, column 1
              |
            1 | age < 30
              | ^~~~~~~~
              = in: age < 30
              = at: element 1 of the array (0-based, line 3)
              = hint: compare values of one kind; use CAST to convert

            """, "\(a.stderr)")
        let l = try PQLProcess.run(["filter", "age < 30", lines.path])
        #expect(l.stderr.contains("\n  = at: line 4\n"), "\(l.stderr)")
    }

    @Test("the REPL: .limits, the row of an error, .columns and .sort refused at once")
    func repl() throws {
        let data = try Self.file("people.json", #"[{"name": "a", "age": 1}, {"name": "b", "age": "x"}]"#)
        defer { try? FileManager.default.removeItem(at: data.deletingLastPathComponent()) }
        let input = [".limits", ".limits steps 5000 regex 0", ".limits", EvaluationLimitsTests.nested,
                     "age < 5", ".columns nmae", ".sort agee desc", ".columns name", "name == 'a'", ".limits bogus 1"]
        let r = try PQLProcess.run([data.path], stdin: Data((input.joined(separator: "\n") + "\n").utf8))
        #expect(r.status == 1)
        #expect(r.stdout.hasPrefix("steps 200,000,000, regex 1,000,000,000\nsteps 5,000, regex none\n"), "\(r.stdout)")
        #expect(r.stderr.contains("error: the evaluation took more than 5,000 steps, its limit"), "\(r.stderr)")
        #expect(r.stderr.contains("= in: age < 5\n  = at: row 2\n"), "\(r.stderr)")
        #expect(r.stderr.contains("error: keypath 'nmae' not found in people\nhint: did you mean 'name'?"), "\(r.stderr)")
        #expect(r.stderr.contains("error: keypath 'agee' not found in people\nhint: did you mean 'age'?"), "\(r.stderr)")
        // .columns name took effect; the bad ones did not.
        #expect(r.stdout.contains("name\n----\na   \n1 row\n") || r.stdout.contains("name\n----\na\n1 row\n"), "\(r.stdout)")
        #expect(r.stderr.contains("unknown limit 'bogus'"), "\(r.stderr)")
    }

    @Test("the REPL on a store refuses unknown .columns and .sort key paths with a suggestion")
    func replOnAStore() throws {
        let r = try PQLProcess.run([], stdin: Data(".columns carrier, airline.nme\n.sort dep_dela desc\n.columns carrier\n.limit 1\n.sort dep_delay desc\ndep_delay > 1000\n".utf8),
                                   environment: DemoCache.environment)
        #expect(r.stderr.contains("keypath 'nme' not found in entity Airline"), "\(r.stderr)")
        #expect(r.stderr.contains("did you mean 'name'?"), "\(r.stderr)")
        #expect(r.stderr.contains("keypath 'dep_dela' not found in entity Flight"), "\(r.stderr)")
        #expect(r.stdout.contains("carrier\n-------\nHA"), "\(r.stdout)")
    }
}

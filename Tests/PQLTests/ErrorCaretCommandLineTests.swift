import Foundation
import Testing

/// What `pql` users see of errors: the caret under the sub-expression at fault, the same
/// rendering for syntax, evaluation and store errors.
@Suite("pql error carets")
struct ErrorCaretCommandLineTests {
    @Test("pql query: an unknown key in the store, the caret under the key path")
    func queryUnknownKey() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "dep_delay == 1 AND nosuch.key > 2", "--count"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("""
            error: keypath 'nosuch' not found in entity Flight
             --> line 1, column 20
              |
            1 | dep_delay == 1 AND nosuch.key > 2
              |                    ^~~~~~~~~~
            """), "\(r.stderr)")
    }

    @Test("pql query: CRLF and wide characters keep the caret in place")
    func queryCRLFAndWide() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "carrier == '名前' AND\r\n  airline.nme == 1", "--count"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\n2 |   airline.nme == 1\n  |   ^~~~~~~~~~~\n"), "\(r.stderr)")
        let wide = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "carrier == '名前' AND nosuch > 1", "--count"])
        #expect(wide.stderr.contains("\n  | " + String(repeating: " ", count: 22) + "^~~~~~\n"), "\(wide.stderr)")
    }

    @Test("pql filter: a run-time error, the caret under the failing sub-expression")
    func filterRunTime() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pql-caret-\(UUID().uuidString).json")
        try Data(#"[{"a": 1, "b": 2}, {"a": 1, "b": "x"}]"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try PQLProcess.run(["filter", "a == 1 AND b + 1 > 2", file.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("""
            1 | a == 1 AND b + 1 > 2
              |            ^~~~~
              = in: b + 1 > 2
              = at: element 1 of the array (0-based, line 1)
            """), "\(r.stderr)")
    }

    @Test("pql query: an error raised while SQLite runs the query, the caret under the failing sub-expression")
    func queryRunTime() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where",
                                    "origin == 'JFK' AND dep_delay * 9223372036854775807 > 0", "--count"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("""
            error: integer overflow: 2 * 9223372036854775807 does not fit in 64 bits
             --> line 1, column 21
              |
            1 | origin == 'JFK' AND dep_delay * 9223372036854775807 > 0
              |                     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
            """), "\(r.stderr)")
    }

    @Test("pql format: syntax errors through the same renderer")
    func formatSyntax() throws {
        let r = try PQLProcess.run(["format", "名前 == 1 AND"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("1 | 名前 == 1 AND\n  |              ^\n"), "\(r.stderr)")
    }

    @Test("pql query prints Booleans as true and false")
    func booleansInOutput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-bool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("t.json")
        try Data(#"[{"name": "a", "ok": true}, {"name": "b", "ok": false}]"#.utf8).write(to: data)
        let store = dir.appendingPathComponent("s.sqlite").path
        let i = try PQLProcess.run(["import", store, data.path, "--entity", "T"])
        #expect(i.status == 0, "\(i.stderr)")
        let q = try PQLProcess.run(["query", store, "--entity", "T", "--where", "ok == YES"])
        #expect(q.status == 0, "\(q.stderr)")
        #expect(q.stdout.contains("\"ok\":true") || q.stdout.contains("\"ok\": true"), "\(q.stdout)")
        #expect(!q.stdout.contains("\"ok\":1"), "\(q.stdout)")
    }
}

import Foundation
import Testing

/// Elements of a data file that are not objects (`1`, `"x"`, `null`, `[1, 2]`) show as
/// themselves in `pql query` and the REPL, as `pql filter` shows them: in JSON as the element,
/// in the other formats in a `value` column. They printed as another row's keys (`{"a":1}`
/// for `1`), `{}` or blank rows.
@Suite struct NonObjectElementTests {
    func withMixedFile(_ body: (String) throws -> Void) throws {
        let dir = try scratchDirectory("pql-mixed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mixed.json")
        try #"[1, "x", null, [1, 2], {"a": 1}]"#.write(to: file, atomically: true, encoding: .utf8)
        try body(file.path)
    }

    @Test func queryWritesEachElementAsItIs() throws {
        try withMixedFile { path in
            let lines = try PQLProcess.run(["query", path])
            #expect(lines.stdout == "1\n\"x\"\nnull\n[1,2]\n{\"a\":1}\n", "\(lines.stdout)\(lines.stderr)")
            let json = try PQLProcess.run(["query", path, "--format", "json"])
            let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8), options: .fragmentsAllowed) as? [Any]
            #expect(parsed?.count == 5, "\(json.stdout)")
            let csv = try PQLProcess.run(["query", path, "--format", "csv"])
            #expect(csv.stdout == "a,value\n,1\n,x\n,\n,\"[1,2]\"\n1,\n", "\(csv.stdout)")
        }
    }

    @Test func theREPLShowsThemInAValueColumn() throws {
        try withMixedFile { path in
            let r = try PQLProcess.run([path, "-c", ".format csv", "-c", "TRUEPREDICATE", "-c", "SELF == 'x'", "-c", "value == 1"])
            #expect(r.stdout == "a,value\n,1\n,x\n,\n,\"[1,2]\"\n1,\na,value\n,x\n", "\(r.stdout)")
            // The column is not a key: the error says how a predicate reads such an element.
            #expect(r.stderr.contains("SELF"), "\(r.stderr)")
            #expect(r.status == 1)
        }
    }
}

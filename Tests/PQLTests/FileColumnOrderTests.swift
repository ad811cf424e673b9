import Foundation
import Testing

/// A data file's columns keep the file's order everywhere: a CSV file's header, JSON keys in the
/// order they first appear in the text (not alphabetical, as a dictionary would give them).
@Suite(.serialized) struct FileColumnOrderTests {
    func scratch() throws -> URL { try scratchDirectory("pql-column-order") }

    @Test func csvKeepsItsHeaderOrder() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("people.csv")
        // name is empty in the first row: its column stays second all the same.
        try "id,name,age,city\n1,,40,Paris\n2,Bo,17,Lyon\n".write(to: csv, atomically: true, encoding: .utf8)
        let query = try PQLProcess.run(["query", csv.path, "--format", "csv"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == "id,name,age,city\n1,,40,Paris\n2,Bo,17,Lyon\n", "\(query.stdout)")
        let jsonl = try PQLProcess.run(["query", csv.path, "--where", "id == 2"])
        #expect(jsonl.stdout == #"{"id":2,"name":"Bo","age":17,"city":"Lyon"}"# + "\n", "\(jsonl.stdout)")
        let repl = try PQLProcess.run([csv.path, "-c", ".format csv", "-c", "age > 20", "-c", ".schema"], environment: DemoCache.environment)
        #expect(repl.status == 0, "\(repl.stderr)")
        #expect(repl.stdout.hasPrefix("id,name,age,city\n1,,40,Paris\n"), "\(repl.stdout)")
        let schema = repl.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(schema == ["id", "name", "age", "city"], "\(repl.stdout)")
    }

    @Test func jsonKeysComeInTheOrderTheyFirstAppear() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("people.json")
        // zip first appears in the second object; "na\u006De2" spells name2 with an escape.
        try #"[{"name": "Ann", "age": 40, "city": "Paris"}, {"zip": "69001", "city": "Lyon", "name": "Bo", "age": 17, "na\u006De2": 1}]"#
            .write(to: json, atomically: true, encoding: .utf8)
        let filter = try PQLProcess.run(["filter", "--format", "csv", "age > 0", json.path])
        #expect(filter.status == 0, "\(filter.stderr)")
        #expect(filter.stdout == "name,age,city,zip,name2\nAnn,40,Paris,,\nBo,17,Lyon,69001,1\n", "\(filter.stdout)")
        let query = try PQLProcess.run(["query", json.path, "--format", "csv"])
        #expect(query.stdout == "name,age,city,zip,name2\nAnn,40,Paris,,\nBo,17,Lyon,69001,1\n", "\(query.stdout)")
        // JSON output: each record's own keys, in the file's order of keys.
        let lines = try PQLProcess.run(["query", json.path])
        #expect(lines.stdout == #"{"name":"Ann","age":40,"city":"Paris"}"# + "\n" + #"{"name":"Bo","age":17,"city":"Lyon","zip":"69001","name2":1}"# + "\n",
                "\(lines.stdout)")
        let repl = try PQLProcess.run([json.path], stdin: Data(".format tsv\nage > 20\n".utf8), environment: DemoCache.environment)
        #expect(repl.stdout.hasPrefix("name\tage\tcity\tzip\tname2\nAnn\t40\tParis\t\t\n"), "\(repl.stdout)")
    }
}

import Foundation
import Testing

/// `pql import` into an existing entity whose file has keys the entity lacks: the store
/// migrates (new optional columns, the model saved again), or says why it cannot.
@Suite("pql import: new keys migrate the entity")
struct ImportMigrationCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-import-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func newKeysBecomeOptionalAttributes() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let first = try Self.write("{\"name\": \"Ann\", \"age\": 40}\n", "a.jsonl", in: dir)
        #expect(try PQLProcess.run(["import", store, first, "--entity", "Person"]).status == 0)
        let more = try Self.write("{\"name\": \"Cy\", \"city\": \"Oslo\", \"height\": 1.8}\n", "b.jsonl", in: dir)
        let r = try PQLProcess.run(["import", store, more, "--entity", "Person"])
        #expect(r.status == 0, "\(r.stderr)")
        let all = try PQLProcess.run(["query", store, "--entity", "Person", "--sort", "name"])
        #expect(all.stdout == """
            {"name":"Ann","age":40,"city":null,"height":null}
            {"name":"Cy","age":null,"city":"Oslo","height":1.8}

            """, "\(all.stderr)")
        #expect(try PQLProcess.run(["query", store, "--entity", "Person", "--where", "height > 1.5", "--count"]).stdout == "1\n")
    }

    @Test func aKeyDifferingOnlyInCaseIsRefusedAndNothingChanges() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let first = try Self.write("name,age\nAnn,40\n", "a.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, first, "--entity", "Person"]).status == 0)
        let clash = try Self.write("name,Age,city\nBo,5,Rome\n", "b.csv", in: dir)
        let r = try PQLProcess.run(["import", store, clash, "--entity", "Person"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("column 'Age' differs only in case from Person.age"), "\(r.stderr)")
        // A row that fails after the columns were added takes them back with it.
        let bad = dir.appendingPathComponent("bad.csv")
        try Data(Array("name,city\nok,Oslo\n".utf8) + [0xFF] + Array(",Rome\n".utf8)).write(to: bad)
        #expect(try PQLProcess.run(["import", store, bad.path, "--entity", "Person"]).status == 1)
        #expect(try PQLProcess.run(["query", store, "--entity", "Person"]).stdout == #"{"name":"Ann","age":40}"# + "\n")
    }
}

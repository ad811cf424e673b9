import Foundation
import PQL
@testable import PQLStore
import Testing

/// A table PQL cannot make an entity of — FTS5's internal tables, a WITHOUT ROWID table keyed
/// by text, a column named "" — made the whole SQLite file unreadable (adversarial run, F15).
/// It is left out, with the reason in `skippedTables`, as the PostgreSQL inference does.
@Suite("model inference leaves out the tables it cannot key")
struct InferenceSkippedTablesTests {
    @Test func unkeyableTablesAreLeftOutAndListed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-skipped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("mixed.sqlite").path
        let db = try SQLiteConnection(path: path)
        for sql in ["CREATE VIRTUAL TABLE docs USING fts5(body)", "INSERT INTO docs VALUES ('hello world')",
                    "CREATE TABLE kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID",
                    "CREATE TABLE odd (\"\" TEXT, x INTEGER)",
                    "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO people VALUES (1, 'Ann')"] {
            try db.execute(sql)
        }
        db.close()
        for readOnly in [true, false] {
            let store = try PredicateStore(path: path, readOnly: readOnly)
            #expect(store.model.entities.map(\.name) == ["docs", "people"])
            #expect(try store.fetch(EntityQuery("people")).map { $0.values["name"] } == ["Ann"])
            #expect(try store.count(EntityQuery("docs", where: "body CONTAINS 'world'")) == 1)
            #expect(Set(store.skippedTables.keys) == ["docs_config", "docs_content", "docs_data", "docs_docsize", "docs_idx", "kv", "odd"])
            #expect(store.skippedTables["kv"] == "table 'kv' has no integer key PQL can use (a WITHOUT ROWID table keyed by k)")
            #expect(store.skippedTables["odd"] == "entity 'odd' has an attribute with an invalid name ''")
        }
        // A model given or saved leaves nothing out.
        #expect(try PredicateStore(path: ":memory:", model: StoreModel([])).skippedTables.isEmpty)
    }

    /// PostgreSQL's quoted names are exact: a model by its rules may hold `Thing` and `thing`
    /// (F20: SQLite's case rule refused whole PostgreSQL databases). SQLite still refuses it.
    @Test func namesByPostgreSQLRules() throws {
        let entities = [ModelEntity("Thing", attributes: [ModelAttribute("id", .integer64), ModelAttribute("ID", .string)]),
                        ModelEntity("thing", attributes: [ModelAttribute("v", .string)])]
        #expect(throws: StoreError.self) { try StoreModel(entities) }
        let model = try StoreModel(entities, names: .postgreSQL)
        #expect(model.entities.map(\.name) == ["Thing", "thing"])
        #expect(throws: StoreError.self) { try PredicateStore.inMemory(model) }
        // Identical table names are one table by either rule.
        let shared = [ModelEntity("A", table: "t"), ModelEntity("B", table: "t")]
        #expect((try? StoreModel(shared, names: .postgreSQL)) == nil)
    }

    /// A store in a directory that does not exist: SQLite's own words were "no such file or
    /// directory" about the file (F28's kin; a read-only directory is tested through pql).
    @Test func missingDirectoryIsNamed() {
        let path = "/nonexistent-\(UUID().uuidString)/s.sqlite"
        do {
            _ = try PredicateStore(path: path, model: StoreModel([]))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .fileAccess)
            #expect(error.message.hasPrefix("cannot create") && error.message.contains("does not exist"), "\(error.message)")
        }
    }
}

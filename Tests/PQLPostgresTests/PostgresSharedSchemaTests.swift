import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// A schema two stores write to, as two `pql import`s do (adversarial run, F16: both succeeded
/// and one entity vanished from the saved model, written from a reading older than the other
/// import's commit), and names PostgreSQL tells apart where SQLite would not (F20: tables
/// `"Thing"` and `"thing"` made every command fail, blaming SQLite).
@Suite("PostgreSQL: a schema shared by two stores, and PostgreSQL's own name rules")
struct PostgresSharedSchemaTests {
    private static func rows(_ n: Int, extra: Bool = false) -> ImportSource {
        let lines = (0..<n).map { extra ? #"{"id": \#($0), "extra": \#($0 * 2)}"# : #"{"id": \#($0)}"# }
        return ImportSource(json: Data(lines.joined(separator: "\n").utf8))
    }

    @Test func importsOfTwoEntitiesKeepBothInTheSavedModel() async throws {
        try await TestServer.withStore { store, schema in
            try await store.importFile(Self.rows(1), into: "C")
            let first = try await PostgresPredicateStore(url: try TestServer.url(), schema: schema, functionSchema: schema)
            let second = try await PostgresPredicateStore(url: try TestServer.url(), schema: schema, functionSchema: schema)
            #expect(try await first.importFile(Self.rows(3), into: "A1") == 3)
            #expect(try await second.importFile(Self.rows(2), into: "B1") == 2)
            #expect(second.model.entities.map(\.name) == ["C", "A1", "B1"])
            // New keys of one entity, added by both: the column is added once.
            #expect(try await first.importFile(Self.rows(2, extra: true), into: "C") == 2)
            #expect(try await second.importFile(Self.rows(1, extra: true), into: "C") == 1)
            await first.close()
            await second.close()
            let reopened = try await PostgresPredicateStore(url: try TestServer.url(), schema: schema, functionSchema: schema)
            #expect(reopened.model.entities.map(\.name) == ["C", "A1", "B1"])
            #expect(try reopened.model.entity(named: "C").attributes.map(\.name) == ["id", "extra"])
            #expect(try await reopened.count(EntityQuery("A1")) == 3)
            #expect(try await reopened.count(EntityQuery("C", where: "extra != nil")) == 3)
            await reopened.close()
        }
    }

    @Test func tablesThatDifferInCaseAreTwoEntities() async throws {
        let setup = [
            #"CREATE TABLE $SCHEMA."Thing" (id serial PRIMARY KEY, name text, "Name" text)"#,
            #"CREATE TABLE $SCHEMA."thing" (id serial PRIMARY KEY, v integer)"#,
            #"INSERT INTO $SCHEMA."Thing" (name, "Name") VALUES ('a', 'A'), ('b', 'B')"#,
            #"INSERT INTO $SCHEMA."thing" (v) VALUES (1)"#,
        ]
        try await TestServer.withStore(setup: setup) { store, schema in
            #expect(store.model.entities.map(\.name).sorted() == ["Thing", "thing"])
            #expect(try await store.count(EntityQuery("Thing", where: "Name == 'B'")) == 1)
            #expect(try await store.count(EntityQuery("thing")) == 1)
            // Saved by an import, the model reads back by the same rules.
            try await store.importFile(Self.rows(1), into: "THING")
            let reopened = try await PostgresPredicateStore(url: try TestServer.url(), schema: schema, functionSchema: schema)
            #expect(reopened.model.entities.map(\.name).sorted() == ["THING", "Thing", "thing"])
            await reopened.close()
        }
    }

    @Test func repeatedKeysAreRefusedBeforeAnythingIsWritten() async throws {
        try await TestServer.withStore { store, _ in
            let source = ImportSource(json: Data("{\"id\": 1, \"\u{E9}\": 5, \"e\u{301}\": 6}\n".utf8))
            await #expect(throws: StoreError.self) { try await store.importFile(source, into: "T") }
            #expect(store.model.entities.isEmpty)
        }
    }
}

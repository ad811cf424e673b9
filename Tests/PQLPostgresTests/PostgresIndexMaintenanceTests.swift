import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `dropIndexes()`, `createIndexes()` and `analyze()` on a real server, read back from the catalog.
@Suite struct PostgresIndexMaintenanceTests {
    static func indexes(_ store: PostgresPredicateStore, _ schema: String) async throws -> [String] {
        try await store.withConnection("listing indexes") { connection in
            var names: [String] = []
            for try await row in try await connection.query("SELECT indexname FROM pg_indexes WHERE schemaname = \(schema) ORDER BY 1", logger: store.logger) {
                names.append(try row.decode(String.self))
            }
            return names
        }
    }

    @Test func dropAndCreateTheModelsIndexesThenAnalyze() async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { store, schema in
            do throws(StoreError) {
                try await store.createIndexes()
                Issue.record("indexes were made for tables that do not exist")
            } catch {
                #expect(error.kind == .unknownEntity && error.hint?.contains("createTables()") == true, "\(error)")
            }
            _ = try await store.createTables()
            let all = try await Self.indexes(store, schema)
            #expect(all.contains("Person_name_index") && all.contains("Person_employer_fk") && all.contains("Person_pkey"), "\(all)")
            try await store.dropIndexes()
            let kept = try await Self.indexes(store, schema)
            #expect(kept.allSatisfy { $0.hasSuffix("_pkey") }, "\(kept)")
            _ = try await store.insert("Company", ["name": "Acme"])
            _ = try await store.insert("Person", (0..<500).map { ["name": .string("p\($0)"), "age": .int(Int64($0)), "employer": 1] })
            try await store.createIndexes()
            #expect(try await Self.indexes(store, schema) == all)
            try await store.createIndexes()   // nothing missing: nothing done, no error
            try await store.analyze()
            let analyzed = try await store.withConnection("reading statistics") { connection in
                var n = 0
                for try await row in try await connection.query("SELECT count(*) FROM pg_stats WHERE schemaname = \(schema) AND tablename = 'Person'", logger: store.logger) {
                    n = try row.decode(Int.self)
                }
                return n
            }
            #expect(analyzed > 0)
            // The rows were untouched, and the indexes serve a fetch again.
            #expect(try await store.count(EntityQuery("Person", where: "age < 10")) == 10)
        }
    }
}

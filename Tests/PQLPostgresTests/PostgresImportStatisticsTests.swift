import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// A bulk load (`insertRows`, `importTable`, `importFile`, all through `COPY`) leaves the planner
/// statistics of the rows it added when they are as many as would make autovacuum analyse the
/// table (50 plus a tenth of its rows), so the queries after it are planned by what the rows
/// hold rather than by PostgreSQL's fixed guesses; a small load leaves them to autovacuum.
@Suite struct PostgresImportStatisticsTests {
    /// `pg_class.reltuples` of the table (-1 before any ANALYZE) and how many columns have
    /// statistics in `pg_stats`: both written by ANALYZE as it ends (pg_statistic is a table).
    static func statistics(_ store: PostgresPredicateStore, _ schema: String, _ table: String) async throws -> (rows: Double, columns: Int) {
        let rows = try await store.rows("SELECT reltuples::float8::text FROM pg_class WHERE oid = to_regclass('\(quote(schema)).\(quote(table))')")
        let columns = try await store.rows("SELECT count(*)::text FROM pg_stats WHERE schemaname = '\(schema)' AND tablename = '\(table)'")
        return (Double(rows.first?.first.flatMap { $0 } ?? "") ?? .nan, Int(columns.first?.first.flatMap { $0 } ?? "") ?? -1)
    }

    @Test func insertRowsAnalysesTheTableItFilled() async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { store, schema in
            try await store.createTables()
            let before = try await Self.statistics(store, schema, "Person")
            #expect(before.columns == 0 && before.rows <= 0, "\(before)")
            let rows: [[PredicateValue]] = (0..<2_000).map { [.string("P\($0)"), .int(Int64($0 % 80)), .string("City \($0 % 20)")] }
            #expect(try await store.insertRows("Person", columns: ["name", "age", "city"], rows: rows) == 2_000)
            let after = try await Self.statistics(store, schema, "Person")
            #expect(after.rows == 2_000, "\(after)")
            #expect(after.columns >= 3, "\(after)")
            // 10 rows more are fewer than autovacuum's threshold (50 + 200): no ANALYZE.
            try await store.insertRows("Person", columns: ["name", "age", "city"], rows: (0..<10).map { [.string("Q\($0)"), .int(1), .string("x")] })
            #expect(try await Self.statistics(store, schema, "Person").rows == 2_000)
            // 300 more are: the statistics count them.
            try await store.insertRows("Person", columns: ["name", "age", "city"], rows: (0..<300).map { [.string("R\($0)"), .int(2), .string("y")] })
            #expect(try await Self.statistics(store, schema, "Person").rows == 2_310)
        }
    }

    @Test func anImportAnalysesTheTableItMade() async throws {
        try await TestServer.withStore { store, schema in
            var csv = "code,bucket,label\n"
            for i in 0..<1_500 { csv += "\(i),\(i % 7),item \(i)\n" }
            let n = try await store.importTable(try ImportTable.csv(Data(csv.utf8)), into: "Item")
            #expect(n == 1_500)
            let after = try await Self.statistics(store, schema, "Item")
            #expect(after.rows == 1_500, "\(after)")
            #expect(after.columns >= 3, "\(after)")
            // The planner's estimate of a range is now the histogram's, not a third of the rows.
            let plan = try await store.explain(try EntityQuery("Item", where: "bucket < 1")).joined(separator: "\n")
            let estimate = plan.range(of: #"rows=(\d+)"#, options: .regularExpression).map { Int(plan[$0].dropFirst(5)) ?? -1 } ?? -1
            #expect((150...280).contains(estimate), "\(plan)")
        }
    }
}

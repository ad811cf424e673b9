import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Sorts a plain B-tree serves: on a double column that cannot hold NaN (a `CHECK`), the
/// ORDER BY is the column itself, not PQL's `CASE` on NULL and NaN, so a fetch with a limit
/// walks the index (forwards ascending, backwards descending) instead of sorting the table.
/// A NOT NULL column needs no `NULLS FIRST`/`LAST`; a nullable one is served by an index made
/// `NULLS FIRST`, PQL's order. The rows are memory's order in every case, NaN and nil included
/// where the columns may hold them.
@Suite struct PostgresSortPlanTests {
    static let model = try! StoreModel([
        ModelEntity("Item", attributes: [ModelAttribute("price", .double, isOptional: false),
                                         ModelAttribute("weight", .double),
                                         ModelAttribute("score", .double)]),
    ], names: .postgreSQL)

    /// 2,000 items: `price` NOT NULL and without NaN, `weight` without NaN but with nils,
    /// `score` with both; indexes on each, the first two columns checked against NaN.
    static func withItems(_ body: (PostgresPredicateStore, [PredicateValue]) async throws -> Void) async throws {
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            let t = "\(quote(schema)).\"Item\""
            try await store.execute("""
                INSERT INTO \(t) ("price", "weight", "score")
                SELECT (g * 7919 % 2000) / 4.0, CASE WHEN g % 9 = 0 THEN NULL ELSE (g * 31 % 500) / 2.0 END,
                       CASE WHEN g % 11 = 0 THEN NULL WHEN g % 13 = 0 THEN 'NaN'::float8 ELSE (g * 17 % 300) / 3.0 END
                FROM generate_series(1, 2000) g
                """)
            try await store.execute("ALTER TABLE \(t) ADD CHECK (\"price\" <> 'NaN'), ADD CHECK (NOT (\"weight\" = 'NaN'::float8))")
            try await store.execute("CREATE INDEX item_price ON \(t) (\"price\")")
            try await store.execute("CREATE INDEX item_weight ON \(t) (\"weight\" NULLS FIRST)")
            try await store.execute("CREATE INDEX item_score ON \(t) (\"score\" NULLS FIRST)")
            try await store.execute("ANALYZE \(t)")
            try await store.reloadIndexes()
            let records = try await store.fetch(EntityQuery("Item"))
            try await body(store, records.map { PredicateValue.dictionary($0.values.merging(["id": .int($0.id)]) { a, _ in a }) })
        }
    }

    /// The plan's lines without their indentation and arrows: "Limit  (cost=…",
    /// "Index Scan Backward using item_price on \"Item\" t0  (cost=…", "Sort Key: …".
    static func nodes(_ plan: [String]) -> [String] {
        plan.map { line in
            var s = Substring(line).drop { $0 == " " }
            if s.hasPrefix("->") { s = s.dropFirst(2).drop { $0 == " " } }
            return String(s)
        }
    }

    @Test(arguments: [("price", "item_price"), ("weight", "item_weight")])
    func aSortOnAColumnWithoutNaNWalksItsIndex(column: String, index: String) async throws {
        try await Self.withItems { store, items in
            for ascending in [true, false] {
                let query = EntityQuery("Item", sort: [SortRule(column, ascending: ascending)], limit: 25)
                let sql = try store.sql(for: query).sql
                #expect(!sql.contains("CASE"), "\(sql)")
                let plan = try await store.explain(query)
                let nodes = Self.nodes(plan)
                let scan = ascending ? "Index Scan using \(index) " : "Index Scan Backward using \(index) "
                #expect(nodes.contains { $0.hasPrefix(scan) }, "\(column) \(ascending ? "ascending" : "descending"):\n\(plan.joined(separator: "\n"))")
                // The key breaks ties: at most an incremental sort of the rows of one price,
                // never a sort of the whole table.
                // ("Sort  (cost=…" is the node; "Sort Key: …" a detail of the incremental sort.)
                #expect(!nodes.contains { $0.hasPrefix("Sort  (") }, "\(plan.joined(separator: "\n"))")
                let memory = PredicateQuery(sort: [SortRule(column, ascending: ascending), SortRule("id")], limit: 25)
                let expected = try memory.indices(in: items, reader: PredicateValue.predicateReader).map { items[$0].dictionaryValue?["id"] ?? .null }
                #expect(try await store.fetch(query).map { PredicateValue.int($0.id) } == expected, "\(column)")
            }
        }
    }

    /// A column that may hold NaN sorts by `score < 'NaN'` (nil, NaN, numbers), then `score`:
    /// no `CASE`, and memory's order with nil and NaN.
    @Test func aColumnThatMayHoldNaNKeepsPQLsOrder() async throws {
        try await Self.withItems { store, items in
            for ascending in [true, false] {
                let query = EntityQuery("Item", sort: [SortRule("score", ascending: ascending)])
                let sql = try store.sql(for: query).sql
                #expect(!sql.contains("CASE"), "\(sql)")
                #expect(sql.contains(#"(t0."score" < 'NaN'::float8)"#), "\(sql)")
                let memory = PredicateQuery(sort: [SortRule("score", ascending: ascending), SortRule("id")])
                let expected = try memory.indices(in: items, reader: PredicateValue.predicateReader).map { items[$0].dictionaryValue?["id"] ?? .null }
                #expect(try await store.fetch(query).map { PredicateValue.int($0.id) } == expected)
            }
        }
    }

    /// An indexed double attribute, nullable or not, that may hold NaN: the store makes its
    /// sort index beside its index (`Reading_value_sort`), and a sorted fetch with a limit
    /// walks it in PQL's order (nil, NaN, numbers) with no sort of the table.
    @Test(arguments: [true, false])
    func theStoresSortIndexServesADoubleThatMayHoldNaN(optional: Bool) async throws {
        let model = try StoreModel([
            ModelEntity("Reading", attributes: [ModelAttribute("value", .double, isOptional: optional, isIndexed: true)]),
        ], names: .postgreSQL)
        try await TestServer.withStore(model: model) { store, schema in
            _ = try await store.createTables()
            let t = "\(quote(schema)).\"Reading\""
            let value = optional
                ? "CASE WHEN g % 11 = 0 THEN NULL WHEN g % 13 = 0 THEN 'NaN'::float8 ELSE (g * 17 % 300) / 3.0 END"
                : "CASE WHEN g % 13 = 0 THEN 'NaN'::float8 ELSE (g * 17 % 300) / 3.0 END"
            try await store.execute("INSERT INTO \(t) (\"value\") SELECT \(value) FROM generate_series(1, 3000) g")
            try await store.execute("ANALYZE \(t)")
            try await store.reloadIndexes()
            let items = try await store.fetch(EntityQuery("Reading")).map {
                PredicateValue.dictionary($0.values.merging(["id": .int($0.id)]) { a, _ in a })
            }
            for ascending in [true, false] {
                let query = EntityQuery("Reading", sort: [SortRule("value", ascending: ascending)], limit: 25)
                let plan = try await store.explain(query)
                let nodes = Self.nodes(plan)
                let scan = ascending ? "Index Scan using \"Reading_value_sort\" " : "Index Scan Backward using \"Reading_value_sort\" "
                #expect(nodes.contains { $0.hasPrefix(scan) }, "\(ascending ? "ascending" : "descending"):\n\(plan.joined(separator: "\n"))")
                #expect(!nodes.contains { $0.hasPrefix("Sort  (") }, "\(plan.joined(separator: "\n"))")
                let memory = PredicateQuery(sort: [SortRule("value", ascending: ascending), SortRule("id")], limit: 25)
                let expected = try memory.indices(in: items, reader: PredicateValue.predicateReader).map { items[$0].dictionaryValue?["id"] ?? .null }
                #expect(try await store.fetch(query).map { PredicateValue.int($0.id) } == expected)
            }
        }
    }
}

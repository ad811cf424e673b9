import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// The SQL PQL writes for PostgreSQL can be served by the indexes a PostgreSQL user makes for
/// it: each predicate's plan, with sequential scans priced out (`enable_seqscan=off` through the
/// URL's options, so the plan shows what an index can serve, whatever the table's size), reads
/// the index named, and the rows are the ones memory finds.
@Suite struct PostgresIndexPlanTests {
    static let model = try! StoreModel([
        ModelEntity("Person", attributes: [ModelAttribute("name", .string), ModelAttribute("age", .integer64),
                                           ModelAttribute("city", .string)],
                    relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "person")]),
        ModelEntity("Tag", attributes: [ModelAttribute("tag", .string)],
                    relationships: [ModelRelationship("person", to: "Person", inverse: "tags")]),
    ])

    static let indexes = [
        #"CREATE INDEX person_age ON $S."Person" ("age")"#,
        #"CREATE INDEX person_name ON $S."Person" ("name")"#,
        #"CREATE INDEX person_name_c ON $S."Person" ("name" COLLATE "C")"#,
        #"CREATE INDEX person_fold_c ON $S."Person" ($S.fold_c("name") text_pattern_ops)"#,
        #"CREATE INDEX person_fold_cd ON $S."Person" ($S.fold_cd("name"))"#,
        #"CREATE INDEX person_fold_cd_trgm ON $S."Person" USING gin ($S.fold_cd("name") gin_trgm_ops)"#,
        #"CREATE INDEX person_city ON $S."Person" ("city")"#,
        #"CREATE INDEX tag_tag_person ON $S."Tag" ("tag", "person")"#,
    ]

    /// Predicate, the index its plan must read, the rows memory finds.
    static let cases: [(String, String, Int)] = [
        ("age == 30", "person_age", 10),
        ("age > 95", "person_age", 50),
        ("age BETWEEN {10, 12}", "person_age", 30),
        ("age IN {1, 2, 3}", "person_age", 30),
        ("name == 'José'", "person_name", 250),
        ("name BEGINSWITH 'Ann'", "person_name_c", 250),
        ("name < 'B'", "person_name_c", 250),
        ("name BEGINSWITH[c] 'ann'", "person_fold_c", 250),
        ("name ==[cd] 'jose'", "person_fold_cd", 250),
        ("name CONTAINS[cd] 'ose'", "person_fold_cd_trgm", 250),
        ("name LIKE[cd] '*ang*'", "person_fold_cd_trgm", 250),
        ("city IN {'Paris', 'Lima'}", "person_city", 400),
        ("ANY tags.tag == 'vip'", "tag_tag_person", 100),
    ]

    @Test func eachPredicateReadsItsIndex() async throws {
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            try await store.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            _ = try await store.installFunctions()
            // 1,000 people: names cycle through four (José, Anna, Ángel, Zoë), ages 1…100, cities
            // through five; every tenth person is tagged vip.
            try await store.execute("""
                INSERT INTO \(quote(schema))."Person" ("name", "age", "city")
                SELECT (ARRAY['José', 'Anna', 'Ángel', 'Zoë'])[1 + g % 4], 1 + g % 100,
                       (ARRAY['Paris', 'Lima', 'Oslo', 'Kyiv', 'Quito'])[1 + g % 5]
                FROM generate_series(0, 999) g
                """)
            try await store.execute("""
                INSERT INTO \(quote(schema))."Tag" ("tag", "person")
                SELECT CASE WHEN p."Z_PK" % 10 = 0 THEN 'vip' ELSE 'new' END, p."Z_PK" FROM \(quote(schema))."Person" p
                """)
            for ix in Self.indexes { try await store.execute(ix.replacingOccurrences(of: "$S", with: quote(schema))) }
            try await store.execute("ANALYZE \(quote(schema)).\"Person\"")
            try await store.execute("ANALYZE \(quote(schema)).\"Tag\"")
            let base = try TestServer.url()
            let noScans = try await PostgresPredicateStore(
                url: base + (base.contains("?") ? "&" : "?") + "options=-c%20enable_seqscan%3Doff",
                schema: schema, functionSchema: schema)
            let people = try await store.fetch(EntityQuery("Person")).map { record -> [String: PredicateValue] in
                var values = record.values
                values["tags"] = .array([])
                return values
            }
            for (format, index, expected) in Self.cases {
                let query = try EntityQuery("Person", where: format)
                let plan = try await noScans.explain(query).joined(separator: "\n")
                // "Index Scan using person_name on …", "Bitmap Index Scan on person_name  (…"
                let readsIndex = plan.split(separator: "\n").contains { line in
                    line.contains("Index") && (line.contains(" using \(index) ") || line.contains(" on \(index) "))
                }
                #expect(readsIndex, "\(format) should read \(index):\n\(plan)")
                #expect(try await noScans.count(query) == expected, "\(format)")
                // The same rows as memory (to-many key paths aside, which the store alone resolves here).
                if !format.hasPrefix("ANY") {
                    let memory = try PredicateNode(format: format)
                    #expect(try people.filter { try memory.evaluate(on: PredicateValue.dictionary($0)) }.count == expected, "\(format) in memory")
                }
            }
            await noScans.close()
        }
    }
}

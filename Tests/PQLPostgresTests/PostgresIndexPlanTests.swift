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
        // A one-letter needle: the ranges of certain matches on the text, OR the fold's LIKE,
        // a BitmapOr of both indexes.
        ("name BEGINSWITH[c] 'z'", "person_fold_c", 250),
        ("name BEGINSWITH[c] 'z'", "person_name_c", 250),
        ("name ==[cd] 'jose'", "person_fold_cd", 250),
        ("name CONTAINS[cd] 'ose'", "person_fold_cd_trgm", 250),
        ("name LIKE[cd] '*ang*'", "person_fold_cd_trgm", 250),
        ("city IN {'Paris', 'Lima'}", "person_city", 400),
        ("ANY tags.tag == 'vip'", "tag_tag_person", 100),
        // Arithmetic that can overflow goes in a CASE (memory's order of evaluation); the
        // comparison before it, which cannot raise, is also copied out in front for the index.
        ("age > 95 AND age * 2 > 100", "person_age", 50),
        ("age > 95 AND name != nil AND age * 2 > 100", "person_age", 50),
    ]

    /// 1,000 people in `store` (names cycle through four: José, Anna, Ángel, Zoë; ages 1…100;
    /// cities through five; every tenth person tagged vip), the indexes made and analysed; the
    /// body gets the store, a connection that prices sequential scans out, and memory's objects.
    static func withPeople(_ body: (PostgresPredicateStore, PostgresPredicateStore, [[String: PredicateValue]]) async throws -> Void) async throws {
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            try await store.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            _ = try await store.installFunctions()
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
            try await body(store, noScans, people)
            await noScans.close()
        }
    }

    @Test func eachPredicateReadsItsIndex() async throws {
        try await Self.withPeople { _, noScans, people in
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
        }
    }

    /// `@min`/`@max` of a to-many's attribute read the children through the foreign key's
    /// index. A bare min/max PostgreSQL turns into a backward walk of the attribute's own
    /// index filtered on the key, which reads the whole index for every parent without
    /// children (adversarial run, F29: 4½ minutes on the demo's airports, 0.3 s on SQLite).
    @Test func minAndMaxOfAToManyReadTheForeignKeysIndex() async throws {
        // The demo's shape: three parents with many children, many parents with none, and an
        // index on the children's attribute.
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            let s = quote(schema)
            try await store.execute("INSERT INTO \(s).\"Person\" (\"name\") SELECT 'p' || g FROM generate_series(1, 1000) g")
            try await store.execute("""
                INSERT INTO \(s).\"Tag\" ("tag", "person") SELECT 't' || g, (SELECT min("Z_PK") FROM \(s)."Person") + g % 3
                FROM generate_series(1, 60000) g
                """)
            try await store.execute("CREATE INDEX tag_tag_c ON \(s).\"Tag\" (\"tag\" COLLATE \"C\")")
            try await store.execute("ANALYZE \(s).\"Person\"")
            try await store.execute("ANALYZE \(s).\"Tag\"")
            for format in ["tags.@max.tag == nil", "tags.@min.tag == 't1'", "tags.@max.tag > 't'"] {
                let plan = try await store.explain(try EntityQuery("Person", where: format)).joined(separator: "\n")
                #expect(!plan.contains("Backward") && !plan.contains("InitPlan"), "\(format):\n\(plan)")
                #expect(plan.contains("Tag_person_fk"), "\(format) should read the foreign key's index:\n\(plan)")
            }
            #expect(try await store.count(EntityQuery("Person", where: "tags.@max.tag == nil")) == 997)
            #expect(try await store.count(EntityQuery("Person", where: "tags.@min.tag == 't1'")) == 1)
            #expect(try await store.count(EntityQuery("Person", where: "tags.@max.tag > 't'")) == 3)
        }
    }

    /// The comparisons copied out of the CASE change no outcome: a row they drop is one on which
    /// memory stops before the arithmetic; memory's error stays PostgreSQL's, with and without
    /// the index, when the arithmetic comes first or the copy would be false only after it.
    @Test func copiedComparisonsKeepMemorysErrors() async throws {
        try await Self.withPeople { store, noScans, people in
            let cases = [
                "age > 95 AND age * 9223372036854775807 > 0",     // raises on ages 96…100
                "age > 100 AND age * 9223372036854775807 > 0",    // no age passes: no error
                "age * 9223372036854775807 > 0 AND age > 100",    // raises before the comparison
                "age < 2 AND age * 9223372036854775807 > 0 AND age > 100",
                "age * 1 > 0 AND age > 100 AND age * 9223372036854775807 > 0",
                "city == 'Paris' AND age > 99 AND -age * 9223372036854775807 < 0",
                "name == 'Nobody' AND age * 9223372036854775807 > 0",
            ]
            for format in cases {
                let query = try EntityQuery("Person", where: format)
                let memory: Result<Int, PredicateEvaluationError>
                do {
                    let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader)
                    memory = .success(try people.filter { try compiled.evaluate(.dictionary($0)) }.count)
                } catch let error as PredicateEvaluationError {
                    memory = .failure(error)
                }
                for server in [store, noScans] {
                    let sql = (try? server.sql(for: query).sql) ?? ""
                    let got: Result<Int, StoreError>
                    do throws(StoreError) { got = .success(try await server.fetchIDs(query).count) } catch { got = .failure(error) }
                    switch (memory, got) {
                    case (.success(let want), .success(let count)):
                        #expect(want == count, "\(format): memory \(want) rows, PostgreSQL \(count)\n\(sql)")
                    case (.failure(let want), .failure(let error)):
                        #expect(error.evaluationError?.kind == want.kind, "\(format): memory raised \(want.kind), PostgreSQL \(error)")
                    default:
                        Issue.record("\(format): memory \(memory), PostgreSQL \(got)\n\(sql)")
                    }
                }
            }
            // The first two cases above, and that the copies are there to be seen.
            #expect(try store.sql(for: EntityQuery("Person", where: "age > 95 AND age * 2 > 100")).sql.contains(#"WHERE t0."age" > $1 AND CASE WHEN"#))
            #expect(try !store.sql(for: EntityQuery("Person", where: "age * 2 > 100 AND age > 95")).sql.contains(#"WHERE t0."age""#))
        }
    }
}

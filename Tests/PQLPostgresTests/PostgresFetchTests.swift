import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Predicate fetches on a real server, construct by construct: each case's rows must be the
/// in-memory evaluator's on the same objects (NULLs, NaN, Unicode folding, empty to-many sets,
/// 64-bit edges, hostile strings bound as values), and what PostgreSQL cannot answer as PQL
/// does is refused with `.unsupported`, never answered.
@Suite struct PostgresFetchTests {
    static let model = try! StoreModel([
        ModelEntity("Item", attributes: [
            ModelAttribute("name", .string, isIndexed: true), ModelAttribute("n", .integer64, isIndexed: true),
            ModelAttribute("x", .double), ModelAttribute("flag", .boolean), ModelAttribute("when", .date),
            ModelAttribute("amount", .decimal),
        ], relationships: [ModelRelationship("labels", toMany: "Label", inverse: "item")]),
        ModelEntity("Label", attributes: [ModelAttribute("text", .string), ModelAttribute("weight", .integer64)],
                    relationships: [ModelRelationship("item", to: "Item", inverse: "labels")]),
    ])

    static let hostile = "x'); DROP TABLE \"Item\"; --"

    /// Items: (attributes, labels).
    static let items: [([String: PredicateValue], [[String: PredicateValue]])] = [
        (["name": "Straße", "n": .int(Int64.max), "x": .double(1.5), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 0)), "amount": .decimal(Decimal(string: "12.34")!)],
         [["text": "Red", "weight": 3], ["text": "blue", "weight": 1]]),
        (["name": "STRASSE", "n": .int(Int64.min), "x": .double(.nan), "flag": false], [["text": "red", "weight": .null]]),
        (["name": "strasse", "n": 0, "x": .double(-0.5)], []),
        (["name": "José", "n": -1, "x": .double(.infinity), "flag": true], [["text": "Ünal", "weight": 7]]),
        (["name": "Jose\u{301}", "n": 1, "x": .null], [["text": "unal", "weight": 2], ["text": .null, "weight": 5]]),
        (["name": "jose", "n": .null], []),
        (["name": .string(hostile), "n": 42], [["text": .string(hostile), "weight": 0]]),
        (["name": "O'Brien", "n": 7, "x": .double(1.5)], []),
        (["name": "50%", "n": 50], []),
        (["name": "a_b", "n": 3], []),
        (["name": "back\\slash", "n": 4], []),
        (["name": "", "n": 5], []),
        (["name": .null, "n": 6, "x": .double(0)], [["text": "ß", "weight": -2]]),
        (["name": "Ünal", "n": 8], []),
        (["name": "zeta", "n": 9, "flag": false], []),
    ]

    /// The store loaded with `items`, the keys, and the objects as memory sees them.
    static func withItems(_ body: (PostgresPredicateStore, [Int64], [PredicateValue]) async throws -> Void) async throws {
        try await TestServer.withStore(model: model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            var ids: [Int64] = [], objects: [PredicateValue] = []
            for (attributes, labels) in items {
                let id = try await store.insert("Item", attributes)
                ids.append(id)
                var object = attributes
                for a in ["name", "n", "x", "flag", "when", "amount"] where object[a] == nil { object[a] = .null }
                var list: [PredicateValue] = []
                for l in labels {
                    try await store.insert("Label", l.merging(["item": .int(id)]) { a, _ in a })
                    list.append(.dictionary(l))
                }
                object["labels"] = .array(list)
                objects.append(.dictionary(object))
            }
            try await body(store, ids, objects)
        }
    }

    /// The keys memory matches.
    static func memory(_ query: EntityQuery, _ ids: [Int64], _ objects: [PredicateValue]) throws -> [Int64] {
        let predicate = query.variables.isEmpty ? query.predicate : query.predicate.substituting(query.variables)
        let compiled = try CompiledPredicate(predicate, reader: PredicateValue.predicateReader)
        return try zip(ids, objects).filter { try compiled.evaluate($0.1) }.map(\.0)
    }

    static var cases: [(String, [Any?])] { [
        // Comparisons and nil (reference §6.2): x != 5 keeps nil rows, nil == nil holds.
        ("n == 0", []), ("n != 0", []), ("n == nil", []), ("n != nil", []), ("n < 5", []), ("n >= 5", []),
        ("name == nil", []), ("name != 'zeta'", []), ("name < 'b'", []), ("name > 'Z'", []), ("name <= nil", []),
        // 64-bit edges, bound as values.
        ("n == %@", [Int64.max]), ("n == %@", [Int64.min]), ("n > %@", [Int64.max - 1]), ("n < %@", [Int64.min + 1]),
        ("n BETWEEN {-1, 1}", []), ("n BETWEEN {1, -1}", []), ("n IN {0, 7, 42}", []), ("NOT (n IN {0, 7})", []),
        // NaN and infinity stored by PostgreSQL: NaN is no number's neighbour.
        ("x > 1", []), ("x >= 1.5", []), ("x < 0", []), ("x <= 1.5", []), ("x == 1.5", []), ("x != 1.5", []),
        ("x BETWEEN {0, 2}", []), ("x == nil", []), ("x > 1000000", []), ("n BETWEEN {labels.@count, 8}", []),
        ("name BETWEEN {'a', labels.@max.text}", []), ("n BETWEEN {9, labels.@sum.weight}", []),
        ("flag == YES", []), ("flag != YES", []), ("flag == nil", []), ("flag == 1", []), ("flag < 0.5", []), ("n IN {YES, 3}", []),
        ("flag BETWEEN {1, 2}", []),
        ("when == %@", [Date(timeIntervalSinceReferenceDate: 0)]), ("when < %@", [Date(timeIntervalSinceReferenceDate: 10)]),
        ("amount > 12", []), ("amount == %@", [Decimal(string: "12.34")!]),
        // Unicode: folding through pql.fold_*, scalar order.
        ("name ==[cd] 'strasse'", []), ("name ==[c] 'STRASSE'", []), ("name ==[d] 'Jose'", []), ("name ==[cd] 'JOSE'", []),
        ("name BEGINSWITH[c] 'stra'", []), ("name BEGINSWITH 'Jos'", []), ("name ENDSWITH[cd] 'SE'", []), ("name CONTAINS[d] 'e'", []),
        ("name CONTAINS 'ß'", []), ("name CONTAINS[c] 'SS'", []), ("name IN[cd] {'josé', 'STRASSE'}", []), ("name <[c] 'j'", []),
        // LIKE and wildcard characters that must stay literal.
        ("name LIKE 'a?b'", []), ("name LIKE '50%'", []), ("name LIKE '*\\\\*'", []), ("name LIKE[c] '*SE'", []),
        ("name LIKE 'Jos?'", []), ("name CONTAINS '%'", []), ("name CONTAINS '_'", []), ("name BEGINSWITH ''", []),
        // Hostile values: bound, never spliced.
        ("name == %@", [hostile]), ("name IN %@", [[hostile, "O'Brien"]]), ("name CONTAINS %@", ["'"]), ("ANY labels.text == %@", [hostile]),
        ("name == $v", []),
        // To-many: empty sets, quantifiers, aggregates, SUBQUERY.
        ("ANY labels.text ==[c] 'red'", []), ("ALL labels.weight > 0", []), ("NONE labels.weight > 2", []),
        ("ANY labels.weight == nil", []), ("ALL labels.text != nil", []), ("labels.@count == 0", []), ("labels.@count >= 2", []),
        ("labels.@sum.weight > 3", []), ("labels.@sum.weight == 0", []), ("labels.@avg.weight >= 2", []), ("labels.@avg.weight == nil", []),
        ("labels.@max.text == 'blue'", []), ("labels.@min.weight < 0", []), ("labels.@max.text > 'a'", []),
        ("SUBQUERY(labels, $l, $l.weight > 1).@count > 0", []), ("SUBQUERY(labels, $l, $l.text ==[cd] 'UNAL').@count == 1", []),
        ("'red' IN labels.text", []), ("labels.text CONTAINS[c] 'BLUE'", []), ("labels[SIZE] == 1", []),
        // Compounds.
        ("n > 0 AND (name BEGINSWITH 'a' OR x == nil)", []), ("NOT (name ==[c] 'jose') AND n != nil", []), ("TRUEPREDICATE", []), ("FALSEPREDICATE", []),
    ] }

    @Test func everyConstructGivesMemorysRows() async throws {
        try await Self.withItems { store, ids, objects in
            for (format, args) in Self.cases {
                let query = try EntityQuery("Item", where: format, args, variables: ["v": .string("O'Brien")])
                let want = try Self.memory(query, ids, objects)
                let got: [Int64]
                do { got = try await store.fetchIDs(query) } catch {
                    Issue.record("\(format): PostgreSQL raised \(error)\n\((try? store.sql(for: query).description) ?? "")")
                    continue
                }
                #expect(Set(got) == Set(want) && got.count == want.count, "\(format): memory \(want), PostgreSQL \(got)\n\((try? store.sql(for: query).description) ?? "")")
                #expect(try await store.count(query) == want.count, "\(format)")
            }
            // The rows folding must find, named: ß folds to ss under [c], é is e under [d].
            let strasse = try await store.fetch(try EntityQuery("Item", where: "name ==[cd] 'strasse'", sort: [SortRule("n")]))
            #expect(strasse.map(\.id) == [ids[1], ids[2], ids[0]])
            #expect(strasse.last?["name"] == "Straße" && strasse.last?["amount"] == .decimal(Decimal(string: "12.34")!))
            #expect(strasse.last?["when"] == .date(Date(timeIntervalSinceReferenceDate: 0)) && strasse.last?["flag"] == true)
            // The hostile name came back as it went in, and the table is still there.
            let hostile = try await store.fetch(try EntityQuery("Item", where: "name == %@", [Self.hostile]))
            #expect(hostile.map(\.id) == [ids[6]] && hostile.first?["name"] == .string(Self.hostile))
            #expect(try await store.count("Item") == Self.items.count)
        }
    }

    @Test func sortsOffsetsAndLimitsGiveMemorysOrder() async throws {
        try await Self.withItems { store, ids, objects in
            let sorts: [[SortRule]] = [[SortRule("name")], [SortRule("name", ascending: false)], [SortRule("x"), SortRule("name")],
                                       [SortRule("name", comparison: .caseInsensitive)], [SortRule("flag", ascending: false), SortRule("n")],
                                       [SortRule("when")], [SortRule("amount", ascending: false)]]
            for sort in sorts {
                for (offset, limit) in [(0, nil), (2, 5), (0, 0), (14, 3)] as [(Int, Int?)] {
                    let want = try PredicateQuery(.constant(true), sort: sort, offset: offset, limit: limit)
                        .indices(in: objects, reader: PredicateValue.predicateReader).map { ids[$0] }
                    let query = EntityQuery("Item", sort: sort, offset: offset, limit: limit)
                    let got = try await store.fetchIDs(query)
                    #expect(got == want, "\(sort.map(\.keyPath)) \(offset) \(String(describing: limit))\n\((try? store.sql(for: query).sql) ?? "")")
                    #expect(try await store.count(query) == want.count)
                }
            }
        }
    }

    @Test func whatPostgreSQLCannotAnswerAsPQLDoesIsRefused() async throws {
        try await Self.withItems { store, _, _ in
            let refused: [(String, [Any?])] = [
                ("name MATCHES '\\\\d+'", []), ("amount + 1 > 2", []), ("name ==[l] 'jose'", []), ("modulus:by:(x, 2) == 1", []),
                ("x == %@", [Double.nan]), ("x BETWEEN {n, 2}", []), ("name CONTAINS name", []), ("name BEGINSWITH name", []), ("labels.@avg.text == 'a'", []),
            ]
            for (format, args) in refused {
                let query = try EntityQuery("Item", where: format, args)
                await #expect(throws: StoreError.self, "\(format)") { _ = try await store.fetch(query) }
                do throws(StoreError) { _ = try await store.count(query) } catch {
                    #expect(error.kind == .unsupported, "\(format): \(error)")
                    #expect(error.hint != nil, "\(format): \(error)")
                }
            }
            await #expect(throws: StoreError.self) {
                _ = try await store.fetch(EntityQuery("Item", sort: [SortRule("name", comparison: .localized)]))
            }
        }
    }

    @Test func anEqualityOnAnIndexedColumnUsesItsIndex() async throws {
        try await Self.withEmptyTables { store, schema in
            // Enough rows that the planner prefers the index to a scan.
            try await store.execute("INSERT INTO \(quote(schema)).\"Item\" (name, n) SELECT 'row ' || g, g + 1000 FROM generate_series(1, 20000) g")
            try await store.execute("ANALYZE \(quote(schema)).\"Item\"")
            for (format, args) in [("n == %@", [12_345] as [Any?]), ("name == %@", ["row 777"])] {
                let query = try EntityQuery("Item", where: format, args)
                let plan = try await store.explain(query).joined(separator: "\n")
                #expect(plan.contains("Index Scan") || plan.contains("Index Only Scan") || plan.contains("Bitmap Index Scan"), "\(format): \(plan)")
                #expect(try await store.count(query) == 1)
            }
        }
    }
}

extension PostgresFetchTests {
    /// A date PQL reads but PostgreSQL cannot hold is refused before it is sent, named as the
    /// user wrote it (ISO-8601), not in seconds since 2001.
    @Test func aDateBeyondPostgreSQLsTimestampsIsNamedAsWritten() async throws {
        try await Self.withEmptyTables { store, _ in
            let query = try EntityQuery("Item", where: "when > %@", [ISO8601.date(from: "-9999-01-01T00:00:00Z")!])
            do throws(StoreError) {
                _ = try await store.count(query)
                Issue.record("no error")
            } catch {
                #expect(error.kind == .invalidValue)
                #expect(error.message == "the date -9999-01-01T00:00:00Z lies outside PostgreSQL's timestamps (4713 BC to 294276 AD)", "\(error)")
                #expect(error.hint?.contains("give a date within that range") == true)
            }
        }
    }

    /// A fetch waiting on the server (for a lock another transaction holds, so it would wait
    /// for ever) stops when its task is cancelled: the server cancels the statement.
    @Test func cancellingAFetchCancelsItOnTheServer() async throws {
        try await Self.withEmptyTables { store, schema in
            let query = try EntityQuery("Item", where: "name BEGINSWITH %@", ["pql-cancel"])
            try await store.withConnection("holding a lock") { connection in
                try await connection.run("BEGIN", logger: store.logger)
                try await connection.run(PostgresQuery(unsafeSQL: "LOCK TABLE \(quote(schema)).\"Item\" IN ACCESS EXCLUSIVE MODE"), logger: store.logger)
                let fetching = Task { try await store.fetch(query) }
                // Wait until the fetch waits for the lock (bounded: a fetch never seen fails the test).
                var waiting = false
                for _ in 0..<200 where !waiting {
                    var rows = 0
                    // Inside a transaction the activity view is a snapshot taken once: drop it.
                    try await connection.run("SELECT pg_stat_clear_snapshot()", logger: store.logger)
                    let sql = "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(schema)%' AND query NOT LIKE '%pg_stat_activity%'"
                    for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: store.logger) { rows += 1 }
                    waiting = rows == 1
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(waiting)
                fetching.cancel()
                do {
                    _ = try await fetching.value
                    Issue.record("the fetch returned although its task was cancelled while it waited for a lock")
                } catch let error as StoreError {
                    #expect(error.kind == .cancelled, "\(error)")
                }
                try await connection.run("ROLLBACK", logger: store.logger)
            }
        }
    }

    /// The model's empty tables, and the schema's name for statements a test writes itself.
    static func withEmptyTables(_ body: (PostgresPredicateStore, String) async throws -> Void) async throws {
        try await TestServer.withStore(model: model) { store, schema in
            _ = try await store.createTables()
            try await body(store, schema)
        }
    }
}

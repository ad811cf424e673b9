import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Batch update and delete, single-object update and delete, and chosen properties on a real
/// server, each beside the SQLite store on the same model and data: the same counts, the same
/// rows afterwards, the same errors; all or nothing; refusals before anything is written.
@Suite struct PostgresBatchTests {
    static let model = PeopleSchema.model

    static let day = 86_400.0

    static let companies: [[String: PredicateValue]] = [
        ["name": "Acme", "founded": .date(Date(timeIntervalSinceReferenceDate: 100 * day)), "size": 12],
        ["name": "Globex", "size": 300],
        ["name": "Initech", "founded": .date(Date(timeIntervalSinceReferenceDate: -5 * day))],
    ]

    /// People: attributes (employer given as the company's index).
    static let people: [[String: PredicateValue]] = [
        ["name": "Ada", "age": 36, "score": 9.5, "city": "London", "active": true, "balance": .decimal(Decimal(string: "10.25")!),
         "born": .date(Date(timeIntervalSinceReferenceDate: -6000 * day)), "photo": .data(Data([0, 1, 255])), "employer": 0],
        ["name": "Grace", "age": 85, "score": 7.25, "city": "New York", "active": false, "employer": 0],
        ["name": "Linus", "age": 54, "city": "Portland", "active": true, "employer": 1],
        ["name": "José", "age": 30, "score": -1.5, "city": "Sevilla", "email": "jose@example.com", "employer": 2],
        ["name": "O'Brien", "age": .null, "city": "London", "active": .null],
        ["name": "Zoë", "age": 22, "score": 0, "city": "Berlin", "active": true, "employer": 1],
    ]

    /// Tags: (person index, name, weight).
    static let tags: [(Int, String, PredicateValue)] = [
        (0, "math", 3), (0, "engines", 1), (1, "cobol", 5), (2, "kernel", 8), (2, "git", .null), (5, "design", 2),
    ]

    /// The same data in an SQLite store and on the server, inserted in the same order so the
    /// keys are alike.
    static func withBoth(_ model: StoreModel = model,
                         _ body: (PredicateStore, PostgresPredicateStore, String) async throws -> Void) async throws {
        try await TestServer.withStore(model: model) { pg, schema in
            _ = try await pg.createTables()
            try await pg.installFunctions()
            let lite = try PredicateStore(path: ":memory:", model: model)
            if model == Self.model {
                var companyIDs: [Int64] = [], personIDs: [Int64] = []
                for c in companies {
                    let id = try await pg.insert("Company", c)
                    #expect(try lite.insert("Company", c) == id)
                    companyIDs.append(id)
                }
                for var p in people {
                    if case .int(let i)? = p["employer"] { p["employer"] = .int(companyIDs[Int(i)]) }
                    let id = try await pg.insert("Person", p)
                    #expect(try lite.insert("Person", p) == id)
                    personIDs.append(id)
                }
                for (person, name, weight) in tags {
                    let t: [String: PredicateValue] = ["name": .string(name), "weight": weight, "person": .int(personIDs[person])]
                    let id = try await pg.insert("Tag", t)
                    #expect(try lite.insert("Tag", t) == id)
                }
            }
            try await body(lite, pg, schema)
        }
    }

    /// Any JSON value a record decodes to, spelled out: to compare records of any entity.
    struct Loose: Decodable, Sendable, CustomStringConvertible {
        let description: String

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { description = "nil" }
            else if let b = try? c.decode(Bool.self) { description = "\(b)" }
            else if let n = try? c.decode(Int64.self) { description = "\(n)" }
            else if let d = try? c.decode(Double.self) { description = "\(d)" }
            else { description = "s:" + (try c.decode(String.self)) }
        }
    }

    /// Every object of every entity, with its to-one keys, in key order: what both stores hold
    /// (each read through `fetch(_:as:)`).
    static func contents(_ lite: PredicateStore, _ pg: PostgresPredicateStore, model: StoreModel = model) async throws -> (String, String) {
        func spelled(_ rows: [[String: Loose]]) -> String {
            rows.sorted { Int($0["id"]?.description ?? "") ?? 0 < Int($1["id"]?.description ?? "") ?? 0 }
                .map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }.description
        }
        var a = "", b = ""
        for e in model.entities {
            a += "\(e.name): \(spelled(try lite.fetch(EntityQuery(e.name), as: [String: Loose].self)))\n"
            b += "\(e.name): \(spelled(try await pg.fetch(EntityQuery(e.name), as: [String: Loose].self)))\n"
        }
        return (a, b)
    }

    static func describe(_ row: [String: PredicateValue]) -> String {
        row.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// The error an SQLite call throws, or nil.
    static func error<T>(_ body: () throws(StoreError) -> T) -> StoreError? {
        do throws(StoreError) { _ = try body(); return nil } catch { return error }
    }

    /// The error a PostgreSQL call throws, or nil.
    static func error<T>(_ body: () async throws(StoreError) -> T) async -> StoreError? {
        do throws(StoreError) { _ = try await body(); return nil } catch { return error }
    }

    @Test func batchUpdatesChangeWhatTheSQLiteStoreChanges() async throws {
        try await Self.withBoth { lite, pg, _ in
            let updates: [(String, [Any?], [String: PredicateValue])] = [
                ("age > 40", [], ["city": "Retired", "active": false]),
                ("name BEGINSWITH[c] %@", ["z"], ["score": 1, "balance": .decimal(Decimal(string: "0.1")!), "born": .date(Date(timeIntervalSinceReferenceDate: 7 * Self.day))]),
                ("employer.name == 'Acme'", [], ["employer": .int(3), "email": "acme@example.com"]),
                ("ANY tags.weight > 4", [], ["photo": .data(Data([9, 9])), "age": 41.0]),
                ("city == 'London'", [], ["employer": .null, "active": 1]),
                ("FALSEPREDICATE", [], ["name": "nobody"]),
                ("TRUEPREDICATE", [], ["score": .null]),
                ("name == %@", ["O'Brien"], ["email": "x'); DROP TABLE \"Person\"; --"]),
            ]
            for (format, args, values) in updates {
                let query = try EntityQuery("Person", where: format, args)
                let want = try lite.batchUpdate(query, set: values)
                let got = try await pg.batchUpdate(query, set: values)
                #expect(got == want, "\(format)")
                let (a, b) = try await Self.contents(lite, pg)
                #expect(a == b, "after \(format)")
            }
            let (_, changed) = try await Self.contents(lite, pg)
            #expect(changed.contains("DROP TABLE \\\"Person\\\"; --") && changed.contains("city=s:Retired") && changed.contains("email=s:acme@example.com") && changed.contains("photo=s:CQk="), "\(changed)")
            // With sort, offset and limit, the page's objects change.
            let page = EntityQuery("Tag", sort: [SortRule("name")], offset: 1, limit: 2)
            #expect(try await pg.batchUpdate(page, set: ["weight": 100]) == lite.batchUpdate(page, set: ["weight": 100]))
            let (a, b) = try await Self.contents(lite, pg)
            #expect(a == b)
        }
    }

    @Test func badUpdatesFailAsInTheSQLiteStoreAndWriteNothing() async throws {
        try await Self.withBoth { lite, pg, _ in
            let (before, _) = try await Self.contents(lite, pg)
            let bad: [(String, [String: PredicateValue])] = [
                ("Person", ["nmae": "x"]),                       // unknown key
                ("Person", ["age": "old"]),                       // wrong kind
                ("Person", ["age": 2.5]),                         // not a whole number
                ("Person", ["employer": 999]),                    // a link to no company
                ("Person", [:]),                                  // nothing to set
                ("Company", ["name": .null]),                     // not optional
                ("Company", ["size": .int(Int64(Int32.max) + 1)]), // out of an integer32's range
            ]
            for (entity, values) in bad {
                let query = EntityQuery(entity)
                let want = Self.error { () throws(StoreError) in try lite.batchUpdate(query, set: values) }
                let got = await Self.error { () async throws(StoreError) in try await pg.batchUpdate(query, set: values) }
                #expect(want != nil && got?.kind == want?.kind && got?.message == want?.message, "\(values): SQLite \(String(describing: want)), PostgreSQL \(String(describing: got))")
            }
            // What PostgreSQL cannot answer as PQL does is refused before anything is written.
            let refused = try EntityQuery("Person", where: "name MATCHES[c] 'a.*'")
            let error = await Self.error { () async throws(StoreError) in try await pg.batchUpdate(refused, set: ["city": "x"]) }
            #expect(error?.kind == .unsupported && error?.hint != nil)
            let deleteError = await Self.error { () async throws(StoreError) in try await pg.batchDelete(refused) }
            #expect(deleteError?.kind == .unsupported)
            let (_, after) = try await Self.contents(lite, pg)
            #expect(after == before)
        }
    }

    @Test func batchDeletesFollowTheDeleteRulesAsTheSQLiteStore() async throws {
        try await Self.withBoth { lite, pg, _ in
            // Company.employees nullifies; Person.tags cascades.
            let deletes: [(String, String)] = [("Company", "name == 'Acme'"), ("Person", "age > 50"), ("Tag", "weight == nil"),
                                               ("Person", "FALSEPREDICATE"), ("Company", "TRUEPREDICATE")]
            for (entity, format) in deletes {
                let query = try EntityQuery(entity, where: format)
                let want = try lite.batchDelete(query)
                #expect(try await pg.batchDelete(query) == want, "\(entity) \(format)")
                let (a, b) = try await Self.contents(lite, pg)
                #expect(a == b, "after deleting \(entity) where \(format)")
            }
            #expect(try await pg.count("Tag") == lite.count(EntityQuery("Tag")))
        }
    }

    /// A deny rule two cascades down stops the whole delete: nothing is deleted, on either store.
    static let ruled = try! StoreModel([
        ModelEntity("Shelf", attributes: [ModelAttribute("label", .string)],
                    relationships: [ModelRelationship("boxes", toMany: "Box", inverse: "shelf", deleteRule: .cascade)]),
        ModelEntity("Box", attributes: [ModelAttribute("label", .string)],
                    relationships: [ModelRelationship("shelf", to: "Shelf", inverse: "boxes"),
                                    ModelRelationship("items", toMany: "Thing", inverse: "box", deleteRule: .deny)]),
        ModelEntity("Thing", attributes: [ModelAttribute("label", .string)],
                    relationships: [ModelRelationship("box", to: "Box", inverse: "items")]),
    ])

    @Test func aDenyRuleStopsTheWholeDelete() async throws {
        try await Self.withBoth(Self.ruled) { lite, pg, _ in
            for (entity, values) in [("Shelf", ["label": "top"]), ("Shelf", ["label": "bottom"]), ("Box", ["label": "a", "shelf": 1]),
                                     ("Box", ["label": "b", "shelf": 2]), ("Thing", ["label": "x", "box": 1])] as [(String, [String: PredicateValue])] {
                let id = try await pg.insert(entity, values)
                #expect(try lite.insert(entity, values) == id)
            }
            let all = EntityQuery("Shelf")
            let want = Self.error { () throws(StoreError) in try lite.batchDelete(all) }
            let got = await Self.error { () async throws(StoreError) in try await pg.batchDelete(all) }
            #expect(want?.kind == .constraint && got?.kind == want?.kind && got?.message == want?.message, "\(String(describing: got))")
            let counts = [try await pg.count("Shelf"), try await pg.count("Box"), try await pg.count("Thing")]
            #expect(counts == [2, 2, 1])
            // The shelf whose box is empty goes, with its box.
            let bottom = try EntityQuery("Shelf", where: "label == 'bottom'")
            #expect(try await pg.batchDelete(bottom) == lite.batchDelete(bottom))
            let (a, b) = try await Self.contents(lite, pg, model: Self.ruled)
            #expect(a == b && b.contains("Box: [\"id=1 label=s:a shelf=1\"]"), "\(b)")
            // One object by key: the missing one is an error worded as SQLite's.
            let missing = await Self.error { () async throws(StoreError) in try await pg.delete("Thing", id: 99) }
            let sqliteMissing = Self.error { () throws(StoreError) in try lite.delete("Thing", id: 99) }
            #expect(missing?.message == sqliteMissing?.message && missing?.kind == .invalidValue)
            try await pg.delete("Thing", id: 1)
            try lite.delete("Thing", id: 1)
            #expect(try await pg.batchDelete(all) == lite.batchDelete(all))
            #expect(try await pg.count("Box") == 0)
        }
    }

    /// A tree whose links cascade both ways: deleting a node takes its subtree, and the
    /// cascade back to the parent being deleted ends there.
    static let tree = try! StoreModel([
        ModelEntity("Node", attributes: [ModelAttribute("label", .string)],
                    relationships: [ModelRelationship("children", toMany: "Node", inverse: "parent", deleteRule: .cascade),
                                    ModelRelationship("parent", to: "Node", inverse: "children", deleteRule: .cascade)]),
    ])

    @Test func cascadesThatLoopBackEnd() async throws {
        try await Self.withBoth(Self.tree) { lite, pg, _ in
            for (label, parent) in [("root", nil), ("a", 1), ("b", 1), ("a1", 2), ("a2", 2), ("a1x", 4), ("other", nil)] as [(String, Int64?)] {
                let values: [String: PredicateValue] = ["label": .string(label), "parent": parent.map(PredicateValue.int) ?? .null]
                let id = try await pg.insert("Node", values)
                #expect(try lite.insert("Node", values) == id)
            }
            // Deleting 'a' takes its subtree, and through the parent's cascade the root and the
            // root's other subtree, in both stores.
            let a = try EntityQuery("Node", where: "label == 'a'")
            #expect(try lite.batchDelete(a) == 1)
            #expect(try await pg.batchDelete(a) == 1)
            let (x, y) = try await Self.contents(lite, pg, model: Self.tree)
            #expect(x == y)
            #expect(y == "Node: [\"id=7 label=s:other parent=nil\"]\n", "\(y)")
            try await pg.delete("Node", id: 7)
            #expect(try await pg.count("Node") == 0)
        }
    }

    @Test func updateAndDeleteByKeyMatchTheSQLiteStore() async throws {
        try await Self.withBoth { lite, pg, _ in
            try await pg.update("Person", id: 2, ["name": "Grace Hopper", "employer": 2, "born": .date(Date(timeIntervalSinceReferenceDate: 3 * Self.day))])
            try lite.update("Person", id: 2, ["name": "Grace Hopper", "employer": 2, "born": .date(Date(timeIntervalSinceReferenceDate: 3 * Self.day))])
            try await pg.update("Person", id: 3, [:])
            try await pg.delete("Person", id: 1)
            try lite.delete("Person", id: 1)
            let (a, b) = try await Self.contents(lite, pg)
            #expect(a == b && !b.contains("math"))
            for values in [["age": "x"], ["employer": 42], ["id": 5]] as [[String: PredicateValue]] {
                let want = Self.error { () throws(StoreError) in try lite.update("Person", id: 3, values) }
                let got = await Self.error { () async throws(StoreError) in try await pg.update("Person", id: 3, values) }
                #expect(want != nil && got?.message == want?.message, "\(values): \(String(describing: got))")
            }
            let want = Self.error { () throws(StoreError) in try lite.update("Person", id: 99, ["age": 1]) }
            let got = await Self.error { () async throws(StoreError) in try await pg.update("Person", id: 99, ["age": 1]) }
            #expect(got?.kind == .invalidValue && got?.message == want?.message)
        }
    }

    @Test func chosenPropertiesAreTheSQLiteStores() async throws {
        try await Self.withBoth { lite, pg, _ in
            let cases: [([String], String, Bool)] = [
                (["name", "employer.name", "employer.size"], "TRUEPREDICATE", false),
                (["city"], "TRUEPREDICATE", true),
                (["active", "born", "balance", "photo", "score"], "age != nil", false),
                (["name", "tags.@count", "tags.@sum.weight", "tags.@max.name", "tags.@min.weight"], "TRUEPREDICATE", false),
                (["employer.founded", "employer.name"], "employer != nil", true),
                (["name"], "ANY tags.name ==[c] 'MATH' OR employer.name BEGINSWITH 'G'", false),
            ]
            for (keyPaths, format, distinct) in cases {
                let query = try EntityQuery("Person", where: format, sort: distinct ? [SortRule(keyPaths[0])] : [SortRule("name")])
                let want = try lite.fetchProperties(keyPaths, query, distinct: distinct).map(Self.describe)
                let got = try await pg.fetchProperties(keyPaths, query, distinct: distinct).map(Self.describe)
                #expect(got == want, "\(keyPaths) \(format)")
            }
            let companies = EntityQuery("Company", sort: [SortRule("name")])
            let aggregates = ["name", "employees.@sum.balance", "employees.@avg.score", "employees.@sum.score", "employees.@min.name", "employees.@count"]
            let pgAggregates = try await pg.fetchProperties(aggregates, companies).map(Self.describe)
            let liteAggregates = try lite.fetchProperties(aggregates, companies).map(Self.describe)
            #expect(pgAggregates == liteAggregates, "\(pgAggregates)\n\(liteAggregates)")
            // A documented difference: @max/@min of dates is a date here, as in memory; the
            // SQLite store gives the seconds since 2001 it stores.
            let born = Date(timeIntervalSinceReferenceDate: -6000 * Self.day)
            #expect(try await pg.fetchProperties(["employees.@max.born"], companies).first == ["employees.@max.born": .date(born)])
            #expect(try lite.fetchProperties(["employees.@max.born"], companies).first == ["employees.@max.born": .double(born.timeIntervalSinceReferenceDate)])
            // DISTINCT, then the page: the distinct cities 2 and 3 in order.
            let cities = EntityQuery("Person", sort: [SortRule("city")], offset: 1, limit: 2)
            let distinctCities = try await pg.fetchProperties(["city"], cities, distinct: true).map(Self.describe)
            #expect(distinctCities == (try lite.fetchProperties(["city"], cities, distinct: true).map(Self.describe)))
            #expect(distinctCities == ["city=\"London\"", "city=\"New York\""], "\(distinctCities)")
            // The page of a distinct fetch never adds offset and limit (F26: this trapped).
            let huge = EntityQuery("Person", sort: [SortRule("city")], offset: 1, limit: .max)
            let rest = try await pg.fetchProperties(["city"], huge, distinct: true).map(Self.describe)
            #expect(rest == (try lite.fetchProperties(["city"], huge, distinct: true).map(Self.describe)) && rest.count > 2, "\(rest)")
            let page = EntityQuery("Tag", sort: [SortRule("weight", ascending: false)], offset: 1, limit: 3)
            #expect(try await pg.fetchProperties(["name", "person.name"], page).map(Self.describe) == lite.fetchProperties(["name", "person.name"], page).map(Self.describe))
            for keyPaths in [["employer"], ["tags.name"], [], ["nmae"]] {
                let want = Self.error { () throws(StoreError) in try lite.fetchProperties(keyPaths, EntityQuery("Person")) }
                let got = await Self.error { () async throws(StoreError) in try await pg.fetchProperties(keyPaths, EntityQuery("Person")) }
                #expect(want != nil && got?.kind == want?.kind && got?.message == want?.message, "\(keyPaths): \(String(describing: got))")
            }
        }
    }

    @Test func computedUpdatesMatchTheSQLiteStoreOrAreRefusedBeforeWriting() async throws {
        try await Self.withBoth { lite, pg, _ in
            let updates: [(String, [String: String])] = [
                ("age != nil", ["email": "name", "score": "age"]),
                ("employer != nil", ["city": "employer.name", "age": "tags.@count"]),
                ("TRUEPREDICATE", ["active": "TERNARY(age > 40, YES, NO)", "balance": "12.5"]),
                ("FALSEPREDICATE", ["age": "7"]),
            ]
            for (format, expressions) in updates {
                let query = try EntityQuery("Person", where: format)
                let trees = try expressions.mapValues { try ExpressionNode(format: $0) }
                let want = try lite.batchUpdate(query, computing: trees)
                #expect(try await pg.batchUpdate(query, computing: trees) == want, "\(format)")
                let (a, b) = try await Self.contents(lite, pg)
                #expect(a == b, "after \(format) \(expressions)")
            }
            let (before, _) = try await Self.contents(lite, pg)
            #expect(before.contains("email=s:Linus") && before.contains("city=s:Globex"), "\(before)")
            // A value that does not fit stops the whole update, with SQLite's words.
            for (format, expressions) in [("TRUEPREDICATE", ["age": "name"]), ("TRUEPREDICATE", ["score": "name"]), ("TRUEPREDICATE", ["nmae": "1"]), ("TRUEPREDICATE", [:]),
                                             ("TRUEPREDICATE", ["employer": "employer"]), ("name == 'Ada'", ["employer": "5"])] as [(String, [String: String])] {
                let query = try EntityQuery("Person", where: format)
                let trees = try expressions.mapValues { try ExpressionNode(format: $0) }
                let want = Self.error { () throws(StoreError) in try lite.batchUpdate(query, computing: trees) }
                let got = await Self.error { () async throws(StoreError) in try await pg.batchUpdate(query, computing: trees) }
                #expect(want != nil && got?.kind == want?.kind && got?.message == want?.message, "\(expressions): SQLite \(String(describing: want)), PostgreSQL \(String(describing: got))")
            }
            // What has no native form (a case-insensitive MATCHES) is refused, nothing written.
            let caseless = ["age": try ExpressionNode(format: "TERNARY(name MATCHES[c] 'a.*', 1, 2)")]
            let refused = await Self.error { () async throws(StoreError) in try await pg.batchUpdate(EntityQuery("Person"), computing: caseless) }
            #expect(refused?.kind == .unsupported && refused?.hint != nil, "\(String(describing: refused))")
            let (_, after) = try await Self.contents(lite, pg)
            #expect(after == before)
        }
    }

    @Test func cancellingABatchUpdateCancelsItOnTheServerAndWritesNothing() async throws {
        try await Self.withBoth { _, pg, schema in
            try await pg.withConnection("holding a lock") { connection in
                try await connection.run("BEGIN", logger: pg.logger)
                try await connection.run(PostgresQuery(unsafeSQL: "LOCK TABLE \(quote(schema)).\"Person\" IN ACCESS EXCLUSIVE MODE"), logger: pg.logger)
                let updating = Task { try await pg.batchUpdate(EntityQuery("Person"), set: ["city": "Nowhere"]) }
                var waiting = false
                for _ in 0..<200 where !waiting {
                    var rows = 0
                    try await connection.run("SELECT pg_stat_clear_snapshot()", logger: pg.logger)
                    let sql = "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(schema)%' AND query NOT LIKE '%pg_stat_activity%'"
                    for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: pg.logger) { rows += 1 }
                    waiting = rows == 1
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(waiting)
                updating.cancel()
                do {
                    _ = try await updating.value
                    Issue.record("the update returned although its task was cancelled while it waited for a lock")
                } catch let error as StoreError {
                    #expect(error.kind == .cancelled, "\(error)")
                }
                try await connection.run("ROLLBACK", logger: pg.logger)
            }
            #expect(try await pg.count(EntityQuery("Person", where: "city == 'Nowhere'")) == 0)
        }
    }
}

import CSQLite
import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// The store's choice between an index search and a scan for a range over an indexed column
/// (`IndexUse`, README "Indexes and plans"): it changes the plan, never the rows.
///
/// The rows are compared with memory under each policy (measured, every candidate range kept
/// off its index, SQLite's planner alone), with the model's indexes and without them; the plans
/// are checked on deterministic data: a broad range that no index covers is scanned, a
/// selective one searched, a covering index kept, a sorted fetch keeps the index its order
/// walks.
@Suite struct IndexRangeChoiceTests {
    static let policies: [IndexRangePolicy] = [.measured, .neverSearch, .plannerOnly]

    /// Ranges, BETWEENs, lists, ORs and nil tests over the indexed `age`, `name` and `city`,
    /// beside unindexed columns, and operands of other kinds (which the shared functions decide).
    static let formats = [
        "age > 30", "age >= 18 AND age <= 65", "age BETWEEN {18, 65}", "age BETWEEN {65, 18}", "age BETWEEN {18, 65} AND score >= 1.0",
        "age < 0 OR age > 60", "(age < 18 OR age > 60) AND NOT (city == 'Paris') AND email != nil", "age < 18 OR city == 'Paris'",
        "age IN {0, 18, 30}", "age IN {0, 18, 30} AND age > 10", "age == 30 AND age > 10", "age > 20 AND age > 40",
        "age > 30.5", "age >= 17.0 AND age < 99.5", "age > '30'", "age > nil", "age >= nil", "age != nil AND age < 50",
        "age == nil OR age > 50", "NOT (age > 30)", "NOT (age < 18 OR age > 60)", "age > -1 AND name != nil",
        "name < 'M'", "name >= 'A' AND name < 'T'", "name BEGINSWITH 'J'", "name BEGINSWITH 'J' AND score > 0.0",
        "name > 5", "name BETWEEN {'A', 'z'}", "name IN {'José', 'jose', 'ß'}", "name IN {'José', 3}",
        "city IN {'Paris', 'Lima', 'Zürich'}", "city IN {'Paris', 'Lima'} OR age > 60", "city > '' AND city < 'Z'",
        "city == 'Paris' OR city == 'Lima' OR name == 'ß'", "city >= 'P' OR name <= 'B' OR age == 30",
        "age > 0 AND (name < 'M' OR city > 'M')", "ANY tags.name == 'x' AND age > 10", "age > 10 AND tags.@count > 0",
        "employer.#size > 3 AND age > 10", "noindex(age) > 30", "age != nil AND age + 0 > 30 AND age > 20",
    ]

    static func worlds(_ seed: UInt64) throws -> [(name: String, world: DifferentialTests.World)] {
        let indexed = try DifferentialTests.World(seed: seed)
        let bare = try DifferentialTests.World(seed: seed)
        try bare.store.dropIndexes()
        return [("indexes", indexed), ("no indexes", bare)]
    }

    @Test(arguments: [UInt64(1), 0xC0FFEE])
    func theListedPredicatesGiveMemorysRowsUnderEveryPolicy(seed: UInt64) throws {
        var failures: [String] = []
        var tally = DifferentialTests.Tally()
        for (name, world) in try Self.worlds(seed) {
            for policy in Self.policies {
                world.store.indexRangePolicy = policy
                for format in Self.formats {
                    let node = try EntityQuery("Person", where: format).predicate
                    if let f = DifferentialTests.check(node, in: world, label: "\(name), \(policy): \(format)", tally: &tally) { failures.append(f) }
                }
            }
        }
        DifferentialTests.record(failures, "seed \(seed)")
        #expect(tally.empty < tally.predicates / 3, "\(tally)")
    }

    @Test(arguments: [UInt64(2), 20_240_501])
    func randomPredicatesGiveMemorysRowsUnderEveryPolicy(seed: UInt64) throws {
        var failures: [String] = []
        var tally = DifferentialTests.Tally()
        for (name, world) in try Self.worlds(seed) {
            for policy in Self.policies {
                world.store.indexRangePolicy = policy
                for i in 0..<250 {
                    var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
                    let node = g.predicate()
                    if let f = DifferentialTests.check(node, in: world, label: "\(name), \(policy), case \(i)", tally: &tally) { failures.append(f) }
                }
            }
        }
        DifferentialTests.record(failures, "seed \(seed)")
    }

    /// Sorted and paged fetches, keys and counts: each policy returns what SQLite's planner
    /// alone returns (which the differential suite compares with memory), in the same order.
    @Test func sortedPagedFetchesKeysAndCountsAgreeAcrossPolicies() throws {
        for (name, world) in try Self.worlds(3) {
            let store = world.store
            for format in Self.formats where !format.contains("'30'") && !format.contains("> 5") && !format.contains(", 3}") {
                for sort in [[SortRule("age")], [SortRule("name", ascending: false), SortRule("age")], [SortRule("score")]] {
                    let query = try EntityQuery("Person", where: format, sort: sort, offset: 2, limit: 7)
                    var results: [[Int64]] = []
                    var keys: [Set<Int64>] = []
                    var counts: [Int] = []
                    for policy in Self.policies {
                        store.indexRangePolicy = policy
                        results.append(try store.fetch(query).map(\.id))
                        keys.append(Set(try store.fetchIDs(try EntityQuery("Person", where: format))))
                        counts.append(try store.count(try EntityQuery("Person", where: format)))
                    }
                    #expect(Set(results.map { $0.description }).count == 1, "\(name): \(format) \(sort.map(\.keyPath)): \(results)")
                    #expect(Set(keys).count == 1, "\(name): \(format)")
                    #expect(Set(counts).count == 1, "\(name): \(format): \(counts)")
                }
            }
        }
    }

    /// Batch updates and deletes select their rows through the same statement.
    @Test func batchUpdatesAndDeletesChangeTheSameRowsUnderEveryPolicy() throws {
        var outcomes: [[String]] = []
        for policy in Self.policies {
            let world = try DifferentialTests.World(seed: 4)
            world.store.indexRangePolicy = policy
            let updated = try world.store.batchUpdate(try EntityQuery("Person", where: "age BETWEEN {18, 65} OR city > 'M'"), set: ["email": "x@y"])
            let deleted = try world.store.batchDelete(try EntityQuery("Person", where: "(age < 18 OR age > 60) AND name > 'J'"))
            let rows = try world.store.fetch(EntityQuery("Person", sort: [SortRule("age"), SortRule("name")]))
            outcomes.append(["\(updated) \(deleted)"] + rows.map { "\($0.id) \($0["email"])" })
        }
        #expect(outcomes.count == 3 && outcomes.allSatisfy { $0 == outcomes[0] }, "\(outcomes.map { $0.prefix(1) })")
    }

    /// On a file another program wrote, a column may hold values of other storage classes than
    /// its declared type (SQLite's dynamic typing): `+column`, which drops the column's
    /// affinity, compares them as the plain column does, for every kind PQL binds.
    @Test func valuesOfOtherStorageClassesCompareAlikeWithAndWithoutTheIndex() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-index-choice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("mixed.sqlite").path
        let store = try PredicateStore(path: path, model: PeopleModel.model)
        var rows: [[String: PredicateValue]] = []
        for i in 0..<200 { rows.append(["name": .string("n\(i % 37)"), "age": .int(Int64(i % 90)), "city": .string("c\(i % 11)"), "score": .double(Double(i))]) }
        try store.insert("Person", rows)
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        // Text, real, blob and text that looks like a number in the integer column; numbers,
        // blobs and NULL in the text columns (the TEXT affinity makes the numbers text).
        let foreign = """
            INSERT INTO "Person" ("name", "age", "city", "score") VALUES
            ('x', 'abc', 'c1', 1.0), ('y', '42', 'c2', 2.0), ('z', 30.5, 'c3', 3.0), ('w', x'01', 'c4', 4.0),
            (12, 31, 5, 5.0), (x'41', 32, x'00', 6.0), (NULL, 1e300, NULL, 7.0), ('v', -9223372036854775808, '', '8'),
            ('u', ' 17 ', 'c5', 'abc'), ('t', '0x10', 'c6', x'02')
            """
        #expect(sqlite3_exec(db, foreign, nil, nil, nil) == SQLITE_OK, "\(String(cString: sqlite3_errmsg(db)))")
        let formats = [
            "age > 30", "age >= 30.5", "age BETWEEN {17, 42}", "age < 0 OR age > 80", "age IN {42, 30, 17}", "age > -1",
            "name < 'n2'", "name > 'A' AND name < 'z'", "name BEGINSWITH 'n1'", "name IN {'n1', 'x', '12'}", "name < 'n2' OR name > 'x'",
            "city > 'c3'", "city IN {'5', 'c4'}", "city < 'c5' OR age > 85", "score > 3.0", "score BETWEEN {2, 100}",
        ]
        for format in formats {
            let query = try EntityQuery("Person", where: format)
            store.indexRangePolicy = .plannerOnly
            let plain = Set(try store.fetchIDs(query)), plainCount = try store.count(query)
            let plainPlan = try store.queryPlan(for: query)
            store.indexRangePolicy = .neverSearch
            let unindexed = Set(try store.fetchIDs(query)), unindexedCount = try store.count(query)
            let sql = try store.sql(for: query).sql
            #expect(plain == unindexed && plainCount == unindexedCount, "\(format): \(plain.count) rows with the plain column, \(unindexed.count) with +column")
            if plainPlan.contains(where: { $0.contains("INDEX Person_") }) {
                #expect(sql.contains("+t0."), "\(format): \(sql)")
            }
        }
    }

    /// The differential worlds hold 150 people, fewer than the store measures ranges for
    /// (`IndexUse.minimumRows`): there `.neverSearch` puts every candidate on `+column`. Here,
    /// on 4,000, the measured choice writes `+` for some statements and not others, with the
    /// rows of SQLite's own plan.
    @Test func measuredChoicesKeepTheRowsOnALargerTable() throws {
        let store = try Self.planStore()
        var unindexed = 0, kept = 0
        // Operands of other kinds raise in the store as in memory, whatever the plan.
        let sameKind = Self.formats.filter { !$0.contains("'30'") && !$0.contains("> 5") && !$0.contains(", 3}") }
        for format in sameKind + ["age < 2", "age < 2 OR age > 77", "name BEGINSWITH 'Person 39'", "age BETWEEN {10, 12} AND score >= 50.0"] {
            let query = try EntityQuery("Person", where: format)
            var answers: [String] = []
            for policy in Self.policies {
                store.indexRangePolicy = policy
                let sql = try store.sql(for: query).sql
                if policy == .measured { if sql.contains("+t0.") { unindexed += 1 } else { kept += 1 } }
                answers.append("\(try store.fetchIDs(query).sorted()) \(try store.count(query)) \(try store.fetch(query).map(\.id).sorted())")
            }
            #expect(Set(answers).count == 1, "\(format)")
        }
        #expect(unindexed >= 10 && kept >= 10, "\(unindexed) written on +column, \(kept) not")
    }

    // MARK: plans

    /// 4,000 people, ages 0…79 (50 of each), 20 cities, names "Person i", analysed.
    static func planStore() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        var people: [[String: PredicateValue]] = []
        for i in 0..<4_000 {
            people.append(["name": .string("Person \(i)"), "age": .int(Int64(i % 80)), "city": .string("City \(i % 20)"),
                           "score": .double(Double(i % 100)), "email": i % 3 == 0 ? .null : .string("p\(i)@example.com")])
        }
        try store.insert("Person", people)
        try store.analyze()
        return store
    }

    static func plan(_ store: PredicateStore, _ format: String, as statement: QueryStatement = .records,
                     sort: [SortRule] = [], limit: Int? = nil) throws -> String {
        try store.queryPlan(for: try EntityQuery("Person", where: format, sort: sort, limit: limit), as: statement).joined(separator: " / ")
    }

    @Test func aBroadRangeNoIndexCoversIsScanned() throws {
        let store = try Self.planStore()
        // 48%, 72% and 46% of the rows; the records read every column.
        for format in ["age BETWEEN {18, 55} AND score >= 50.0", "age < 20 OR age > 40", "(age < 20 OR age > 60) AND NOT (city == 'City 3') AND email != nil",
                       "age > 10", "name >= 'Person 2'", "city IN {'City 1', 'City 2', 'City 3', 'City 4', 'City 5', 'City 6'}"] {
            let plan = try Self.plan(store, format)
            #expect(plan.hasPrefix("SCAN t0"), "\(format): \(plan)")
            #expect(!plan.contains("INDEX"), "\(format): \(plan)")
            #expect(try store.sql(for: try EntityQuery("Person", where: format)).sql.contains("+t0."), "\(format)")
            // SQLite's planner alone searches the index: the case the store avoids.
            store.indexRangePolicy = .plannerOnly
            #expect(try Self.plan(store, format).contains("USING INDEX Person_"), "\(format)")
            store.indexRangePolicy = .measured
        }
    }

    @Test func aSelectiveRangeIsSearched() throws {
        let store = try Self.planStore()
        // 2.5%, 3.75%, 5% and 2.8% of the rows.
        for (format, index) in [("age < 2", "Person_age_index"), ("age BETWEEN {10, 12} AND score >= 50.0", "Person_age_index"),
                                ("age < 2 OR age > 77", "Person_age_index"), ("name == 'Person 5' OR age == 7", "Person_age_index"),
                                ("name BEGINSWITH 'Person 39'", "Person_name_index"), ("city IN {'City 1'}", "Person_city_index")] {
            let plan = try Self.plan(store, format)
            #expect(plan.contains("SEARCH t0 USING INDEX \(index)"), "\(format): \(plan)")
            #expect(!plan.hasPrefix("SCAN t0"), "\(format): \(plan)")
            #expect(try !store.sql(for: try EntityQuery("Person", where: format)).sql.contains("+t0."), "\(format)")
        }
    }

    @Test func aCoveringIndexIsKeptForABroadRange() throws {
        let store = try Self.planStore()
        // The keys and the count read nothing but the column and the key: the index answers.
        for statement in [QueryStatement.keys, .count] {
            for format in ["age > 10", "age < 20 OR age > 40", "city IN {'City 1', 'City 2', 'City 3', 'City 4', 'City 5', 'City 6'}"] {
                let plan = try Self.plan(store, format, as: statement)
                #expect(plan.contains("COVERING INDEX"), "\(statement) \(format): \(plan)")
            }
            // Another column read: not covered, scanned.
            #expect(try Self.plan(store, "age > 10 AND score > 1.0", as: statement).hasPrefix("SCAN t0"))
        }
    }

    @Test func aRangeOnTheFirstSortKeyKeepsItsIndex() throws {
        let store = try Self.planStore()
        let plan = try Self.plan(store, "age > 10", sort: [SortRule("age")], limit: 5)
        #expect(plan.contains("INDEX Person_age_index"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE FOR ORDER BY"), "\(plan)")
        #expect(try store.fetch(try EntityQuery("Person", where: "age > 10", sort: [SortRule("age")], limit: 5)).map { $0["age"] } == Array(repeating: .int(11), count: 5))
        // Sorted by another column, the broad range is scanned.
        #expect(try Self.plan(store, "age > 10", sort: [SortRule("score")], limit: 5).hasPrefix("SCAN t0"))
    }

    /// 4,000 people: 3,960 aged 0, and 40 aged 1…100 (ages 1, 3, 6… spread over the span).
    static func skewedStore() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        var people: [[String: PredicateValue]] = []
        for i in 0..<4_000 {
            let age = i < 3_960 ? 0 : Int64((i - 3_960) * 99 / 39 + 1)
            people.append(["name": .string("Person \(i)"), "age": .int(age), "city": .string("City \(i % 20)"),
                           "score": .double(Double(i % 100)), "email": .string("p\(i)@example.com")])
        }
        try store.insert("Person", people)
        try store.analyze()
        return store
    }

    @Test func aRangeTheSampledRowsKeepIsScannedAndATailIsSearched() throws {
        // Even ages 0…79: 48%, 72%, 51% and 74% of the rows, and of the 64 sampled ones.
        let even = try Self.planStore()
        for format in ["age BETWEEN {18, 55}", "age < 20 OR age > 40", "age >= 10 AND age <= 50 AND age != 30", "20 < age"] {
            #expect(try Self.plan(even, format).hasPrefix("SCAN t0"), "\(format)")
            #expect(try even.sql(for: try EntityQuery("Person", where: format)).sql.contains("+t0."), "\(format)")
        }
        // Skewed ages: 99% of the rows are 0, the others spread over 1…100.
        let skewed = try Self.skewedStore()
        for policy in [IndexRangePolicy.measured, .plannerOnly, .neverSearch] {
            skewed.indexRangePolicy = policy
            #expect(try skewed.count(try EntityQuery("Person", where: "age > 40")) == 24, "\(policy)")
            #expect(try skewed.count(try EntityQuery("Person", where: "age < 1")) == 3_960, "\(policy)")
            #expect(try skewed.fetch(try EntityQuery("Person", where: "age > 95", sort: [SortRule("name")])).count == 2, "\(policy)")
        }
        skewed.indexRangePolicy = .measured
        // `age < 1` spans 1% of the values and keeps 99% of the rows: the sample sees it.
        #expect(try Self.plan(skewed, "age < 1").hasPrefix("SCAN t0"))
        // `age > 40` spans 60% of the values and keeps 0.6% of the rows: the sample keeps none
        // of it, the count finds it selective, the index searches it. So does the tail.
        #expect(try Self.plan(skewed, "age > 40").contains("SEARCH t0 USING INDEX Person_age_index"))
        #expect(try Self.plan(skewed, "age > 95").contains("SEARCH t0 USING INDEX Person_age_index"))
    }

    /// The sample itself: which ranges it calls broad (then scanned uncounted), on even and
    /// skewed values and on keys with wide gaps.
    @Test func theSampleCallsBroadOnlyWhatManySampledRowsKeep() throws {
        func broad(_ store: PredicateStore, _ arms: [SQLNode], _ bindings: [SQLValue]) throws -> Bool {
            let entity = try PeopleModel.model.entity(named: "Person")
            let scope = SQLScope(entity: entity, storage: entity, alias: "t0")
            let use = store.indexes()
            let keys = try #require(try use.keyRange(scope, SQLiteDialect()))
            return try use.sampleIsBroad(arms, in: scope, keys: keys, bindings: bindings, dialect: SQLiteDialect())
        }
        let age = SQLNode.column(alias: "t0", name: "age")
        func below(_ slot: Int) -> SQLNode { .binary(age, .lessThan, .parameter(slot)) }
        func above(_ slot: Int) -> SQLNode { .binary(age, .greaterThan, .parameter(slot)) }
        let even = try Self.planStore(), skewed = try Self.skewedStore()
        #expect(try broad(even, [.between(age, .parameter(0), .parameter(1))], [.integer(18), .integer(55)]))
        #expect(try broad(even, [below(0), above(1)], [.integer(20), .integer(40)]))
        #expect(try !broad(even, [below(0)], [.integer(2)]))           // 2.5%: counted
        #expect(try !broad(even, [below(0)], [.integer(13)]))          // 16%: counted, then scanned
        #expect(try broad(skewed, [below(0)], [.integer(1)]))          // 99% of the rows
        #expect(try !broad(skewed, [above(0)], [.integer(40)]))        // 60% of the span, 0.6% of the rows
        // Keys with wide gaps: too few sampled keys hold a row, and the range is counted.
        _ = try even.batchDelete(try EntityQuery("Person", where: "name != 'Person 7' AND name != 'Person 3999'"))
        try even.insert("Person", (0..<20).map { ["name": .string("New \($0)"), "age": .int(50)] })
        #expect(try !broad(even, [above(0)], [.integer(10)]))
    }

    @Test func anEqualityBesideTheRangeIsLeftToSQLite() throws {
        let store = try Self.planStore()
        let sql = try store.sql(for: try EntityQuery("Person", where: "age == 30 AND age > 10")).sql
        #expect(!sql.contains("+t0."), "\(sql)")
        #expect(try Self.plan(store, "age == 30 AND age > 10").contains("SEARCH t0 USING INDEX Person_age_index (age=?)"))
    }

    /// The plan is the file's as it is now: an index another connection makes is seen at once.
    @Test func thePlanSeesAnIndexAnotherConnectionMade() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("plan.sqlite").path
        let store = try PredicateStore(path: path, model: PeopleModel.model)
        try store.insert("Person", (0..<500).map { ["name": .string("P\($0)"), "score": .double(Double($0))] })
        let query = try EntityQuery("Person", where: "score == 7.0")
        #expect(try store.fetchIDs(query).count == 1)
        #expect(try store.queryPlan(for: query, as: .keys).joined().hasPrefix("SCAN t0"))
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE INDEX person_score ON Person(score)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close_v2(db)
        #expect(try store.fetchIDs(query).count == 1)
        let plan = try store.queryPlan(for: query, as: .keys).joined()
        #expect(plan.contains("USING COVERING INDEX person_score"), "\(plan)")
    }
}

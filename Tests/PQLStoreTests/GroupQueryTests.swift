import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// Grouping fetches (`GroupQuery`): the store's GROUP BY and the evaluator's grouping of an array
/// give the same rows.
@Suite struct GroupQueryTests {
    static func fixture() throws -> PeopleModel.Fixture {
        let companies = [PeopleModel.company("Acme", founded: 0, size: 10), PeopleModel.company("Globex", founded: nil, size: 3)]
        let people: [[String: PredicateValue]] = [
            ["name": "Ann", "age": 30, "city": "Paris", "score": 1.5],
            ["name": "Bob", "age": 40, "city": "Paris", "score": 2.5],
            ["name": "Cy", "age": 50, "city": "Rome", "score": 4.0],
            ["name": "Di", "age": 20, "city": "Rome"],
            ["name": "Ed", "age": 60, "city": "Oslo", "score": 3.0],
        ]
        return try PeopleModel.make(people: people, companies: companies, employer: [0, 0, 1, 1, nil],
                                    tags: [[["name": "a", "weight": 2]], [], [["name": "b", "weight": 1], ["name": "c", "weight": 4]], [], []])
    }

    @Test func groupsByAToOnePathWithHavingSortAndPaging() throws {
        let f = try Self.fixture()
        let q = try GroupQuery("Person", where: "age > 10", groupBy: ["employer.name"],
                               select: ["avg": "average:(age)", "n": "count:(name)", "tags": "sum:(tags.@count)"],
                               having: "n >= 1", sort: [SortRule("avg", ascending: false)])
        let expected: [[String: PredicateValue]] = [
            ["employer.name": nil, "avg": 60.0, "n": 1, "tags": 0],
            // A tie on avg: the group keys decide, ascending.
            ["employer.name": "Acme", "avg": 35.0, "n": 2, "tags": 1],
            ["employer.name": "Globex", "avg": 35.0, "n": 2, "tags": 2],
        ]
        #expect(try f.store.fetch(q) == expected)
        #expect(try q.run(on: f.people) == expected)
        var paged = q
        paged.limit = 1
        paged.offset = 1
        #expect(try f.store.fetch(paged) == [expected[1]])
        #expect(try paged.run(on: f.people) == [expected[1]])
    }

    @Test func havingFiltersOnKeysAndAggregates() throws {
        let f = try Self.fixture()
        let q = try GroupQuery("Person", groupBy: ["city"], select: ["top": "max:(age)", "n": "count:(age)"],
                               having: "n > 1 AND city != 'Rome'")
        #expect(try f.store.fetch(q) == [["city": "Paris", "top": 40, "n": 2]])
        #expect(try q.run(on: f.people) == [["city": "Paris", "top": 40, "n": 2]])
        let sql = try f.store.sql(for: q)
        #expect(sql.sql.contains("GROUP BY"))
        #expect(sql.bindings.contains(.text("Rome")))
    }

    @Test func groupedAggregatesSkipNilsAsSQLDoes() throws {
        let f = try Self.fixture()
        // Nils are left out of sum:, average:, min: and max: in a group (SQL's and Core Data's
        // rule for grouped fetches), in memory and in the store alike: the same rows as leaving
        // them out with the predicate.
        let q = try GroupQuery("Person", groupBy: ["city"], select: ["avg": "average:(score)"])
        let filtered = try GroupQuery("Person", where: "score != nil", groupBy: ["city"], select: ["avg": "average:(score)"])
        let rows: [[String: PredicateValue]] = [["city": "Oslo", "avg": 3.0], ["city": "Paris", "avg": 2.0], ["city": "Rome", "avg": 4.0]]
        #expect(try f.store.fetch(q) == rows)
        #expect(try q.run(on: f.people) == rows)
        #expect(try f.store.fetch(filtered) == rows)
        #expect(try filtered.run(on: f.people) == rows)
        // A group with nothing but nils aggregates to nil; count: still counts its records.
        let onlyNils = try GroupQuery("Person", where: "score == nil", groupBy: ["city"],
                                      select: ["avg": "average:(score)", "total": "sum:(score)", "low": "min:(score)", "n": "count:(name)"])
        let stored = try f.store.fetch(onlyNils)
        #expect(!stored.isEmpty)
        #expect(stored == (try onlyNils.run(on: f.people)))
        for row in stored {
            #expect(row["avg"] == .null && row["total"] == .null && row["low"] == .null, "\(row)")
            #expect((row["n"]?.intValue ?? 0) > 0, "\(row)")
        }
    }

    @Test func refusesWhatIsNotAGroupValue() throws {
        let f = try Self.fixture()
        for q in [
            try GroupQuery("Person", groupBy: ["city"], select: ["x": "age + 1"]),
            try GroupQuery("Person", groupBy: ["city"], select: ["n": "count:(age)"], having: "age > 3"),
            try GroupQuery("Person", groupBy: ["city"], select: ["n": "count:(age)"], sort: [SortRule("age")]),
            try GroupQuery("Person", groupBy: ["tags"], select: ["n": "count:(age)"]),
        ] {
            #expect(throws: StoreError.self) { try f.store.fetch(q) }
        }
        #expect(throws: PredicateEvaluationError.self) {
            try GroupQuery(groupBy: ["city"], select: ["n": "count:(age)"], having: "nope > 1").run(on: f.people)
        }
    }

    /// Seeded random group queries over the differential data set: memory and SQL agree, rows
    /// and errors alike.
    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func memoryAndStoreAgree(seed: UInt64) throws {
        let data = DifferentialDataSet(seed: seed)
        let f = try PeopleModel.make(people: data.people, companies: data.companies, employer: data.employer, tags: data.tags)
        var rng = SeededSplitMix64(seed: seed)
        let keys: [[String]] = [["city"], ["active"], ["employer.name"], ["age"], ["city", "active"], ["employer.size", "city"], []]
        let aggregates: [(String, String)] = [
            ("n", "count:(name)"), ("total", "sum:(age)"), ("avg", "average:(score)"), ("low", "min:(city)"),
            ("high", "max:(born)"), ("tags", "sum:(tags.@count)"), ("w", "average:(tags.@sum.weight)"), ("big", "max:(age * 2)"),
        ]
        let predicates = ["TRUEPREDICATE", "age != nil", "score != nil AND age != nil", "city != nil AND born != nil", "active == YES OR age > 40"]
        var agreedRows = 0, agreedErrors = 0
        for case_ in 0..<120 {
            let groupBy = rng.pick(keys)
            var select: [GroupAggregate] = []
            for (name, text) in aggregates where rng.chance(0.35) { select.append(GroupAggregate(name, try ExpressionNode(format: text))) }
            if select.isEmpty { select = [GroupAggregate("n", try ExpressionNode(format: "count:(name)"))] }
            let names = groupBy + select.map(\.name)
            var having: PredicateNode = .constant(true)
            if rng.chance(0.5), select.contains(where: { $0.name == "n" }) {
                having = try PredicateNode(format: "n > %@", argumentArray: [rng.int(in: 0...4)])
            } else if rng.chance(0.3), groupBy.contains("city") {
                having = try PredicateNode(format: "city BEGINSWITH[c] 'p' OR city == nil")
            }
            var sort: [SortRule] = []
            if rng.chance(0.6) { sort.append(SortRule(rng.pick(names), ascending: rng.chance(0.5))) }
            let q = GroupQuery("Person", predicate: try PredicateNode(format: rng.pick(predicates)), groupBy: groupBy, select: select,
                               having: having, sort: sort, limit: rng.chance(0.3) ? rng.int(in: 0...3) : nil,
                               offset: rng.chance(0.2) ? rng.int(in: 0...2) : 0)
            let memory = Result { () throws(PredicateEvaluationError) in try q.run(on: f.people) }
            let store = Result { () throws(StoreError) in try f.store.fetch(q) }
            switch (memory, store) {
            case (.success(let m), .success(let s)):
                #expect(Self.same(m, s), "seed \(seed) case \(case_): \(groupBy) \(select.map(\.name)) having \(having) sort \(sort.map(\.spec))\n  memory \(m)\n  store  \(s)\n  sql \((try? f.store.sql(for: q).description) ?? "")")
                agreedRows += 1
            case (.failure, .failure): agreedErrors += 1
            case (.success(let m), .failure(let e)):
                Issue.record("seed \(seed) case \(case_): memory \(m), store error \(e)")
            case (.failure(let e), .success(let s)):
                Issue.record("seed \(seed) case \(case_): memory error \(e), store \(s)")
            }
        }
        // Both outcomes must be exercised, or the comparison proves little.
        #expect(agreedRows > 20)
        #expect(agreedErrors > 5)
    }

    /// Equal rows; doubles may differ in the last bits (SQLite and memory add in different orders).
    static func same(_ a: [[String: PredicateValue]], _ b: [[String: PredicateValue]]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            guard Set(x.keys) == Set(y.keys) else { return false }
            for (k, v) in x {
                let w = y[k]!
                if case .double(let d) = v, case .double(let e) = w {
                    if abs(d - e) > 1e-9 * max(1, abs(d)) { return false }
                } else if v != w {
                    return false
                }
            }
        }
        return true
    }
}

import Foundation
import PQL
@testable import PQLStore
import Testing

/// The compiled SQL lets SQLite use the model's indexes (indexed name, age and city on
/// Person, name on Tag, and the foreign-key index on Tag.person): each indexable predicate
/// is planned as an index SEARCH, and ANY over a to-many probes the main table by key with a
/// LIST SUBQUERY instead of scanning it with a correlated one.
@Suite struct QueryPlanTests {
    /// 2,000 people in 20 cities with ages 0…79 and about three tags each, analysed.
    static let store: PredicateStore = {
        do {
            let store = try PredicateStore.inMemory(PeopleModel.model)
            let companies = try store.insert("Company", (0..<50).map { ["name": .string("Company \($0)"), "size": .int(Int64($0))] })
            var people: [[String: PredicateValue]] = []
            for i in 0..<2_000 {
                people.append(["name": .string("Person \(i)"), "age": .int(Int64(i % 80)), "city": .string("City \(i % 20)"),
                               "score": .double(Double(i) / 7), "employer": .int(companies[i % 50])])
            }
            let ids = try store.insert("Person", people)
            var tags: [[String: PredicateValue]] = []
            for (i, id) in ids.enumerated() {
                for k in 0..<(i % 5) { tags.append(["name": .string("tag\((i + k) % 300)"), "weight": .int(Int64(k)), "person": .int(id)]) }
            }
            try store.insert("Tag", tags)
            try store.analyze()
            return store
        } catch {
            fatalError("cannot build the plan store: \(error)")
        }
    }()

    static func plan(_ format: String, _ entity: String = "Person") throws -> [String] {
        try store.queryPlan(for: try EntityQuery(entity, where: format))
    }

    static let indexed: [(format: String, index: String)] = [
        ("age == 30", "Person_age_index"),
        ("age < 3", "Person_age_index"),
        ("age <= 2", "Person_age_index"),
        ("age > 77", "Person_age_index"),
        ("age >= 78", "Person_age_index"),
        ("age BETWEEN {10, 11}", "Person_age_index"),
        ("age BETWEEN {11, 10}", "Person_age_index"),
        ("age IN {1, 2, 3}", "Person_age_index"),
        ("name == 'Person 7'", "Person_name_index"),
        ("name BEGINSWITH 'Person 19'", "Person_name_index"),
        ("name IN {'Person 1', 'Person 2'}", "Person_name_index"),
        ("city == 'City 3'", "Person_city_index"),
        ("city BEGINSWITH 'City 19'", "Person_city_index"),
    ]

    @Test(arguments: zip(indexed.map(\.format), indexed.map(\.index)))
    func indexableComparisonsSearchTheIndex(_ format: String, _ index: String) throws {
        let plan = try Self.plan(format)
        #expect(plan.count == 1, "\(format): \(plan)")
        #expect(plan.first?.hasPrefix("SEARCH t0 USING INDEX \(index) (") == true
                    || plan.first?.hasPrefix("SEARCH t0 USING COVERING INDEX \(index) (") == true, "\(format): \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN t0") }, "\(format): \(plan)")
    }

    @Test func anyOverToManyProbesTheKeyWithAListSubquery() throws {
        let plan = try Self.plan("ANY tags.name == 'tag7'")
        #expect(plan.first == "SEARCH t0 USING INTEGER PRIMARY KEY (rowid=?)", "\(plan)")
        #expect(plan.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("LIST SUBQUERY") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH t1 USING INDEX Tag_name_index (name=?)") }, "\(plan)")
        #expect(!plan.contains { $0.contains("CORRELATED") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN t0") }, "\(plan)")
    }

    @Test func anyCombinedWithAnIndexedConditionStaysIndexed() throws {
        let plan = try Self.plan("ANY tags.name == 'tag7' AND age == 3")
        #expect(plan.contains { $0.contains("LIST SUBQUERY") }, "\(plan)")
        #expect(!plan.contains { $0.contains("CORRELATED") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN t0") }, "\(plan)")
    }

    @Test func countAndAggregatesUseTheForeignKeyIndex() throws {
        for format in ["tags.@count > 3", "tags.@sum.weight > 3", "SUBQUERY(tags, $t, $t.weight > 1).@count > 0"] {
            let plan = try Self.plan(format)
            #expect(plan.contains { $0.contains("CORRELATED SCALAR SUBQUERY") }, "\(format): \(plan)")
            #expect(plan.contains { $0.contains("SEARCH t1 USING INDEX Tag_person_fk (person=?)") }
                        || plan.contains { $0.contains("SEARCH t1 USING COVERING INDEX Tag_person_fk (person=?)") }, "\(format): \(plan)")
        }
    }

    @Test func toOneJoinSearchesByKey() throws {
        let plan = try Self.plan("employer.name == 'Company 3'")
        #expect(plan.contains { $0.contains("USING INTEGER PRIMARY KEY (rowid=?)") || $0.contains("Person_employer_fk") }, "\(plan)")
        #expect(plan.count == 2, "\(plan)")
    }

    @Test func toManyFromTheOtherSideUsesTheForeignKeyIndex() throws {
        let plan = try Self.plan("person.age == 4", "Tag")
        #expect(!plan.isEmpty)
        let people = try Self.plan("ANY employees.age == 4", "Company")
        #expect(people.contains { $0.contains("LIST SUBQUERY") }, "\(people)")
        #expect(people.contains { $0.contains("Person_age_index") }, "\(people)")
    }

    /// Control: what cannot use an index is planned as a scan, so the assertions above can fail.
    @Test(arguments: ["name CONTAINS 'son 1'", "name ENDSWITH '7'", "noindex(age) == 30", "age != 30"])
    func nonIndexableComparisonsScan(_ format: String) throws {
        let plan = try Self.plan(format)
        #expect(plan.contains { $0.hasPrefix("SCAN t0") }, "\(format): \(plan)")
    }

    @Test func plansGiveTheRightRows() throws {
        #expect(try Self.store.count(try EntityQuery("Person", where: "age == 30")) == 25)
        #expect(try Self.store.count(try EntityQuery("Person", where: "age BETWEEN {11, 10}")) == 50)
        #expect(try Self.store.count(try EntityQuery("Person", where: "city BEGINSWITH 'City 1'")) == 1_100)
        let withTag = try Self.store.count(try EntityQuery("Person", where: "ANY tags.name == 'tag7'"))
        let viaSubquery = try Self.store.count(try EntityQuery("Person", where: "SUBQUERY(tags, $t, $t.name == 'tag7').@count > 0"))
        #expect(withTag == viaSubquery)
        #expect(withTag > 0)
    }

    @Test func analyzeIsRepeatableAndKeepsData() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", ["name": "A", "age": 1])
        try store.analyze()
        try store.analyze()
        #expect(try store.count(EntityQuery("Person")) == 1)
    }
}

import Foundation
import PQL
@testable import PQLStore
import Testing

/// Store-side limits: a list longer than SQLite's parameter limit is an error with a hint, not
/// an SQLite failure; the regex limits hold inside SQL as in memory.
@Suite("Store limits")
struct StoreLimitsTests {
    @Test func parameterLimit() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", ["name": "a", "age": 3])
        let limit = try store.locked { () throws(StoreError) in store.connection.variableLimit }
        let fits = PredicateValue.array((0..<Int64(limit - 10)).map { .int($0) })
        #expect(try store.count(EntityQuery("Person", where: "age IN %@", [fits])) == 1)
        let tooMany = PredicateValue.array((0..<Int64(limit + 1)).map { .int($0) })
        #expect {
            try store.count(EntityQuery("Person", where: "age IN %@", [tooMany]))
        } throws: { error in
            let e = error as! StoreError
            return e.kind == .unsupported && e.message.contains("\(limit)") && e.hint != nil
        }
    }

    @Test func regexLimitInSQL() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", ["name": .string(String(repeating: "a", count: 60) + "!")])
        #expect {
            try store.count(EntityQuery("Person", where: "name MATCHES '(a|aa)+$'"))
        } throws: { error in
            let e = error as! StoreError
            return e.kind == .evaluation && e.message.contains("backtracking")
        }
    }

    /// SQLite before 3.46 parses with a fixed stack of 100 entries; a predicate whose SQL nests
    /// deeper is a typed error that says so, not a bare SQLite failure. Later versions run it.
    @Test func sqliteParserDepth() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", ["name": "a", "age": 40, "score": 1])
        let sum = "age == " + Array(repeating: "score", count: 40).joined(separator: " + ")
        let version = SQLiteConnection.libraryVersion.split(separator: ".").compactMap { Int($0) }
        if version.lexicographicallyPrecedes([3, 46]) {
            #expect {
                try store.count(EntityQuery("Person", where: sum))
            } throws: { error in
                let e = error as! StoreError
                return e.kind == .unsupported && e.message.contains("nests too deeply for SQLite \(SQLiteConnection.libraryVersion)")
                    && e.message.contains("parser stack overflow") && (e.hint ?? "").contains("flatten")
            }
        } else {
            #expect(try store.count(EntityQuery("Person", where: sum)) == 1)
        }
        // The same sum of constants folds to one value: flat SQL on any version.
        let constants = "age == " + Array(repeating: "1", count: 40).joined(separator: " + ")
        #expect(try store.count(EntityQuery("Person", where: constants)) == 1)
    }

    /// A fetch is bounded by its query's limits: SQLite's instructions count as steps (a
    /// correlated SUBQUERY nested three deep over 200 employees: eight million row visits),
    /// and every MATCHES the store's functions run counts toward one regex budget.
    @Test func fetchesAreBoundedByTheirLimits() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let company = try store.insert("Company", ["name": "Acme"])
        let subject = String(repeating: "a", count: 32) + "b"
        try store.insert("Person", (0..<200).map { _ in ["name": .string(subject), "age": 1, "employer": .int(company)] })
        let nested = "SUBQUERY(employer.employees, $a, SUBQUERY(employer.employees, $b, SUBQUERY(employer.employees, $c, $c.age > 5).@count > 0).@count > 0).@count > 0"
        let steps = EvaluationLimits(maxSteps: 1_000_000, maxRegexSteps: nil)
        #expect {
            try store.count(EntityQuery("Person", where: nested, limits: steps))
        } throws: { error in
            let e = error as! StoreError
            return e.kind == .evaluation && e.message.contains("1,000,000 SQLite steps") && (e.hint ?? "").contains("maxSteps")
        }
        // The same query without a step limit answers (and the store is usable after the error).
        #expect(try store.count(EntityQuery("Person", where: "age == 1", limits: steps)) == 200)

        // Each row's match is within PCRE2's own limit; 200 of them are not within 20 million.
        let regex = EvaluationLimits(maxSteps: nil, maxRegexSteps: 20_000_000)
        #expect {
            try store.fetchIDs(EntityQuery("Person", where: "name MATCHES '(a|aa)+$'", limits: regex))
        } throws: { error in
            let e = error as! StoreError
            return e.kind == .evaluation && e.message.contains("20,000,000 regex backtracking steps") && (e.hint ?? "").contains("maxRegexSteps")
        }
        // Batch changes are bounded too, and undone as a whole.
        #expect(throws: StoreError.self) {
            try store.batchUpdate(EntityQuery("Person", where: "name MATCHES '(a|aa)+$' OR age == 1", limits: regex), set: ["age": 2])
        }
        #expect(try store.count(EntityQuery("Person", where: "age == 1")) == 200)
    }
}

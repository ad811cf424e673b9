import Foundation
import Testing
@testable import PQL

/// `PredicateQuery`: predicate, sort rules (several keys, descending, case-insensitive, nil
/// first ascending and last descending, stable), offset and limit; and one compiled predicate
/// shared by many concurrent tasks.
@Suite("Evaluation: PredicateQuery and concurrency")
struct EvaluationQueryTests {
    static let rows: [PredicateValue] = [
        ["name": "bob", "age": 30, "city": "Paris"],
        ["name": "Alice", "age": 25, "city": nil],
        ["name": "alice", "age": 30, "city": "Lyon"],
        ["name": "Bob", "age": 25],
        ["name": "Émile", "age": 40, "city": "Paris"],
        ["age": 30, "city": "Lyon"],
        ["name": "carl", "age": nil, "city": "Paris"],
    ]

    static func run(_ format: String = "TRUEPREDICATE", sort: [SortRule] = [], offset: Int = 0, limit: Int? = nil,
                    variables: [String: PredicateValue] = [:]) throws -> [Int] {
        let q = PredicateQuery(try PredicateNode(format: format), sort: sort, offset: offset, limit: limit, variables: variables)
        let positions = try q.indices(in: rows, reader: .predicateValue)
        // run(on:) returns the same elements in the same order
        #expect(try q.run(on: rows) == positions.map { rows[$0] })
        return positions
    }

    @Test("one key, ascending and descending, literal order, nil first ascending and last descending")
    func singleKey() throws {
        #expect(try Self.run(sort: [SortRule("name")]) == [5, 1, 3, 2, 0, 6, 4])
        #expect(try Self.run(sort: [SortRule("name", ascending: false)]) == [4, 6, 0, 2, 3, 1, 5])
        #expect(try Self.run(sort: [SortRule("age")]) == [6, 1, 3, 0, 2, 5, 4])
        #expect(try Self.run(sort: [SortRule("age", ascending: false)]) == [4, 0, 2, 5, 1, 3, 6])
    }

    @Test("case-insensitive order keeps ties in input order, both directions")
    func caseInsensitive() throws {
        #expect(try Self.run(sort: [SortRule("name", comparison: .caseInsensitive)]) == [5, 1, 2, 0, 3, 6, 4])
        #expect(try Self.run(sort: [SortRule("name", ascending: false, comparison: .caseInsensitive)]) == [4, 6, 0, 3, 1, 2, 5])
    }

    @Test("several keys: the second breaks the first's ties")
    func severalKeys() throws {
        #expect(try Self.run(sort: [SortRule("city"), SortRule("age", ascending: false)]) == [1, 3, 2, 5, 4, 0, 6])
        #expect(try Self.run(sort: [SortRule("age"), SortRule("name", ascending: false, comparison: .caseInsensitive)])
                == [6, 3, 1, 0, 2, 5, 4])
        #expect(try Self.run(sort: [SortRule("city", ascending: false), SortRule("name")]) == [0, 6, 4, 5, 2, 1, 3])
    }

    @Test("stability: equal keys keep the input order")
    func stability() throws {
        let many: [PredicateValue] = (0..<200).map { ["k": .int(Int64($0 % 3)), "i": .int(Int64($0))] }
        for ascending in [true, false] {
            let q = PredicateQuery(sort: [SortRule("k", ascending: ascending)])
            let out = try q.indices(in: many, reader: .predicateValue)
            #expect(out.count == 200)
            for k in 0..<3 {
                let group = out.filter { $0 % 3 == k }
                #expect(group == group.sorted(), "k = \(k), ascending \(ascending)")
            }
            let keys = out.map { $0 % 3 }
            #expect(keys == (ascending ? keys.sorted() : keys.sorted(by: >)))
        }
    }

    @Test("the predicate filters before sorting and paging")
    func predicateThenSort() throws {
        #expect(try Self.run("age >= 30", sort: [SortRule("name")]) == [5, 2, 0, 4])
        #expect(try Self.run("age >= $MIN", sort: [SortRule("name")], variables: ["MIN": 30]) == [5, 2, 0, 4])
        #expect(try Self.run("city == 'Paris'") == [0, 4, 6])
        #expect(try Self.run("city == 'Paris'", limit: 2) == [0, 4])
        #expect(try Self.run("FALSEPREDICATE", sort: [SortRule("name")]) == [])
    }

    @Test("offset and limit edges")
    func offsetAndLimit() throws {
        let byAge = [SortRule("age")]
        #expect(try Self.run(sort: byAge, offset: 2, limit: 3) == [3, 0, 2])
        #expect(try Self.run(sort: byAge, offset: 0, limit: 0) == [])
        #expect(try Self.run(sort: byAge, offset: 7) == [])
        #expect(try Self.run(sort: byAge, offset: 100, limit: 1) == [])
        #expect(try Self.run(sort: byAge, limit: 100) == [6, 1, 3, 0, 2, 5, 4])
        #expect(try Self.run(sort: byAge, offset: 6, limit: 5) == [4])
        #expect(try Self.run(sort: byAge, offset: 6) == [4])
        #expect(try Self.run(sort: byAge, offset: -3, limit: 1) == [6])
        #expect(try Self.run(sort: byAge, limit: -1) == [])
        #expect(try Self.run(offset: 5) == [5, 6])
        // paging through covers everything once
        var pages: [Int] = []
        for page in 0..<4 { pages += try Self.run(sort: byAge, offset: page * 2, limit: 2) }
        #expect(pages == [6, 1, 3, 0, 2, 5, 4])
    }

    @Test("mixed kinds sort in a fixed order: nil, numbers, dates, strings")
    func mixedKinds() throws {
        let mixed: [PredicateValue] = [["v": "b"], ["v": 2], ["v": .date(Date(timeIntervalSinceReferenceDate: 0))], [:], ["v": 1.5], ["v": "a"], ["v": true]]
        let q = PredicateQuery(sort: [SortRule("v")])
        #expect(try q.indices(in: mixed, reader: .predicateValue) == [3, 6, 4, 1, 2, 5, 0])
        let d = PredicateQuery(sort: [SortRule("v", ascending: false)])
        #expect(try d.indices(in: mixed, reader: .predicateValue) == [0, 5, 2, 1, 4, 6, 3])
    }

    @Test("nested key paths and typed values sort; unknown typed keys are errors")
    func nestedAndTyped() throws {
        let people = EvaluationTypedValuesTests.people
        let q = PredicateQuery(sort: [SortRule("address.city", comparison: .caseInsensitive), SortRule("age")])
        // "", Lyon, Oslo, Paris/paris (tie: input order)
        #expect(try q.indices(in: people, reader: EvalPerson.predicateReader) == [4, 1, 3, 0, 2])
        #expect(try q.run(on: people).map(\.name) == ["cy", "Bob", "Zoe\u{308}", "Ann", "Éve"])
        let byScore = PredicateQuery(try PredicateNode(format: "active == YES"), sort: [SortRule("score", ascending: false)])
        #expect(try byScore.run(on: people).map(\.name) == ["Éve", "Ann", "cy"])
        let bad = PredicateQuery(sort: [SortRule("nmae")])
        let e = evaluationError { try bad.run(on: people) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.hint?.contains("name") == true)
    }

    @Test("localized order puts letters together whatever their case")
    func localized() throws {
        let words: [PredicateValue] = ["b", "A", "a", "B", "c"].map { ["w": .string($0)] }
        let q = PredicateQuery(sort: [SortRule("w", comparison: .localized)])
        let out = try q.indices(in: words, reader: .predicateValue)
        #expect(Set(out.prefix(2)) == [1, 2])
        #expect(Set(out[2..<4]) == [0, 3])
        #expect(out.last == 4)
    }

    // MARK: Concurrency

    static let big: [PredicateValue] = (0..<400).map(bigRow)

    static func bigRow(_ i: Int) -> PredicateValue {
        let names = ["Ann", "bob", "Éve", "Zoë", "Łukasz"]
        let tags: [PredicateValue] = (0..<(i % 4)).map { PredicateValue.string("t\($0)") }
        let score: PredicateValue = i % 7 == 0 ? .null : .double(Double(i % 13) / 2)
        return .dictionary(["id": .int(Int64(i)), "name": .string(names[i % 5] + String(i)), "tags": .array(tags), "score": score])
    }

    @Test("one CompiledPredicate used by many tasks at once gives the single-threaded result")
    func sharedCompiledPredicate() async throws {
        let node = try PredicateNode(format: """
            (name MATCHES[cd] '(ann|eve|zoe).*' OR name LIKE[c] 'l*') \
            AND SUBQUERY(tags, $t, $t ENDSWITH '1').@count > 0 \
            AND (score == nil OR score * 2 >= $MIN) AND ($n := id) >= 0
            """)
        let compiled = try node.compiled(for: PredicateValue.self)
        let rows = Self.big
        let variables: [String: PredicateValue] = ["MIN": 6]
        let expected = try rows.indices(matching: compiled, variables: variables)
        #expect(!expected.isEmpty && expected.count < rows.count)
        let results = await withTaskGroup(of: [Int]?.self, returning: [[Int]?].self) { group in
            for t in 0..<24 {
                group.addTask {
                    // some tasks filter, some evaluate one by one
                    if t % 2 == 0 { return try? rows.indices(matching: compiled, variables: variables) }
                    var out: [Int] = []
                    for (i, r) in rows.enumerated() {
                        guard let ok = try? compiled.evaluate(r, variables: variables) else { return nil }
                        if ok { out.append(i) }
                    }
                    return out
                }
            }
            var all: [[Int]?] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 24)
        for r in results { #expect(r == expected) }
    }

    @Test("PredicateQuery runs concurrently with the same result")
    func concurrentQueries() async throws {
        let q = PredicateQuery(try PredicateNode(format: "ANY tags == 't1' AND name CONTAINS[cd] 'e'"),
                               sort: [SortRule("score", ascending: false), SortRule("name", comparison: .caseInsensitive)],
                               offset: 3, limit: 20)
        let rows = Self.big
        let expected = try q.indices(in: rows, reader: .predicateValue)
        #expect(expected.count == 20)
        let results = await withTaskGroup(of: [Int]?.self, returning: [[Int]?].self) { group in
            for _ in 0..<16 { group.addTask { try? q.indices(in: rows, reader: .predicateValue) } }
            var all: [[Int]?] = []
            for await r in group { all.append(r) }
            return all
        }
        for r in results { #expect(r == expected) }
    }

    @Test("a shared MATCHES predicate that hits the regex limit fails in every task, not just one")
    func concurrentRegexLimit() async throws {
        let compiled = try PredicateNode(format: "SELF MATCHES '(a+)+$'").compiled(for: String.self)
        let subjects = ["aaa", String(repeating: "a", count: 36) + "!", "b"]
        let kinds = await withTaskGroup(of: [String].self, returning: [[String]].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    subjects.map { s in
                        do { return "\(try compiled.evaluate(s))" } catch { return (error as? PredicateEvaluationError)?.kind.rawValue ?? "\(error)" }
                    }
                }
            }
            var all: [[String]] = []
            for await r in group { all.append(r) }
            return all
        }
        for k in kinds { #expect(k == ["true", "regexLimit", "false"]) }
    }
}

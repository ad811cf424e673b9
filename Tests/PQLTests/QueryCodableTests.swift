import Foundation
import Testing
import PQL
import PQLTestSupport

/// Predicates, expressions, sort rules, limits and `PredicateQuery` through JSON.
@Suite("Query Codable")
struct QueryCodableTests {
    static func json<T: Encodable>(_ v: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(v), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    @Test("a predicate encodes as its canonical text and decodes to an equal tree", arguments: [
        "age > 30",
        "name BEGINSWITH[cd] 'a' AND NOT (city IN {'Paris', 'Lima'})",
        "ANY kids.age > 12 OR ALL scores >= 50",
        "SUBQUERY(items, $i, $i.price > 10 AND $i.qty > 0).@count > 0",
        "born < CAST(721692800.5, 'NSDate') AND ratio == 0.1 AND label == '50% off'",
        "TRUEPREDICATE",
        "age > $MIN",
    ])
    func predicateRoundTrip(_ format: String) throws {
        let p = try PredicateNode(format: format)
        let text = try Self.json(p)
        #expect(text == (try Self.json(p.description)))
        #expect(try Self.decode(PredicateNode.self, text) == p)
    }

    @Test("a bound argument travels as the constant it became")
    func boundArguments() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        let p = try PredicateNode(format: "%K == %@ AND born > %@", "name", "O'Brien", date)
        #expect(try Self.decode(PredicateNode.self, try Self.json(p)) == p)
    }

    @Test("text that does not parse is a DecodingError carrying the parser's message")
    func predicateDecodingError() throws {
        do {
            _ = try Self.decode(PredicateNode.self, #""name NOT IN {'a'}""#)
            Issue.record("decoded an invalid predicate")
        } catch let DecodingError.dataCorrupted(context) {
            let parseError = try #require(context.underlyingError as? PredicateFormatError)
            #expect(context.debugDescription.contains(parseError.message))
            #expect(parseError.range.offset == 5)
        }
        #expect(throws: DecodingError.self) { try Self.decode(PredicateNode.self, "42") }
    }

    @Test("an expression round-trips through its text")
    func expressionRoundTrip() throws {
        let e = try ExpressionNode(format: "orders.@sum.price * 1.2 + FUNCTION(SELF, 'tax:', 2)")
        #expect(try Self.decode(ExpressionNode.self, try Self.json(e)) == e)
        #expect(throws: DecodingError.self) { try Self.decode(ExpressionNode.self, #""1 +""#) }
    }

    @Test("sort rules encode their key path as text, and an array when a key holds a dot")
    func sortRules() throws {
        let rule = SortRule("airline.name", ascending: false, comparison: .caseInsensitive)
        #expect(try Self.json(rule) == #"{"ascending":false,"comparison":"caseInsensitive","keyPath":"airline.name"}"#)
        #expect(try Self.decode(SortRule.self, try Self.json(rule)) == rule)
        var dotted = SortRule("x", comparison: .localized)
        dotted.keyPath = ["a.b", "c"]
        #expect(try Self.json(dotted) == #"{"ascending":true,"comparison":"localized","keyPath":["a.b","c"]}"#)
        #expect(try Self.decode(SortRule.self, try Self.json(dotted)) == dotted)
        #expect(try Self.decode(SortRule.self, #"{"keyPath":"name"}"#) == SortRule("name"))
        #expect(throws: DecodingError.self) { try Self.decode(SortRule.self, #"{"keyPath":"name","comparison":"fuzzy"}"#) }
    }

    @Test("limits: null is no limit, a missing key keeps the default")
    func limits() throws {
        for l in [EvaluationLimits.default, .interactive, .unlimited, EvaluationLimits(maxSteps: 5, maxRegexSteps: nil)] {
            #expect(try Self.decode(EvaluationLimits.self, try Self.json(l)) == l)
        }
        #expect(try Self.json(EvaluationLimits.unlimited) == #"{"maxRegexSteps":null,"maxSteps":null}"#)
        #expect(try Self.decode(EvaluationLimits.self, #"{"maxSteps":1000}"#)
                == EvaluationLimits(maxSteps: 1000, maxRegexSteps: EvaluationLimits.default.maxRegexSteps))
        #expect(try Self.decode(EvaluationLimits.self, #"{"maxSteps":-4}"#).maxSteps == 0)
    }

    @Test("a PredicateQuery round-trips and runs the same")
    func predicateQuery() throws {
        let q = try PredicateQuery(where: "age >= $MIN AND name != nil", sort: [SortRule("name", comparison: .caseInsensitive)],
                                   offset: 1, limit: 2, variables: ["MIN": 18, "when": .date(Date(timeIntervalSinceReferenceDate: 2))],
                                   limits: EvaluationLimits(maxSteps: 1_000_000, maxRegexSteps: nil))
        let back = try Self.decode(PredicateQuery.self, try Self.json(q))
        #expect(back.predicate == q.predicate)
        #expect(back.sort == q.sort)
        #expect(back.offset == 1 && back.limit == 2)
        #expect(back.variables == q.variables)
        #expect(back.limits == q.limits)
        let people: [PredicateValue] = [["name": "bo", "age": 30], ["name": "Al", "age": 40], ["name": "cy", "age": 12], ["name": "Di", "age": 50]]
        #expect(try back.run(on: people) == q.run(on: people))
        #expect(try back.run(on: people) == [["name": "bo", "age": 30], ["name": "Di", "age": 50]])
    }

    @Test("hand-written queries need only a predicate; a bad one names the parse error")
    func handWrittenQuery() throws {
        let q = try Self.decode(PredicateQuery.self, #"{"predicate": "SELF > 2", "limit": 1}"#)
        #expect(q.sort.isEmpty && q.offset == 0 && q.limit == 1 && q.variables.isEmpty && q.limits == .default)
        #expect(try q.run(on: [1, 5, 3]) == [5])
        #expect(try Self.decode(PredicateQuery.self, "{}").predicate == .constant(true))
        #expect(throws: DecodingError.self) { try Self.decode(PredicateQuery.self, #"{"predicate": "a =="}"#) }
    }

    @Test("the README's Codable example compiles and encodes what it says")
    func readmeExample() throws {
        let q = try PredicateQuery(where: "age >= %@", [18], sort: [SortRule("name")], offset: 0, limit: 20)
        let json = try JSONEncoder().encode(q)
        let back = try JSONDecoder().decode(PredicateQuery.self, from: json)
        #expect(back.predicate == q.predicate && back.limit == 20)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["predicate"] as? String == "age >= 18")
        #expect(object["offset"] as? Int == 0 && object["limit"] as? Int == 20)
    }

    @Test("random trees whose text parses back equal also decode equal from JSON")
    func randomTrees() throws {
        let seed = SeededSplitMix64.seed(fromEnvironment: "PQL_CODABLE_SEED", default: 0x7EE5)
        var checked = 0
        for i in 0..<500 {
            var g = RandomTreeGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
            let tree = g.predicate(depth: 3)
            // Trees the printer cannot round-trip are the round-trip tests' business.
            guard (try? PredicateNode(format: tree.description)) == tree else { continue }
            let decoded = try Self.decode(PredicateNode.self, try Self.json(tree))
            #expect(decoded == tree, "seed \(seed) case \(i): \(tree)")
            checked += 1
        }
        #expect(checked > 250)
    }
}

import Foundation
import Testing
@testable import PQL

/// Appendix A.2 of the language reference, row by row and verbatim, in one place (the same rows also appear
/// beside the cases of their topic in the other Evaluation*Tests files).
@Suite("Evaluation: Appendix A.2 test vectors")
struct EvaluationAppendixA2Tests {
    static let order: PredicateValue = ["limit": 10, "items": [["price": 5, "limit": 100], ["price": 20, "limit": 100]]]

    static let cases: [EvalCase] = [
        // 1
        EvalCase("SELF LIKE 'J*n'", "Jon", true),
        EvalCase("SELF LIKE 'J*n'", "Jn", true),
        EvalCase("SELF LIKE 'J*n'", "Jo", false),
        // 2
        EvalCase("SELF LIKE 'A?C'", "ABC", true),
        EvalCase("SELF LIKE 'A?C'", "AC", false),
        // 3 (predicate text `a\\*`)
        EvalCase("SELF LIKE 'a\\\\*'", "a*", true),
        EvalCase("SELF LIKE 'a\\\\*'", "ab", false),
        // 4, 5
        EvalCase("SELF MATCHES 'ab'", "abc", false),
        EvalCase("SELF MATCHES 'a|ab'", "ab", true),
        // 6
        EvalCase("SELF CONTAINS ''", "abc", false),
        EvalCase("SELF BEGINSWITH ''", "abc", false),
        // 7
        EvalCase("'bc' IN 'abcd'", nil, true),
        // 8
        EvalCase("SELF IN {1, 2, 3}", 2, true),
        EvalCase("SELF IN {1, 2, 3}", "2", false),
        // 9
        EvalCase("SELF CONTAINS 42", ["42"], false),
        // 10
        EvalCase("ANY SELF > 1", [], false),
        EvalCase("ALL SELF > 1", [], true),
        EvalCase("NONE SELF > 1", [], true),
        // 11
        EvalCase("ANY SELF > 1", "a string", throws: .notACollection),
        // 12 (x = nil)
        EvalCase("x == nil", ["x": nil], true),
        EvalCase("x != 5", ["x": nil], true),
        EvalCase("x > 5", ["x": nil], false),
        EvalCase("x <= nil", ["x": nil], true),
        // 13
        EvalCase("NOT (x > 5)", ["x": nil], true),
        // 14
        EvalCase("{1,2,3}[SIZE] == 3", nil, true),
        EvalCase("{}[FIRST] == 1", nil, false),
        // 15
        EvalCase("5 BETWEEN {1, 5}", nil, true),
        EvalCase("5 BETWEEN {5, 1}", nil, true),
        EvalCase("0 BETWEEN {1, 5}", nil, false),
        // 16
        // (a literal {1} is a parse error: BetweenBoundsTests; a value that is not a pair, at run time)
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": [1]]),
        // 17
        EvalCase("1 == 1.0", nil, true),
        EvalCase("YES == 1", nil, true),
        EvalCase("'5' == 5", nil, false),
        // 18, 19, 20
        EvalCase("SELF ==[c] 'ABC'", "abc", true),
        EvalCase("SELF ==[cd] 'cafe'", "Café", true),
        EvalCase("SELF ==[n] 'abc'", "abc", true),
        EvalCase("SELF ==[n] 'abc'", "ABC", false),
        // 21, 22
        EvalCase("SELF < 'abc'", "ABC", true),
        EvalCase("SELF < 5", "abc", throws: .incomparable),
        // 23
        EvalCase("sum:(SELF) == 6", [1, 2, 3], true),
        EvalCase("count:(SELF) == 3", [1, 2, 3], true),
        EvalCase("max:(SELF) == 3", [1, 2, 3], true),
        // 24
        EvalCase("min:(SELF) == 1", [], throws: .aggregate),
        // 25
        EvalCase("2 ** 3 == 8", nil, true),
        EvalCase("7 / 2 == 3", nil, true),
        EvalCase("7.0 / 2 == 3.5", nil, true),
        // 26
        EvalCase("TERNARY(1 == 1, 'a', 'b') == 'a'", nil, true),
        // 27, 27b: SELF is the outer object (only 20 > 10; with SELF the item, 0 > 100)
        EvalCase("SUBQUERY(SELF, $x, $x > 1).@count == 2", [1, 2, 3], true),
        EvalCase("SUBQUERY(items, $i, $i.price > SELF.limit).@count > 0", order, true),
        EvalCase("SUBQUERY(items, $i, $i.price > SELF.limit).@count == 1", order, true),
        // 28
        EvalCase("$X == 5", nil, throws: .unboundVariable),
        EvalCase("$X == 5", nil, true, vars: ["X": 5]),
        // 30
        EvalCase("x + 1 == 2", ["x": nil], throws: .arithmetic),
        // 32
        EvalCase("missing == nil", ["present": 1], true),
        // 33
        EvalCase("tags CONTAINS 'a'", ["tags": ["a", "b"]], true),
        EvalCase("'a' IN tags", ["tags": ["a", "b"]], true),
        // 34
        EvalCase("name IN %@", ["name": "Bob"], true, args: [["k": "Bob"]]),
        // 35
        EvalCase("ALL kids.age > 5", ["kids": nil], true),
        // A.1 #28: all parse, all evaluate true
        EvalCase("0x1F == 31", nil, true),
        EvalCase("0o17 == 15", nil, true),
        EvalCase("0b101 == 5", nil, true),
        EvalCase("9.2e-5 < 1", nil, true),
        // A.1 #29, #30 evaluate as well as print
        EvalCase("modulus:by:(10, 3) == 1", nil, true),
        EvalCase("sum({1,2,3}) == 6", nil, true),
    ]

    @Test("A.2 rows", arguments: cases)
    func appendixRows(_ c: EvalCase) { check(c) }

    @Test("A.2 #29: x == $V after substituting V = NSNull")
    func row29() throws {
        let p = try PredicateNode(format: "x == $V").substitutingValues(["V": NSNull()])
        #expect(try p.evaluate(on: ["x": nil] as PredicateValue))
    }

    @Test("A.2 #31: unknownKey == 1 on a typed object without that key is an error")
    func row31() throws {
        let e = evaluationError { try PredicateNode(format: "unknownKey == 1").evaluate(on: EvaluationTypedValuesTests.people[0]) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.message.contains("unknownKey") == true)
    }
}

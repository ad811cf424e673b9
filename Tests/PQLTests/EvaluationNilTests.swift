import Foundation
import Testing
@testable import PQL

/// Reference §6.2, row by row: a nil `x` — a JSON null, a missing dictionary key (decision D2) and
/// an `NSNull` in a `[String: Any]` — behaves the same in every row.
@Suite("Evaluation: nil and null (§6.2)")
struct EvaluationNilTests {
    /// (predicate, expected) with `x` nil. Each row runs on `{"x": null}` and on `{}`.
    static let rows: [(String, EvalOutcome, SourceLocation)] = [
        // x == nil, x == NULL, nil == x → true
        row("x == nil", true), row("x == NULL", true), row("x == NIL", true), row("nil == x", true),
        row("x = nil", true), row("NULL == x", true),
        // x != nil → false
        row("x != nil", false), row("x <> nil", false), row("nil != x", false),
        // x == 5, x == 'a' → false
        row("x == 5", false), row("x == 'a'", false), row("x == 0", false), row("x == ''", false),
        row("x == NO", false), row("5 == x", false), row("x == {}", false),
        // x != 5 → true (decision D3: the negation of ==)
        row("x != 5", true), row("x != 'a'", true), row("x <> 0", true), row("5 != x", true),
        // ordering against nil → false
        row("x < 5", false), row("x <= 5", false), row("x > 5", false), row("x >= 5", false),
        row("5 < x", false), row("5 >= x", false), row("x < 'a'", false), row("x > -1000000", false),
        // both nil: <=, >= true; <, > false
        row("x <= nil", true), row("x >= nil", true), row("x =< nil", true), row("x => nil", true),
        row("x < nil", false), row("x > nil", false), row("nil <= nil", true), row("nil < nil", false),
        row("x <= y", true), row("x > y", false), row("x == y", true), row("x != y", false),
        // BETWEEN with nil on the left → false
        row("x BETWEEN {1, 5}", false), row("x BETWEEN {'a', 'z'}", false),
        // string operators with nil on either side → false
        row("x BEGINSWITH 'a'", false), row("x ENDSWITH 'a'", false), row("x CONTAINS 'a'", false),
        row("x LIKE 'a'", false), row("x LIKE '*'", false), row("x MATCHES 'a'", false), row("x MATCHES '.*'", false),
        row("'a' CONTAINS x", false), row("'a' BEGINSWITH x", false), row("'a' ENDSWITH x", false),
        row("'a' LIKE x", false), row("'a' MATCHES x", false),
        row("x BEGINSWITH[cd] 'a'", false), row("x CONTAINS[c] 'a'", false), row("x LIKE[cd] '*'", false),
        row("x MATCHES[c] '.*'", false),
        // membership
        row("x IN {1, 2}", false), row("5 IN x", false), row("x IN {nil}", false), row("x IN {}", false),
        row("x CONTAINS 5", false), row("{1, 2} CONTAINS x", false), row("x IN 'abc'", false), row("'a' IN x", false),
        // negation sees a plain false
        row("NOT (x > 5)", true), row("NOT (x == 5)", true), row("NOT (x BEGINSWITH 'a')", true),
        row("NOT (x == nil)", false), row("!(x < 5)", true),
        // quantifiers over a nil collection
        row("ANY x.y == 1", false), row("SOME x.y == 1", false), row("ALL x.y == 1", true), row("NONE x.y == 1", true),
        row("ANY x == 1", false), row("ALL x == 1", true), row("NONE x == 1", true), row("ALL x > 100", true),
        // @count on nil is nil, so it equals no number
        row("x.@count == 0", false), row("x.@count == nil", true), row("x.@count > 0", false), row("x.@sum.y == nil", true),
        // key paths through nil stay nil
        row("x.y == nil", true), row("x.y.z == nil", true), row("x.y != 1", true), row("x[0] == nil", true),
        row("x[FIRST] == nil", true), row("x[SIZE] == nil", true),
        // arithmetic on nil raises (§4.5, §6.2 last row)
        row("x + 1 > 0", .arithmetic), row("1 + x == 1", .arithmetic), row("x - 1 < 0", .arithmetic),
        row("x * 2 == 0", .arithmetic), row("x / 2 == 0", .arithmetic), row("-x == 0", .arithmetic),
        row("x ** 2 == 0", .arithmetic), row("x & 1 == 0", .arithmetic), row("~x == 0", .arithmetic),
        row("x + 1 == nil", .arithmetic), row("modulus:by:(x, 2) == 0", .arithmetic),
        // functions and casts of nil
        row("CAST(x, 'NSString') == nil", true), row("CAST(x, 'NSNumber') == nil", true),
        row("noindex:(x) == nil", true), row("SUBQUERY(x, $e, $e == 1).@count == 0", false),
        row("SUBQUERY(x, $e, $e == 1) == nil", true), row("TERNARY(x == nil, 1, 2) == 1", true),
        // nil as a constant on the left, or both sides constants
        row("nil == nil", true), row("nil != nil", false), row("nil != 5", true), row("nil IN {nil}", false),
    ]

    static func row(_ f: String, _ b: Bool, _ loc: SourceLocation = #_sourceLocation) -> (String, EvalOutcome, SourceLocation) {
        (f, .value(b), loc)
    }

    static func row(_ f: String, _ k: PredicateEvaluationError.Kind, _ loc: SourceLocation = #_sourceLocation) -> (String, EvalOutcome, SourceLocation) {
        (f, .error(k), loc)
    }

    /// Every row on an explicit null and on a missing key.
    static let cases: [EvalCase] = rows.flatMap { f, outcome, loc -> [EvalCase] in
        [["x": nil, "y": nil] as PredicateValue, [:] as PredicateValue].map { subject in
            switch outcome {
            case .value(let b): return EvalCase(f, subject, b, sourceLocation: loc)
            case .error(let k): return EvalCase(f, subject, throws: k, sourceLocation: loc)
            }
        }
    } + [
        // nil elements inside collections follow the element rules (§6.7)
        EvalCase("ANY SELF == nil", [1, nil], true),
        EvalCase("ANY SELF != nil", [nil, nil], false),
        EvalCase("ALL SELF != nil", [1, nil], false),
        EvalCase("ANY SELF > 0", [nil, 1], true),
        EvalCase("ALL SELF > 0", [nil, 1], false),
        EvalCase("ALL SELF >= nil", [nil, nil], true),
        EvalCase("nil IN SELF", [nil], false),
        EvalCase("SELF CONTAINS nil", [nil], false),
        // SELF itself nil
        EvalCase("SELF == nil", nil, true),
        EvalCase("SELF != 5", nil, true),
        EvalCase("SELF > 5", nil, false),
        EvalCase("ANY SELF == 1", nil, false),
        EvalCase("ALL SELF == 1", nil, true),
        // Apple's guide: include missing values explicitly
        EvalCase("(x == nil) OR (x > 5)", [:], true),
        EvalCase("(x == nil) OR (x > 5)", ["x": 3], false),
        EvalCase("(x == nil) OR (x > 5)", ["x": 7], true),
        // a nil BETWEEN bound compares as nil: nothing is between
        EvalCase("x BETWEEN {nil, 10}", ["x": 3], false),
        EvalCase("x BETWEEN {1, nil}", ["x": 3], false),
        // the substitution variable set to NSNull/nil is the nil constant
        EvalCase("x == $V", ["x": nil], true, vars: ["V": nil]),
        EvalCase("x != $V", ["x": 1], true, vars: ["V": nil]),
    ]

    @Test("§6.2 rows", arguments: cases)
    func nilRows(_ c: EvalCase) { check(c) }

    /// The same rows on `[String: Any]` with `NSNull()` and with the key absent.
    @Test("§6.2 rows on [String: Any] with NSNull and missing keys")
    func nsNullDictionaries() throws {
        for (f, outcome, loc) in Self.rows {
            guard let node = parsed(f, sourceLocation: loc) else { continue }
            for dict in [["x": NSNull(), "y": NSNull()] as [String: Any], [:]] {
                let r: EvalOutcome
                do { r = .value(try node.evaluate(on: dict)) } catch { r = .error(error.kind) }
                #expect(r == outcome, "\(f) on \(dict)", sourceLocation: loc)
            }
        }
    }

    /// Appendix A.2 #29: substitution of NSNull gives a predicate that tests for nil.
    @Test("A.2 #29: x == $V after substituting V = NSNull / nil")
    func substitutedNull() throws {
        let template = try PredicateNode(format: "x == $V")
        for value in [NSNull() as Any?, nil] {
            let p = try template.substitutingValues(["V": value])
            #expect(p.description == "x == nil")
            #expect(try p.evaluate(on: ["x": nil] as PredicateValue))
            #expect(try p.evaluate(on: [:] as PredicateValue))
            #expect(try !p.evaluate(on: ["x": 0] as PredicateValue))
        }
    }

    /// `x + 1` on nil names the problem and suggests the nil test.
    @Test("arithmetic on nil explains itself")
    func arithmeticOnNilMessage() throws {
        let p = try PredicateNode(format: "x + 1 > 0")
        let e = evaluationError { try p.evaluate(on: ["x": nil] as PredicateValue) }
        #expect(e?.kind == .arithmetic)
        #expect(e?.message.contains("nil") == true)
        #expect(e?.context == "x + 1 > 0")
        #expect(e?.hint != nil)
    }
}

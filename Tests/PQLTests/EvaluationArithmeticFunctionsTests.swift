import Foundation
import Testing
@testable import PQL

/// Reference §4.5, §4.7, §6.8: arithmetic (integer division truncates, integer ÷ 0 is 0, Bool
/// counts as 0/1 — a documented deviation), dates ± seconds and date − date, bitwise
/// operators, and every built-in function that has a meaning off Apple platforms.
@Suite("Evaluation: arithmetic and built-in functions (§4.5, §4.7)")
struct EvaluationArithmeticFunctionsTests {
    static let d0 = #"{"$date": "2024-01-01T00:00:00Z"}"#
    static let d1 = #"{"$date": "2024-01-01T00:01:00Z"}"#
    static let dates = #"{"d": \#(d0), "e": \#(d1), "n": 60}"#

    static let cases: [EvalCase] = [
        // A.2 #25
        EvalCase("2 ** 3 == 8", nil, true),
        EvalCase("7 / 2 == 3", nil, true),
        EvalCase("7.0 / 2 == 3.5", nil, true),
        // precedence and associativity
        EvalCase("1 + 2 * 3 == 7", nil, true),
        EvalCase("(1 + 2) * 3 == 9", nil, true),
        EvalCase("10 - 3 - 2 == 5", nil, true),
        EvalCase("100 / 10 / 5 == 2", nil, true),
        EvalCase("2 * 3 ** 2 == 18", nil, true),
        EvalCase("-2 + 5 == 3", nil, true),
        EvalCase("1 + 2 == 4 - 1", nil, true),
        // integer division truncates toward zero; integer ÷ 0 is 0; doubles follow IEEE
        EvalCase("-7 / 2 == -3", nil, true),
        EvalCase("7 / -2 == -3", nil, true),
        EvalCase("7 / 0 == 0", nil, true),
        EvalCase("0 / 0 == 0", nil, true),
        EvalCase("7.0 / 0 > 1e308", nil, true),
        EvalCase("-7.0 / 0 < -1e308", nil, true),
        EvalCase("7 / 2.0 == 3.5", nil, true),
        EvalCase("1 / 3 == 0", nil, true),
        // int stays int, double makes double, 64-bit overflow is an error (decision D23)
        EvalCase("3 * 4 == 12", nil, true),
        EvalCase("0.1 + 0.2 > 0.3", nil, true),
        EvalCase("9223372036854775807 + 1 < 0", nil, throws: .integerOverflow),
        EvalCase("-9223372036854775807 - 2 > 0", nil, throws: .integerOverflow),
        EvalCase("9223372036854775807 * 1.0 + 1 > 0", nil, true),
        EvalCase("x + 1 > 0", ["x": 9223372036854775807], throws: .integerOverflow),
        EvalCase("x - 1 < 0", ["x": -9223372036854775808], throws: .integerOverflow),
        EvalCase("x * x > 0", ["x": 3037000500], throws: .integerOverflow),
        EvalCase("x * x == 9223372030926249001", ["x": 3037000499], true),
        EvalCase("-x > 0", ["x": -9223372036854775808], throws: .integerOverflow),
        EvalCase("-x == -9223372036854775807", ["x": 9223372036854775807], true),
        EvalCase("abs:(x) > 0", ["x": -9223372036854775808], throws: .integerOverflow),
        EvalCase("abs:(x) == 9223372036854775807", ["x": -9223372036854775807], true),
        EvalCase("x / -1 > 0", ["x": -9223372036854775808], throws: .integerOverflow),
        EvalCase("divide:by:(x, -1) > 0", ["x": -9223372036854775808], throws: .integerOverflow),
        EvalCase("modulus:by:(x, -1) == 0", ["x": -9223372036854775808], true),
        EvalCase("modulus:by:(x, 0) == 0", ["x": 5], true),
        EvalCase("x / 0 == 0", ["x": -9223372036854775808], true),
        EvalCase("-9223372036854775808 < 0", nil, true),
        EvalCase("-9223372036854775808 == x", ["x": -9223372036854775808], true),
        EvalCase("9223372036854775808 == 9223372036854775807.0 + 1", nil, true),
        EvalCase("2 ** 63 == 9223372036854775808.0", nil, true),
        EvalCase("1 << 63 == -9223372036854775808", nil, true),
        EvalCase("3 << 63 == -9223372036854775808", nil, true),
        EvalCase("1 << x == 0", ["x": 64], throws: .integerOverflow),
        EvalCase("1 >> x == 0", ["x": 64], throws: .integerOverflow),
        EvalCase("1 << x == 0", ["x": -1], throws: .integerOverflow),
        EvalCase("-8 >> 63 == -1", nil, true),
        EvalCase("bitwiseAnd:with:(CAST('1e30', 'NSDecimalNumber'), 1) == 0", nil, throws: .arithmetic),
        EvalCase("sum:({9223372036854775807, 1}) > 0", nil, throws: .integerOverflow),
        EvalCase("sum:({9223372036854775807, 1, -1}) == 9223372036854775807", nil, true),
        EvalCase("{9223372036854775807, 1}.@sum > 0", nil, throws: .integerOverflow),
        EvalCase("{-9223372036854775808, -1}.@sum < 0", nil, throws: .integerOverflow),
        EvalCase("{9223372036854775807, 9223372036854775807}.@avg == 9223372036854775807.0", nil, true),
        EvalCase("{9223372036854775807, 1.0}.@sum == 9223372036854775808.0", nil, true),
        EvalCase("CAST('9223372036854775808', 'NSNumber') == 9223372036854775808.0", nil, true),
        EvalCase("2 ** 0.5 > 1.414", nil, true),
        EvalCase("2 ** -1 == 0.5", nil, true),
        EvalCase("2 ** 62 == 4611686018427387904", nil, true),
        // key paths and unary minus
        EvalCase("x * 2 == 10", ["x": 5], true),
        EvalCase("-x == -5", ["x": 5], true),
        EvalCase("-x == 2.5", ["x": -2.5], true),
        EvalCase("x + y == 3.5", ["x": 1, "y": 2.5], true),
        EvalCase("x - y == 0", ["x": 2, "y": 2.0], true),
        EvalCase("x / y == 2", ["x": 5, "y": 2], true),
        EvalCase("x / y == 2.5", ["x": 5.0, "y": 2], true),
        // Bool counts as 0/1 in arithmetic (project decision)
        EvalCase("YES + 1 == 2", nil, true),
        EvalCase("YES * 3 == 3", nil, true),
        EvalCase("NO * 3 == 0", nil, true),
        EvalCase("flag + flag == 2", ["flag": true], true),
        EvalCase("-YES == -1", nil, true),
        // decimals stay exact
        EvalCase("%@ + 1 == 3.5", nil, true, args: [.decimal(Decimal(string: "2.5")!)]),
        EvalCase("%@ * 2 == 5", nil, true, args: [.decimal(Decimal(string: "2.5")!)]),
        EvalCase("%@ / 0 == 0", nil, true, args: [.decimal(Decimal(string: "2.5")!)]),
        EvalCase("%@ + %@ == %@", nil, true,
                 args: [.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "0.2")!), .decimal(Decimal(string: "0.3")!)]),
        // non-numbers
        EvalCase("'a' + 1 == 1", nil, throws: .arithmetic),
        EvalCase("1 * 'a' == 1", nil, throws: .arithmetic),
        EvalCase("{1} + 1 == 1", nil, throws: .arithmetic),
        EvalCase("-'a' == 1", nil, throws: .arithmetic),
        EvalCase("x / 2 == 1", ["x": "4"], throws: .arithmetic),
        // dates ± seconds, date − date (§6.8)
        EvalCase("d + 60 == e", json: dates, true),
        EvalCase("60 + d == e", json: dates, true),
        EvalCase("d + n == e", json: dates, true),
        EvalCase("e - 60 == d", json: dates, true),
        EvalCase("e - d == 60", json: dates, true),
        EvalCase("d - e == -60", json: dates, true),
        EvalCase("d + 0.5 > d", json: dates, true),
        EvalCase("d + 0.5 == d", json: dates, false),
        EvalCase("d + YES == d + 1", json: dates, true),
        EvalCase("d + e == d", json: dates, throws: .arithmetic),
        EvalCase("d * 2 == d", json: dates, throws: .arithmetic),
        EvalCase("60 - d == d", json: dates, throws: .arithmetic),
        EvalCase("d + 'x' == d", json: dates, throws: .arithmetic),
        EvalCase("now() - d > 0", json: dates, true),
        // bitwise operators and their functions
        EvalCase("5 & 3 == 1", nil, true),
        EvalCase("5 | 3 == 7", nil, true),
        EvalCase("5 ^ 3 == 6", nil, true),
        EvalCase("1 << 4 == 16", nil, true),
        EvalCase("256 >> 4 == 16", nil, true),
        EvalCase("-16 >> 2 == -4", nil, true),
        EvalCase("~0 == -1", nil, true),
        EvalCase("~5 == -6", nil, true),
        EvalCase("bitwiseAnd:with:(12, 10) == 8", nil, true),
        EvalCase("bitwiseOr:with:(12, 10) == 14", nil, true),
        EvalCase("bitwiseXor:with:(12, 10) == 6", nil, true),
        EvalCase("leftshift:by:(1, 3) == 8", nil, true),
        EvalCase("rightshift:by:(-16, 2) == -4", nil, true),
        EvalCase("onesComplement:(5) == -6", nil, true),
        EvalCase("flags & 4 == 4", ["flags": 13], true),
        EvalCase("flags & 2 == 0", ["flags": 13], true),
        EvalCase("'a' & 1 == 0", nil, throws: .arithmetic),
        EvalCase("~'a' == 0", nil, throws: .arithmetic),
        // aggregates (A.2 #23, #24)
        EvalCase("sum:(SELF) == 6", [1, 2, 3], true),
        EvalCase("count:(SELF) == 3", [1, 2, 3], true),
        EvalCase("max:(SELF) == 3", [1, 2, 3], true),
        EvalCase("min:(SELF) == 1", [], throws: .aggregate),
        EvalCase("sum:({1, 2, 3}) == 6", nil, true),
        EvalCase("sum({1, 2.5}) == 3.5", nil, true),
        EvalCase("sum:({}) == 0", nil, true),
        EvalCase("sum:(SELF) == 3", .set([1, 2]), true),
        EvalCase("sum:({1, 'a'}) == 1", nil, throws: .aggregate),
        EvalCase("sum:(5) == 5", nil, throws: .aggregate),
        EvalCase("count:({}) == 0", nil, true),
        EvalCase("count(SELF) == 2", ["a": 1, "b": 2], true),
        EvalCase("count:(5) == 1", nil, throws: .aggregate),
        EvalCase("count:('abc') == 3", nil, throws: .aggregate),
        EvalCase("min:({3, 1, 2}) == 1", nil, true),
        EvalCase("max:({3, 1, 2}) == 3", nil, true),
        EvalCase("min({2.5, 3}) == 2.5", nil, true),
        EvalCase("max:({}) == 0", nil, throws: .aggregate),
        EvalCase("average:({1, 2, 3, 4}) == 2.5", nil, true),
        EvalCase("average({2}) == 2", nil, true),
        EvalCase("average:({}) == 0", nil, throws: .aggregate),
        EvalCase("average:({1, 'a'}) == 0", nil, throws: .aggregate),
        EvalCase("median:({3, 1, 2}) == 2", nil, true),
        EvalCase("median:({4, 1, 3, 2}) == 2.5", nil, true),
        EvalCase("median:({}) == 0", nil, throws: .aggregate),
        EvalCase("mode:({1, 2, 2, 3}) == {2}", nil, true),
        EvalCase("mode:({1, 1, 2, 2}) == {1, 2}", nil, true),
        EvalCase("mode:({}) == {}", nil, true),
        EvalCase("stddev:({2, 4, 4, 4, 5, 5, 7, 9}) == 2", nil, true),
        EvalCase("stddev:({5}) == 0", nil, true),
        EvalCase("sum:(items.price) == items.@sum.price", ["items": [["price": 1], ["price": 2.5]]], true),
        // the binary arithmetic selectors
        EvalCase("add:to:(2, 3) == 5", nil, true),
        EvalCase("from:subtract:(10, 4) == 6", nil, true),
        EvalCase("multiply:by:(3, 4) == 12", nil, true),
        EvalCase("divide:by:(7, 2) == 3", nil, true),
        EvalCase("divide:by:(7, 0) == 0", nil, true),
        EvalCase("modulus:by:(10, 3) == 1", nil, true),
        EvalCase("modulus:by:(-7, 3) == -1", nil, true),
        EvalCase("modulus:by:(7, 0) == 0", nil, true),
        EvalCase("modulus:by:(7.5, 2) == 1.5", nil, true),
        EvalCase("raise:toPower:(2, 10) == 1024", nil, true),
        // one-argument numeric functions
        EvalCase("sqrt:(16) == 4", nil, true),
        EvalCase("sqrt(2.25) == 1.5", nil, true),
        EvalCase("log:(1000) > 2.999999 AND log:(1000) < 3.000001", nil, true),
        EvalCase("log:(1) == 0", nil, true),
        EvalCase("ln:(1) == 0", nil, true),
        EvalCase("ln(exp(2)) > 1.999999 AND ln(exp(2)) < 2.000001", nil, true),
        EvalCase("exp:(1) > 2.718281 AND exp:(1) < 2.718282", nil, true),
        EvalCase("exp:(0) == 1", nil, true),
        EvalCase("floor:(2.7) == 2", nil, true),
        EvalCase("floor:(-2.5) == -3", nil, true),
        EvalCase("ceiling:(2.1) == 3", nil, true),
        EvalCase("ceiling:(-2.1) == -2", nil, true),
        EvalCase("trunc:(-2.7) == -2", nil, true),
        EvalCase("trunc:(2.7) == 2", nil, true),
        EvalCase("abs:(-5) == 5", nil, true),
        EvalCase("abs:(-2.5) == 2.5", nil, true),
        EvalCase("abs(x) == 3", ["x": -3], true),
        EvalCase("sqrt:('a') == 1", nil, throws: .arithmetic),
        EvalCase("abs:('a') == 1", nil, throws: .arithmetic),
        EvalCase("floor:(x) == 1", ["x": nil], throws: .arithmetic),
        // random, randomn (also spelled random:), now
        EvalCase("random() >= 0 AND random() < 1", nil, true),
        EvalCase("randomn:(10) >= 0 AND randomn:(10) < 10", nil, true),
        EvalCase("random:(3) BETWEEN {0, 2}", nil, true),
        EvalCase("randomn:(1) == 0", nil, true),
        EvalCase("now() > %@", nil, true, args: [.date(isoDate("2020-01-01T00:00:00Z"))]),
        EvalCase("now() > CAST(0, 'NSDate')", nil, true),
        // string functions
        EvalCase("uppercase:('abc') == 'ABC'", nil, true),
        EvalCase("uppercase('straße') == 'STRASSE'", nil, true),
        EvalCase("lowercase:('ÀB') == 'àb'", nil, true),
        EvalCase("lowercase(name) == 'ann'", ["name": "ANN"], true),
        EvalCase("length:('héllo') == 5", nil, true),
        EvalCase("length:('\u{1F600}') == 2", nil, true),
        EvalCase("length:('') == 0", nil, true),
        EvalCase("canonical:('Café') == 'cafe'", nil, true),
        EvalCase("canonical:('ŁÓDŹ') == 'lodz'", nil, true),
        EvalCase("canonical:(name) ==[n] 'strasse'", ["name": "Straße"], true),
        EvalCase("uppercase:(5) == '5'", nil, throws: .typeMismatch),
        EvalCase("length:({1}) == 1", nil, throws: .typeMismatch),
        // noindex: is the identity
        EvalCase("noindex:(age) == 5", ["age": 5], true),
        EvalCase("noindex:('a') == 'a'", nil, true),
        // Apple-platform functions have no meaning here
        EvalCase("distanceToLocation:fromLocation:(a, b) < 10", ["a": 1, "b": 2], throws: .unsupported),
        EvalCase("tokenize:using:(a, b) == nil", ["a": 1, "b": 2], throws: .typeMismatch),
        EvalCase("indexed:by:(a, b) == nil", ["a": 1, "b": 2], throws: .unsupported),
    ]

    @Test("arithmetic and functions", arguments: cases)
    func arithmeticAndFunctions(_ c: EvalCase) { check(c) }

    @Test("random values stay in range over many evaluations")
    func randomRange() throws {
        let p = try PredicateNode(format: "randomn:(SELF) >= 0 AND randomn:(SELF) < SELF AND random() < 1").compiled(for: Int.self)
        for n in [1, 2, 3, 7, 100] {
            for _ in 0..<50 { #expect(try p.evaluate(n)) }
        }
        let e = evaluationError { try PredicateNode(format: "randomn:(0) == 0").evaluate(on: 0) }
        #expect(e != nil)
    }

    @Test("now() is evaluated at evaluation time")
    func nowIsLive() throws {
        let p = try PredicateNode(format: "now() >= %@", Date())
        #expect(try p.evaluate(on: 0))
        let q = try PredicateNode(format: "now() < %@", Date().addingTimeInterval(3600))
        #expect(try q.evaluate(on: 0))
    }
}

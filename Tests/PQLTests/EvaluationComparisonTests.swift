import Foundation
import Testing
@testable import PQL

/// Reference §3.1, §6.3, §6.4: equality with numeric coercion, ordering of numbers, strings and
/// dates, incomparable operands, BETWEEN.
@Suite("Evaluation: equality, ordering, BETWEEN (§6.3, §6.4)")
struct EvaluationComparisonTests {
    static let jan1 = #"{"$date": "2024-01-01T00:00:00Z"}"#
    static let jan2 = #"{"$date": "2024-01-02T00:00:00Z"}"#
    static let jan1ms = #"{"$date": "2024-01-01T00:00:00.5Z"}"#

    static let cases: [EvalCase] = [
        // A.2 #17: numbers compare by value across kinds; a number never equals a string
        EvalCase("1 == 1.0", nil, true),
        EvalCase("YES == 1", nil, true),
        EvalCase("'5' == 5", nil, false),
        EvalCase("NO == 0", nil, true),
        EvalCase("TRUE == 1.0", nil, true),
        EvalCase("FALSE == 0.0", nil, true),
        EvalCase("YES == 2", nil, false),
        EvalCase("YES == TRUE", nil, true),
        EvalCase("5 == '5'", nil, false),
        EvalCase("5 != '5'", nil, true),
        EvalCase("1 == '1.0'", nil, false),
        EvalCase("'' == 0", nil, false),
        EvalCase("SELF == 5", 5.0, true),
        EvalCase("SELF == 5", "5", false),
        EvalCase("SELF == '5'", 5, false),
        EvalCase("SELF == YES", 1, true),
        EvalCase("SELF == 1", true, true),
        EvalCase("SELF == 0", false, true),
        EvalCase("SELF == 0.5", 0.5, true),
        EvalCase("SELF == 0x1F", 31, true),
        EvalCase("0x1F == 31", nil, true),
        EvalCase("0o17 == 15", nil, true),
        EvalCase("0b101 == 5", nil, true),
        EvalCase("9.2e-5 < 1", nil, true),
        EvalCase("-0.0 == 0", nil, true),
        // integers and doubles compare exactly, without rounding the integer
        EvalCase("9007199254740993 == 9007199254740992.0", nil, false),
        EvalCase("9007199254740993 > 9007199254740992.0", nil, true),
        EvalCase("9007199254740992 == 9007199254740992.0", nil, true),
        EvalCase("9223372036854775807 < 9223372036854775808.0", nil, true),
        EvalCase("-9223372036854775807 > -1e19", nil, true),
        // Decimal arguments compare with every number kind
        EvalCase("SELF == %@", 2.5, true, args: [.decimal(Decimal(string: "2.5")!)]),
        EvalCase("SELF == %@", 3, true, args: [.decimal(Decimal(3))]),
        EvalCase("SELF < %@", 3, true, args: [.decimal(Decimal(string: "3.25")!)]),
        EvalCase("SELF > %@", 3.5, true, args: [.decimal(Decimal(string: "3.25")!)]),
        EvalCase("SELF == %@", "2.5", false, args: [.decimal(Decimal(string: "2.5")!)]),
        EvalCase("SELF == %@", true, true, args: [.decimal(Decimal(1))]),
        // ordering of numbers (bools count as 0/1)
        EvalCase("2 < 10", nil, true),
        EvalCase("10 < 2", nil, false),
        EvalCase("-1 < 0", nil, true),
        EvalCase("1.5 > 1", nil, true),
        EvalCase("1 >= 1.0", nil, true),
        EvalCase("1 <= 0.999", nil, false),
        EvalCase("YES > NO", nil, true),
        EvalCase("YES > 0.5", nil, true),
        EvalCase("NO < 0.5", nil, true),
        EvalCase("3 =< 3", nil, true),
        EvalCase("3 => 4", nil, false),
        EvalCase("SELF > 1e300", 1e308, true),
        // strings: literal ordering by code points (A.2 #21)
        EvalCase("SELF < 'abc'", "ABC", true),
        EvalCase("'a' < 'b'", nil, true),
        EvalCase("'Z' < 'a'", nil, true),
        EvalCase("'a' < 'B'", nil, false),
        EvalCase("'abc' < 'abcd'", nil, true),
        EvalCase("'' < 'a'", nil, true),
        EvalCase("'' <= ''", nil, true),
        EvalCase("'b' > 'abc'", nil, true),
        EvalCase("'10' < '9'", nil, true),
        // Unicode scalar (UTF-8 byte) order, as SQLite's BINARY collation: U+FF5E < U+1F600
        // (Apple's UTF-16 order puts U+1F600, D83D DE00, first; decision D18)
        EvalCase("'\u{1F600}' > '\u{FF5E}'", nil, true),
        EvalCase("'\u{FF5E}' < '\u{1F600}'", nil, true),
        // literal strings are not normalised: é (U+00E9) vs e + U+0301
        EvalCase("'\u{E9}' == 'e\u{301}'", nil, false),
        EvalCase("'e\u{301}' < '\u{E9}'", nil, true),
        EvalCase("'\u{E9}' != 'e\u{301}'", nil, true),
        EvalCase("'abc' == 'abc'", nil, true),
        EvalCase("'abc' == 'ABC'", nil, false),
        EvalCase("'abc' = \"abc\"", nil, true),
        // dates: chronological, equal only at the same instant
        EvalCase("a < b", json: #"{"a": \#(jan1), "b": \#(jan2)}"#, true),
        EvalCase("a > b", json: #"{"a": \#(jan1), "b": \#(jan2)}"#, false),
        EvalCase("a <= b", json: #"{"a": \#(jan1), "b": \#(jan1)}"#, true),
        EvalCase("a == b", json: #"{"a": \#(jan1), "b": \#(jan1)}"#, true),
        EvalCase("a == b", json: #"{"a": \#(jan1), "b": \#(jan1ms)}"#, false),
        EvalCase("a < b", json: #"{"a": \#(jan1), "b": \#(jan1ms)}"#, true),
        EvalCase("a != b", json: #"{"a": \#(jan1), "b": \#(jan1ms)}"#, true),
        EvalCase("a == $D", json: #"{"a": \#(jan1)}"#, true, vars: ["D": .date(isoDate("2024-01-01T00:00:00Z"))]),
        EvalCase("a > %@", json: #"{"a": \#(jan1)}"#, true, args: [.date(isoDate("2023-12-31T23:59:59Z"))]),
        EvalCase("a == CAST(725760000, 'NSDate')", json: #"{"a": \#(jan1)}"#, true),
        EvalCase("a > CAST(0, 'NSDate')", json: #"{"a": \#(jan1)}"#, true),
        // a date has no implicit conversion to a number or a string
        EvalCase("a == 725760000", json: #"{"a": \#(jan1)}"#, false),
        EvalCase("a == '2024-01-01T00:00:00Z'", json: #"{"a": \#(jan1)}"#, false),
        // incomparable kinds → error (A.2 #22); equality between them is just false
        EvalCase("SELF < 5", "abc", throws: .incomparable),
        EvalCase("'a' < 5", nil, throws: .incomparable),
        EvalCase("5 >= 'a'", nil, throws: .incomparable),
        EvalCase("YES < 'a'", nil, throws: .incomparable),
        EvalCase("a < 5", json: #"{"a": \#(jan1)}"#, throws: .incomparable),
        EvalCase("a > 'x'", json: #"{"a": \#(jan1)}"#, throws: .incomparable),
        EvalCase("{1} < {2}", nil, throws: .incomparable),
        EvalCase("SELF > 1", [1, 2], throws: .incomparable),
        EvalCase("SELF <= 1", ["a": 1], throws: .incomparable),
        EvalCase("a == 5", json: #"{"a": \#(jan1)}"#, false),
        EvalCase("{1} == 1", nil, false),
        EvalCase("SELF == 'abc'", ["abc"], false),
        // collections: arrays in order, sets unordered, dictionaries by entries
        EvalCase("{1, 2} == {1, 2}", nil, true),
        EvalCase("{1, 2} == {2, 1}", nil, false),
        EvalCase("{1, 2} == {1, 2.0}", nil, true),
        EvalCase("{} == {}", nil, true),
        EvalCase("{{1}, 'a'} == {{1}, 'a'}", nil, true),
        EvalCase("SELF == {1, 2}", [1, 2], true),
        EvalCase("SELF == %@", .set([1, 2, 3]), true, args: [.set([3, 2, 1])]),
        EvalCase("SELF == %@", .set([1, 2]), false, args: [.set([1, 2, 3])]),
        EvalCase("SELF == %@", ["a": 1, "b": [true]], true, args: [["b": [1], "a": 1.0]]),
        EvalCase("SELF != %@", ["a": 1], true, args: [["a": 2]]),
        // options apply only between strings, and are ignored otherwise
        EvalCase("'ABC' ==[c] 'abc'", nil, true),
        EvalCase("'ABC' !=[c] 'abc'", nil, false),
        EvalCase("'a' <[c] 'B'", nil, true),
        EvalCase("'abc' <[c] 'ABD'", nil, true),
        EvalCase("'ABC' >=[c] 'abc'", nil, true),
        EvalCase("5 ==[c] 5", nil, true),
        EvalCase("5 ==[cd] 5.0", nil, true),
        EvalCase("5 <[c] 6", nil, true),
        EvalCase("5 ==[c] '5'", nil, false),
        // BETWEEN: inclusive, swapped bounds, bad bounds (A.2 #15, #16)
        EvalCase("5 BETWEEN {1, 5}", nil, true),
        EvalCase("5 BETWEEN {5, 1}", nil, true),
        EvalCase("0 BETWEEN {1, 5}", nil, false),
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": [1]]),
        EvalCase("1 BETWEEN {1, 5}", nil, true),
        EvalCase("6 BETWEEN {1, 5}", nil, false),
        EvalCase("3 BETWEEN {3, 3}", nil, true),
        EvalCase("3 BETWEEN {5, 1}", nil, true),
        EvalCase("0 BETWEEN {5, 1}", nil, false),
        EvalCase("2.5 BETWEEN {2, 3}", nil, true),
        EvalCase("YES BETWEEN {0, 1}", nil, true),
        EvalCase("SELF BETWEEN {1.5, 2.5}", 2, true),
        EvalCase("SELF BETWEEN {-10, -1}", -5, true),
        EvalCase("'b' BETWEEN {'a', 'c'}", nil, true),
        EvalCase("'b' BETWEEN {'c', 'a'}", nil, true),
        EvalCase("'B' BETWEEN {'a', 'c'}", nil, false),
        EvalCase("'c' BETWEEN {'a', 'c'}", nil, true),
        EvalCase("d BETWEEN {a, b}", json: #"{"a": \#(jan1), "b": \#(jan2), "d": \#(jan1ms)}"#, true),
        EvalCase("d BETWEEN {b, a}", json: #"{"a": \#(jan1), "b": \#(jan2), "d": \#(jan1ms)}"#, true),
        EvalCase("a BETWEEN {d, b}", json: #"{"a": \#(jan1), "b": \#(jan2), "d": \#(jan1ms)}"#, false),
        EvalCase("d BETWEEN {$LO, $HI}", json: #"{"d": \#(jan1ms)}"#, true,
                 vars: ["LO": .date(isoDate("2024-01-01T00:00:00Z")), "HI": .date(isoDate("2024-01-01T00:00:01Z"))]),
        EvalCase("x BETWEEN %@", ["x": 4], true, args: [[1, 10]]),
        EvalCase("x BETWEEN $R", ["x": 4], true, vars: ["R": [10, 1]]),
        EvalCase("x BETWEEN $R", ["x": 11], false, vars: ["R": [10, 1]]),
        EvalCase("x BETWEEN bounds", ["x": 4, "bounds": [3, 4]], true),
        EvalCase("x BETWEEN bounds", ["x": 4, "bounds": [3]], throws: .badBetweenBounds),
        EvalCase("x BETWEEN bounds", ["x": 4], throws: .badBetweenBounds),
        // Literal bounds that are not a pair are parse errors (BetweenBoundsTests); values are checked here.
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": [1, 2, 3]]),
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": []]),
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": 3]),
        EvalCase("5 BETWEEN $B", nil, throws: .badBetweenBounds, vars: ["B": "ab"]),
        EvalCase("nil BETWEEN $B", nil, false, vars: ["B": "ab"]),
        EvalCase("x BETWEEN $R", ["x": 4], throws: .badBetweenBounds, vars: ["R": .set([1, 10])]),
        EvalCase("'a' BETWEEN {1, 5}", nil, throws: .incomparable),
        EvalCase("5 BETWEEN {'a', 'z'}", nil, throws: .incomparable),
        EvalCase("NOT (0 BETWEEN {1, 5})", nil, true),
    ]

    @Test("equality, ordering, BETWEEN", arguments: cases)
    func comparisons(_ c: EvalCase) { check(c) }

    static let people = """
    [{"name": "Ann", "age": 30, "born": {"$date": "1994-05-01"}},
     {"name": "bob", "age": 17.5, "born": {"$date": "2006-11-30T08:00:00Z"}},
     {"name": "Cleo", "age": null},
     {"name": "dan", "born": {"$date": "1994-05-01T00:00:00.001Z"}},
     {"name": "Éve", "age": true, "born": {"$date": "1970-01-01"}},
     {"age": 65}]
    """

    static let filters: [FilterCase] = [
        FilterCase("age > 18", json: people, [0, 5]),
        FilterCase("age >= 17.5", json: people, [0, 1, 5]),
        FilterCase("age != 30", json: people, [1, 2, 3, 4, 5]),
        FilterCase("age == 1", json: people, [4]),
        FilterCase("age BETWEEN {1, 30}", json: people, [0, 1, 4]),
        FilterCase("age BETWEEN {65, 30}", json: people, [0, 5]),
        FilterCase("name < 'a'", json: people, [0, 2]),
        FilterCase("name >= 'a'", json: people, [1, 3, 4]),
        FilterCase("born < %@", args: [.date(isoDate("1994-05-01T00:00:00.0005Z"))], json: people, [0, 4]),
        FilterCase("born == CAST(-210556800, 'NSDate')", json: people, [0]),
        FilterCase("born > CAST(0, 'NSDate')", json: people, [1]),
        FilterCase("born == nil", json: people, [2, 5]),
        FilterCase("age <= nil", json: people, [2, 3]),
    ]

    @Test("filters return the exact indices", arguments: filters)
    func filtered(_ c: FilterCase) { check(c) }

    @Test("an incomparable error names both kinds and the comparison")
    func incomparableMessage() throws {
        let p = try PredicateNode(format: "name < 5")
        let e = evaluationError { try p.evaluate(on: ["name": "Bo"] as PredicateValue) }
        #expect(e?.kind == .incomparable)
        #expect(e?.message.contains("string") == true)
        #expect(e?.message.contains("number") == true)
        #expect(e?.context == "name < 5")
    }

    @Test("BETWEEN with bad bounds says how to write it")
    func badBoundsHint() throws {
        let p = try PredicateNode(format: "x BETWEEN $R")
        let e = evaluationError { try p.evaluate(on: ["x": 1] as PredicateValue, variables: ["R": [1, 2, 3]]) }
        #expect(e?.kind == .badBetweenBounds)
        #expect(e?.hint?.contains("BETWEEN {") == true)
    }
}

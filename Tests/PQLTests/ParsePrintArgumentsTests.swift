import Foundation
import Testing
@testable import PQL

/// Reference §5: every format specifier with the argument kinds it takes, and substituted variables.
@Suite struct ParsePrintArgumentsTests {
    static let date = Date(timeIntervalSinceReferenceDate: 721_692_800)

    /// `%@` with every kind of value (§5.2, §7.2).
    static let objectArguments: [ParsePrintCase] = [
        .init("name == %@", #"name == "Adam""#, args: ["Adam"]),
        .init("name == %@", #"name == "it's \"quoted\" \\ here""#, args: [#"it's "quoted" \ here"#]),
        .init("name == %@", #"name == "' OR 1 == 1""#, args: ["' OR 1 == 1"]),
        .init("name == %@", #"name == """#, args: [""]),
        .init("name == %@", #"name == "x""#, args: [Substring("x")]),
        .init("name == %@", #"name == "é""#, args: [Character("é")]),
        .init("age == %@", "age == 5", args: [5]),
        .init("age == %@", "age == -5", args: [-5]),
        .init("age == %@", "age == 9223372036854775807", args: [Int64.max]),
        .init("age == %@", "age == 200", args: [UInt8(200)]),
        .init("age == %@", #"age == CAST("18446744073709551615", "NSDecimalNumber")"#, args: [UInt64.max]),
        .init("age == %@", "age == 2.5", args: [2.5]),
        .init("age == %@", "age == 10.0", args: [10.0]),
        .init("age == %@", "age == -0.25", args: [-0.25]),
        .init("age == %@", "age == 1e+20", args: [1e20]),
        .init("age == %@", "age == 1.5", args: [Float(1.5)]),
        .init("age == %@", #"age == CAST("nan", "NSNumber")"#, args: [Double.nan]),
        .init("age == %@", #"age == CAST("inf", "NSNumber")"#, args: [Double.infinity]),
        .init("age == %@", #"age == CAST("-inf", "NSNumber")"#, args: [-Double.infinity]),
        .init("%@[SIZE] == 1", #"CAST("nan", "NSNumber")[SIZE] == 1"#, args: [-Double.nan]),
        .init("%@.x == 1", #"CAST("-inf", "NSNumber").x == 1"#, args: [-Double.infinity]),
        .init("%@.x == 1", "(-0.0).x == 1", args: [-0.0]),
        .init("flag == %@", "flag == 1", args: [true]),
        .init("flag == %@", "flag == 0", args: [false]),
        .init("a == %@", "a == nil", args: [nil]),
        .init("a == %@", "a == nil", args: [NSNull()]),
        .init("a == %@", "a == nil", args: [Optional<Int>.none as Any]),
        .init("a == %@", "a == 3", args: [Optional<Int>.some(3) as Any?]),
        .init("a IN %@", "a IN {1, 2, 3}", args: [[1, 2, 3]]),
        .init("a IN %@", #"a IN {"x", 2, 2.5, nil, 1}"#, args: [["x", 2, 2.5, nil, true] as [Any?]]),
        .init("a IN %@", "a IN {}", args: [[Int]()]),
        .init("a IN %@", "a IN {{1, 2}, {3}}", args: [[[1, 2], [3]]]),
        .init("a IN %@", "a IN CAST({1, 2, 3, 10}, \"NSSet\")", args: [Set([10, 3, 1, 2])]),
        .init("a IN %@", #"a IN CAST({"a", "b", "c"}, "NSSet")"#, args: [Set(["c", "a", "b"])]),
        .init("a IN %@", #"a IN CAST({nil, -1, 2.5, "a"}, "NSSet")"#, args: [Set<AnyHashable>(["a", 2.5, -1, NSNull()])]),
        .init("a IN %@", #"a IN CAST({}, "NSSet")"#, args: [Set<Int>()]),
        .init("a == %@", #"a == CAST({{"a", "x"}, {"k", 1}}, "NSDictionary")"#, args: [["k": 1, "a": "x"] as [String: Any]]),
        .init("a == %@", #"a == CAST({{"n", nil}, {"v", {1, 2}}}, "NSDictionary")"#, args: [["v": [1, 2], "n": nil] as [String: Any?]]),
        .init("a == %@", #"a == CAST({}, "NSDictionary")"#, args: [[String: Int]()]),
        .init("date > %@", #"date > CAST(0.000000, "NSDate")"#, args: [Date(timeIntervalSinceReferenceDate: 0)]),
        .init("date > %@", #"date > CAST(-86400.500000, "NSDate")"#, args: [Date(timeIntervalSinceReferenceDate: -86400.5)]),
        .init("date > %@", #"date > CAST(0.1234567, "NSDate")"#, args: [Date(timeIntervalSinceReferenceDate: 0.1234567)]),
        .init("date BETWEEN %@", #"date BETWEEN {CAST(721692800.000000, "NSDate"), CAST(721692860.000000, "NSDate")}"#,
              args: [[date, date.addingTimeInterval(60)]]),
        .init("data == %@", #"data == CAST("AQI=", "NSData")"#, args: [Data([1, 2])]),
        .init("data == %@", #"data == CAST("", "NSData")"#, args: [Data()]),
        .init("price == %@", #"price == CAST("1.5", "NSDecimalNumber")"#, args: [Decimal(string: "1.5")!]),
        .init("price == %@", #"price == CAST("-0.001", "NSDecimalNumber")"#, args: [Decimal(string: "-0.001")!]),
        .init("id == %@", #"id == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#, args: [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!]),
        .init("url == %@", #"url == "https://example.org/a?b=1""#, args: [URL(string: "https://example.org/a?b=1")!]),
        .init("a == %@", "a == 7", args: [PredicateValue.int(7)]),
        .init("a == %@", #"a == CAST({1}, "NSSet")"#, args: [PredicateValue.set([1])]),
        .init("a == %@", "a == b.c", args: [ExpressionNode.keyPath(["b", "c"])]),
        .init("%@ == 1", "b + 1 == 1", args: [ExpressionNode.function(.add, [.keyPath(["b"]), .constant(1)])]),
        .init("%@ like %@", #""firstName" LIKE "Bob""#, args: ["firstName", "Bob"]),
        .init("a == %@ AND b == %@ AND c == %@", #"a == 1 AND b == "x" AND c == nil"#, args: [1, "x", nil]),
        .init("a BETWEEN %@", "a BETWEEN {1, 5}", args: [[1, 5]]),
        .init("a IN {%@, %@}", #"a IN {1, "b"}"#, args: [1, "b"]),
        .init("a IN {%@, b}", "a IN {1, b}", args: [1]),
        .init("sum:(%@) == 6", "sum:({1, 2, 3}) == 6", args: [[1, 2, 3]]),
        .init("CAST(%@, 'NSDate') == d", #"CAST(0.000000, "NSDate") == d"#, args: [0]),
        .init("CAST(a, %@) == 1", #"CAST(a, "NSNumber") == 1"#, args: ["NSNumber"]),
        .init("FUNCTION(SELF, %@, %@) == 1", #"FUNCTION(SELF, "f:" , 2) == 1"#, args: ["f:", 2]),
        .init("name == '%@' AND age == %@", #"name == "%@" AND age == 3"#, args: [3]),
        .init("price > %@", "price > 500", args: [PQLCorpusCents(cents: 500)]),
    ]

    /// `%K` (§5.2): dotted paths, reserved words, keys that need `#"…"`.
    static let keyPathArguments: [ParsePrintCase] = [
        .init("%K == 1", "name == 1", args: ["name"]),
        .init("%K like[c] %@", #"lastName LIKE[c] "Smith""#, args: ["lastName", "Smith"]),
        .init("%K == 1", "address.city == 1", args: ["address.city"]),
        .init("%K == 1", "kids.@count == 1", args: ["kids.@count"]),
        .init("%K == 1", "@count == 1", args: ["@count"]),
        .init("%K == 1", "#size == 1", args: ["size"]),
        .init("%K == 1", "order.#first == 1", args: ["order.first"]),
        .init("%K == 1", "#SELF == 1", args: ["SELF"]),
        .init("%K == 1", #"#"first name" == 1"#, args: ["first name"]),
        .init("%K == 1", #"#"first-name" == 1"#, args: ["first-name"]),
        .init("%K == 1", #"#"2nd" == 1"#, args: ["2nd"]),
        .init("%K == 1", #"#"a b".c == 1"#, args: ["a b.c"]),
        .init("%K == 1", #"#"say \"hi\"" == 1"#, args: [#"say "hi""#]),
        .init("%K == 1", #"#"back\\slash" == 1"#, args: [#"back\slash"#]),
        .init("%K == 1", #"#"UTI-EQUALS" == 1"#, args: ["UTI-EQUALS"]),
        .init("%K == 1", ##"#"#x" == 1"##, args: ["#x"]),
        .init("%K == 1", #"#"@" == 1"#, args: ["@"]),
        .init("%K == 1", "größe == 1", args: ["größe"]),
        .init("%K == 1", "union == 1", args: ["union"]),
        .init("%K == %K", "a == b", args: ["a", "b"]),
        .init("ANY %K.%K == 1", "ANY kids.age == 1", args: ["kids", "age"]),
        .init("%K[0] == 1", "items[0] == 1", args: ["items"]),
        .init("SUBQUERY(%K, $x, $x.%K > %@).@count > 0", "SUBQUERY(kids, $x, $x.age > 5).@count > 0", args: ["kids", "age", 5]),
    ]

    /// The C conversions (§5.2): integers, floats, strings, characters, `%%`.
    static let scalarSpecifiers: [ParsePrintCase] = [
        .init("a == %d", "a == 5", args: [5]),
        .init("a == %d", "a == -5", args: [-5]),
        .init("a == %i", "a == 5", args: [Int32(5)]),
        .init("a == %D", "a == 5", args: [5]),
        .init("a == %ld", "a == 5", args: [5]),
        .init("a == %lld", "a == 9223372036854775807", args: [Int64.max]),
        .init("a == %hd", "a == 5", args: [Int16(5)]),
        .init("a == %hhd", "a == 5", args: [Int8(5)]),
        .init("a == %qd", "a == 5", args: [5]),
        .init("a == %zd", "a == 5", args: [5]),
        .init("a == %5d", "a == 5", args: [5]),
        .init("a == %d", "a == 1", args: [true]),
        .init("a == %d", "a == 5", args: [Decimal(5)]),
        .init("a == %u", "a == 5", args: [UInt(5)]),
        .init("a == %lu", "a == 5", args: [UInt(5)]),
        .init("a == %llu", #"a == CAST("18446744073709551615", "NSDecimalNumber")"#, args: [UInt64.max]),
        .init("a == %U", "a == 5", args: [UInt32(5)]),
        .init("a == %x", "a == 255", args: [255]),
        .init("a == %X", "a == 255", args: [255]),
        .init("a == %o", "a == 8", args: [8]),
        .init("a == %f", "a == 1.5", args: [1.5]),
        .init("a == %f", "a == 2.0", args: [2]),
        .init("a / %f == 1", "a / 2.0 == 1", args: [2]),
        .init("a == %lf", "a == 1.5", args: [1.5]),
        .init("a == %.2f", "a == 1.25", args: [1.25]),
        .init("a == %e", "a == 1.5", args: [1.5]),
        .init("a == %g", "a == 0.1", args: [0.1]),
        .init("a == %F", "a == 1.5", args: [Float(1.5)]),
        .init("a == %f", #"a == CAST("1.5", "NSDecimalNumber")"#, args: [Decimal(string: "1.5")!]),
        .init("a == %s", #"a == "abc""#, args: ["abc"]),
        .init("a == %S", #"a == "abc""#, args: ["abc"]),
        .init("a == %c", "a == 65", args: [Character("A")]),
        .init("a == %c", "a == 65", args: [65]),
        .init("a == %C", "a == 233", args: [Character("é")]),
        .init("a == %%", #"a == "%""#),
        .init("a LIKE %@", #"a LIKE "%""#, args: ["%"]),
        .init("a == %d AND b == %f AND c == %s", #"a == 1 AND b == 2.5 AND c == "x""#, args: [1, 2.5, "x"]),
        .init("%K == %d", "a == 1", args: ["a", 1]),
    ]

    @Test("§5.2 %@ with every kind of value", arguments: objectArguments)
    func objectArgument(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§5.2 %K key paths", arguments: keyPathArguments)
    func keyPathArgument(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§5.2 C conversions", arguments: scalarSpecifiers)
    func scalarSpecifier(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    // MARK: Variables (§5.3)

    /// A template, the values for its variables, and what the substituted predicate prints.
    struct Substitution: @unchecked Sendable, CustomTestStringConvertible {
        let template: String
        let values: [String: Any?]
        let expected: String
        let sourceLocation: SourceLocation
        init(_ template: String, _ values: [String: Any?], _ expected: String,
             sourceLocation: SourceLocation = #_sourceLocation) {
            self.template = template
            self.values = values
            self.expected = expected
            self.sourceLocation = sourceLocation
        }
        var testDescription: String { template }
    }

    static let substitutions: [Substitution] = [
        .init("age > $MIN AND city == $CITY", ["MIN": 18, "CITY": "Paris"], #"age > 18 AND city == "Paris""#),
        .init("date == $DATE", ["DATE": nil], "date == nil"),
        .init("date == $DATE", ["DATE": NSNull()], "date == nil"),
        .init("date > $D", ["D": date], #"date > CAST(721692800.000000, "NSDate")"#),
        .init("a IN $S", ["S": Set([2, 1])], #"a IN CAST({1, 2}, "NSSet")"#),
        .init("a == $X AND b == $Y", ["X": 1], "a == 1 AND b == $Y"),
        .init("date BETWEEN {$START, $END}", ["START": 1, "END": 5], "date BETWEEN {1, 5}"),
        .init("a IN {$A, b}", ["A": 1], "a IN {1, b}"),
        .init("a == CAST($T, 'NSDate')", ["T": 0], #"a == CAST(0.000000, "NSDate")"#),
        .init("a == CAST($V, $TYPE)", ["V": "AQI=", "TYPE": "NSData"], #"a == CAST("AQI=", "NSData")"#),
        .init("a == -$X", ["X": 5], "a == -(5)"),
        .init("a == -$X", ["X": -5], "a == -(-5)"),
        .init("$X.name == 1", ["X": "abc"], #""abc".name == 1"#),
        .init("$X.name == 1", ["X": ExpressionNode.keyPath(["a"])], "(a).name == 1"),
        .init("$X == 1", ["X": ExpressionNode.evaluatedObject], "SELF == 1"),
        .init("$X[0] == 1", ["X": [1, 2]], "{1, 2}[0] == 1"),
        .init("SUBQUERY(kids, $k, $k.age > $MIN).@count > 0", ["k": 1, "MIN": 5], "SUBQUERY(kids, $k, $k.age > 5).@count > 0"),
        .init("SUBQUERY($C, $k, $k > 1).@count > 0", ["C": [1, 2]], "SUBQUERY({1, 2}, $k, $k > 1).@count > 0"),
        .init("TERNARY($F == 1, $A, 'b') == 'a'", ["F": 1, "A": "a"], #"TERNARY(1 == 1, "a", "b") == "a""#),
        .init("$x := $y == 1", ["y": 2, "x": 3], "$x := 2 == 1"),
        .init("name == $N", ["N": "' OR 1 == 1"], #"name == "' OR 1 == 1""#),
        .init("a == $in", ["in": 1], "a == 1"),
    ]

    @Test("§5.3 substituted variables", arguments: substitutions)
    func substitution(_ s: Substitution) throws {
        let template = try PredicateNode(format: s.template)
        let p = try template.substitutingValues(s.values)
        #expect(p.description == s.expected, sourceLocation: s.sourceLocation)
        let again = try PredicateNode(format: p.description)
        #expect(again == p, "the printed text \(p.description) parses to another tree", sourceLocation: s.sourceLocation)
        #expect(again.description == p.description, sourceLocation: s.sourceLocation)
    }

    @Test("substituting typed values; variables not given stay; SUBQUERY variables are bound")
    func substitutingPredicateValues() throws {
        let t = try PredicateNode(format: "age > $MIN AND SUBQUERY(k, $k, $k > $MIN).@count > 0 AND x == $LEFT")
        #expect(t.variableNames == ["MIN", "LEFT"])
        let p = t.substituting(["MIN": 18, "k": 99])
        #expect(p.description == "age > 18 AND SUBQUERY(k, $k, $k > 18).@count > 0 AND x == $LEFT")
        #expect(p.variableNames == ["LEFT"])
        #expect(try PredicateNode(format: p.description) == p)
    }

    @Test("a substituted string is a value, never a key path or syntax")
    func substitutedStringIsAValue() throws {
        let p = try PredicateNode(format: "$K == 1").substitutingValues(["K": "name"])
        #expect(p == .comparison(ComparisonNode(.constant("name"), .equal, .constant(1))))
    }

    @Test("%@ and %K bind to a constant and a key path, never to text")
    func argumentTrees() throws {
        #expect(try PredicateNode(format: "%K == %@", "a.b", "a.b")
                == .comparison(ComparisonNode(.keyPath(["a", "b"]), .equal, .constant("a.b"))))
        #expect(try PredicateNode(format: "a IN %@", [1, 2]) == PredicateNode(format: "a IN {1, 2}"))
        #expect(try PredicateNode(format: "a == %@", 2.0) != PredicateNode(format: "a == '2.0'"))
    }

    @Test("equal sets print alike whatever their order")
    func setsPrintInOneOrder() throws {
        let a = try PredicateNode(format: "a IN %@", Set((0..<50).map { "v\($0)" }))
        let b = try PredicateNode(format: "a IN %@", PredicateValue.set((0..<50).reversed().map { .string("v\($0)") }))
        #expect(a == b)
        #expect(a.description == b.description)
    }
}

/// A Swift type passed as `%@` through ``PredicateValueConvertible``.
struct PQLCorpusCents: PredicateValueConvertible {
    var cents: Int
    var predicateValue: PredicateValue { .int(Int64(cents)) }
}

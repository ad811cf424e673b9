import Foundation
import PQL
import Testing

/// `x BETWEEN 18`: a literal right side that is not a pair is a parse error at that operand
/// (grammar rule `bounds`); key paths, variables and other expressions are checked when
/// evaluated, and trees built in code when compiled.
@Suite("BETWEEN bounds")
struct BetweenBoundsTests {
    static let rejected: [(format: String, arguments: [PredicateValue], found: String)] = [
        ("age BETWEEN 18", [], "18"),
        ("age BETWEEN -5", [], "-5"),
        ("age BETWEEN 'a'", [], "'a'"),
        ("age BETWEEN nil", [], "nil"),
        ("age BETWEEN YES", [], "YES"),
        ("age BETWEEN {}", [], "{}"),
        ("age BETWEEN {1}", [], "{1}"),
        ("age BETWEEN {1, 2, 3}", [], "{1, 2, 3}"),
        ("age BETWEEN {a}", [], "{a} (1 element)"),
        ("age BETWEEN {a, 1, b}", [], "{a, 1, b} (3 elements)"),
        ("age BETWEEN CAST(0, 'NSDate')", [], "CAST(0, 'NSDate')"),
        ("age BETWEEN (5)", [], "(5)"),
        ("ANY ages BETWEEN 5", [], "5"),
        ("age BETWEEN %@", [5], "%@ (a number, 5)"),
        ("age BETWEEN %@", [[1, 2, 3]], "%@ (an array, {1, 2, 3})"),
        ("age BETWEEN %@", [.set([1, 2])], "%@ (a set, "),
        ("age BETWEEN %@", [.null], "%@ (nil, nil)"),
    ]

    @Test(arguments: rejected.indices)
    func literalThatIsNotAPairIsAParseError(_ i: Int) throws {
        let (format, arguments, found) = Self.rejected[i]
        let e = try #require(throws: PredicateFormatError.self, "\(format)") {
            _ = try PredicateNode(format: format, argumentArray: arguments.map { $0 as Any? })
        }
        #expect(e.kind == .badBetweenBounds, "\(format): \(e)")
        #expect(e.message.hasPrefix("BETWEEN needs an array of exactly two bounds, not \(found)"), "\(e.message)")
        #expect(e.hint == "write x BETWEEN {low, high}")
        // The error points at the bounds, which run to the end of each of these formats.
        let start = format.range(of: "BETWEEN ")!.upperBound
        #expect(e.range.offset == format.utf8.distance(from: format.utf8.startIndex, to: start), "\(format)")
        #expect(e.range.offset + e.range.length == format.utf8.count, "\(format)")
    }

    static let accepted: [(String, [PredicateValue])] = [
        ("age BETWEEN {1, 5}", []), ("age BETWEEN {lo, hi}", []), ("age BETWEEN {1, hi}", []), ("age BETWEEN bounds", []),
        ("age BETWEEN $B", []), ("age BETWEEN %@", [[1, 5]]), ("age BETWEEN %K", ["bounds"]), ("age BETWEEN SELF", []),
        ("age BETWEEN TERNARY(a > 1, {1, 2}, {3, 4})", []), ("age BETWEEN {nil, 1}", []), ("age BETWEEN {CAST(0, 'NSDate'), now()}", []),
        ("age BETWEEN a + b", []), ("age BETWEEN ({1, 2})", []),
    ]

    @Test(arguments: accepted.indices)
    func pairsAndNonLiteralsParse(_ i: Int) throws {
        let (format, arguments) = Self.accepted[i]
        let p = try PredicateNode(format: format, argumentArray: arguments.map { $0 as Any? })
        #expect(try PredicateNode(format: p.description) == p, "\(format) → \(p)")
    }

    /// Values that are not pairs are still errors when evaluated; the same shapes built in code
    /// are errors when compiled, before any value is read.
    @Test func valuesAndTreesBuiltInCode() throws {
        let p = try PredicateNode(format: "x BETWEEN $B")
        #expect(throws: PredicateEvaluationError.self) { try p.evaluate(on: ["x": 1] as PredicateValue, variables: ["B": [1]]) }
        #expect(try p.evaluate(on: ["x": 1] as PredicateValue, variables: ["B": [0, 2]]))
        for rhs: ExpressionNode in [.constant(18), .constant(.set([1, 2])), .aggregate([.keyPath(["a"])])] {
            let tree = PredicateNode.comparison(ComparisonNode(.keyPath(["x"]), .between, rhs))
            let e = try #require(throws: PredicateEvaluationError.self) { _ = try tree.compiled(for: PredicateValue.self) }
            #expect(e.kind == .badBetweenBounds)
            #expect(e.context == tree.description)
            // Nothing matches an empty array, but the error is not about rows: it is raised anyway.
            #expect(throws: PredicateEvaluationError.self) { _ = try [PredicateValue]().filter(tree) }
        }
    }
}

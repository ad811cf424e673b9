import Foundation
import Testing
@testable import PQL

// The parse/print corpus: each case is a format string (with its `%` arguments) and the
// canonical text it must print (reference §7). Every case also checks decision D9: the printed text
// parses to an equal tree that prints identically. The cases live in the ParsePrint*Tests files,
// one per part of the language reference; this file holds the shared machinery, §7.3 and Appendix A.1.

/// One parse/print case.
struct ParsePrintCase: @unchecked Sendable, CustomTestStringConvertible {
    let input: String
    /// Arguments for the `%` specifiers (`Any?` is not Sendable, hence `@unchecked`; the values
    /// are never mutated).
    let arguments: [Any?]
    let expected: String
    /// Parse with `ExpressionNode(format:)` instead of `PredicateNode(format:)`.
    let isExpression: Bool
    let sourceLocation: SourceLocation

    init(_ input: String, _ expected: String, args arguments: [Any?] = [], expression: Bool = false,
         sourceLocation: SourceLocation = #_sourceLocation) {
        self.input = input
        self.arguments = arguments
        self.expected = expected
        self.isExpression = expression
        self.sourceLocation = sourceLocation
    }

    var testDescription: String {
        let what = isExpression ? "expression " : ""
        return arguments.isEmpty ? "\(what)\(input)" : "\(what)\(input) with \(arguments.count) argument(s)"
    }

    /// What makes two cases the same case: the entry point, the text, and each argument's
    /// type and value.
    var identity: String {
        let args = arguments.map { a in
            a.map { "\(type(of: $0)) \(PredicateValue(any: $0)?.description ?? "?")" } ?? "nil"
        }
        return "\(isExpression) \(input) \(args)"
    }
}

/// Parses `c`, checks the printed text, and checks that the printed text reads back to an equal
/// tree that prints the same.
func checkParsePrint(_ c: ParsePrintCase) throws {
    let loc = c.sourceLocation
    if c.isExpression {
        let e = try ExpressionNode(format: c.input, argumentArray: c.arguments)
        #expect(e.description == c.expected, sourceLocation: loc)
        let again = try ExpressionNode(format: e.description)
        #expect(again == e, "the printed text \(e.description) parses to another tree", sourceLocation: loc)
        #expect(again.description == e.description, sourceLocation: loc)
    } else {
        let p = try PredicateNode(format: c.input, argumentArray: c.arguments)
        #expect(p.description == c.expected, sourceLocation: loc)
        let again = try PredicateNode(format: p.description)
        #expect(again == p, "the printed text \(p.description) parses to another tree", sourceLocation: loc)
        #expect(again.description == p.description, sourceLocation: loc)
    }
}

/// Every corpus table, for the counting test below.
let allParsePrintCases: [ParsePrintCase] = ParsePrintTests.specExamples + ParsePrintTests.appendixA1
    + ParsePrintOperatorsTests.comparisons + ParsePrintOperatorsTests.options
    + ParsePrintOperatorsTests.quantifiersAndLogic
    + ParsePrintExpressionsTests.literals + ParsePrintExpressionsTests.strings
    + ParsePrintExpressionsTests.keyPaths + ParsePrintExpressionsTests.arithmetic
    + ParsePrintExpressionsTests.functions + ParsePrintExpressionsTests.specialForms
    + ParsePrintArgumentsTests.objectArguments + ParsePrintArgumentsTests.keyPathArguments
    + ParsePrintArgumentsTests.scalarSpecifiers

@Suite struct ParsePrintTests {
    /// Reference §7.3, every row.
    static let specExamples: [ParsePrintCase] = [
        .init("name = 'x'", #"name == "x""#),
        .init("age <> 5", "age != 5"),
        .init("age => 18 && age =< 65", "age >= 18 AND age <= 65"),
        .init("name like[cd] 'a*'", #"name LIKE[cd] "a*""#),
        .init("age between {1,5}", "age BETWEEN {1, 5}"),
        .init("isMale == YES", "isMale == 1"),
        .init("x == NULL", "x == nil"),
        .init("some kids.age > 5", "ANY kids.age > 5"),
        .init("none kids.age > 5", "NOT ANY kids.age > 5"),
        .init("(score > 10 and name beginswith 'To') or name endswith 'ta'",
              #"(score > 10 AND name BEGINSWITH "To") OR name ENDSWITH "ta""#),
        .init("#like like 'like'", #"#like LIKE "like""#),
        .init("%@ like %@", #""firstName" LIKE "Adam""#, args: ["firstName", "Adam"]),
        .init("%K like %@", #"firstName LIKE "Adam""#, args: ["firstName", "Adam"]),
        .init("SELF like[c] %@*%@", #"SELF LIKE[c] "prefix" * "suffix""#, args: ["prefix", "suffix"]),
        .init("name IN %@", #"name IN {"a", "b"}"#, args: [["a", "b"]]),
        .init("date > %@", #"date > CAST(721692800.000000, "NSDate")"#,
              args: [Date(timeIntervalSinceReferenceDate: 721_692_800)]),
        .init("a + b * c > 1", "a + (b * c) > 1"),
        .init("SUBQUERY(kids, $k, $k.age > 5).@count > 0", "SUBQUERY(kids, $k, $k.age > 5).@count > 0"),
    ]

    /// Appendix A.1, every row that parses (19–25 are in MalformedInputTests).
    static let appendixA1: [ParsePrintCase] = [
        .init("age =< 5 && age => 1", "age <= 5 AND age >= 1"),
        .init("name LIKE[dc] 'a*'", #"name LIKE[cd] "a*""#),
        .init("flag == YES", "flag == 1"),
        .init("SOME kids.age > 5", "ANY kids.age > 5"),
        .init("NONE kids.age > 5", "NOT ANY kids.age > 5"),
        .init("name BeginsWith 'a' aNd age > 1", #"name BEGINSWITH "a" AND age > 1"#),
        .init("SELF like[c] %@*%@", #"SELF LIKE[c] "p" * "s""#, args: ["p", "s"]),
        .init("lastName like '%@'", #"lastName LIKE "%@""#),
        .init("(a + b) + c > 1", "(a + b) + c > 1"),
        .init("TRUEPREDICATE", "TRUEPREDICATE"),
        .init("FALSEPREDICATE", "FALSEPREDICATE"),
        .init("0x1F == 31", "31 == 31"),
        .init("0o17 == 15", "15 == 15"),
        .init("0b101 == 5", "5 == 5"),
        .init("9.2e-5 < 1", "9.2e-05 < 1"),
        .init("modulus:by:(10, 3) == 1", "modulus:by:(10, 3) == 1"),
        .init("sum({1,2,3}) == 6", "sum:({1, 2, 3}) == 6"),
    ]

    @Test("§7.3 examples", arguments: specExamples)
    func specExample(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("Appendix A.1 vectors", arguments: appendixA1)
    func appendixVector(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("the corpus holds at least 300 distinct cases")
    func corpusSize() {
        let identities = allParsePrintCases.map(\.identity)
        var seen: [String: Int] = [:]
        for i in identities { seen[i, default: 0] += 1 }
        let repeated = seen.filter { $0.value > 1 }.keys.sorted()
        // §7.3 rows that are also Appendix A.1 rows are listed once, in §7.3.
        #expect(repeated.isEmpty, "repeated cases: \(repeated)")
        #expect(Set(identities).count >= 300)
    }

    @Test("A.1 #16: a specifier inside quotes is text, so it takes no argument")
    func quotedSpecifierTakesNoArgument() throws {
        let p = try PredicateNode(format: "lastName like '%@'")
        guard case .comparison(let c) = p else { Issue.record("not a comparison: \(p)"); return }
        #expect(c.rhs == .constant(.string("%@")))
        // Apple ignores the argument; PQL does too, with warnings (D15).
        #expect(try PredicateNode(format: "lastName like '%@'", "Smith") == p)
        let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "lastName like '%@'", argumentArray: ["Smith"])
        #expect(tree == p)
        #expect(warnings.map(\.kind) == [.surplusArgument, .quotedSpecifier])
    }

    @Test("A.1 #11: #like is the key like")
    func escapedReservedWordIsAKey() throws {
        let p = try PredicateNode(format: "#like like 'like'")
        #expect(p == .comparison(ComparisonNode(.keyPath(["like"]), .like, .constant("like"))))
    }

    @Test("A.1 #1 and §7.2: equal spellings give equal trees")
    func spellingsGiveEqualTrees() throws {
        let spellings = ["a = 1", "a == 1", "a==1", "  a\t==\n1 ", "(a == 1)", "((a) == (1))"]
        let trees = try spellings.map { try PredicateNode(format: $0) }
        for t in trees { #expect(t == trees[0]) }
    }
}

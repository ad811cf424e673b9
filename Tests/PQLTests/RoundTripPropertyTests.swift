import Foundation
import PQLTestSupport
import Testing
import PQL

/// `parse(print(t)) == t` and `print(parse(print(t))) == print(t)` for random trees built
/// directly from the enum cases (``RandomTreeGenerator``), in the parser's normal forms.
///
/// Seeds are fixed so runs are deterministic; set `PQL_ROUNDTRIP_SEED` (decimal or 0x-hex) to
/// try others. Every failure names its seed and case, the tree's structure and its text.
@Suite("Round-trip properties")
struct RoundTripPropertyTests {
    static let defaultSeed: UInt64 = 0x7EE5_0F_C0DE_2024
    static var seed: UInt64 { SeededSplitMix64.seed(fromEnvironment: "PQL_ROUNDTRIP_SEED", default: defaultSeed) }

    static let predicateCount = 3_500
    static let expressionCount = 1_500

    @Test func randomPredicatesRoundTrip() {
        let seed = Self.seed
        var failures = RandomTestFailureLog(title: "random predicates", seed: seed)
        for i in 0..<Self.predicateCount {
            var g = RandomTreeGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
            let tree = g.predicate(depth: g.rng.int(in: 1...5))
            if let problem = Self.check(tree) { failures.record(case: i, cause: problem.cause, problem.message) }
        }
        failures.report()
    }

    @Test func randomExpressionsRoundTrip() {
        let seed = Self.seed &+ 1
        var failures = RandomTestFailureLog(title: "random expressions", seed: seed)
        for i in 0..<Self.expressionCount {
            var g = RandomTreeGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
            let tree = g.expression(depth: g.rng.int(in: 1...5))
            if let problem = Self.check(tree) { failures.record(case: i, cause: problem.cause, problem.message) }
        }
        failures.report()
    }

    /// The generator really produces every case the round-trip tests claim to cover.
    @Test func generatorCoversEveryCase() {
        let seed = Self.seed
        var seen = Set<String>()
        for i in 0..<Self.predicateCount {
            var g = RandomTreeGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
            Self.collectCases(g.predicate(depth: g.rng.int(in: 1...5)), into: &seen)
        }
        var expected = Set<String>()
        expected.formUnion(RandomTreeGenerator.expressionCases.map { "expression." + $0 })
        expected.formUnion(RandomTreeGenerator.valueCases.map { "value." + $0 })
        expected.formUnion(BuiltinFunction.allCases.map { "function.\($0)" })
        expected.formUnion(ComparisonOperator.allCases.map { "operator.\($0)" })
        expected.formUnion(SetOperator.allCases.map { "set.\($0)" })
        expected.formUnion(["quantifier.direct", "quantifier.any", "quantifier.all"])
        expected.formUnion(Self.optionLetters.map { "option.\($0.letter)" })
        expected.formUnion(["index.first", "index.last", "index.size", "index.expression"])
        expected.formUnion(["predicate.constant", "predicate.comparison", "predicate.and", "predicate.or", "predicate.not"])
        expected.formUnion(["double.nan", "double.+inf", "double.-inf", "double.-0", "double.negative", "int.min",
                            "int.negative", "key.reserved", "key.quoted", "key.unicode", "key.collectionOperator",
                            "variable.reserved", "function.negate-of-number"])
        let missing = expected.subtracting(seen).sorted()
        #expect(missing.isEmpty, "never generated (seed 0x\(String(seed, radix: 16))): \(missing)")
    }

    /// Each awkward constant and key on its own, in positions where printing is delicate.
    @Test(arguments: RoundTripPropertyTests.edgeValues)
    func edgeConstantsRoundTrip(_ value: PredicateValue) {
        let c = ExpressionNode.constant(value)
        let trees: [PredicateNode] = [
            .comparison(ComparisonNode(.keyPath(["x"]), .equal, c)),
            .comparison(ComparisonNode(c, .in, .keyPath(["x"]), quantifier: .any)),
            .comparison(ComparisonNode(.keyPathOn(c, ["k"]), .notEqual, .index(c, .first))),
            .comparison(ComparisonNode(.function(.negate, [c]), .lessThan,
                                       .function(.subtract, [.keyPath(["x"]), c]))),
            .comparison(ComparisonNode(.aggregate([c, .keyPath(["y"])]), .contains, .function(.power, [c, c]))),
        ]
        for t in trees {
            if let problem = Self.check(t) { Issue.record("[\(problem.cause)] \(problem.message)") }
        }
    }

    static let edgeValues: [PredicateValue] = [
        .null, .bool(true), .bool(false), .int(0), .int(-1), .int(Int64.min), .int(Int64.max),
        .double(0.5), .double(-0.0), .double(-2.5), .double(.nan), .double(.infinity), .double(-.infinity),
        .double(1e22), .double(.leastNonzeroMagnitude), .double(-.greatestFiniteMagnitude),
        .decimal(Decimal(string: "1.5")!), .decimal(Decimal(string: "-0.001")!),
        .decimal(Decimal(string: "123456789012345678901234567890")!),
        .string(""), .string("say \"hi\""), .string("it's"), .string("back\\slash\\"), .string("two\nlines\r\n"),
        .string("tab\there\u{0}nul"), .string("Zoë 字 🎉 e\u{301}"), .string("%@ %K $x #y"),
        .date(Date(timeIntervalSinceReferenceDate: 721692800)), .date(Date(timeIntervalSinceReferenceDate: -0.25)),
        .date(Date(timeIntervalSinceReferenceDate: 1e-7)),
        .data(Data()), .data(Data([0, 1, 0xFE, 0xFF])),
        .array([]), .array([.int(1), .string("a"), .null, .array([.double(2.5)])]),
        .set([]), .set([.int(1), .int(2), .string("b")]),
        .dictionary([:]), .dictionary(["k": .int(1), "first name": .array([.bool(true)]), "": .string("\"")]),
        .array([.date(Date(timeIntervalSinceReferenceDate: 3)), .set([.decimal(1)]), .dictionary(["x": .double(.nan)])]),
    ]

    /// Keys and variable names that need escaping print so that they read back.
    @Test func awkwardNamesRoundTrip() {
        var names = RandomTreeGenerator.reservedSpellings + RandomTreeGenerator.contextualWords
            + RandomTreeGenerator.unicodeIdentifiers + RandomTreeGenerator.nonIdentifierKeys
        names += ["@count", "@and", "UTI", "e5", "E", "_", "x1"]
        for name in names {
            var trees: [PredicateNode] = [
                .comparison(ComparisonNode(.keyPath([name]), .equal, .keyPath(["a", name, "b"]))),
                .comparison(ComparisonNode(.keyPathOn(.evaluatedObject, [name]), .like,
                                           .keyPathOn(.variable("v"), [name, name]))),
                .comparison(ComparisonNode(.keyPath([name]), .equal,
                                           .function(.subtract, [.keyPath([name]), .function(.negate, [.keyPath([name])])]))),
                .comparison(ComparisonNode(.setOperation(.union, .keyPath([name]), .keyPath([name])), .in,
                                           .index(.keyPath([name]), .expression(.keyPath([name]))))),
            ]
            if CanonicalNames.isIdentifier(name) {
                trees.append(.comparison(ComparisonNode(.variable(name), .equal,
                                                        .subquery(collection: .keyPath([name]), variable: name,
                                                                  predicate: .comparison(ComparisonNode(.variable(name), .equal, .constant(1)))))))
                trees.append(.comparison(ComparisonNode(.assignment(variable: name, value: .keyPath([name])), .equal, .constant(.string(name)))))
            }
            for t in trees {
                if let problem = Self.check(t) { Issue.record("[\(problem.cause)] name \(name.debugDescription): \(problem.message)") }
            }
        }
    }

    /// Operator chains up to the nesting limit: every chain the parser accepts prints as text
    /// it accepts again. (The printer parenthesises nested operators, so its text nests deeper
    /// than the input did.)
    @Test(arguments: RoundTripPropertyTests.chains)
    func operatorChainsUpToTheNestingLimitRoundTrip(_ chain: Chain) {
        var accepted = 0
        for n in 1...130 {
            let text = chain.make(n)
            guard let tree = try? PredicateNode(format: text) else { break }
            accepted = n
            if let problem = Self.check(tree) {
                Issue.record("[\(problem.cause)] \(chain.name): length \(n) is the shortest chain that parses but does not round-trip: \(text.count > 300 ? String(text.prefix(120)) + "…" : text)\n  \(problem.message.prefix(400))")
                return
            }
        }
        #expect(accepted >= 40, "\(chain.name): the parser should accept chains of 40")
        #expect(accepted < 130, "\(chain.name): the parser should stop at the nesting limit")
    }

    struct Chain: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (Int) -> String
        var testDescription: String { name }
    }

    static let chains: [Chain] = [
        Chain(name: "prefix minus") { "x == " + String(repeating: "-", count: $0) + "y" },
        Chain(name: "prefix ~") { "x == " + String(repeating: "~", count: $0) + "y" },
        Chain(name: "NOT") { String(repeating: "NOT ", count: $0) + "x == 1" },
        Chain(name: "left-associative +") { "x == " + Array(repeating: "a", count: $0 + 1).joined(separator: " + ") },
        Chain(name: "right-associative **") { "x == " + Array(repeating: "a", count: $0 + 1).joined(separator: " ** ") },
        Chain(name: "UNION") { "x == " + Array(repeating: "a", count: $0 + 1).joined(separator: " UNION ") },
        Chain(name: "index") { "x == y" + String(repeating: "[0]", count: $0) },
        Chain(name: "assignment") { (0..<$0).map { "$v\($0) := " }.joined() + "1 == x" },
    ]

    // MARK: - Checks

    typealias Problem = RoundTripFailureCauses.Problem

    static func check(_ tree: PredicateNode) -> Problem? { RoundTripFailureCauses.roundTrip(tree) }

    static func check(_ tree: ExpressionNode) -> Problem? { RoundTripFailureCauses.roundTrip(tree) }

    // MARK: - Coverage

    static let optionLetters: [(letter: String, option: ComparisonOptions)] = [
        ("c", .caseInsensitive), ("d", .diacriticInsensitive), ("n", .normalized), ("l", .localeSensitive), ("w", .wordBoundary),
    ]

    static func collectCases(_ p: PredicateNode, into seen: inout Set<String>) {
        switch p {
        case .constant: seen.insert("predicate.constant")
        case .comparison(let c):
            seen.insert("predicate.comparison")
            seen.insert("operator.\(c.op)")
            seen.insert("quantifier.\(c.quantifier)")
            for (letter, option) in optionLetters where c.options.contains(option) {
                seen.insert("option.\(letter)")
            }
            collectCases(c.lhs, into: &seen)
            collectCases(c.rhs, into: &seen)
        case .and(let ps): seen.insert("predicate.and"); for q in ps { collectCases(q, into: &seen) }
        case .or(let ps): seen.insert("predicate.or"); for q in ps { collectCases(q, into: &seen) }
        case .not(let q): seen.insert("predicate.not"); collectCases(q, into: &seen)
        }
    }

    static func collectCases(_ e: ExpressionNode, into seen: inout Set<String>) {
        RoundTripFailureCauses.visit(e) { node in
            switch node {
            case .constant(let v): seen.insert("expression.constant"); collectCases(v, into: &seen)
            case .evaluatedObject: seen.insert("expression.evaluatedObject")
            case .variable(let n):
                seen.insert("expression.variable")
                if RandomTreeGenerator.reservedSpellings.contains(n) { seen.insert("variable.reserved") }
            case .keyPath(let path): seen.insert("expression.keyPath"); collectKeys(path, into: &seen)
            case .keyPathOn(_, let path): seen.insert("expression.keyPathOn"); collectKeys(path, into: &seen)
            case .aggregate: seen.insert("expression.aggregate")
            case .function(let f, let args):
                seen.insert("expression.function")
                seen.insert("function.\(f)")
                if f == .negate, case .constant(let v) = args[0], v.isNumber { seen.insert("function.negate-of-number") }
            case .index(_, let sub):
                seen.insert("expression.index")
                switch sub {
                case .first: seen.insert("index.first")
                case .last: seen.insert("index.last")
                case .size: seen.insert("index.size")
                case .expression: seen.insert("index.expression")
                }
            case .customFunction: seen.insert("expression.customFunction")
            case .cast: seen.insert("expression.cast")
            case .ternary(let p, _, _): seen.insert("expression.ternary"); collectCases(p, into: &seen)
            case .subquery(_, _, let p): seen.insert("expression.subquery"); collectCases(p, into: &seen)
            case .assignment: seen.insert("expression.assignment")
            case .setOperation(let op, _, _): seen.insert("expression.setOperation"); seen.insert("set.\(op)")
            case .anyKey: seen.insert("expression.anyKey")
            }
        }
    }

    static func collectKeys(_ path: [String], into seen: inout Set<String>) {
        for k in path {
            if RandomTreeGenerator.reservedSpellings.contains(k) { seen.insert("key.reserved") }
            if k.hasPrefix("@") { seen.insert("key.collectionOperator") }
            if !CanonicalNames.isIdentifier(k) && !k.hasPrefix("@") { seen.insert("key.quoted") }
            if k.unicodeScalars.contains(where: { !$0.isASCII }) && CanonicalNames.isIdentifier(k) { seen.insert("key.unicode") }
        }
    }

    static func collectCases(_ v: PredicateValue, into seen: inout Set<String>) {
        switch v {
        case .null: seen.insert("value.null")
        case .bool: seen.insert("value.bool")
        case .int(let i):
            seen.insert("value.int")
            if i == .min { seen.insert("int.min") }
            if i < 0 { seen.insert("int.negative") }
        case .double(let d):
            seen.insert("value.double")
            if d.isNaN { seen.insert("double.nan") }
            if d == .infinity { seen.insert("double.+inf") }
            if d == -.infinity { seen.insert("double.-inf") }
            if d == 0 && d.sign == .minus { seen.insert("double.-0") }
            if d < 0 && d.isFinite { seen.insert("double.negative") }
        case .decimal: seen.insert("value.decimal")
        case .string: seen.insert("value.string")
        case .date: seen.insert("value.date")
        case .data: seen.insert("value.data")
        case .array(let a): seen.insert("value.array"); for x in a { collectCases(x, into: &seen) }
        case .set(let a): seen.insert("value.set"); for x in a { collectCases(x, into: &seen) }
        case .dictionary(let d): seen.insert("value.dictionary"); for x in d.values { collectCases(x, into: &seen) }
        }
    }
}


/// What the lexer accepts as an identifier (reference §1.4): an ASCII letter or `_`, or a Unicode
/// XID_Start, then ASCII letters, digits, `_` or Unicode XID_Continue.
enum CanonicalNames {
    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first else { return false }
        let startOK = first == "_" || (first.isASCII ? first.properties.isAlphabetic : first.properties.isXIDStart)
        guard startOK else { return false }
        return s.unicodeScalars.dropFirst().allSatisfy { u in
            u.isASCII ? (u == "_" || u.properties.isAlphabetic || ("0"..."9").contains(u)) : u.properties.isXIDContinue
        }
    }
}

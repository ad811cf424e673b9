import Foundation
import PQLTestSupport
import PQL

/// Random `PredicateNode` / `ExpressionNode` trees built directly from the enum cases, in the
/// parser's normal forms (so every tree is one the parser can produce, and printing it must
/// read back to the same tree):
///
/// * AND/OR have at least two children (one-child and empty ones are degenerate);
/// * an `.aggregate` holds at least one non-constant (all-constant ones are array constants);
/// * a `.cast` is never of a constant to a type the parser folds (`NSDate`, `NSSet`,
///   `NSDictionary`, `NSDecimalNumber`, `NSData`, `NSNumber`);
/// * variable names are identifiers (the only names `$` can spell);
/// * dates are finite; decimals are not NaN;
/// * `.keyPath` and `.keyPathOn` paths are non-empty;
/// * depth stays far below the nesting limit of 128.
///
/// Anything else goes, including `.negate` of a number constant, keys that need `#` or
/// `#"…"`, and every constant kind.
///
/// ```swift
/// var g = RandomTreeGenerator(seed: 7)
/// let p = g.predicate(depth: 4)
/// try PredicateNode(format: p.description) == p   // must hold
/// ```
struct RandomTreeGenerator {
    var rng: SeededSplitMix64

    init(seed: UInt64) { rng = SeededSplitMix64(seed: seed) }

    // MARK: - Predicates

    mutating func predicate(depth: Int) -> PredicateNode {
        if depth <= 0 {
            return rng.chance(0.1) ? .constant(rng.chance(0.5)) : .comparison(comparison(depth: 0))
        }
        switch rng.weightedIndex([4, 8, 2, 2, 2]) {
        case 0: return .constant(rng.chance(0.5))
        case 1: return .comparison(comparison(depth: depth - 1))
        case 2: return .and(children(depth: depth - 1))
        case 3: return .or(children(depth: depth - 1))
        default: return .not(predicate(depth: depth - 1))
        }
    }

    private mutating func children(depth: Int) -> [PredicateNode] {
        (0..<rng.int(in: 2...4)).map { _ in predicate(depth: depth) }
    }

    mutating func comparison(depth: Int) -> ComparisonNode {
        let op = rng.pick(ComparisonOperator.allCases)
        let quantifier = rng.pick([Quantifier.direct, .direct, .any, .all])
        var options: ComparisonOptions = []
        if op.acceptsOptions && rng.chance(0.5) {
            options = ComparisonOptions(rawValue: rng.int(in: 1...0x1F))
        }
        let lhs = expression(depth: depth)
        var rhs = expression(depth: depth)
        if op == .between { rhs = Self.betweenBounds(rhs) }
        return ComparisonNode(lhs, op, rhs, quantifier: quantifier, options: options)
    }

    /// A right side BETWEEN accepts: the parser rejects a literal that is not a pair
    /// (grammar rule `bounds`), so such trees print text that does not parse back.
    static func betweenBounds(_ e: ExpressionNode) -> ExpressionNode {
        switch e {
        case .constant(.array(let a)) where a.count == 2: return e
        case .constant(let v): return .constant(.array([v, v]))
        case .aggregate(let items) where items.count != 2: return .aggregate(Array((items + items).prefix(2)))
        default: return e
        }
    }

    // MARK: - Expressions

    /// The case names, to check that every one is generated.
    static let expressionCases = ["constant", "evaluatedObject", "variable", "keyPath", "keyPathOn", "aggregate",
                                  "function", "index", "customFunction", "cast", "ternary", "subquery", "assignment",
                                  "setOperation", "anyKey"]

    mutating func expression(depth: Int) -> ExpressionNode {
        if depth <= 0 { return leaf() }
        let d = depth - 1
        switch rng.weightedIndex([6, 1, 2, 4, 3, 2, 8, 3, 2, 2, 1, 1, 1, 2, 1]) {
        case 0: return .constant(value(depth: 2))
        case 1: return .evaluatedObject
        case 2: return .variable(variableName())
        case 3: return .keyPath(keyPath())
        case 4: return .keyPathOn(postfixBase(depth: d), keyPath())
        case 5: return aggregate(depth: d)
        case 6: return function(depth: d)
        case 7:
            let sub: IndexSubscript
            switch rng.int(in: 0...5) {
            case 0: sub = .first
            case 1: sub = .last
            case 2: sub = .size
            default: sub = .expression(expression(depth: d))
            }
            return .index(postfixBase(depth: d), sub)
        case 8:
            return .customFunction(target: expression(depth: d), selector: string(),
                                   arguments: (0..<rng.int(in: 0...3)).map { _ in expression(depth: d) })
        case 9: return cast(depth: d)
        case 10: return .ternary(predicate(depth: d), expression(depth: d), expression(depth: d))
        case 11: return .subquery(collection: expression(depth: d), variable: variableName(), predicate: predicate(depth: d))
        case 12: return .assignment(variable: variableName(), value: expression(depth: d))
        case 13: return .setOperation(rng.pick(SetOperator.allCases), expression(depth: d), expression(depth: d))
        default: return .anyKey
        }
    }

    /// The operand of `.key` or `[index]`: often a number, where printing is delicate
    /// (`5.x`, `(-5)[0]`, `1e-05.x`).
    private mutating func postfixBase(depth: Int) -> ExpressionNode {
        rng.chance(0.3) ? .constant(number()) : expression(depth: depth)
    }

    private mutating func leaf() -> ExpressionNode {
        switch rng.weightedIndex([5, 1, 2, 5, 1]) {
        case 0: return .constant(value(depth: 1))
        case 1: return .evaluatedObject
        case 2: return .variable(variableName())
        case 3: return .keyPath(keyPath())
        default: return rng.chance(0.5) ? .anyKey : .function(rng.pick([.now, .random]), [])
        }
    }

    /// A function call with the function's arity; `.negate` sometimes of a number constant.
    mutating func function(depth: Int) -> ExpressionNode {
        let f = rng.pick(BuiltinFunction.allCases)
        if f == .negate || f == .onesComplement, rng.chance(0.5) {
            // A number, or a postfix on one, right after the prefix operator.
            let n = ExpressionNode.constant(number())
            let operand: ExpressionNode
            switch rng.int(in: 0...2) {
            case 0: operand = n
            case 1: operand = .index(n, rng.pick([.first, .last, .size, .expression(.constant(.int(0)))]))
            default: operand = .keyPathOn(n, keyPath())
            }
            return .function(f, [operand])
        }
        return .function(f, (0..<f.arity).map { _ in expression(depth: depth) })
    }

    /// At least one element is not a constant.
    private mutating func aggregate(depth: Int) -> ExpressionNode {
        var items = (0..<rng.int(in: 0...3)).map { _ in expression(depth: depth) }
        var nonConstant = expression(depth: depth)
        while case .constant = nonConstant { nonConstant = expression(depth: depth) }
        items.insert(nonConstant, at: rng.int(in: 0...items.count))
        return .aggregate(items)
    }

    static let foldingTypes: Set<String> = ["NSDate", "NSSet", "NSDictionary", "NSDecimalNumber", "NSData", "NSNumber"]

    /// A cast the parser keeps as a cast.
    private mutating func cast(depth: Int) -> ExpressionNode {
        while true {
            let value = expression(depth: depth)
            let type: ExpressionNode = rng.chance(0.6)
                ? .constant(.string(rng.pick(["NSDate", "NSSet", "NSNumber", "NSString", "Foo", "NSDecimalNumber", ""])))
                : expression(depth: depth)
            if case .constant = value, case .constant(.string(let t)) = type, Self.foldingTypes.contains(t) { continue }
            return .cast(value, type: type)
        }
    }

    // MARK: - Names

    static let reservedSpellings = ["AND", "or", "In", "NOT", "all", "ANY", "some", "NONE", "like", "CASEINSENSITIVE",
                                    "ci", "MATCHES", "contains", "BeginsWith", "ENDSWITH", "between", "NULL", "nil",
                                    "SELF", "true", "YES", "false", "NO", "first", "LAST", "Size", "ANYKEY", "subquery",
                                    "FETCH", "cast", "TRUEPREDICATE", "falsepredicate", "UTI-CONFORMS-TO", "uti-equals"]
    static let contextualWords = ["FUNCTION", "ternary", "UNION", "intersect", "Minus", "count", "now", "random"]
    static let unicodeIdentifiers = ["café", "naïve", "名前", "Ωmega", "_ß", "a\u{301}", "ſelf", "ﬁrst", "ı", "x١"]
    static let nonIdentifierKeys = ["first name", "", "1abc", "a.b", "x-y", "@", "@first name", "#", "a\"b", "back\\slash",
                                    "line\nbreak", "%@", "$x", "tab\t", "🎉", "e\u{301}\u{0}", "@@count"]

    mutating func identifier() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
        let digits = Array("0123456789")
        var s = String(rng.pick(letters))
        for _ in 0..<rng.int(in: 0...6) { s.append(rng.chance(0.8) ? rng.pick(letters) : rng.pick(digits)) }
        return s
    }

    /// A key: plain, reserved (needs `#`), contextual, Unicode, a collection operator, or any
    /// text at all (needs `#"…"`).
    mutating func key() -> String {
        switch rng.weightedIndex([6, 2, 1, 1, 1, 2]) {
        case 0: return identifier()
        case 1: return rng.pick(Self.reservedSpellings)
        case 2: return rng.pick(Self.contextualWords)
        case 3: return rng.pick(Self.unicodeIdentifiers)
        case 4: return "@" + rng.pick(["count", "sum", "avg", "max", "distinctUnionOfObjects", identifier(), "and"])
        default: return rng.chance(0.5) ? rng.pick(Self.nonIdentifierKeys) : string()
        }
    }

    mutating func keyPath() -> [String] { (0..<rng.int(in: 1...3)).map { _ in key() } }

    /// Identifiers only: `$` cannot spell anything else. Reserved words print as `$#word`.
    mutating func variableName() -> String {
        switch rng.weightedIndex([6, 2, 1, 1]) {
        case 0: return identifier()
        case 1: return rng.pick(Self.reservedSpellings.filter { !$0.contains("-") })
        case 2: return rng.pick(Self.contextualWords)
        default: return rng.pick(Self.unicodeIdentifiers)
        }
    }

    // MARK: - Constants

    static let valueCases = ["null", "bool", "int", "double", "decimal", "string", "date", "data", "array", "set", "dictionary"]

    mutating func value(depth: Int) -> PredicateValue {
        let nested = depth > 0
        switch rng.weightedIndex([1, 1, 4, 4, 2, 4, 2, 1, nested ? 2 : 0, nested ? 1 : 0, nested ? 1 : 0]) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2, 3, 4: return number()
        case 5: return .string(string())
        case 6: return .date(date())
        case 7: return .data(Data((0..<rng.int(in: 0...6)).map { _ in UInt8(rng.int(in: 0...255)) }))
        case 8: return .array((0..<rng.int(in: 0...3)).map { _ in value(depth: depth - 1) })
        case 9: return .set((0..<rng.int(in: 0...3)).map { _ in value(depth: depth - 1) })
        default:
            var d: [String: PredicateValue] = [:]
            for _ in 0..<rng.int(in: 0...3) { d[rng.chance(0.5) ? identifier() : string()] = value(depth: depth - 1) }
            return .dictionary(d)
        }
    }

    /// Integers (with the extremes), doubles (negative, tiny, huge, -0.0, NaN, infinities) and
    /// decimals.
    mutating func number() -> PredicateValue {
        switch rng.int(in: 0...2) {
        case 0:
            switch rng.int(in: 0...5) {
            case 0: return .int(rng.pick([Int64.min, Int64.max, Int64.min + 1, 0, -1, 4_294_967_296]))
            case 1: return .int(Int64(bitPattern: rng.next()))
            default: return .int(Int64(rng.int(in: -10_000...10_000)))
            }
        case 1:
            switch rng.int(in: 0...5) {
            case 0: return .double(rng.pick([Double.nan, -Double.nan, .infinity, -.infinity, -0.0, 0.0, .leastNonzeroMagnitude,
                                             -.greatestFiniteMagnitude, 1e16, 9007199254740992, 0.1, -2.5e-8, 1e22]))
            case 1: return .double(Double(bitPattern: rng.next()))   // any bit pattern: NaNs, subnormals, huge
            default: return .double(Double(rng.int(in: -100_000...100_000)) / Double(rng.pick([1, 4, 10, 1000, 3])))
            }
        default:
            return .decimal(decimal())
        }
    }

    mutating func decimal() -> Decimal {
        let texts = ["0", "1.5", "-1.5", "0.001", "-0.000000000000000000001", "123456789012345678901234567890",
                     "99999999999999999999999999999999999999", "3.14159265358979323846264338327950288", "1e50", "-7e-20",
                     "18446744073709551615", "-9223372036854775809", "100"]
        if rng.chance(0.5) { return Decimal(string: rng.pick(texts), locale: Locale(identifier: "en_US_POSIX"))! }
        let mantissa = UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64(rng.int(in: 0...63))
        let exponent = rng.int(in: -30...30)
        let d = Decimal(sign: rng.chance(0.5) ? .minus : .plus, exponent: exponent, significand: Decimal(mantissa))
        return d.isNaN ? Decimal(mantissa) : d
    }

    mutating func date() -> Date {
        let seconds: Double
        switch rng.int(in: 0...3) {
        case 0: seconds = Double(rng.int(in: -2_000_000_000...2_000_000_000))
        case 1: seconds = Double(rng.int(in: -2_000_000_000...2_000_000_000)) + Double(rng.int(in: 0...999_999)) / 1_000_000
        case 2: seconds = rng.pick([0.1, 1e-7, -1e-9, 721692800.123456789, 1e15, -1e300, .leastNonzeroMagnitude])
        default: seconds = Double(rng.int(in: -1_000_000...1_000_000)) * 0.1
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    static let stringPieces = ["a", "Z", " ", "\"", "'", "\\", "\\\\", "\n", "\r\n", "\t", "\u{0}", "\u{7}", "%", "%@", "$",
                               "#", "é", "e\u{301}", "字", "🎉", "👩‍👩‍👧", "\u{202E}", "\u{FEFF}", "*", "?", "(", ")", "{", "}",
                               "NOT", "\\u0041", "\u{10FFFF}", "ﬁ"]

    /// Text with quotes, backslashes, newlines, control characters and Unicode.
    mutating func string() -> String {
        var s = ""
        for _ in 0..<rng.int(in: 0...6) { s += rng.pick(Self.stringPieces) }
        return s
    }
}

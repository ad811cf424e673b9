/// A parsed predicate: the Boolean-valued half of the syntax tree.
///
/// Its `description` is the canonical text of reference §7 (Apple's `predicateFormat`), and parsing
/// that text gives an equal tree.
///
/// ```swift
/// let p = try PredicateNode(format: "age >= %@ AND name BEGINSWITH[c] 'a'", 18)
/// print(p)   // age >= 18 AND name BEGINSWITH[c] "a"
/// ```
///
/// Only the negation is boxed (`indirect`). AND and OR hold an array, a reference already. A
/// comparison is held inline: its operands are references already, so a box around them was
/// one allocation (and one free) per comparison, the commonest node; the node is 32 bytes
/// rather than 8, which the arrays of AND and OR hold without allocating more often.
public enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// `lhs op rhs`, optionally quantified (`ANY`, `ALL`).
    case comparison(ComparisonNode)
    /// Conjunction; same-kind chains are flattened when parsed. An empty AND is true.
    case and([PredicateNode])
    /// Disjunction; same-kind chains are flattened when parsed. An empty OR is false.
    case or([PredicateNode])
    /// Negation. `NONE p` is parsed as `.not(ANY p)`.
    indirect case not(PredicateNode)
}

/// One comparison: `[quantifier] lhs op[options] rhs`.
///
/// ```swift
/// let c = ComparisonNode(.keyPath("kids.age"), .greaterThan, .constant(5), quantifier: .any)
/// print(PredicateNode.comparison(c))   // ANY kids.age > 5
/// ```
public struct ComparisonNode: Hashable, Sendable {
    // Stored words first, one-byte enums last: 26 bytes instead of 40, so a predicate node,
    // which holds a comparison inline, has a stride of 32 bytes rather than 48.
    /// The left side: under a quantifier, the collection whose elements are compared.
    public var lhs: ExpressionNode
    /// The right side, evaluated once per comparison.
    public var rhs: ExpressionNode
    /// The string options `[c]`, `[d]`, `[n]`, `[l]`, `[w]` written after the operator.
    public var options: ComparisonOptions
    /// `ANY`, `ALL` or none: how the comparison ranges over the left side.
    public var quantifier: Quantifier
    /// The operator: `==`, `<`, `LIKE`, `IN`….
    public var op: ComparisonOperator

    /// A comparison read left to right, as it is written: the quantifier and the options,
    /// which most comparisons lack, come last.
    ///
    /// ```swift
    /// let adult = ComparisonNode(.keyPath("age"), .greaterThanOrEqual, .constant(18))
    /// let anyKid = ComparisonNode(.keyPath("kids.name"), .beginsWith, .constant("a"),
    ///                             quantifier: .any, options: .caseInsensitive)
    /// print(PredicateNode.comparison(anyKid))   // ANY kids.name BEGINSWITH[c] "a"
    /// ```
    public init(_ lhs: ExpressionNode, _ op: ComparisonOperator, _ rhs: ExpressionNode,
                quantifier: Quantifier = .direct, options: ComparisonOptions = []) {
        self.quantifier = quantifier
        self.lhs = lhs
        self.op = op
        self.options = options
        self.rhs = rhs
    }

    /// The earlier spelling, quantifier first; kept so that existing code still compiles.
    ///
    /// ```swift
    /// let c = ComparisonNode(.any, .keyPath("kids.age"), .greaterThan, .constant(5))
    /// ```
    @available(*, deprecated, message: "pass the quantifier last: ComparisonNode(lhs, op, rhs, quantifier: .any)")
    public init(_ quantifier: Quantifier, _ lhs: ExpressionNode, _ op: ComparisonOperator,
                _ rhs: ExpressionNode, options: ComparisonOptions = []) {
        self.init(lhs, op, rhs, quantifier: quantifier, options: options)
    }
}

/// How a comparison ranges over its left side. `SOME` is `.any`; `NONE` is `NOT ANY`.
///
/// ```swift
/// let every = ComparisonNode(.keyPath("scores"), .greaterThanOrEqual, .constant(50), quantifier: .all)   // ALL scores >= 50
/// ```
public enum Quantifier: Hashable, Sendable {
    /// No quantifier: the left side is compared as one value.
    case direct
    /// `ANY` (or `SOME`): the comparison holds for at least one element of the left side.
    case any
    /// `ALL`: the comparison holds for every element of the left side (true when there are none).
    case all
}

/// The comparison operators of reference §3.1, in Apple's numbering.
///
/// ```swift
/// ComparisonOperator.beginsWith.symbol   // "BEGINSWITH"
/// ```
public enum ComparisonOperator: Int, Hashable, Sendable, CaseIterable {
    /// `<`
    case lessThan = 0
    /// `<=` (also `=<`)
    case lessThanOrEqual = 1
    /// `>`
    case greaterThan = 2
    /// `>=` (also `=>`)
    case greaterThanOrEqual = 3
    /// `==` (also `=`)
    case equal = 4
    /// `!=` (also `<>`): exactly `NOT ==`, so true when the left side is nil.
    case notEqual = 5
    /// `MATCHES`: a PCRE2 regular expression matching the whole string.
    case matches = 6
    /// `LIKE`: a wildcard pattern (`*`, `?`) matching the whole string.
    case like = 7
    /// `BEGINSWITH`: a string prefix.
    case beginsWith = 8
    /// `ENDSWITH`: a string suffix.
    case endsWith = 9
    /// `IN`: membership in a collection, or a substring of a string.
    case `in` = 10
    /// `CONTAINS`: `IN` with the operands swapped.
    case contains = 99
    /// `BETWEEN`: inside two inclusive bounds `{lo, hi}`.
    case between = 100
    /// `UTI-CONFORMS-TO`: a uniform type identifier conforms to another (built-in table).
    case utiConformsTo = 200
    /// `UTI-EQUALS`: two uniform type identifiers are equal, ignoring case.
    case utiEquals = 201

    /// The canonical spelling (reference §7.1).
    public var symbol: String {
        switch self {
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        case .equal: return "=="
        case .notEqual: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        case .utiConformsTo: return "UTI-CONFORMS-TO"
        case .utiEquals: return "UTI-EQUALS"
        }
    }

    /// Whether `[c]`, `[d]` and the other option letters may follow the operator.
    public var acceptsOptions: Bool {
        switch self {
        case .between, .utiConformsTo, .utiEquals: return false
        default: return true
        }
    }
}

/// The string options `[c]`, `[d]`, `[n]`, `[l]`, `[w]` (reference §3.4), in Apple's bit values.
///
/// ```swift
/// let cd: ComparisonOptions = [.caseInsensitive, .diacriticInsensitive]   // [cd]
/// ```
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    /// The options as Apple's bits: `[c]` 1, `[d]` 2, `[n]` 4, `[l]` 8, `[w]` 16.
    public let rawValue: Int
    /// Creates options from Apple's bit values (`NSComparisonPredicate.Options`).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: case-insensitive (and width-insensitive).
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive (and width-insensitive).
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: operands are already normalised; compare literally.
    public static let normalized = ComparisonOptions(rawValue: 4)
    /// `[l]`: locale-sensitive.
    public static let localeSensitive = ComparisonOptions(rawValue: 8)
    /// `[w]`: word-boundary matching (undocumented by Apple; parsed, printed, rejected by evaluation).
    public static let wordBoundary = ComparisonOptions(rawValue: 0x10)

    /// Letters in Apple's printing order `c d l n w`.
    static let letters: [(Character, ComparisonOptions)] = [
        ("c", .caseInsensitive), ("d", .diacriticInsensitive), ("l", .localeSensitive),
        ("n", .normalized), ("w", .wordBoundary),
    ]

    /// `[cd]`-style suffix, empty for no options.
    public var suffix: String {
        if isEmpty { return "" }
        var s = "["
        for (letter, option) in Self.letters where contains(option) { s.append(letter) }
        s.append("]")
        return s
    }
}

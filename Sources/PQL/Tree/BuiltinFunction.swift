/// The built-in functions of reference §4.7 and the operators that Apple represents as functions.
///
/// The raw value is Apple's selector, which is also the printed name of a function call.
/// ```swift
/// BuiltinFunction(selector: "modulus:by:")?.arity   // 2
/// BuiltinFunction.add.infixSymbol                   // "+"
/// ```
public enum BuiltinFunction: String, Hashable, Sendable, CaseIterable {
    // Aggregates over a collection.
    case sum = "sum:", count = "count:", min = "min:", max = "max:", average = "average:"
    case median = "median:", mode = "mode:", stddev = "stddev:"
    // Arithmetic.
    case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:"
    case divide = "divide:by:", modulus = "modulus:by:", power = "raise:toPower:"
    /// Unary minus on a non-literal operand (`-x`); has no Apple selector, printed as a prefix.
    case negate = "-"
    case sqrt = "sqrt:", log = "log:", ln = "ln:", exp = "exp:"
    case floor = "floor:", ceiling = "ceiling:", trunc = "trunc:", abs = "abs:"
    case random = "random", randomn = "randomn:", now = "now"
    // Strings.
    case uppercase = "uppercase:", lowercase = "lowercase:", length = "length:"
    case canonical = "canonical:"
    // Bits.
    case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:"
    case bitwiseXor = "bitwiseXor:with:", leftShift = "leftshift:by:"
    case rightShift = "rightshift:by:", onesComplement = "onesComplement:"
    // Hints and Apple-platform functions.
    case noindex = "noindex:"
    case distanceToLocation = "distanceToLocation:fromLocation:"
    case tokenize = "tokenize:using:", indexed = "indexed:by:", distinct = "distinct:"

    /// Apple's selector, e.g. `"modulus:by:"`.
    public var selector: String { rawValue }

    /// The number of arguments.
    public var arity: Int { Self.arities[self] ?? 1 }

    /// One colon per argument, counted once rather than per call.
    private static let arities: [BuiltinFunction: Int] = {
        var a: [BuiltinFunction: Int] = [:]
        for f in allCases {
            switch f {
            case .random, .now: a[f] = 0
            case .negate: a[f] = 1
            default: a[f] = f.rawValue.reduce(0) { $1 == ":" ? $0 + 1 : $0 }
            }
        }
        return a
    }()

    /// The infix spelling for the operators printed between their operands.
    public var infixSymbol: String? {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .power: return "**"
        case .bitwiseAnd: return "&"
        case .bitwiseOr: return "|"
        case .bitwiseXor: return "^"
        case .leftShift: return "<<"
        case .rightShift: return ">>"
        default: return nil
        }
    }

    /// Looks a function up by selector or by its short name (`sum` for `sum:`, `random:` for
    /// `randomn:`); nil for an unknown name.
    public init?(selector: String) {
        guard let f = Self.byName[selector] else { return nil }
        self = f
    }

    /// One-argument functions written without the colon, and Apple's documented `random:`.
    static let shortNames: [String: BuiltinFunction] = {
        var names: [String: BuiltinFunction] = ["random:": .randomn]
        for f in allCases where f.arity == 1 && f != .negate {
            names[String(f.rawValue.dropLast())] = f
        }
        return names
    }()

    /// Every accepted spelling, hashed once (a String-backed enum's init compares one by one).
    private static let byName: [String: BuiltinFunction] = {
        var names = shortNames
        for f in allCases where f != .negate { names[f.rawValue] = f }
        return names
    }()

    /// Every name the parser accepts, for suggestions.
    static var allSpellings: [String] {
        allCases.filter { $0 != .negate }.map(\.rawValue) + shortNames.keys.sorted()
    }
}

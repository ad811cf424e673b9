/// The built-in functions of reference §4.7 and the operators that Apple represents as functions.
///
/// The raw value is Apple's selector, which is also the printed name of a function call.
/// ```swift
/// BuiltinFunction(selector: "modulus:by:")?.arity   // 2
/// BuiltinFunction.add.infixSymbol                   // "+"
/// ```
public enum BuiltinFunction: String, Hashable, Sendable, CaseIterable {
    // Aggregates over a collection.
    /// `sum:(collection)`: the sum of the numbers.
    case sum = "sum:"
    /// `count:(collection)`: the number of elements.
    case count = "count:"
    /// `min:(collection)`: the smallest element.
    case min = "min:"
    /// `max:(collection)`: the largest element.
    case max = "max:"
    /// `average:(collection)`: the mean of the numbers, a double.
    case average = "average:"
    /// `median:(collection)`: the middle element, or the mean of the two middle ones.
    case median = "median:"
    /// `mode:(collection)`: an array of the most frequent values.
    case mode = "mode:"
    /// `stddev:(collection)`: the population standard deviation.
    case stddev = "stddev:"
    // Arithmetic.
    /// `a + b`, also written `add:to:(a, b)`.
    case add = "add:to:"
    /// `a - b`, also written `from:subtract:(a, b)`.
    case subtract = "from:subtract:"
    /// `a * b`, also written `multiply:by:(a, b)`.
    case multiply = "multiply:by:"
    /// `a / b`, also written `divide:by:(a, b)`; integers divide with truncation.
    case divide = "divide:by:"
    /// `modulus:by:(a, b)`: the remainder (the language has no `%` operator).
    case modulus = "modulus:by:"
    /// `a ** b`, also written `raise:toPower:(a, b)`: a double.
    case power = "raise:toPower:"
    /// Unary minus on a non-literal operand (`-x`); has no Apple selector, printed as a prefix.
    case negate = "-"
    /// `sqrt:(x)`: the square root, a double.
    case sqrt = "sqrt:"
    /// `log:(x)`: the base-10 logarithm.
    case log = "log:"
    /// `ln:(x)`: the natural logarithm.
    case ln = "ln:"
    /// `exp:(x)`: e raised to `x`.
    case exp = "exp:"
    /// `floor:(x)`: rounded down.
    case floor = "floor:"
    /// `ceiling:(x)`: rounded up.
    case ceiling = "ceiling:"
    /// `trunc:(x)`: rounded toward zero.
    case trunc = "trunc:"
    /// `abs:(x)`: the absolute value; integers stay integers.
    case abs = "abs:"
    /// `random()`: a double in [0, 1).
    case random = "random"
    /// `randomn:(n)`: an integer in [0, n); also spelled `random:`.
    case randomn = "randomn:"
    /// `now()`: the current date.
    case now = "now"
    // Strings.
    /// `uppercase:(s)`: Unicode upper-case mapping.
    case uppercase = "uppercase:"
    /// `lowercase:(s)`: Unicode lower-case mapping.
    case lowercase = "lowercase:"
    /// `length:(s)`: the length in UTF-16 code units, as Apple counts it.
    case length = "length:"
    /// `canonical:(s)`: the string folded as `[cd]` folds it.
    case canonical = "canonical:"
    // Bits.
    /// `a & b`, also written `bitwiseAnd:with:(a, b)`.
    case bitwiseAnd = "bitwiseAnd:with:"
    /// `a | b`, also written `bitwiseOr:with:(a, b)`.
    case bitwiseOr = "bitwiseOr:with:"
    /// `a ^ b`, also written `bitwiseXor:with:(a, b)`.
    case bitwiseXor = "bitwiseXor:with:"
    /// `a << b`, also written `leftshift:by:(a, b)`.
    case leftShift = "leftshift:by:"
    /// `a >> b`, also written `rightshift:by:(a, b)`: an arithmetic shift.
    case rightShift = "rightshift:by:"
    /// `~a`, also written `onesComplement:(a)`.
    case onesComplement = "onesComplement:"
    // Hints and Apple-platform functions.
    /// `noindex:(x)`: `x` itself; in the store it keeps SQLite from using an index for it.
    case noindex = "noindex:"
    /// Core Location's `distanceToLocation:fromLocation:`: parsed, refused when compiled.
    case distanceToLocation = "distanceToLocation:fromLocation:"
    /// Core Data's `tokenize:using:`: parsed, refused when compiled.
    case tokenize = "tokenize:using:"
    /// Core Data's `indexed:by:`: parsed, refused when compiled.
    case indexed = "indexed:by:"
    /// `distinct:(collection)`: the distinct values, in order of first appearance.
    case distinct = "distinct:"
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
        // `tokenize(text, 'cdl')` is how CloudKit's full-text search writes tokenize:using:.
        var names: [String: BuiltinFunction] = ["random:": .randomn, "tokenize": .tokenize]
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

    /// Whether two calls with equal arguments give equal results, at any time: every function
    /// but `random()`, `randomn:` and `now()`. A call of a deterministic function on constants
    /// is computed once, when compiling (``ExpressionNode/isRowIndependent``).
    ///
    /// ```swift
    /// BuiltinFunction.sqrt.isDeterministic     // true
    /// BuiltinFunction.random.isDeterministic   // false
    /// ```
    package var isDeterministic: Bool { !isRandom && self != .now }

    /// Whether each call draws a new random value (`random()`, `randomn:`): unlike `now()`,
    /// which one statement may read once, such a call must run wherever it is written.
    package var isRandom: Bool { self == .random || self == .randomn }

    /// Every name the parser accepts, for suggestions.
    static var allSpellings: [String] {
        allCases.filter { $0 != .negate }.map(\.rawValue) + shortNames.keys.sorted()
    }
}

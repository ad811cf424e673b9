import Foundation

/// A value a predicate works with: a constant in the tree, an argument, a variable's binding,
/// or what a key path reads from an object.
///
/// Equality follows NSPredicate's `isEqual:` (reference §6.3): numbers compare by value across
/// `Bool`, integers, `Double` and `Decimal` (`.bool(true) == .int(1)`, `.int(1) == .double(1)`),
/// a number never equals a string, dates are equal at the same instant, arrays compare element
/// by element, sets and dictionaries ignore order.
///
/// ```swift
/// let v: PredicateValue = ["a", 1, 2.5, nil]
/// v == .array([.string("a"), .int(1), .double(2.5), .null])   // true
/// ```
public enum PredicateValue: Sendable {
    /// nil: `nil`/`NULL` in text, JSON `null`, `NSNull`, and a key missing from a dictionary.
    case null
    /// `YES`/`NO`: a number, 1 or 0, that prints as `1` or `0`.
    case bool(Bool)
    /// A signed 64-bit integer; arithmetic on integers never wraps (an overflow is an error).
    case int(Int64)
    /// An IEEE 754 double; prints with a fraction or an exponent (`10.0`).
    case double(Double)
    /// A base-10 number, for money; prints as `CAST("1.5", "NSDecimalNumber")`.
    case decimal(Decimal)
    /// Unicode text, compared by scalar value unless options say otherwise.
    case string(String)
    /// An instant. Printed as `CAST(<seconds since 2001-01-01>, "NSDate")`.
    case date(Date)
    /// Bytes; prints as `CAST("<base64>", "NSData")`.
    case data(Data)
    /// An ordered collection: an aggregate `{1, 2}`, a JSON array, a key path through a collection.
    case array([PredicateValue])
    /// An unordered collection; duplicates are kept as given, equality ignores order.
    case set([PredicateValue])
    /// String keys to values: a JSON object; a key path reads its values.
    case dictionary([String: PredicateValue])

    /// True for `.null`: NSNull and nil are the same to every operator (reference §6.1).
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The elements of an array or set, or nil for anything else.
    public var collectionElements: [PredicateValue]? {
        switch self {
        case .array(let a), .set(let a): return a
        default: return nil
        }
    }

    /// A short name of the value's kind for messages ("a string", "a number").
    public var kindDescription: String {
        switch self {
        case .null: return "nil"
        case .bool: return "a boolean"
        case .int, .double, .decimal: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "binary data"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        }
    }
}

// MARK: - Numbers

extension PredicateValue {
    /// A numeric view used by equality, ordering and hashing.
    @usableFromInline enum Numeric {
        case int(Int64)
        case double(Double)
        case decimal(Decimal)
    }

    @usableFromInline var numeric: Numeric? {
        switch self {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        default: return nil
        }
    }

    /// The number as the nearest `Double` (booleans as 0 and 1, as `==` counts them); nil for
    /// other kinds. The other typed accessors are in PredicateValue+Accessors.swift.
    ///
    /// ```swift
    /// PredicateValue.int(3).doubleValue        // 3.0
    /// PredicateValue.string("3").doubleValue   // nil
    /// ```
    public var doubleValue: Double? { numeric?.doubleValue }

    /// True for `.bool`, `.int`, `.double` and `.decimal`.
    public var isNumber: Bool { numeric != nil }
}

extension PredicateValue.Numeric {
    /// Exact three-way comparison; nil when either side is NaN.
    @usableFromInline func compare(_ other: Self) -> ComparisonResult? {
        switch (self, other) {
        case let (.int(a), .int(b)):
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case let (.double(a), .double(b)):
            // NaN equals NaN (as NSNumber's isEqual: does) and is unordered against the rest.
            if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? .orderedSame : nil }
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case let (.int(a), .double(b)):
            return Self.compare(int: a, double: b)
        case let (.double(a), .int(b)):
            return Self.compare(int: b, double: a).map(\.reversed)
        case let (.decimal(a), .decimal(b)):
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case let (.decimal(a), _):
            return Self.compare(decimal: a, other)
        case let (_, .decimal(b)):
            return Self.compare(decimal: b, self).map(\.reversed)
        }
    }

    /// Compares a decimal with any numeric; infinities order outside every decimal.
    static func compare(decimal a: Decimal, _ other: Self) -> ComparisonResult? {
        let b: Decimal
        switch other {
        case .int(let i): b = Decimal(i)
        case .decimal(let d): b = d
        case .double(let d):
            if d.isNaN { return nil }
            if d.isInfinite { return d > 0 ? .orderedAscending : .orderedDescending }
            // Decimal(d) overflows for huge doubles; at such magnitudes compare as doubles.
            // Decimal(d) is NaN for tiny ones (below about 1e-128): compare those as doubles too.
            let exact = Swift.abs(d) > 1e30 ? Decimal.nan : Decimal(d)
            if exact.isNaN { return Self.double(NSDecimalNumber(decimal: a).doubleValue).compare(.double(d)) }
            b = exact
        }
        return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// Compares an integer with a double without the rounding of `Double(Int64)`.
    static func compare(int a: Int64, double b: Double) -> ComparisonResult? {
        if b.isNaN { return nil }
        if b >= 9223372036854775808.0 { return .orderedAscending }
        if b < -9223372036854775808.0 { return .orderedDescending }
        let t = b.rounded(.towardZero)
        let ti = Int64(t)
        if a < ti { return .orderedAscending }
        if a > ti { return .orderedDescending }
        let frac = b - t
        return frac > 0 ? .orderedAscending : (frac < 0 ? .orderedDescending : .orderedSame)
    }

    var doubleValue: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        }
    }
}

extension ComparisonResult {
    @usableFromInline var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}

// MARK: - Equality and hashing (NSPredicate's isEqual:)

extension PredicateValue: Hashable {
    /// Equality as NSPredicate's `isEqual:` sees it: numbers by value across kinds, never a number and a string.
    ///
    /// ```swift
    /// PredicateValue.int(1) == .double(1.0)   // true
    /// PredicateValue.string("5") == .int(5)   // false
    /// ```
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.string(a), .string(b)):
            // Literal comparison: code units, no canonical equivalence (reference §6.3).
            return a.utf8.elementsEqual(b.utf8)
        case let (.date(a), .date(b)): return a.timeIntervalSinceReferenceDate == b.timeIntervalSinceReferenceDate
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.set(a), .set(b)): return Self.unorderedEqual(a, b)
        case let (.dictionary(a), .dictionary(b)): return a == b
        default:
            if let a = lhs.numeric, let b = rhs.numeric { return a.compare(b) == .orderedSame }
            return false
        }
    }

    static func unorderedEqual(_ a: [PredicateValue], _ b: [PredicateValue]) -> Bool {
        guard a.count == b.count else { return false }
        var counts: [PredicateValue: Int] = [:]
        for x in a { counts[x, default: 0] += 1 }
        for y in b {
            guard let c = counts[y], c > 0 else { return false }
            counts[y] = c - 1
        }
        return true
    }

    /// Hashes consistently with `==`: equal numbers of different kinds hash alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .string(let s): hasher.combine(1); hasher.combine(s.utf8.count); for b in s.utf8 { hasher.combine(b) }
        case .date(let d): hasher.combine(2); hasher.combine(d.timeIntervalSinceReferenceDate)
        case .data(let d): hasher.combine(3); hasher.combine(d)
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .set(let a):
            // Order-independent: combine the elements' hashes commutatively.
            hasher.combine(5); hasher.combine(a.reduce(0) { $0 &+ $1.hashValue })
        case .dictionary(let d): hasher.combine(6); hasher.combine(d)
        case .bool, .int, .double, .decimal:
            // Equal numbers of different kinds must hash alike: hash the double value.
            hasher.combine(7)
            let d = numeric!.doubleValue
            if d.isNaN { hasher.combine(UInt8(0xFF)) } else { hasher.combine(d == 0 ? 0 : d) }
        }
    }
}

// MARK: - Literals

extension PredicateValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is ``PredicateValue/null``.
    public init(nilLiteral: ()) { self = .null }
    /// `true` and `false` are ``PredicateValue/bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is ``PredicateValue/int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal is ``PredicateValue/double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal is ``PredicateValue/string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is ``PredicateValue/array(_:)``: `["a", 1, nil]`.
    public init(arrayLiteral elements: PredicateValue...) { self = .array(elements) }
    /// A dictionary literal is ``PredicateValue/dictionary(_:)``: `["name": "Ann", "age": 40]`.
    public init(dictionaryLiteral elements: (String, PredicateValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

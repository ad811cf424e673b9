import Foundation

/// Reading a value as a Swift type: each accessor is nil when the value is of another kind.
///
/// Numbers are one kind, as `==` has it: ``intValue``, ``doubleValue`` and ``decimalValue``
/// read any number, booleans included as 0 and 1, when the type can hold it. The other
/// accessors read their own case only.
extension PredicateValue {
    /// The Boolean of a `.bool`; nil for anything else (numbers are not truth values here).
    ///
    /// ```swift
    /// PredicateValue.bool(true).boolValue   // true
    /// PredicateValue.int(1).boolValue       // nil
    /// ```
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number as an `Int`, when it is an integer that fits: `.int`, a `.double` or
    /// `.decimal` with no fraction, a `.bool` as 0 or 1. Nil for fractions, numbers beyond
    /// `Int` and other kinds.
    ///
    /// ```swift
    /// PredicateValue.double(42).intValue    // 42
    /// PredicateValue.double(4.2).intValue   // nil
    /// ```
    public var intValue: Int? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Int(exactly: i)
        case .double(let d): return Int(exactly: d)
        case .decimal(let d):
            guard d.isFinite else { return nil }
            // int64Value truncates (and wraps far out of range): keep it only if it is exact.
            let i = NSDecimalNumber(decimal: d).int64Value
            return Decimal(i) == d ? Int(exactly: i) : nil
        default: return nil
        }
    }

    /// The number as a `Decimal`: integers and booleans exactly, a finite double as
    /// `Decimal(_:)` converts it. Nil for infinities, NaN and other kinds.
    ///
    /// ```swift
    /// PredicateValue.int(7).decimalValue   // 7
    /// ```
    public var decimalValue: Decimal? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Decimal(i)
        case .double(let d): return d.isFinite ? Decimal(d) : nil
        case .decimal(let d): return d
        default: return nil
        }
    }

    /// The text of a `.string`; nil for anything else (numbers are not converted).
    ///
    /// ```swift
    /// PredicateValue.string("Paris").stringValue   // "Paris"
    /// ```
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The instant of a `.date`; nil for anything else.
    ///
    /// ```swift
    /// PredicateValue.date(Date(timeIntervalSinceReferenceDate: 0)).dateValue   // 2001-01-01 00:00:00 +0000
    /// ```
    public var dateValue: Date? {
        if case .date(let d) = self { return d }
        return nil
    }

    /// The bytes of a `.data`; nil for anything else.
    ///
    /// ```swift
    /// PredicateValue.data(Data([1, 2])).dataValue?.count   // 2
    /// ```
    public var dataValue: Data? {
        if case .data(let d) = self { return d }
        return nil
    }

    /// The elements of an `.array`; nil for anything else (``collectionElements`` reads sets too).
    ///
    /// ```swift
    /// PredicateValue.array([1, 2]).arrayValue   // [.int(1), .int(2)]
    /// ```
    public var arrayValue: [PredicateValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The elements of a `.set`, in the order they were given; nil for anything else.
    ///
    /// ```swift
    /// PredicateValue.set(["a"]).setElements   // [.string("a")]
    /// ```
    public var setElements: [PredicateValue]? {
        if case .set(let a) = self { return a }
        return nil
    }

    /// The entries of a `.dictionary`; nil for anything else.
    ///
    /// ```swift
    /// let city = PredicateValue.dictionary(["city": "Lima"]).dictionaryValue?["city"]   // .string("Lima")
    /// ```
    public var dictionaryValue: [String: PredicateValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }
}

import Foundation

/// A Swift type that knows its own predicate value: conform your types to pass them as
/// `%@` arguments, variable bindings or dictionary values.
///
/// ```swift
/// struct Cents: PredicateValueConvertible {
///     var amount: Int
///     var predicateValue: PredicateValue { .int(Int64(amount)) }
/// }
/// let p = try PredicateNode(format: "price > %@", Cents(amount: 500))   // price > 500
/// ```
public protocol PredicateValueConvertible: SendableMetatype {
    // SendableMetatype: predicates read values from any thread, so a conformance must not be
    // isolated to an actor (an isolated one would be used off its actor: a data race).
    /// The value predicates see for this Swift value.
    var predicateValue: PredicateValue { get }
}

extension PredicateValue {
    /// Converts a Swift value at the edge: nil, `NSNull`, `Bool`, every integer and floating
    /// type, `Decimal`, `NSNumber`, strings, `Character`, `Date`, `Data`, `UUID`, `URL`, arrays,
    /// sets, dictionaries with `String` keys, ``PredicateValueConvertible`` values, and
    /// `RawRepresentable` values (enums) as their raw values. Returns nil for anything else.
    ///
    /// ```swift
    /// PredicateValue(any: ["a": 1, "b": [true, nil]] as [String: Any?])
    /// // .dictionary(["a": .int(1), "b": .array([.bool(true), .null])])
    /// ```
    public init?(any value: Any?) {
        guard let value = Self.unwrap(value) else { self = .null; return }
        // The common scalar types by type identity first: a metadata comparison is far cheaper
        // than the chain of dynamic casts below (this runs per key read on dictionaries).
        let t = type(of: value)
        if t == String.self { self = .string(value as! String); return }
        if t == Int.self { self = .int(Int64(value as! Int)); return }
        if t == Double.self { self = .double(value as! Double); return }
        if t == Bool.self { self = .bool(value as! Bool); return }
        // Foundation's numbers (property lists, JSONSerialization, NSNumber(value:)) by what
        // they hold, before any cast to a Swift type: on Linux `NSNumber as? Bool` succeeds for
        // 0 and 1 (and 1.0), so `<integer>1</integer>` would otherwise become `true`.
        if t is NSNumber.Type, let n = value as? NSNumber { self = Self.number(n); return }
        switch value {
        case let v as PredicateValue: self = v
        case let v as PredicateValueConvertible: self = v.predicateValue
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Character: self = .string(String(v))
        case is NSNull: self = .null
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(Int64(v))
        case let v as Int64: self = .int(v)
        case let v as Int32: self = .int(Int64(v))
        case let v as Int16: self = .int(Int64(v))
        case let v as Int8: self = .int(Int64(v))
        case let v as UInt: self = Self.unsigned(UInt64(v))
        case let v as UInt64: self = Self.unsigned(v)
        case let v as UInt32: self = .int(Int64(v))
        case let v as UInt16: self = .int(Int64(v))
        case let v as UInt8: self = .int(Int64(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as NSNumber: self = Self.number(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .string(v.uuidString)
        case let v as URL: self = .string(v.absoluteString)
        case let v as [Any?]:
            var out: [PredicateValue] = []
            out.reserveCapacity(v.count)
            for e in v { guard let c = PredicateValue(any: e) else { return nil }; out.append(c) }
            self = .array(out)
        case let v as [Any]:
            var out: [PredicateValue] = []
            out.reserveCapacity(v.count)
            for e in v { guard let c = PredicateValue(any: e) else { return nil }; out.append(c) }
            self = .array(out)
        case let v as Set<AnyHashable>:
            var out: [PredicateValue] = []
            for e in v { guard let c = PredicateValue(any: e.base) else { return nil }; out.append(c) }
            self = .set(out)
        case let v as [String: Any?]:
            var out: [String: PredicateValue] = [:]
            for (k, e) in v { guard let c = PredicateValue(any: e) else { return nil }; out[k] = c }
            self = .dictionary(out)
        case let v as [String: Any]:
            var out: [String: PredicateValue] = [:]
            for (k, e) in v { guard let c = PredicateValue(any: e) else { return nil }; out[k] = c }
            self = .dictionary(out)
        case let v as [AnyHashable: Any]:
            var out: [String: PredicateValue] = [:]
            for (k, e) in v {
                guard let key = k.base as? String, let c = PredicateValue(any: e) else { return nil }
                out[key] = c
            }
            self = .dictionary(out)
        case let v as any RawRepresentable:
            // Enums backed by strings or numbers (`Priority.high` is "high"), and option sets.
            guard let raw = PredicateValue(any: Self.rawValue(of: v)) else { return nil }
            self = raw
        default:
            if let set = Self.anySet(value) { self = set; return }
            return nil
        }
    }

    private static func rawValue<T: RawRepresentable>(of value: T) -> Any { value.rawValue }

    /// Looks through nested optionals: `Optional<Optional<Int>>.some(nil)` is nil.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard let optional = value as? AnyOptional else { return value }
        return unwrap(optional.wrappedAny)
    }

    /// Sets of any Hashable element type (`Set<String>`, `Set<Int>`…).
    private static func anySet(_ value: Any) -> PredicateValue? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .set else { return nil }
        var out: [PredicateValue] = []
        for child in mirror.children {
            guard let c = PredicateValue(any: child.value) else { return nil }
            out.append(c)
        }
        return .set(out)
    }

    static func unsigned(_ v: UInt64) -> PredicateValue {
        v <= UInt64(Int64.max) ? .int(Int64(v)) : .decimal(Decimal(v))
    }

    /// Whether a Foundation number is a boolean (`true`, `<true/>`, `NSNumber(value: true)`).
    static func isBoolean(_ n: NSNumber) -> Bool {
        #if canImport(Darwin)
        // Darwin reports Int8 numbers as "c" too; only the CFBoolean singletons are booleans.
        return CFGetTypeID(n) == CFBooleanGetTypeID()
        #else
        // swift-corelibs-foundation keeps booleans in a subclass of their own whose type
        // encoding alone is "c" (its Int8 and UInt8 numbers say "i"; measured, Swift 6).
        let t = n.objCType.pointee
        return t == CChar(UInt8(ascii: "c")) || t == CChar(UInt8(ascii: "B"))
        #endif
    }

    /// A Foundation number as the kind it holds: booleans, integers (unsigned ones beyond
    /// Int64 as decimals), doubles, decimals.
    static func number(_ n: NSNumber) -> PredicateValue {
        if let d = n as? NSDecimalNumber { return .decimal(d.decimalValue) }
        if isBoolean(n) { return .bool(n.boolValue) }
        switch String(cString: n.objCType) {
        case "f", "d": return .double(n.doubleValue)
        case "Q", "L": return unsigned(n.uint64Value)
        default: return .int(n.int64Value)
        }
    }
}

/// Lets `unwrap` see through an optional stored in an `Any` without reflection.
private protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? { map { $0 as Any } }
}

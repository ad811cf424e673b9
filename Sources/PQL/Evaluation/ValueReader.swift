import Foundation

/// How compiled predicates read a kind of value: the value itself (`SELF`) and its keys.
///
/// PQL ships readers for ``PredicateValue`` (JSON), `[String: Any]` dictionaries, types that
/// declare their keys (``PredicateReadable``), and any `Encodable` type.
///
/// ```swift
/// let reader = ValueReader<PredicateValue>.predicateValue
/// ```
public struct ValueReader<Root>: Sendable {
    /// The whole value, for `SELF` and for key paths that start with a collection operator.
    let selfValue: @Sendable (Root) throws(EvalError) -> PredicateValue
    /// A reader for one key, resolved once at compile time. Throws for a key the type lacks.
    let key: @Sendable (String) throws(EvalError) -> KeyAccessor<Root>
    /// For `[String: Any]` only: the stored `Any` of a key, before conversion, so the fast
    /// paths can test it by type (``FastPaths``). nil for every other reader.
    let rawKey: (@Sendable (String) -> @Sendable (Root) -> Any?)?
    /// Checks a whole key path at compile time, for types that know the keys of their nested
    /// values too (``PredicateReadable``): an unknown nested key is an error, not nil (D5).
    var checkPath: (@Sendable ([String]) throws(EvalError) -> Void)? = nil
    /// For ``PredicateReadable`` types whose keys name stored properties by key path: where a
    /// key's value lies in the root, so the fast paths read it without a copy.
    var storedField: (@Sendable (String) -> StoredField?)? = nil

    /// Creates a reader for a type of your own from two closures: the whole value, and an accessor for each key name (throw ``PredicateEvaluationError/Kind/unknownKey`` for a key the type lacks).
    ///
    /// ```swift
    /// let reader = ValueReader<Point>(selfValue: { .array([.double($0.x), .double($0.y)]) },
    ///                                 key: { name in
    ///                                     switch name {
    ///                                     case "x": return .double { $0.x }
    ///                                     case "y": return .double { $0.y }
    ///                                     default: throw PredicateEvaluationError(kind: .unknownKey, message: "Point has no key '\(name)'")
    ///                                     }
    ///                                 })
    /// ```
    public init(selfValue: @escaping @Sendable (Root) throws(PredicateEvaluationError) -> PredicateValue,
                key: @escaping @Sendable (String) throws(PredicateEvaluationError) -> KeyAccessor<Root>) {
        self.selfValue = selfValue
        self.key = key
        self.rawKey = nil
    }

    init(selfValue: @escaping @Sendable (Root) throws(PredicateEvaluationError) -> PredicateValue,
         key: @escaping @Sendable (String) throws(PredicateEvaluationError) -> KeyAccessor<Root>,
         rawKey: @escaping @Sendable (String) -> @Sendable (Root) -> Any?) {
        self.selfValue = selfValue
        self.key = key
        self.rawKey = rawKey
    }

    /// The same reader without raw access: what the general (non-fast) path compiles with.
    var withoutRawKeys: ValueReader {
        var r = ValueReader(selfValue: selfValue, key: key)
        r.checkPath = checkPath
        r.storedField = storedField
        return r
    }
}

/// Reads one key of a root value; the typed cases let the compiler skip ``PredicateValue``
/// on hot paths.
///
/// ```swift
/// let age: KeyAccessor<Person> = .int { $0.age }
/// ```
public enum KeyAccessor<Root>: Sendable {
    /// Any value, in the general form.
    case value(@Sendable (Root) throws(PredicateEvaluationError) -> PredicateValue)
    /// An integer, compared without building a ``PredicateValue``.
    case int(@Sendable (Root) -> Int?)
    /// A double, compared without building a ``PredicateValue``.
    case double(@Sendable (Root) -> Double?)
    /// A string, compared without building a ``PredicateValue``.
    case string(@Sendable (Root) -> String?)
    /// An array of strings, searched without building a ``PredicateValue``.
    case strings(@Sendable (Root) -> [String]?)

    /// The key's value in the general form.
    @inline(__always)
    func read(_ root: Root) throws(EvalError) -> PredicateValue {
        switch self {
        case .value(let f): return try f(root)
        case .int(let f): return f(root).map { .int(Int64($0)) } ?? .null
        case .double(let f): return f(root).map { .double($0) } ?? .null
        case .string(let f): return f(root).map { .string($0) } ?? .null
        case .strings(let f): return f(root).map { .array($0.map { .string($0) }) } ?? .null
        }
    }
}

/// A type compiled predicates can evaluate on.
///
/// ```swift
/// let adults = try people.filter(PredicateNode(format: "age >= 18"))
/// ```
public protocol PredicateEvaluable: SendableMetatype {
    // SendableMetatype: compiled predicates are Sendable and read values from any thread, so a
    // conformance must not be isolated to an actor.
    /// How compiled predicates read values of this type.
    static var predicateReader: ValueReader<Self> { get }
}

extension ValueReader where Root == PredicateValue {
    /// JSON-shaped values: dictionaries answer keys (missing keys are nil), arrays and sets
    /// apply them to each element.
    public static var predicateValue: ValueReader<PredicateValue> {
        ValueReader(selfValue: { $0 }, key: { name in .value { root throws(EvalError) in try KeyPathReading.value(root, key: name) } })
    }
}

extension PredicateValue: PredicateEvaluable {
    /// The JSON-shaped reader, ``ValueReader/predicateValue``.
    public static var predicateReader: ValueReader<PredicateValue> { .predicateValue }
}

/// `[String: Any]` dictionaries are evaluable directly: `try rows.filter(PredicateNode(format: "age > 3"))`.
extension Dictionary: PredicateEvaluable where Key == String, Value == Any {
    /// `[String: Any]` dictionaries, as `JSONSerialization` returns them: only the keys a
    /// predicate reads are converted.
    public static var predicateReader: ValueReader<[String: Any]> {
        ValueReader(
            selfValue: { d throws(EvalError) in
                guard let v = PredicateValue(any: d) else { throw unconvertible(d) }
                return v
            },
            key: { name in
                .value { d throws(EvalError) in
                    let raw = d[name]
                    guard let v = PredicateValue(any: raw) else { throw unconvertible(raw as Any) }
                    return v
                }
            },
            rawKey: { name in { d in d[name] } })
    }
}

func unconvertible(_ raw: Any) -> EvalError {
    EvalError.typeMismatch("a value of type \(type(of: raw)) has no predicate value",
                           hint: "store strings, numbers, Bool, Date, Data, arrays, dictionaries or NSNull")
}

// Scalars and collections of scalars evaluate as themselves (`SELF > 3` on an array of Int).
extension PredicateEvaluable where Self: PredicateValueConvertible {
    /// Reads the value itself for `SELF`, and keys of it as a ``PredicateValue`` reads them.
    public static var predicateReader: ValueReader<Self> {
        ValueReader(selfValue: { $0.predicateValue },
                    key: { name in .value { root throws(EvalError) in try KeyPathReading.value(root.predicateValue, key: name) } })
    }
}

/// Strings evaluate as themselves: `SELF BEGINSWITH 'a'` on an array of strings.
extension String: PredicateValueConvertible, PredicateEvaluable {
    /// The string as a ``PredicateValue/string(_:)``.
    public var predicateValue: PredicateValue { .string(self) }
}
/// Integers evaluate as themselves: `SELF > 3` on an array of `Int`.
extension Int: PredicateValueConvertible, PredicateEvaluable {
    /// The integer as a ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(Int64(self)) }
}
/// 64-bit integers evaluate as themselves.
extension Int64: PredicateValueConvertible, PredicateEvaluable {
    /// The integer as a ``PredicateValue/int(_:)``.
    public var predicateValue: PredicateValue { .int(self) }
}
/// Doubles evaluate as themselves.
extension Double: PredicateValueConvertible, PredicateEvaluable {
    /// The double as a ``PredicateValue/double(_:)``.
    public var predicateValue: PredicateValue { .double(self) }
}
/// Booleans evaluate as themselves: the numbers 1 and 0.
extension Bool: PredicateValueConvertible, PredicateEvaluable {
    /// The Boolean as a ``PredicateValue/bool(_:)``.
    public var predicateValue: PredicateValue { .bool(self) }
}
/// Decimals evaluate as themselves.
extension Decimal: PredicateValueConvertible, PredicateEvaluable {
    /// The decimal as a ``PredicateValue/decimal(_:)``.
    public var predicateValue: PredicateValue { .decimal(self) }
}
/// Dates evaluate as themselves.
extension Date: PredicateValueConvertible, PredicateEvaluable {
    /// The date as a ``PredicateValue/date(_:)``.
    public var predicateValue: PredicateValue { .date(self) }
}

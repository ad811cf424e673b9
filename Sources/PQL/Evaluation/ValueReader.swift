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
        return r
    }
}

/// Reads one key of a root value; the typed cases let the compiler skip ``PredicateValue``
/// on hot paths.
public enum KeyAccessor<Root>: Sendable {
    case value(@Sendable (Root) throws(PredicateEvaluationError) -> PredicateValue)
    case int(@Sendable (Root) -> Int?)
    case double(@Sendable (Root) -> Double?)
    case string(@Sendable (Root) -> String?)
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
    public static var predicateReader: ValueReader<PredicateValue> { .predicateValue }
}

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
    public static var predicateReader: ValueReader<Self> {
        ValueReader(selfValue: { $0.predicateValue },
                    key: { name in .value { root throws(EvalError) in try KeyPathReading.value(root.predicateValue, key: name) } })
    }
}

extension String: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .string(self) } }
extension Int: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .int(Int64(self)) } }
extension Int64: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .int(self) } }
extension Double: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .double(self) } }
extension Bool: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .bool(self) } }
extension Decimal: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .decimal(self) } }
extension Date: PredicateValueConvertible, PredicateEvaluable { public var predicateValue: PredicateValue { .date(self) } }

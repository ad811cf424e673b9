import Foundation

/// A Swift type that declares the keys predicates may read: the fast path for typed values.
/// Keys are resolved once when a predicate is compiled; an unknown key is an error naming
/// the type and the nearest keys (decision D5).
///
/// ```swift
/// struct Person: PredicateReadable {
///     var name: String; var age: Int; var email: String?; var tags: [String]
///     static let predicateKeys: PredicateKeys<Person> = [
///         "name": .string { $0.name }, "age": .int { $0.age },
///         "email": .string(\.email), "tags": .strings(\.tags),
///     ]
/// }
/// let adults = try people.filter(PredicateNode(format: "age >= 18 AND ANY tags == 'vip'"))
/// ```
public protocol PredicateReadable: PredicateEvaluable, PredicateValueConvertible {
    /// The keys predicates may read, each with its ``Accessor``.
    static var predicateKeys: PredicateKeys<Self> { get }
}

/// The key table of a ``PredicateReadable`` type.
///
/// ```swift
/// static let predicateKeys: PredicateKeys<Book> = ["title": .string { $0.title }, "pages": .int { $0.pages }]
/// ```
public struct PredicateKeys<Root>: Sendable, ExpressibleByDictionaryLiteral {
    let accessors: [String: Accessor<Root>]

    /// Creates the table from a dictionary literal of key names and accessors; a repeated name keeps the last.
    ///
    /// ```swift
    /// let keys: PredicateKeys<Person> = ["name": .string { $0.name }, "age": .int { $0.age }]
    /// ```
    public init(dictionaryLiteral elements: (String, Accessor<Root>)...) {
        accessors = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The declared key names, sorted.
    public var names: [String] { accessors.keys.sorted() }
}

/// How to read one key of a typed value.
///
/// ```swift
/// let born: Accessor<Person> = .date { $0.birthday }
/// ```
public struct Accessor<Root>: Sendable {
    let key: KeyAccessor<Root>
    /// For nested ``PredicateReadable`` values: checks the rest of a key path against the
    /// nested type's keys.
    var nested: (@Sendable (ArraySlice<String>) throws(EvalError) -> Void)? = nil
    /// For key-path accessors of stored properties: where the value lies in the root, so the
    /// fast paths can read it without a copy (``StoredField``).
    var field: StoredField? = nil

    /// An integer key (`Int?`; nil reads as nil), compared without building a ``PredicateValue``.
    public static func int(_ f: @escaping @Sendable (Root) -> Int?) -> Self { .init(key: .int(f)) }
    /// A floating-point key (`Double?`), compared without building a ``PredicateValue``.
    public static func double(_ f: @escaping @Sendable (Root) -> Double?) -> Self { .init(key: .double(f)) }
    /// A string key (`String?`), compared without building a ``PredicateValue``.
    public static func string(_ f: @escaping @Sendable (Root) -> String?) -> Self { .init(key: .string(f)) }
    /// A string property named by its key path. When it is a stored property of a struct, `==`,
    /// `!=`, `IN` a few strings and nil tests read it where it lies in the array being filtered,
    /// without retaining it, and other reads copy it from its offset, as a closure would. A
    /// class's property or a computed one is read through the key path, which is slower.
    ///
    /// ```swift
    /// static let predicateKeys: PredicateKeys<Person> = ["city": .string(\.city)]
    /// ```
    public static func string(_ path: any KeyPath<Root, String> & Sendable) -> Self {
        let field = StoredField(path, isOptional: false)
        let get: @Sendable (Root) -> String?
        if let field { get = { field.read(String.self, in: $0) } } else { get = { $0[keyPath: path] } }
        return .init(key: .string(get), field: field)
    }
    /// An optional string property named by its key path (nil reads as nil).
    ///
    /// ```swift
    /// static let predicateKeys: PredicateKeys<Person> = ["email": .string(\.email)]
    /// ```
    public static func string(_ path: any KeyPath<Root, String?> & Sendable) -> Self {
        let field = StoredField(path, isOptional: true)
        let get: @Sendable (Root) -> String?
        if let field { get = { field.read(String?.self, in: $0) } } else { get = { $0[keyPath: path] } }
        return .init(key: .string(get), field: field)
    }
    /// An array of strings (`[String]?`), for `ANY tags == "x"` and `tags CONTAINS "x"`.
    public static func strings(_ f: @escaping @Sendable (Root) -> [String]?) -> Self { .init(key: .strings(f)) }
    /// An array-of-strings property named by its key path: `ANY tags == "x"` searches it where it
    /// lies in the array being filtered, without retaining it, when it is a stored property of a
    /// struct, and other reads copy it from its offset. A class's property or a computed one is
    /// read through the key path, which is slower.
    ///
    /// ```swift
    /// static let predicateKeys: PredicateKeys<Person> = ["tags": .strings(\.tags)]
    /// ```
    public static func strings(_ path: any KeyPath<Root, [String]> & Sendable) -> Self {
        let field = StoredField(path, isOptional: false)
        let get: @Sendable (Root) -> [String]?
        if let field { get = { field.read([String].self, in: $0) } } else { get = { $0[keyPath: path] } }
        return .init(key: .strings(get), field: field)
    }
    /// An optional array-of-strings property named by its key path (nil reads as nil).
    ///
    /// ```swift
    /// static let predicateKeys: PredicateKeys<Post> = ["labels": .strings(\.labels)]
    /// ```
    public static func strings(_ path: any KeyPath<Root, [String]?> & Sendable) -> Self {
        let field = StoredField(path, isOptional: true)
        let get: @Sendable (Root) -> [String]?
        if let field { get = { field.read([String]?.self, in: $0) } } else { get = { $0[keyPath: path] } }
        return .init(key: .strings(get), field: field)
    }
    /// A Boolean key (`Bool?`): the number 1 or 0 to predicates.
    public static func bool(_ f: @escaping @Sendable (Root) -> Bool?) -> Self { .init(key: .value { f($0).map { .bool($0) } ?? .null }) }
    /// A date key (`Date?`).
    public static func date(_ f: @escaping @Sendable (Root) -> Date?) -> Self { .init(key: .value { f($0).map { .date($0) } ?? .null }) }
    /// A decimal key (`Decimal?`), for money.
    public static func decimal(_ f: @escaping @Sendable (Root) -> Decimal?) -> Self { .init(key: .value { f($0).map { .decimal($0) } ?? .null }) }
    /// Any value with a predicate value: nested ``PredicateReadable`` objects, arrays of them…
    public static func value(_ f: @escaping @Sendable (Root) -> PredicateValue) -> Self { .init(key: .value { f($0) }) }
    /// A nested object or collection of objects that are ``PredicateValueConvertible``.
    public static func object<T: PredicateValueConvertible>(_ f: @escaping @Sendable (Root) -> T?) -> Self {
        .init(key: .value { f($0)?.predicateValue ?? .null })
    }
    /// An array of values that are ``PredicateValueConvertible``.
    public static func objects<T: PredicateValueConvertible>(_ f: @escaping @Sendable (Root) -> [T]?) -> Self {
        .init(key: .value { f($0).map { .array($0.map(\.predicateValue)) } ?? .null })
    }
    /// A nested typed object: keys after it are checked against `T`'s keys when compiling.
    public static func object<T: PredicateReadable>(_ f: @escaping @Sendable (Root) -> T?) -> Self {
        .init(key: .value { f($0)?.predicateValue ?? .null }, nested: { rest throws(EvalError) in try T.checkKeyPath(rest) })
    }
    /// A to-many collection of typed objects, checked like `object(_:)` for one.
    public static func objects<T: PredicateReadable>(_ f: @escaping @Sendable (Root) -> [T]?) -> Self {
        .init(key: .value { f($0).map { .array($0.map(\.predicateValue)) } ?? .null },
              nested: { rest throws(EvalError) in try T.checkKeyPath(rest) })
    }
}

extension PredicateReadable {
    /// Checks a key path against the declared keys, through nested typed values; collection
    /// operators and `self` end the check (what follows them is read dynamically).
    static func checkKeyPath(_ path: ArraySlice<String>) throws(EvalError) {
        guard let name = path.first, !CollectionOperator.isOperator(name), name != "self" else { return }
        guard let accessor = predicateKeys.accessors[name] else {
            throw EvalError(kind: .unknownKey, message: "\(Self.self) has no key '\(name)'",
                            hint: keyHint(name, predicateKeys.names))
        }
        try accessor.nested?(path.dropFirst())
    }

    /// The reader built from ``PredicateReadable/predicateKeys``; unknown keys fail when compiling.
    public static var predicateReader: ValueReader<Self> {
        let keys = predicateKeys
        var reader = ValueReader<Self>(
            selfValue: { $0.predicateValue },
            key: { name throws(EvalError) in
                if let a = keys.accessors[name] { return a.key }
                if name == "self" { return .value { $0.predicateValue } }
                throw EvalError(kind: .unknownKey, message: "\(Self.self) has no key '\(name)'",
                                hint: Self.keyHint(name, keys.names))
            })
        reader.checkPath = { path throws(EvalError) in try checkKeyPath(path[...]) }
        reader.storedField = { name in keys.accessors[name]?.field }
        return reader
    }

    /// A dictionary of every declared key, for SELF and nested use.
    public var predicateValue: PredicateValue {
        var d: [String: PredicateValue] = [:]
        for (k, a) in Self.predicateKeys.accessors { d[k] = (try? a.key.read(self)) ?? .null }
        return .dictionary(d)
    }

    static func keyHint(_ name: String, _ names: [String]) -> String {
        let near = Spelling.nearest(to: name, in: names, limit: 3)
        if !near.isEmpty { return "did you mean " + near.joined(separator: ", ") + "?" }
        return "the keys are " + names.joined(separator: ", ")
    }
}

/// Any `Encodable` type, with no code of its own: each value is encoded once per evaluation
/// and read as JSON. Slower than ``PredicateReadable``; keys that are neither encoded nor
/// stored properties are errors.
///
/// ```swift
/// let cheap = try CompiledPredicate(PredicateNode(format: "price < 10"), reader: EncodableValues.reader(for: Item.self))
/// ```
public enum EncodableValues {
    /// The reader for an `Encodable` type.
    ///
    /// ```swift
    /// struct Item: Codable { var price: Double }
    /// let cheap = try PredicateNode(format: "price < 10").compiled(reader: EncodableValues.reader(for: Item.self))
    /// ```
    public static func reader<T: Encodable & SendableMetatype>(for type: T.Type) -> ValueReader<T> {
        ValueReader(
            selfValue: { root throws(EvalError) in try encode(root) },
            key: { name in
                .value { root throws(EvalError) in
                    guard case .dictionary(let d) = try encode(root) else {
                        throw EvalError(kind: .unknownKey, message: "\(T.self) does not encode as an object with keys")
                    }
                    if let v = d[name] { return v }
                    // An absent key is a nil optional, unless the type has no such property.
                    let labels = Mirror(reflecting: root).children.compactMap(\.label)
                    if labels.contains(name) || labels.contains("_" + name) { return .null }
                    throw EvalError(kind: .unknownKey, message: "\(T.self) has no key '\(name)'",
                                    hint: Spelling.nearest(to: name, in: labels + d.keys.sorted(), limit: 3).first.map { "did you mean \($0)?" })
                }
            })
    }

    static func encode<T: Encodable>(_ value: T) throws(EvalError) -> PredicateValue {
        let encoder = JSONEncoder()
        // Dates travel as their exact seconds since 2001 under a private key and are restored
        // below: an ISO-8601 string keeps microseconds at most, and a Codable value must equal
        // its own date as the typed readers do (sub-second precision matters, reference §6.3).
        encoder.dateEncodingStrategy = .custom { date, enc in
            var c = enc.container(keyedBy: DateKey.self)
            try c.encode(date.timeIntervalSinceReferenceDate, forKey: .seconds)
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return restoringDates(try JSONReader.value(from: [UInt8](try encoder.encode(value))))
        } catch {
            throw EvalError.typeMismatch("\(T.self) could not be encoded: \(error)")
        }
    }

    private enum DateKey: String, CodingKey { case seconds = "$pql.secondsSince2001" }

    /// Turns the objects the date strategy wrote back into dates.
    private static func restoringDates(_ v: PredicateValue) -> PredicateValue {
        switch v {
        case .dictionary(let d):
            if d.count == 1, let s = d[DateKey.seconds.rawValue] {
                if let n = s.numeric { return .date(Date(timeIntervalSinceReferenceDate: n.doubleValue)) }
                if case .string(let t) = s, let n = Double(t) { return .date(Date(timeIntervalSinceReferenceDate: n)) }
            }
            return .dictionary(d.mapValues(restoringDates))
        case .array(let a):
            return .array(a.map(restoringDates))
        default:
            return v
        }
    }
}

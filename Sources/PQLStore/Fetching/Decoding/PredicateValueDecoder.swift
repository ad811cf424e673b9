import Foundation
import PQL

/// A `Decoder` over one predicate value, with ``ValueConversion``'s rules: for what a column
/// holds beyond a single value (a many-to-many's keys), and for whole records that a type reads
/// other than keyed (a dictionary of records' values decodes through it too).
struct PredicateValueDecoder: Decoder {
    let value: PredicateValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: PredicateValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let d) = value else { throw ValueConversion.mismatch([String: PredicateValue].self, value, codingPath) }
        return KeyedDecodingContainer(Keyed(values: d, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let a), .set(let a): return Unkeyed(values: a, codingPath: codingPath)
        default: throw ValueConversion.mismatch([PredicateValue].self, value, codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// `value` as `T`, at `path`.
    static func decode<T: Decodable>(_ type: T.Type, from value: PredicateValue, at path: [any CodingKey]) throws -> T {
        if let special = try ValueConversion.special(value, as: T.self, path) { return special }
        return try T(from: PredicateValueDecoder(value, codingPath: path))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let values: [String: PredicateValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

        func value(_ key: Key) throws -> PredicateValue {
            guard let v = values[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
            }
            return v
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try PredicateValueDecoder.decode(T.self, from: try value(key), at: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try PredicateValueDecoder(try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try PredicateValueDecoder(try value(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { PredicateValueDecoder(values["super"] ?? .null, codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            PredicateValueDecoder(values[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let values: [PredicateValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { values.count }
        var isAtEnd: Bool { currentIndex >= values.count }

        init(values: [PredicateValue], codingPath: [any CodingKey]) {
            self.values = values
            self.codingPath = codingPath
        }

        private var path: [any CodingKey] { codingPath + [IndexKey(currentIndex)] }

        mutating func next<T>(_ type: T.Type) throws -> PredicateValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "unkeyed container is at end"))
            }
            defer { currentIndex += 1 }
            return values[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, values[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let at = path
            return try PredicateValueDecoder.decode(T.self, from: try next(T.self), at: at)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let at = path
            return try PredicateValueDecoder(try next(type), codingPath: at).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let at = path
            return try PredicateValueDecoder(try next([PredicateValue].self), codingPath: at).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let at = path
            return PredicateValueDecoder(try next(PredicateValue.self), codingPath: at)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: PredicateValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value.isNull }
        func decode(_ type: Bool.Type) throws -> Bool { try ValueConversion.bool(value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try ValueConversion.string(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try ValueConversion.double(value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try ValueConversion.float(value, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try ValueConversion.integer(value, Int.self, codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try ValueConversion.integer(value, Int8.self, codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try ValueConversion.integer(value, Int16.self, codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try ValueConversion.integer(value, Int32.self, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try ValueConversion.integer(value, Int64.self, codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try ValueConversion.integer(value, UInt.self, codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueConversion.integer(value, UInt8.self, codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueConversion.integer(value, UInt16.self, codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueConversion.integer(value, UInt32.self, codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueConversion.integer(value, UInt64.self, codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try PredicateValueDecoder.decode(T.self, from: value, at: codingPath) }
    }
}

/// An array element's place in a coding path.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

import Foundation
import PQL

/// Reads a `Decodable` type's stored properties without a row: a decoder that answers every
/// request with a stand-in value (nil for an optional, which needs no instance) and writes down
/// each key, its Swift type and whether it was optional. Swift has no other way to list a
/// Codable type's properties before there is a value of it.
enum RecordSchemaProbe {
    struct Property {
        let name: String
        let swiftType: String
        /// nil: no attribute type stores it.
        let type: AttributeType?
        let isOptional: Bool
    }

    static func properties<T: Decodable>(of type: T.Type) throws(StoreError) -> [Property] {
        let log = Log()
        do { _ = try T(from: ProbeDecoder(log: log, top: true)) } catch let e as StoreError { throw e } catch {
            throw StoreError(.invalidModel, "cannot read the properties of \(T.self): \(error)",
                             hint: "record types decode their properties with the synthesized Codable conformance or a keyed container")
        }
        return log.properties
    }

    /// The attribute type of a Swift type: its own, an enum's raw value's, an optional's wrapped type's.
    static func attributeType(_ t: Any.Type) -> AttributeType? {
        switch t {
        case is Int.Type, is Int64.Type, is UInt32.Type: return .integer64
        case is Int32.Type, is UInt16.Type: return .integer32
        case is Int16.Type, is Int8.Type, is UInt8.Type: return .integer16
        case is Double.Type: return .double
        case is Float.Type: return .float
        case is Decimal.Type: return .decimal
        case is Bool.Type: return .boolean
        case is String.Type: return .string
        case is Date.Type: return .date
        case is Data.Type: return .binary
        case is UUID.Type: return .uuid
        case is URL.Type: return .uri
        default: break
        }
        if let optional = t as? any OptionalProtocol.Type { return attributeType(optional.wrappedType) }
        if let raw = t as? any RawRepresentable.Type { return rawType(raw) }
        return nil
    }

    private static func rawType<R: RawRepresentable>(_ t: R.Type) -> AttributeType? { attributeType(R.RawValue.self) }

    /// A stand-in value of `T`: zero, empty, the first case of an enum.
    static func standIn<T: Decodable>(_ type: T.Type, log: Log) throws -> T {
        if let v = primitive(type) { return v }
        if let cases = type as? any CaseIterable.Type, let first = firstCase(cases) as? T { return first }
        if type is any RawRepresentable.Type {
            throw StoreError(.invalidModel, "\(type) has no value to read the record type's entity with",
                             hint: "make \(type) CaseIterable, or the property optional")
        }
        return try T(from: ProbeDecoder(log: log, top: false))
    }

    private static func firstCase<C: CaseIterable>(_ t: C.Type) -> Any? { t.allCases.first }

    static func primitive<T>(_ type: T.Type) -> T? {
        let v: Any?
        switch type {
        case is Int.Type: v = 0 as Int
        case is Int64.Type: v = 0 as Int64
        case is Int32.Type: v = 0 as Int32
        case is Int16.Type: v = 0 as Int16
        case is Int8.Type: v = 0 as Int8
        case is UInt8.Type: v = 0 as UInt8
        case is UInt16.Type: v = 0 as UInt16
        case is UInt32.Type: v = 0 as UInt32
        case is UInt64.Type: v = 0 as UInt64
        case is UInt.Type: v = 0 as UInt
        case is Double.Type: v = 0 as Double
        case is Float.Type: v = 0 as Float
        case is Decimal.Type: v = Decimal(0)
        case is Bool.Type: v = false
        case is String.Type: v = ""
        case is Date.Type: v = Date(timeIntervalSinceReferenceDate: 0)
        case is Data.Type: v = Data()
        case is UUID.Type: v = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        case is URL.Type: v = URL(string: "about:blank")
        default: v = nil
        }
        return v as? T
    }

    final class Log {
        var properties: [Property] = []
        func record(_ key: CodingKey, _ type: Any.Type, optional: Bool) {
            guard !properties.contains(where: { $0.name == key.stringValue }) else { return }
            properties.append(Property(name: key.stringValue, swiftType: "\(type)", type: attributeType(type), isOptional: optional))
        }
    }

    struct ProbeDecoder: Decoder {
        let log: Log
        /// Only the record's own keys are its properties (not those of a nested value).
        let top: Bool
        var codingPath: [CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Keyed<Key>(log: log, top: top))
        }
        func unkeyedContainer() throws -> UnkeyedDecodingContainer { Unkeyed() }
        func singleValueContainer() throws -> SingleValueDecodingContainer { Single(log: log) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let log: Log
        let top: Bool
        var codingPath: [CodingKey] = []
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if top { log.record(key, type, optional: false) }
            return try standIn(type, log: Log())
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if top { log.record(key, type, optional: true) }
            return nil
        }
        // The standard library's own versions of these would ask decodeNil, then decode: the
        // property would read as required.
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try absent(type, key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try absent(type, key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try absent(type, key) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try absent(type, key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try absent(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try absent(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try absent(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try absent(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try absent(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try absent(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try absent(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try absent(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try absent(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try absent(type, key) }
        private func absent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
            if top { log.record(key, type, optional: true) }
            return nil
        }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(Keyed<N>(log: log, top: false))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { Unkeyed() }
        func superDecoder() throws -> Decoder { ProbeDecoder(log: log, top: false) }
        func superDecoder(forKey key: Key) throws -> Decoder { ProbeDecoder(log: log, top: false) }
    }

    /// Always empty: an array property (a many-to-many's keys) reads as [].
    struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [CodingKey] = []
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "empty"))
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            throw DecodingError.valueNotFound(N.self, .init(codingPath: codingPath, debugDescription: "empty"))
        }
        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { Unkeyed() }
        mutating func superDecoder() throws -> Decoder { throw DecodingError.valueNotFound(Decoder.self, .init(codingPath: codingPath, debugDescription: "empty")) }
    }

    struct Single: SingleValueDecodingContainer {
        let log: Log
        var codingPath: [CodingKey] = []
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try standIn(type, log: log) }
    }
}

/// What lets the probe see through `Optional<Wrapped>` to the wrapped type.
protocol OptionalProtocol { static var wrappedType: Any.Type { get } }
extension Optional: OptionalProtocol { static var wrappedType: Any.Type { Wrapped.self } }

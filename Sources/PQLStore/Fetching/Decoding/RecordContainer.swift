import Foundation
import PQL

/// A record's fields by key: each read from its column, the common types straight from the
/// cell and the rest through the column's value.
struct RecordContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RecordDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.fields.names.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.column(named: key.stringValue) != nil }

    @inline(__always) private func column(_ key: Key) throws -> Int {
        guard let c = decoder.column(named: key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no field '\(key.stringValue)'"))
        }
        return c
    }

    /// The column of `key`, nil when the record has no such field or it is NULL.
    @inline(__always) private func presentColumn(_ key: Key) throws -> Int? {
        guard let c = decoder.column(named: key.stringValue), try !decoder.row.isNull(c) else { return nil }
        return c
    }

    private func value(_ c: Int) throws -> PredicateValue { try decoder.row.value(c) }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder.row.isNull(try column(key)) }

    // The typed readers, then the value's conversion for what they do not cover: in the
    // decoder, which is not generic, so that they are compiled for each type (here, inside a
    // container generic over a `Key` known only at run time, an integer's conversion looked
    // up its type's metadata for every field).
    @inline(__always) private func bool(_ c: Int, _ key: Key) throws -> Bool { try decoder.bool(c) { [key] } }
    @inline(__always) private func string(_ c: Int, _ key: Key) throws -> String { try decoder.string(c) { [key] } }
    @inline(__always) private func double(_ c: Int, _ key: Key) throws -> Double { try decoder.double(c) { [key] } }
    @inline(__always) private func float(_ c: Int, _ key: Key) throws -> Float { try decoder.float(c) { [key] } }
    @inline(__always) private func integer<T: FixedWidthInteger>(_ c: Int, _ key: Key, _: T.Type) throws -> T { try decoder.integer(c, T.self) { [key] } }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(try column(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(try column(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try double(try column(key), key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(try column(key), key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(try column(key), key, Int.self) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(try column(key), key, Int8.self) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(try column(key), key, Int16.self) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(try column(key), key, Int32.self) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(try column(key), key, Int64.self) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(try column(key), key, UInt.self) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(try column(key), key, UInt8.self) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(try column(key), key, UInt16.self) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(try column(key), key, UInt32.self) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(try column(key), key, UInt64.self) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(T.self, column: try column(key), at: [key])
    }

    // Optionals: one lookup of the column, where the protocol's defaults make three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentColumn(key).map { c in try bool(c, key) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let c = decoder.column(named: key.stringValue) else { return nil }
        if let s = try decoder.row.string(c) { return s }
        return try decoder.row.isNull(c) ? nil : try string(c, key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentColumn(key).map { c in try double(c, key) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try presentColumn(key).map { c in try float(c, key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentColumn(key).map { c in try integer(c, key, Int.self) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentColumn(key).map { c in try integer(c, key, Int8.self) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentColumn(key).map { c in try integer(c, key, Int16.self) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentColumn(key).map { c in try integer(c, key, Int32.self) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentColumn(key).map { c in try integer(c, key, Int64.self) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentColumn(key).map { c in try integer(c, key, UInt.self) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentColumn(key).map { c in try integer(c, key, UInt8.self) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentColumn(key).map { c in try integer(c, key, UInt16.self) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentColumn(key).map { c in try integer(c, key, UInt32.self) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentColumn(key).map { c in try integer(c, key, UInt64.self) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentColumn(key).map { c in try decoder.decode(T.self, column: c, at: [key]) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try PredicateValueDecoder(try value(try column(key)), codingPath: [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try PredicateValueDecoder(try value(try column(key)), codingPath: [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let c = decoder.fields.columns["super"] else { return PredicateValueDecoder(.null) }
        return ColumnDecoder(decoder: decoder, column: c, codingPath: [])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let c = decoder.column(named: key.stringValue) else { return PredicateValueDecoder(.null, codingPath: [key]) }
        return ColumnDecoder(decoder: decoder, column: c, codingPath: [key])
    }
}

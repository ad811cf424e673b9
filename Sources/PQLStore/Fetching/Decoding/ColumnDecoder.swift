import Foundation
import PQL

/// One column of a row as a decoder of its own, for a field whose type decodes itself (an
/// enum through its raw value, a wrapper): a single value read from the cell, or what the
/// column's value holds (a many-to-many's keys) for the other containers.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let decoder: RecordDecoder
    let column: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private var row: any RecordRow { decoder.row }
    private func value() throws -> PredicateValue { try row.value(column) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try PredicateValueDecoder(try value(), codingPath: codingPath).container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try PredicateValueDecoder(try value(), codingPath: codingPath).unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { (try? row.isNull(column)) ?? false }

    func decode(_ type: Bool.Type) throws -> Bool {
        if let b = try row.bool(column) { return b }
        return try ValueConversion.bool(try value(), codingPath)
    }

    func decode(_ type: String.Type) throws -> String {
        if let s = try row.string(column) { return s }
        return try ValueConversion.string(try value(), codingPath)
    }

    func decode(_ type: Double.Type) throws -> Double {
        if let d = try row.double(column) { return d }
        return try ValueConversion.double(try value(), codingPath)
    }

    func decode(_ type: Float.Type) throws -> Float { try ValueConversion.float(try value(), codingPath) }

    private func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        if let i = try row.int64(column), let exact = T(exactly: i) { return exact }
        return try ValueConversion.integer(try value(), T.self, codingPath)
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(T.self, column: column, at: codingPath)
    }
}

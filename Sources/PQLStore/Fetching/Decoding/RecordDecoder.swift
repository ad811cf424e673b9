import Foundation
import PQL

/// Decodes rows straight into `Decodable` types: attribute and link names are the coding
/// keys, `id` the key, and each field is read from its column as the type asks for it, with
/// ``ValueConversion``'s rules (those of the records' JSON form, which it replaces).
///
/// One decoder serves a whole fetch: the store points ``row`` at each row in turn.
package final class RecordDecoder: Decoder {
    // Unchecked exclusivity: every field of every row reads these, and the dynamic check of
    // each access (a thread-local access set) cost as much as a field's decoding. One fetch
    // owns its decoder on one task, and no access to them overlaps another. The store moves
    // `row` (its own object) from row to row.
    package let row: any RecordRow
    @exclusivity(unchecked) var fields: RecordFields
    package let codingPath: [any CodingKey] = []
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The keys the type asked for in the last row, in order, and their columns. A Decodable
    /// type asks for the same keys in the same order row after row: the key asked at a place
    /// is compared with last row's key there (two short strings) before the fields'
    /// dictionary is hashed, which for every key of every row was a large part of the cost.
    @exclusivity(unchecked) private var askedNames: [String] = []
    @exclusivity(unchecked) private var askedColumns: [Int?] = []
    @exclusivity(unchecked) private var asked = 0

    /// The column of the field `name`, nil when the record has none.
    @inline(__always) func column(named name: String) -> Int? {
        defer { asked += 1 }
        if asked < askedNames.count {
            if askedNames[asked] == name { return askedColumns[asked] }
            let c = fields.columns[name]
            askedNames[asked] = name
            askedColumns[asked] = c
            return c
        }
        let c = fields.columns[name]
        askedNames.append(name)
        askedColumns.append(c)
        return c
    }

    package init(row: any RecordRow, fields: RecordFields) {
        self.row = row
        self.fields = fields
    }

    /// The current row as `T`, its fields at the columns `fields` gives; a failure is a
    /// `StoreError` naming the entity, the row's key and the field.
    package func decode<T: Decodable>(_ type: T.Type, fields: RecordFields) throws(StoreError) -> T {
        if fields.entity != self.fields.entity {
            askedNames.removeAll(keepingCapacity: true)
            askedColumns.removeAll(keepingCapacity: true)
        }
        self.fields = fields
        asked = 0
        do {
            return try T(from: self)
        } catch let error as StoreError {
            // The store's own: a cell it could not read.
            throw error
        } catch {
            throw StoreError.decoding(error, entity: fields.entity, id: try? row.int64(fields.keyColumn), as: T.self, fields: fields.names)
        }
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordContainer<Key>(decoder: self))
    }

    /// A type that reads the record other than keyed (an array of it, say) reads its values.
    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try PredicateValueDecoder(try wholeRecord()).unkeyedContainer()
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try PredicateValueDecoder(try wholeRecord()).singleValueContainer()
    }

    /// The record as one dictionary value, as its JSON form was.
    func wholeRecord() throws -> PredicateValue {
        var values: [String: PredicateValue] = [:]
        for name in fields.names { values[name] = try row.value(fields.columns[name]!) }
        return .dictionary(values)
    }

    /// Column `column` as `T`, at `path`.
    func decode<T: Decodable>(_ type: T.Type, column: Int, at path: [any CodingKey]) throws -> T {
        if T.self == Date.self, let d = try row.date(column) { return d as! T }
        if ValueConversion.isSpecial(T.self) { return try ValueConversion.special(try row.value(column), as: T.self, path)! }
        return try T(from: ColumnDecoder(decoder: self, column: column, codingPath: path))
    }

    // A field's typed reads: straight from the cell, else through the column's value.
    // `path` only for a failure.
    @inline(__always) func bool(_ c: Int, at path: () -> [any CodingKey]) throws -> Bool {
        if let b = try row.bool(c) { return b }
        return try ValueConversion.bool(try row.value(c), path())
    }

    @inline(__always) func string(_ c: Int, at path: () -> [any CodingKey]) throws -> String {
        if let s = try row.string(c) { return s }
        return try ValueConversion.string(try row.value(c), path())
    }

    @inline(__always) func double(_ c: Int, at path: () -> [any CodingKey]) throws -> Double {
        if let d = try row.double(c) { return d }
        return try ValueConversion.double(try row.value(c), path())
    }

    func float(_ c: Int, at path: () -> [any CodingKey]) throws -> Float {
        try ValueConversion.float(try row.value(c), path())
    }

    @inline(__always) func integer<T: FixedWidthInteger>(_ c: Int, _: T.Type, at path: () -> [any CodingKey]) throws -> T {
        if let i = try row.int64(c), let exact = T(exactly: i) { return exact }
        return try ValueConversion.integer(try row.value(c), T.self, path())
    }
}

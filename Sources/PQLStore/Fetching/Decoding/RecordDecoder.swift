import Foundation
import PQL

/// Decodes rows straight into `Decodable` types: attribute and link names are the coding
/// keys, `id` the key, and each field is read from its column as the type asks for it, with
/// ``ValueConversion``'s rules (those of the records' JSON form, which it replaces).
///
/// One decoder serves a whole fetch: the store points ``row`` at each row in turn.
package final class RecordDecoder<Row: RecordRow>: Decoder {
    package var row: Row
    var fields: RecordFields
    package let codingPath: [any CodingKey] = []
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The keys the type asked for in the last row, in order, and their columns. A Decodable
    /// type asks for the same keys in the same order row after row: the key asked at a place
    /// is compared with last row's key there (two short strings) before the fields'
    /// dictionary is hashed, which for every key of every row was a large part of the cost.
    private var askedNames: [String] = []
    private var askedColumns: [Int?] = []
    private var asked = 0

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

    package init(row: Row, fields: RecordFields) {
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
        KeyedDecodingContainer(RecordContainer<Key, Row>(decoder: self))
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
}

import Foundation
import PQL

/// A fetched row as ``RecordDecoder`` reads it, column by column. Each store reads its own
/// cells: `value(_:)` gives a column as a `StoreRecord` holds it, and the typed readers give
/// the common cases straight from the cell, without building that value.
///
/// A class, reached through an existential: the decoder's containers are generic over the
/// type's coding keys, known only at run time, so over a generic row every field's read went
/// through unspecialized code that copied the row (its arrays retained and released) and
/// looked up metadata. A class's witness is the store's own optimized code.
package protocol RecordRow: AnyObject {
    /// Whether the column is NULL.
    func isNull(_ column: Int) throws -> Bool
    /// The column's value as the store's `StoreRecord` holds it.
    func value(_ column: Int) throws -> PredicateValue
    /// The column as an integer when ``value(_:)`` would be `.int`; nil otherwise (NULL included).
    func int64(_ column: Int) throws -> Int64?
    /// The column as a double when ``value(_:)`` would be `.double`; nil otherwise.
    func double(_ column: Int) throws -> Double?
    /// The column as a boolean when ``value(_:)`` would be `.bool`; nil otherwise.
    func bool(_ column: Int) throws -> Bool?
    /// The column as text when ``value(_:)`` would be `.string`; nil otherwise.
    func string(_ column: Int) throws -> String?
    /// The column as a date when ``value(_:)`` would be `.date`; nil otherwise.
    func date(_ column: Int) throws -> Date?
}

/// Which column of a row holds each field of a record: its attributes and links by name, and
/// `id` for the key unless the entity has a field of that name. Worked out once per fetch
/// (once per entity where entities share a table), not per row.
package struct RecordFields: Sendable {
    /// The entity the rows belong to, for errors.
    package let entity: String
    /// The column of the record's key.
    package let keyColumn: Int
    let columns: [String: Int]
    /// Every field's name, `id` first: a dictionary decoded from the record has these keys.
    let names: [String]

    package init(entity: String, keyColumn: Int = 0, fields: [(name: String, column: Int)]) {
        self.entity = entity
        self.keyColumn = keyColumn
        var columns: [String: Int] = [:]
        var names: [String] = []
        // As the record's JSON form had it: `id` is the key, unless a field of that name replaces it.
        if !fields.contains(where: { $0.name == "id" }) {
            columns["id"] = keyColumn
            names.append("id")
        }
        for f in fields where columns.updateValue(f.column, forKey: f.name) == nil { names.append(f.name) }
        self.columns = columns
        self.names = names
    }
}

import CSQLite
import Foundation
import PQL

/// The current row of a records statement (`SelectBuilder.records`) for ``RecordDecoder``:
/// each column read from SQLite as its attribute's kind says, as `forEach` reads it into a
/// `StoreRecord`.
final class SQLiteRecordRow: RecordRow {
    /// How each column of the statement reads.
    enum Reading {
        case kind(SQLKind)
        /// A many-to-many's keys, as text (see `SelectBuilder.keyArray`).
        case keyList
    }

    let statement: SQLiteStatement
    let readings: [Reading]

    init(statement: SQLiteStatement, readings: [Reading]) {
        self.statement = statement
        self.readings = readings
    }

    private var handle: OpaquePointer { statement.handle }
    private func type(_ c: Int) -> Int32 { sqlite3_column_type(handle, Int32(c)) }

    /// A many-to-many's NULL is no links, an empty array: never nil.
    func isNull(_ column: Int) -> Bool {
        if case .keyList = readings[column] { return false }
        return type(column) == SQLITE_NULL
    }

    func value(_ column: Int) -> PredicateValue {
        switch readings[column] {
        case .keyList: return SelectBuilder.keyArray(isNull(column) ? nil : statement.text(Int32(column)))
        case .kind(let kind): return kind.value(statement.value(Int32(column)))
        }
    }

    func int64(_ column: Int) -> Int64? {
        guard type(column) == SQLITE_INTEGER, case .kind(let kind) = readings[column] else { return nil }
        switch kind {
        case .boolean, .date, .real, .decimal: return nil
        default: return sqlite3_column_int64(handle, Int32(column))
        }
    }

    func double(_ column: Int) -> Double? {
        guard case .kind(let kind) = readings[column], kind != .date, kind != .decimal else { return nil }
        switch type(column) {
        case SQLITE_FLOAT: return sqlite3_column_double(handle, Int32(column))
        case SQLITE_INTEGER where kind == .real: return Double(sqlite3_column_int64(handle, Int32(column)))
        default: return nil
        }
    }

    func bool(_ column: Int) -> Bool? {
        guard type(column) == SQLITE_INTEGER, case .kind(.boolean) = readings[column] else { return nil }
        return sqlite3_column_int64(handle, Int32(column)) != 0
    }

    func string(_ column: Int) -> String? {
        guard type(column) == SQLITE_TEXT, case .kind = readings[column] else { return nil }
        return statement.text(Int32(column))
    }

    func date(_ column: Int) -> Date? {
        guard case .kind(.date) = readings[column] else { return nil }
        switch type(column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return Date(timeIntervalSinceReferenceDate: sqlite3_column_double(handle, Int32(column)))
        default: return nil
        }
    }
}

/// The columns of a records statement: where each entity's fields are, and how each column
/// reads. Entities that share a table each read only their own attributes.
struct SQLiteRecordLayout {
    /// The statement's column after the key (and the entity number) for each attribute and link.
    let columns: [(index: Int32, name: String, kind: SQLKind)]
    let readings: [SQLiteRecordRow.Reading]
    let first: Int32

    init(_ st: SelectBuilder.Statement) {
        let first: Int32 = st.hasEntityColumn ? 2 : 1
        self.first = first
        let read = st.attributes + st.links
        columns = read.enumerated().map { (index: first + Int32($0.offset), name: $0.element.name, kind: $0.element.kind) }
        readings = Array(repeating: .kind(.integer), count: Int(first))
            + read.map { st.keyLists.contains($0.name) ? .keyList : .kind($0.kind) }
    }

    /// The columns `entity` reads: those named in `own`, or all.
    func columns(own: Set<String>?) -> [(index: Int32, name: String, kind: SQLKind)] {
        columns.filter { own?.contains($0.name) ?? true }
    }

    /// For each entity number (when entities share the table), the names of its attributes and links.
    static func ownNames(_ model: StoreModel) -> [(number: Int64, entity: ModelEntity, names: Set<String>)] {
        model.entities.map { (Int64(model.entityNumber($0)), $0, Set(model.allAttributes($0).map(\.name) + model.allRelationships($0).map(\.name))) }
    }
}

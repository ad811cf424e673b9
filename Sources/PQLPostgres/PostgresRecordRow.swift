import Foundation
import PostgresNIO
import PQL
import PQLStore

/// A row of a records statement for the store's `RecordDecoder`: each cell decoded by its
/// attribute's type, as ``RowLayout`` reads it into a `StoreRecord`. One value serves a whole
/// fetch, its cells replaced row by row.
final class PostgresRecordRow: RecordRow {
    /// The current row's cells. Unchecked exclusivity: every field reads them, and a fetch
    /// loads and reads its row on one task, one access at a time.
    @exclusivity(unchecked) private var cells: [PostgresCell] = []
    /// How each column of the row reads: the key, the entity number, then the layout's columns.
    private let readings: [RowLayout.Column]
    /// Each column's type and whether it is a many-to-many's key list, apart from `readings`:
    /// the typed readers run for every field of every row, and reading them here copies no
    /// column name (a retain and a release each time).
    private let types: [AttributeType]
    private let keyLists: [Bool]

    init(_ layout: RowLayout) {
        let key = RowLayout.Column(name: "id", type: .integer64)
        readings = Array(repeating: key, count: layout.hasEntityColumn ? 2 : 1) + layout.columns
        types = readings.map(\.type)
        keyLists = readings.map(\.isKeyList)
    }

    /// The first column of the layout's attributes and links in the row.
    static func first(_ layout: RowLayout) -> Int { layout.hasEntityColumn ? 2 : 1 }

    func load(_ row: PostgresRow) {
        cells.removeAll(keepingCapacity: true)
        cells.append(contentsOf: row)
    }

    /// A cell as `T`; a cell the server sent in another type than the model's is a `StoreError`.
    /// `T`'s own decoding initializer, called directly: `PostgresCell.decode` goes through
    /// an `Optional<T>` it looks up at run time, for every cell.
    @inline(__always)
    private func cell<T: PostgresDecodable>(_ column: Int, _: T.Type) throws -> T? {
        guard var bytes = cells[column].bytes else { return nil }
        do {
            return try T(from: &bytes, type: cells[column].dataType, format: cells[column].format, context: .default)
        } catch {
            throw ServerErrors.storeError(error, doing: "reading \(readings[column].name)")
        }
    }

    /// A many-to-many's NULL is no links, an empty array: never nil.
    func isNull(_ column: Int) -> Bool { !keyLists[column] && cells[column].bytes == nil }

    func value(_ column: Int) throws -> PredicateValue {
        let r = readings[column]
        if r.isKeyList { return SelectBuilder.keyArray(try cell(column, String.self)) }
        do { return try RowLayout.value(cells[column], r.type) } catch { throw ServerErrors.storeError(error, doing: "reading \(r.name)") }
    }

    func int64(_ column: Int) throws -> Int64? {
        switch types[column] {
        case .integer16, .integer32, .integer64: return try cell(column, Int64.self)
        default: return nil
        }
    }

    func double(_ column: Int) throws -> Double? {
        switch types[column] {
        case .double, .float: return try cell(column, Double.self)
        default: return nil
        }
    }

    func bool(_ column: Int) throws -> Bool? {
        types[column] == .boolean ? try cell(column, Bool.self) : nil
    }

    func string(_ column: Int) throws -> String? {
        guard !keyLists[column] else { return nil }
        switch types[column] {
        case .string, .uri: return try cell(column, String.self)
        case .uuid: return try cell(column, String.self)?.uppercased()
        default: return nil
        }
    }

    func date(_ column: Int) throws -> Date? {
        types[column] == .date ? try cell(column, Date.self) : nil
    }
}

extension RowLayout {
    /// Where each entity's fields are in a row: for the fetched entity (and rows of an entity
    /// number the model lacks, read whole as ``record(_:)`` reads them), and by entity number.
    func recordFields() -> (all: RecordFields, byNumber: [Int64: RecordFields]) {
        let first = PostgresRecordRow.first(self)
        func fields(_ entity: String, _ own: Set<String>?) -> RecordFields {
            RecordFields(entity: entity, fields: columns.enumerated().filter { own?.contains($0.element.name) ?? true }.map { ($0.element.name, first + $0.offset) })
        }
        return (fields(entity, nil), entities.mapValues { fields($0.name, $0.attributes) })
    }
}

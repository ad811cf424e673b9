import Foundation
import PQL

/// A data file read whole into typed columns: its ``ImportColumns`` and every row in memory.
///
/// For small files, tests and the REPL's in-memory sources. Imports into a store should not
/// hold the rows: ``PredicateStore/importFile(_:into:columns:links:)`` streams an ``ImportSource``
/// in bounded memory, with the same type rules (see ``csv(_:limits:)`` and ``json(_:limits:)``).
/// `optional[i]` is true when column `i` has a NULL (or, in JSON, a record without the key);
/// `rows[r][i]` is `.null` there, and otherwise a value of `types[i]`: `.int` for
/// `integer64`, `.double`, `.bool`, `.date` or `.string`.
///
/// ```swift
/// let table = try ImportTable.read(contentsOf: URL(fileURLWithPath: "airports.csv"))
/// table.columns    // ["faa", "name", "lat", "lon", "alt", "tz", "dst", "tzone"]
/// table.types[2]   // .double
/// ```
public struct ImportTable: Sendable, Hashable {
    /// Column names, in the file's order.
    public var columns: [String]
    /// One inferred type per column.
    public var types: [AttributeType]
    /// One flag per column: does it hold NULLs?
    public var optional: [Bool]
    /// The values, row by row, one per column.
    public var rows: [[PredicateValue]]

    /// A table from parts already typed; `types`, `optional` and every row must have one
    /// entry per column.
    ///
    /// ```swift
    /// let t = ImportTable(columns: ["n"], types: [.integer64], optional: [false], rows: [[1], [2]])
    /// ```
    public init(columns: [String], types: [AttributeType], optional: [Bool], rows: [[PredicateValue]]) {
        self.columns = columns
        self.types = types
        self.optional = optional
        self.rows = rows
    }

    /// The most columns a table may have: SQLite's default limit, which the store cannot
    /// exceed. It also bounds JSON whose records each bring new keys, which would otherwise
    /// pad every row to an ever wider table.
    ///
    /// ```swift
    /// ImportTable.maxColumns   // 2000
    /// ```
    public static let maxColumns = 2000

    /// The most columns a data file may bring into a new table: ``maxColumns`` less the key
    /// column (`Z_PK`) the store adds to every table.
    ///
    /// ```swift
    /// ImportTable.maxFileColumns   // 1999
    /// ```
    public static let maxFileColumns = maxColumns - 1

    /// The index of the column named `name`.
    ///
    /// ```swift
    /// if let alt = table.column(named: "alt") { print(table.rows[0][alt]) }   // 1044
    /// ```
    public func column(named name: String) -> Int? { columns.firstIndex(of: name) }
}

// MARK: - Text cells

extension ImportTable {
    /// Types text cells the way CSV import does (see ``csv(_:limits:)``): nil is NULL, and each
    /// column gets the narrowest of integer64, double, boolean, date and string that fits.
    ///
    /// For callers that split text themselves (a TSV, a spreadsheet export, a test):
    ///
    /// ```swift
    /// let t = try ImportTable.inferring(columns: ["id", "score"], rows: [["1", "2.5"], ["2", nil]])
    /// t.types      // [.integer64, .double]
    /// t.optional   // [false, true]
    /// ```
    public static func inferring(columns: [String], rows: [[String?]]) throws(StoreError) -> ImportTable {
        try checkNames(columns, where: "column")
        for (r, row) in rows.enumerated() where row.count != columns.count {
            throw StoreError(.importFailed, "row \(r + 1) has \(row.count) value\(row.count == 1 ? "" : "s"), but there are \(columns.count) columns",
                             hint: "give every row one value per column, nil for a missing one")
        }
        var types: [AttributeType] = []
        var optional: [Bool] = []
        for c in columns.indices {
            let cells = rows.map { $0[c] }
            types.append(ColumnTypeInference.inferType(of: cells))
            optional.append(cells.contains { $0 == nil })
        }
        var out: [[PredicateValue]] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            var values: [PredicateValue] = []
            values.reserveCapacity(columns.count)
            for (c, cell) in row.enumerated() {
                // Inference saw every cell, so each one fits its column's type.
                values.append(ColumnTypeInference.value(of: cell, as: types[c]) ?? cell.map { .string($0) } ?? .null)
            }
            out.append(values)
        }
        return ImportTable(columns: columns, types: types, optional: optional, rows: out)
    }

    static func checkNames(_ names: [String], where noun: String) throws(StoreError) {
        var seen: Set<String> = []
        for name in names {
            guard !name.isEmpty else {
                throw StoreError(.importFailed, "a \(noun) has an empty name", hint: "give every \(noun) a name")
            }
            guard seen.insert(name).inserted else {
                throw StoreError(.importFailed, "two \(noun)s are named '\(name)'", hint: "give every \(noun) a distinct name")
            }
        }
    }
}

// MARK: - CSV

extension ImportTable {
    /// Reads RFC 4180 CSV with a header row, inferring each column's type.
    ///
    /// Unquoted empty fields and unquoted `NA` are NULL; a quoted `""` is an empty string.
    /// Quotes do not make a cell text: `"12"` counts as 12, since some writers quote every field.
    /// A column is `integer64` when every other cell is an integer without leading zeros
    /// (`007` is a code, so text), `double` when every cell is a number (and a double holds each
    /// integer among them exactly), `boolean` for `true`/`false` in any case, `date` for
    /// ISO-8601 (`2013-01-01T10:00:00Z`, `2013-01-01`), otherwise `string`; no number is ever
    /// rounded (see `ColumnTypeInference`). Ragged rows, unclosed quotes and text that is not
    /// UTF-8 are errors naming the line.
    ///
    /// ```swift
    /// let t = try ImportTable.csv(Data("carrier,flights\nUA,58665\nAA,NA\n".utf8))
    /// t.types      // [.string, .integer64]
    /// t.rows[1]    // ["AA", nil]
    /// ```
    public static func csv(_ data: Data, limits: ImportLimits = ImportLimits()) throws(StoreError) -> ImportTable {
        try read(ImportSource(csv: data, limits: limits))
    }
}

// MARK: - JSON

extension ImportTable {
    /// Reads a JSON array of objects, or JSON Lines (one object per line), as a table whose
    /// columns are the keys in order of first appearance.
    ///
    /// JSON is typed, so its types are taken as written: integers are `integer64`, a key with
    /// integers and fractions is `double` (or `integer64` if every fraction is a whole number
    /// and a double would round one of the integers, or text if both), `true`/`false` is
    /// `boolean`, `{"$date": "…"}` is `date`, and strings stay strings even when they look like
    /// dates. A key holding values of other mixed kinds, or integers beyond 64 bits, becomes a
    /// string column with each value written as text. `null` and a missing key are NULL.
    /// Nested arrays and objects have no column type and are refused, naming the key; so are
    /// numbers beyond a double's range (`1e400`), naming the line.
    ///
    /// ```swift
    /// let t = try ImportTable.json(Data(#"[{"id": 1, "at": {"$date": "2013-01-01"}}, {"id": 2.5}]"#.utf8))
    /// t.columns    // ["id", "at"]
    /// t.types      // [.double, .date]
    /// t.optional   // [false, true]
    /// ```
    public static func json(_ data: Data, limits: ImportLimits = ImportLimits()) throws(StoreError) -> ImportTable {
        try read(ImportSource(json: data, limits: limits))
    }
}

// MARK: - Files

extension ImportTable {
    /// Reads a data file whole, choosing the reader by its extension: `.csv`, `.json`, `.jsonl`
    /// or `.ndjson`, or `.zip` (such as `flights.csv.zip`) holding one file of those kinds.
    ///
    /// Errors name the file, so a batch import says which file failed.
    ///
    /// ```swift
    /// let flights = try ImportTable.read(contentsOf: URL(fileURLWithPath: "flights.csv.zip"))
    /// flights.rows.count   // 336776
    /// ```
    public static func read(contentsOf url: URL, limits: ImportLimits = ImportLimits()) throws(StoreError) -> ImportTable {
        try read(ImportSource(contentsOf: url, limits: limits))
    }

    /// Reads a source's two passes into memory.
    public static func read(_ source: ImportSource) throws(StoreError) -> ImportTable {
        let columns = try source.inferColumns()
        var rows: [[PredicateValue]] = []
        rows.reserveCapacity(columns.rowCount)
        try source.forEachRow(columns) { row, _ in rows.append(row) }
        return ImportTable(columns: columns.names, types: columns.types, optional: columns.optional, rows: rows)
    }

    /// The table's column names, types and NULL flags.
    public var importColumns: ImportColumns {
        ImportColumns(names: columns, types: types, optional: optional, rowCount: rows.count)
    }
}

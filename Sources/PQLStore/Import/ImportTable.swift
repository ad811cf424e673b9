import Foundation
import PQL

/// A data file read into typed columns, ready to become an entity and its rows.
///
/// Column types are inferred from the data, so a CSV needs no schema: see
/// ``csv(_:)`` and ``json(_:)`` for the rules. `optional[i]` is true when column `i` has a
/// NULL (or, in JSON, a record without the key); `rows[r][i]` is `.null` there, and otherwise
/// a value of `types[i]`: `.int` for `integer64`, `.double`, `.bool`, `.date` or `.string`.
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

    /// The index of the column named `name`.
    ///
    /// ```swift
    /// if let alt = table.column(named: "alt") { print(table.rows[0][alt]) }   // 1044
    /// ```
    public func column(named name: String) -> Int? { columns.firstIndex(of: name) }
}

// MARK: - Text cells

extension ImportTable {
    /// Types text cells the way CSV import does (see ``csv(_:)``): nil is NULL, and each
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
    /// (`007` is a code, so text), `double` when every cell is a number, `boolean` for
    /// `true`/`false` in any case, `date` for ISO-8601 (`2013-01-01T10:00:00Z`, `2013-01-01`),
    /// otherwise `string`. Ragged rows, unclosed quotes and text that is not UTF-8 are errors
    /// naming the line.
    ///
    /// ```swift
    /// let t = try ImportTable.csv(Data("carrier,flights\nUA,58665\nAA,NA\n".utf8))
    /// t.types      // [.string, .integer64]
    /// t.rows[1]    // ["AA", nil]
    /// ```
    public static func csv(_ data: Data) throws(StoreError) -> ImportTable {
        let table = try CSVReader.read(data)
        let r: Result<ImportTable, StoreError> = table.bytes.withUnsafeBufferPointer { p in
            do throws(StoreError) { return .success(try typed(table, p)) } catch { return .failure(error) }
        }
        return try r.get()
    }

    private static func typed(_ t: CSVReader.Table, _ p: UnsafeBufferPointer<UInt8>) throws(StoreError) -> ImportTable {
        // A table always has a header, so there are bytes; this only guards the pointer.
        guard let base = p.baseAddress else {
            throw StoreError(.importFailed, "the CSV file is empty", hint: "the first line must be a header row naming the columns")
        }
        let columnCount = t.columnCount
        guard columnCount <= maxColumns else {
            throw StoreError(.importFailed, "the CSV header has \(columnCount) columns; a table can have at most \(maxColumns)",
                             hint: "split the file into tables of fewer columns")
        }
        let rowCount = t.rowCount
        var types: [AttributeType] = []
        var optional: [Bool] = []
        var badCell: (row: Int, column: Int)?
        let rows: [[PredicateValue]] = t.spans.withUnsafeBufferPointer { spans in
            // Row by row, not column by column: the cells then stream through the cache in
            // file order, which made inference three times faster on flights.csv.
            var kinds = [ColumnTypeInference.Kinds](repeating: ColumnTypeInference.allKinds, count: columnCount)
            var sawValue = [Bool](repeating: false, count: columnCount)
            var sawNull = [Bool](repeating: false, count: columnCount)
            kinds.withUnsafeMutableBufferPointer { kinds in
                var k = 0
                for _ in 0..<rowCount {
                    for c in 0..<columnCount {
                        let s = spans[k]
                        if s == CSVReader.null {
                            sawNull[c] = true
                        } else {
                            sawValue[c] = true
                            if kinds[c] != 0 {
                                let cell = UnsafeBufferPointer(start: base + Int(s), count: Int(spans[k + 1] &- s))
                                kinds[c] &= ColumnTypeInference.kinds(of: cell, within: kinds[c])
                            }
                        }
                        k += 2
                    }
                }
            }
            for c in 0..<columnCount {
                types.append(ColumnTypeInference.type(for: kinds[c], sawValue: sawValue[c]))
                optional.append(sawNull[c])
            }
            var rows: [[PredicateValue]] = []
            rows.reserveCapacity(rowCount)
            var k = 0
            for r in 0..<rowCount {
                rows.append([PredicateValue](unsafeUninitializedCapacity: columnCount) { row, initialized in
                    for c in 0..<columnCount {
                        let s = spans[k]
                        var value = PredicateValue.null
                        if s != CSVReader.null {
                            let cell = UnsafeBufferPointer(start: base + Int(s), count: Int(spans[k + 1] &- s))
                            if let v = ColumnTypeInference.value(of: cell, as: types[c]) {
                                value = v
                            } else if badCell == nil {
                                // Only text can fail here: inference checked every other cell.
                                badCell = (r, c)
                            }
                        }
                        row.initializeElement(at: c, to: value)
                        k += 2
                    }
                    initialized = columnCount
                })
                if badCell != nil { break }
            }
            return rows
        }
        if let (r, c) = badCell {
            throw StoreError(.importFailed, "CSV line \(t.line(ofRow: r)), column '\(t.header[c])': the text is not valid UTF-8",
                             hint: "save the file as UTF-8")
        }
        return ImportTable(columns: t.header, types: types, optional: optional, rows: rows)
    }
}

// MARK: - JSON

extension ImportTable {
    /// Reads a JSON array of objects, or JSON Lines (one object per line), as a table whose
    /// columns are the keys in order of first appearance.
    ///
    /// JSON is typed, so its types are taken as written: integers are `integer64`, a key with
    /// integers and fractions is `double`, `true`/`false` is `boolean`, `{"$date": "…"}` is
    /// `date`, and strings stay strings even when they look like dates. A key holding values
    /// of other mixed kinds becomes a string column with each value written as text. `null`
    /// and a missing key are NULL. Nested arrays and objects have no column type and are
    /// refused, naming the key.
    ///
    /// ```swift
    /// let t = try ImportTable.json(Data(#"[{"id": 1, "at": {"$date": "2013-01-01"}}, {"id": 2.5}]"#.utf8))
    /// t.columns    // ["id", "at"]
    /// t.types      // [.double, .date]
    /// t.optional   // [false, true]
    /// ```
    public static func json(_ data: Data) throws(StoreError) -> ImportTable {
        let hasBOM = data.count >= 3 && data.prefix(3).elementsEqual([0xEF, 0xBB, 0xBF])
        let bytes = hasBOM ? [UInt8](data.dropFirst(3)) : [UInt8](data)
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: bytes)
        } catch {
            throw StoreError(.importFailed, "JSON line \(error.line), column \(error.column): \(error.message)",
                             hint: "import needs a JSON array of objects, or one object per line (JSON Lines)")
        }
        // One pass puts each record's values in column order (one hash lookup per value);
        // a key seen for the first time adds a column, ordered as the record's text has it.
        var columns: [String] = []
        var index: [String: Int] = [:]
        var rows: [[PredicateValue]] = []
        rows.reserveCapacity(document.values.count)
        for (r, value) in document.values.enumerated() {
            guard case .dictionary(let record) = value else {
                throw StoreError(.importFailed, "JSON record \(r + 1) is \(value.kindDescription), not an object",
                                 hint: "import needs a JSON array of objects, or one object per line (JSON Lines)")
            }
            var row = [PredicateValue](repeating: .null, count: columns.count)
            var fresh = false
            for (key, v) in record {
                if let c = index[key] { row[c] = v } else { fresh = true }
            }
            if fresh {
                let ordered = JSONReader.objectKeys(in: document.text(of: r)) ?? record.keys.sorted()
                for key in ordered where index[key] == nil {
                    guard let v = record[key] else { continue }
                    guard columns.count < maxColumns else {
                        throw StoreError(.importFailed, "JSON record \(r + 1) brings key '\(key)', beyond the \(maxColumns) columns a table can have",
                                         hint: "a table holds at most \(maxColumns) columns; split the records, or drop keys that are not needed")
                    }
                    index[key] = columns.count
                    columns.append(key)
                    row.append(v)
                }
            }
            rows.append(row)
        }
        guard !rows.isEmpty else {
            throw StoreError(.importFailed, "the JSON document holds no records",
                             hint: "import needs a JSON array of objects, or one object per line (JSON Lines)")
        }
        guard !columns.isEmpty else {
            throw StoreError(.importFailed, "the JSON records have no keys", hint: "give the objects keys to import as columns")
        }
        // Records before a key first appeared lack its column.
        for r in rows.indices where rows[r].count < columns.count {
            rows[r].append(contentsOf: repeatElement(.null, count: columns.count - rows[r].count))
        }
        // Row by row: each row is its own allocation, so walking a column would chase pointers.
        var seen = [JSONKinds](repeating: JSONKinds(), count: columns.count)
        for (r, row) in rows.enumerated() {
            for (c, value) in row.enumerated() {
                switch value {
                case .null: seen[c].null = true
                case .int: seen[c].int = true
                case .double, .decimal: seen[c].double = true
                case .bool: seen[c].bool = true
                case .string: seen[c].string = true
                case .date: seen[c].date = true
                case .array, .set, .dictionary, .data:
                    let key = columns[c]
                    throw StoreError(.importFailed, "JSON record \(r + 1): key '\(key)' holds \(value.kindDescription), which cannot be a column",
                                     hint: "flatten nested values into keys of their own (e.g. '\(key)_x'), or remove '\(key)'")
                }
            }
        }
        let types = seen.map(\.type)
        let optional = seen.map(\.null)
        // Only columns whose values change kind need a second look.
        let converting = columns.indices.filter { c in types[c] == .double || types[c] == .string }
        if !converting.isEmpty {
            for r in rows.indices {
                for c in converting { rows[r][c] = convert(rows[r][c], to: types[c]) }
            }
        }
        return ImportTable(columns: columns, types: types, optional: optional, rows: rows)
    }

    /// Which JSON kinds a key held.
    private struct JSONKinds {
        var null = false, int = false, double = false, bool = false, string = false, date = false

        var type: AttributeType {
            switch (int, double, bool, string, date) {
            case (true, false, false, false, false): return .integer64
            case (_, true, false, false, false): return .double
            case (false, false, true, false, false): return .boolean
            case (false, false, false, false, true): return .date
            default: return .string
            }
        }
    }

    private static func convert(_ value: PredicateValue, to type: AttributeType) -> PredicateValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.int(let i), .double): return .double(Double(i))
        case (.decimal(let d), .double): return .double(NSDecimalNumber(decimal: d).doubleValue)
        case (.int(let i), .string): return .string(String(i))
        case (.double(let d), .string): return .string(String(d))
        case (.decimal(let d), .string): return .string("\(d)")
        case (.bool(let b), .string): return .string(b ? "true" : "false")
        case (.date(let d), .string): return .string(PQL.ISO8601.string(from: d))
        default: return value
        }
    }
}

// MARK: - Files

extension ImportTable {
    /// Reads a data file, choosing the reader by its extension: `.csv`, `.json`, `.jsonl` or
    /// `.ndjson`, or `.zip` (such as `flights.csv.zip`) holding one file of those kinds.
    ///
    /// Errors name the file, so a batch import says which file failed.
    ///
    /// ```swift
    /// let flights = try ImportTable.read(contentsOf: URL(fileURLWithPath: "flights.csv.zip"))
    /// flights.rows.count   // 336776
    /// ```
    public static func read(contentsOf url: URL) throws(StoreError) -> ImportTable {
        let file = url.lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            let problem = InputFile.problem(url.path, error)
            throw StoreError(.importFailed, problem.message, hint: problem.hint)
        }
        do throws(StoreError) {
            switch Format(fileName: file) {
            case .csv: return try csv(data)
            case .json: return try json(data)
            case .zip: return try zipped(data)
            case nil:
                throw StoreError(.importFailed, "cannot tell the format of '\(file)' from its extension",
                                 hint: "use a .csv, .json, .jsonl, .ndjson or .zip file")
            }
        } catch {
            throw StoreError(error.kind, "\(file): \(error.message)", hint: error.hint)
        }
    }

    private enum Format {
        case csv, json, zip

        init?(fileName: String) {
            switch (fileName as NSString).pathExtension.lowercased() {
            case "csv": self = .csv
            case "json", "jsonl", "ndjson": self = .json
            case "zip": self = .zip
            default: return nil
            }
        }
    }

    /// The one CSV or JSON file in a ZIP archive (folders and macOS metadata ignored).
    private static func zipped(_ data: Data) throws(StoreError) -> ImportTable {
        let archive = try ZipArchive(data: data)
        let files = archive.entries.filter { entry in
            let base = (entry.name as NSString).lastPathComponent
            return !entry.isDirectory && !entry.name.hasPrefix("__MACOSX/") && !base.hasPrefix(".")
        }
        let readable = files.filter { Format(fileName: $0.name).map { $0 != .zip } ?? false }
        guard let entry = readable.first else {
            let names = files.map(\.name)
            throw StoreError(.importFailed, "the ZIP archive holds no .csv, .json, .jsonl or .ndjson file",
                             hint: names.isEmpty ? "the archive is empty" : "its files are: \(names.prefix(12).joined(separator: ", "))")
        }
        guard readable.count == 1 else {
            throw StoreError(.importFailed, "the ZIP archive holds \(readable.count) data files (\(readable.prefix(6).map(\.name).joined(separator: ", "))), so which one to import is unclear",
                             hint: "unzip the archive and import each file on its own")
        }
        let contents = try archive.extract(entry)
        do throws(StoreError) {
            if Format(fileName: entry.name) == .csv { return try csv(contents) }
            return try json(contents)
        } catch {
            throw StoreError(error.kind, "\(entry.name): \(error.message)", hint: error.hint)
        }
    }
}

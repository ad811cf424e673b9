import Foundation
import PQL

/// The columns of a data file: names in the file's order, the type inferred for each, and
/// whether it holds NULLs. ``ImportSource/inferColumns()`` reads them in a first pass over the
/// file; the store creates an entity from them.
///
/// ```swift
/// let columns = try ImportSource(contentsOf: URL(fileURLWithPath: "airports.csv")).inferColumns()
/// columns.names      // ["faa", "name", "lat", "lon", "alt", "tz", "dst", "tzone"]
/// columns.types[2]   // .double
/// ```
public struct ImportColumns: Sendable, Hashable {
    /// Column names, in the file's order (JSON: the order keys first appear in).
    public var names: [String]
    /// One type per column.
    public var types: [AttributeType]
    /// One flag per column: does it hold NULLs (in JSON, also a record without the key)?
    public var optional: [Bool]
    /// How many records (rows) the file holds.
    public var rowCount: Int

    /// Columns given outright; `types` and `optional` need one entry per name.
    ///
    /// ```swift
    /// let c = ImportColumns(names: ["id"], types: [.integer64], optional: [false], rowCount: 2)
    /// ```
    public init(names: [String], types: [AttributeType], optional: [Bool], rowCount: Int) {
        self.names = names
        self.types = types
        self.optional = optional
        self.rowCount = rowCount
    }

    /// These columns without the ones named (an import's link columns, which are not attributes).
    package func removing(_ removed: [String]) -> ImportColumns {
        let kept = names.indices.filter { !removed.contains(names[$0]) }
        return ImportColumns(names: kept.map { names[$0] }, types: kept.map { types[$0] }, optional: kept.map { optional[$0] }, rowCount: rowCount)
    }
}

/// Where a row came from, for messages: `CSV line 12`, `JSON record 3 (line 4)`.
///
/// ```swift
/// try source.forEachRow(columns) { row, location in print(location) }   // CSV line 2, CSV line 3, …
/// ```
public struct ImportLocation: Sendable, Hashable, CustomStringConvertible {
    /// The row's number, 1-based.
    public var row: Int
    /// The line of the file the row starts on.
    public var line: Int
    /// True for JSON, whose rows are records that need not be one per line.
    public var isJSON: Bool

    /// The place as a message names it: `CSV line 12`, `JSON record 3 (line 4)`.
    public var description: String { isJSON ? "JSON record \(row) (line \(line))" : "CSV line \(line)" }
}

/// A data file opened for import and read as a stream, in memory that does not grow with the
/// file: CSV (`.csv`), JSON (`.json`: an array of objects, or JSON Lines), JSON Lines (`.jsonl`,
/// `.ndjson`), or a ZIP archive (`.zip`, such as `flights.csv.zip`) holding one file of those
/// kinds, unzipped as it is read.
///
/// An import reads the file twice: ``inferColumns()`` finds the columns and their types
/// (a type must hold every value, so it is known only at the end), then ``forEachRow(_:_:)``
/// converts each row to those types as it is read. Each pass holds one record and a buffer of
/// about a megabyte; ``ImportLimits`` bound the record and what a ZIP entry may unzip to.
/// Errors are ``StoreError``s of kind `importFailed` naming the file, and the line or record.
///
/// Type rules: CSV cells are text, typed as ``ImportTable/csv(_:limits:)`` describes; JSON values are
/// typed as written (``ImportTable/json(_:limits:)``). In both, no number is rounded: a column of
/// integers and fractions is `double` only when a double holds each of its integers exactly,
/// else `integer64` when every number is whole, else text; integers beyond 64 bits are text
/// (JSON: beyond 38 digits an error), and a JSON number beyond a double's range is an error.
///
/// ```swift
/// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "flights.csv.zip"))
/// let columns = try source.inferColumns()            // first pass
/// try source.forEachRow(columns) { row, location in  // second pass
///     print(location, row)                           // CSV line 2 [2013, 1, 1, 517, …]
/// }
/// ```
public struct ImportSource: Sendable {
    /// How the bytes are read.
    ///
    /// ```swift
    /// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "people.csv"))
    /// source.format   // .csv
    /// ```
    public enum Format: String, Sendable, Hashable {
        /// Comma-separated values with a header line.
        case csv
        /// A JSON array of objects, or JSON Lines (one object per line).
        case json
    }

    /// How the bytes are read: CSV or JSON.
    public let format: Format
    /// What errors name: the file (and the entry of an archive), or nil for data in memory.
    public let name: String?
    /// The bounds on what an archive entry may unzip to and on a record's length.
    public let limits: ImportLimits
    private let origin: Origin

    private enum Origin: Sendable {
        case file(String)
        case data(Data)
        case zip(ZipArchive, ZipArchive.Entry)
    }

    /// Opens a data file, choosing the reader by its extension (`.csv`, `.json`, `.jsonl`,
    /// `.ndjson`, `.zip`); a ZIP archive must hold exactly one such file (folders and macOS
    /// metadata are ignored). Nothing is read beyond an archive's directory until a pass runs.
    ///
    /// ```swift
    /// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "people.jsonl"))
    /// ```
    public init(contentsOf url: URL, limits: ImportLimits = ImportLimits()) throws(StoreError) {
        let file = url.lastPathComponent
        self.limits = limits
        // A directory is named as such, whatever its name suggests of a format, and so is a
        // pipe (a FIFO, `<(command)`'s /dev/fd/N) or a device: an import reads the file twice,
        // and a second open of a pipe would wait for a writer for ever.
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.importFailed, "cannot read '\(url.path)': it is a directory", hint: "give the path of a data file")
        }
        if let special = InputFile.special(url.path) {
            throw StoreError(.importFailed, "cannot import '\(url.path)': it is \(special.kind), and an import reads its file twice (the types, then the rows)",
                             hint: "save the data to a file first, then import that file")
        }
        do throws(StoreError) {
            switch Self.format(of: file) {
            case .csv?:
                format = .csv
                origin = .file(url.path)
                name = file
            case .json?:
                format = .json
                origin = .file(url.path)
                name = file
            case nil where (file as NSString).pathExtension.lowercased() == "zip":
                let archive = try ZipArchive(path: url.path)
                let entry = try Self.dataEntry(of: archive)
                format = Self.format(of: entry.name) ?? .csv
                origin = .zip(archive, entry)
                name = "\(file): \(entry.name)"
            case nil:
                throw StoreError(.importFailed, "cannot tell the format of '\(file)' from its extension",
                                 hint: "use a .csv, .json, .jsonl, .ndjson or .zip file")
            }
        } catch {
            if error.message.hasPrefix("cannot read '") { throw error }
            throw error.reworded("\(file): \(error.message)")
        }
    }

    /// CSV held in memory.
    ///
    /// ```swift
    /// let source = ImportSource(csv: Data("id,name\n1,Ann\n".utf8))
    /// ```
    public init(csv data: Data, limits: ImportLimits = ImportLimits()) {
        format = .csv
        name = nil
        self.limits = limits
        origin = .data(data)
    }

    /// A JSON array of objects, or JSON Lines, held in memory.
    ///
    /// ```swift
    /// let source = ImportSource(json: Data(#"[{"id": 1}]"#.utf8))
    /// ```
    public init(json data: Data, limits: ImportLimits = ImportLimits()) {
        format = .json
        name = nil
        self.limits = limits
        origin = .data(data)
    }

    private static func format(of fileName: String) -> Format? {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "json", "jsonl", "ndjson": return .json
        default: return nil
        }
    }

    /// The one CSV or JSON file in an archive.
    private static func dataEntry(of archive: ZipArchive) throws(StoreError) -> ZipArchive.Entry {
        let files = archive.entries.filter { entry in
            let base = (entry.name as NSString).lastPathComponent
            return !entry.isDirectory && !entry.name.hasPrefix("__MACOSX/") && !base.hasPrefix(".")
        }
        let readable = files.filter { format(of: $0.name) != nil }
        guard let entry = readable.first else {
            let names = files.map(\.name)
            throw StoreError(.importFailed, "the ZIP archive holds no .csv, .json, .jsonl or .ndjson file",
                             hint: names.isEmpty ? "the archive is empty" : "its files are: \(names.prefix(12).joined(separator: ", "))")
        }
        guard readable.count == 1 else {
            throw StoreError(.importFailed, "the ZIP archive holds \(readable.count) data files (\(readable.prefix(6).map(\.name).joined(separator: ", "))), so which one to import is unclear",
                             hint: "unzip the archive and import each file on its own")
        }
        return entry
    }

    /// A fresh stream of the bytes, for one pass.
    private func open() throws(StoreError) -> ByteStream {
        switch origin {
        case .file(let path): return try FileByteStream(path: path)
        case .data(let data): return DataByteStream(data)
        case .zip(let archive, let entry): return try archive.stream(entry, limits: limits)
        }
    }

    /// Runs a pass, naming the file in its errors.
    private func pass<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) { return try body() } catch {
            guard let name, !error.message.hasPrefix("cannot read '") else { throw error }
            throw error.reworded("\(name): \(error.message)")
        }
    }

    // MARK: - First pass: columns

    /// Reads the whole file once to find its columns, their types and which hold NULLs.
    public func inferColumns() throws(StoreError) -> ImportColumns {
        try pass { () throws(StoreError) in
            format == .csv ? try csvColumns() : try jsonColumns()
        }
    }

    private func csvColumns() throws(StoreError) -> ImportColumns {
        let csv = try CSVReader(open(), limits: limits)
        let n = csv.columnCount
        var columns = [ColumnTypeInference.Column](repeating: ColumnTypeInference.Column(), count: n)
        var rows = 0
        while try csv.next() {
            rows += 1
            columns.withUnsafeMutableBufferPointer { columns in
                for c in 0..<n { columns[c].add(csv.cell(c)) }
            }
        }
        return ImportColumns(names: csv.header, types: columns.map(\.type), optional: columns.map(\.sawNull), rowCount: rows)
    }

    private func jsonColumns() throws(StoreError) -> ImportColumns {
        let json = JSONRecordReader(try open(), limits: limits)
        var parser = JSONRecordParser(adding: true)
        var kinds: [JSONColumnKinds] = []
        // How many records had each key (a repeated key counts once): fewer than all is a NULL.
        var present: [Int] = []
        var lastSeen: [Int] = []
        var rows = 0
        while let bytes = try json.next() {
            rows += 1
            let record = rows
            try parser.parse(bytes, number: record, line: json.recordLine, column: json.recordColumn) { c, value in
                if c == kinds.count {
                    kinds.append(JSONColumnKinds())
                    present.append(0)
                    lastSeen.append(0)
                }
                kinds[c].add(value)
                if lastSeen[c] != record {
                    lastSeen[c] = record
                    present[c] += 1
                }
            }
        }
        guard rows > 0 else {
            throw StoreError(.importFailed, "the JSON document holds no records", hint: JSONRecordReader.hint)
        }
        guard !kinds.isEmpty else {
            throw StoreError(.importFailed, "the JSON records have no keys", hint: "give the objects keys to import as columns")
        }
        return ImportColumns(names: parser.names, types: kinds.map(\.type),
                             optional: kinds.indices.map { kinds[$0].null || present[$0] < rows }, rowCount: rows)
    }

    // MARK: - Second pass: rows

    /// Reads the file again, handing `body` each row converted to `columns.types` (from
    /// ``inferColumns()``, or an entity's attribute types) and where it starts. The row array is
    /// reused: copy it to keep it. A value that does not convert is passed as read (a number, a
    /// string), for the store to accept or refuse. Errors `body` throws are given the file's
    /// name and the row's place.
    public func forEachRow(_ columns: ImportColumns,
                           _ body: (_ row: [PredicateValue], _ location: ImportLocation) throws(StoreError) -> Void) throws(StoreError) {
        try pass { () throws(StoreError) in
            func located(_ error: StoreError, _ at: ImportLocation) -> StoreError {
                error.reworded("\(at): \(error.message)")
            }
            if format == .csv {
                try csvRows(columns) { (row, at) throws(StoreError) in
                    do throws(StoreError) { try body(row, at) } catch { throw located(error, at) }
                }
            } else {
                try jsonRows(columns) { (row, at) throws(StoreError) in
                    do throws(StoreError) { try body(row, at) } catch { throw located(error, at) }
                }
            }
        }
    }

    private func changed() -> StoreError {
        StoreError(.importFailed, "the file's columns differ from its first reading", hint: "the file changed during the import; import it again")
    }

    private func csvRows(_ columns: ImportColumns, _ body: ([PredicateValue], ImportLocation) throws(StoreError) -> Void) throws(StoreError) {
        let csv = try CSVReader(open(), limits: limits)
        guard csv.header == columns.names, columns.types.count == columns.names.count else { throw changed() }
        let n = csv.columnCount
        let types = columns.types
        var row = [PredicateValue](repeating: .null, count: n)
        var number = 0
        while try csv.next() {
            number += 1
            for c in 0..<n {
                guard let cell = csv.cell(c) else { row[c] = .null; continue }
                // Cells that do not fit the column's type (an existing attribute's) go as read,
                // for the store to convert or refuse with its message.
                guard let v = ColumnTypeInference.value(of: cell, as: types[c]) ?? ColumnTypeInference.natural(cell) else {
                    throw StoreError(.importFailed, "CSV line \(csv.line), column '\(columns.names[c])': the text is not valid UTF-8",
                                     hint: "save the file as UTF-8")
                }
                row[c] = v
            }
            try body(row, ImportLocation(row: number, line: csv.line, isJSON: false))
        }
    }

    private func jsonRows(_ columns: ImportColumns, _ body: ([PredicateValue], ImportLocation) throws(StoreError) -> Void) throws(StoreError) {
        let json = JSONRecordReader(try open(), limits: limits)
        var parser = JSONRecordParser(columns: columns.names, adding: false)
        guard columns.types.count == columns.names.count else { throw changed() }
        let types = columns.types
        var row = [PredicateValue](repeating: .null, count: columns.names.count)
        var number = 0
        while let bytes = try json.next() {
            number += 1
            for c in row.indices { row[c] = .null }
            try parser.parse(bytes, number: number, line: json.recordLine, column: json.recordColumn) { c, value in
                row[c] = JSONColumnConversion.convert(value, to: types[c])
            }
            try body(row, ImportLocation(row: number, line: json.recordLine, isJSON: true))
        }
    }
}

import Foundation

/// RFC 4180 CSV cut into cells without building a `String` per line or per cell.
///
/// Cells are byte ranges into one buffer, so type inference and conversion read numbers and
/// dates straight from the bytes and only text cells ever become `String`s; that is what makes
/// the 31 MB nycflights13 `flights.csv` quick to read. The rules:
///
/// - Fields are separated by commas; records end with CRLF, LF or a lone CR. Blank lines are
///   skipped (as pandas does), so a trailing newline or two never adds a row.
/// - A field that starts with `"` is quoted: it may hold commas, newlines and `""` for one
///   quote, and must be followed by a comma or the end of the record. A quote inside an
///   unquoted field is an ordinary character (`5'10"` stays as written).
/// - The first record is the header; every column needs a distinct, non-empty name.
/// - An unquoted empty field or an unquoted `NA` is NULL; a quoted `""` is an empty string and a
///   quoted `"NA"` the text NA.
/// - A UTF-8 byte order mark at the start is ignored. Text is UTF-8; other bytes are an error.
///
/// Every malformed input is a ``StoreError`` of kind `importFailed` naming the line.
///
/// ```swift
/// let table = try CSVReader.read(Data("a,b\n1,\"x, y\"\n".utf8))
/// table.header          // ["a", "b"]
/// table.string(row: 0, column: 1)   // "x, y"
/// ```
package enum CSVReader {
    /// The cells of a CSV file, row by row, as ranges of `bytes`.
    package struct Table: Sendable {
        package var header: [String]
        package var rowCount: Int
        /// The file's bytes (without a BOM), followed by the unescaped text of quoted fields
        /// that contained `""`.
        var bytes: [UInt8]
        /// Row-major cell ranges as start, end pairs; `start == CSVReader.null` marks a NULL cell.
        var spans: [UInt32]
        /// The line of the file each row starts on (1-based), for messages.
        var lines: [UInt32]

        package var columnCount: Int { header.count }

        /// The line of the file on which row `row` (0-based) starts.
        package func line(ofRow row: Int) -> Int { Int(lines[row]) }

        /// One cell as text (nil for NULL); slow, for tests and diagnostics.
        package func string(row: Int, column: Int) -> String? {
            let k = 2 * (row * header.count + column)
            guard spans[k] != CSVReader.null else { return nil }
            return String(decoding: bytes[Int(spans[k])..<Int(spans[k + 1])], as: UTF8.self)
        }
    }

    static let null = UInt32.max

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")
    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    /// Cuts `data` into a header and rows of cells.
    package static func read(_ data: Data) throws(StoreError) -> Table {
        // Offsets are 32-bit to halve the cell index; unescaped copies can double the bytes.
        guard data.count < Int(Int32.max) else {
            throw StoreError(.importFailed, "the CSV file is \(data.count) bytes; at most 2 GB can be imported",
                             hint: "split the file into smaller ones")
        }
        let hasBOM = data.count >= 3 && data.prefix(3).elementsEqual([0xEF, 0xBB, 0xBF])
        var bytes = hasBOM ? [UInt8](data.dropFirst(3)) : [UInt8](data)
        var state = Tokens()
        let r: Result<Void, StoreError> = bytes.withUnsafeBufferPointer { p in
            do throws(StoreError) { try tokenize(p, into: &state); return .success(()) } catch { return .failure(error) }
        }
        try r.get()
        let headerLine = state.headerLine
        guard let headerSpans = state.header else {
            throw StoreError(.importFailed, "the CSV file is empty",
                             hint: "the first line must be a header row naming the columns, e.g. name,age")
        }
        let base = bytes.count
        if !state.extra.isEmpty { bytes.append(contentsOf: state.extra) }
        var header: [String] = []
        var seen: [String: Int] = [:]
        for (index, span) in headerSpans.enumerated() {
            let start = span.start >= 0 ? span.start : base + (-span.start - 1)
            guard let name = bytes[start..<(start + span.length)].withUnsafeBufferPointer(ColumnTypeInference.string) else {
                throw StoreError(.importFailed, "CSV line \(headerLine): the name of column \(index + 1) is not valid UTF-8",
                                 hint: "save the file as UTF-8")
            }
            guard !name.isEmpty else {
                throw StoreError(.importFailed, "CSV line \(headerLine): column \(index + 1) has no name in the header",
                                 hint: "the first line must name every column")
            }
            if let earlier = seen[name] {
                throw StoreError(.importFailed, "CSV line \(headerLine): columns \(earlier + 1) and \(index + 1) are both named '\(name)'",
                                 hint: "give every column a distinct name in the header")
            }
            seen[name] = index
            header.append(name)
        }
        // Cells from `extra` were numbered past the end of the file's bytes; those offsets are
        // exactly where `extra` now sits, so the ranges need no fixing.
        return Table(header: header, rowCount: state.lines.count, bytes: bytes, spans: state.spans, lines: state.lines)
    }

    /// What the tokenizer collects.
    private struct Tokens {
        /// Header spans: start (negative: -(offset in `extra`) - 1) and length.
        var header: [(start: Int, length: Int)]?
        /// Usually 1; blank lines may come first.
        var headerLine = 1
        var spans: [UInt32] = []
        var lines: [UInt32] = []
        /// Unescaped copies of quoted fields that contained `""`.
        var extra: [UInt8] = []
    }

    private static func tokenize(_ p: UnsafeBufferPointer<UInt8>, into t: inout Tokens) throws(StoreError) {
        let n = p.count
        let base = n
        // Locals rather than `t`'s fields: the hot loop appends millions of times.
        var spans: [UInt32] = []
        var lines: [UInt32] = []
        var extra: [UInt8] = []
        var i = 0
        var line = 1
        var columns = 0
        var headerSpans: [(start: Int, length: Int)] = []
        var inHeader = true
        while i < n {
            // Blank lines separate nothing and hold nothing.
            if p[i] == lf { i += 1; line += 1; continue }
            if p[i] == cr {
                i += 1
                if i < n, p[i] == lf { i += 1 }
                line += 1
                continue
            }
            let recordLine = line
            var field = 0
            while true {
                var start: Int
                var end: Int
                var isNull = false
                if i < n, p[i] == quote {
                    let quoteLine = line
                    i += 1
                    start = i
                    var escaped = false
                    while true {
                        guard i < n else {
                            throw StoreError(.importFailed, "CSV line \(quoteLine): a quoted field is never closed",
                                             hint: "close every opening quote, and write a quote inside a quoted field as \"\"")
                        }
                        let c = p[i]
                        if c == quote {
                            if i + 1 < n, p[i + 1] == quote { escaped = true; i += 2; continue }
                            break
                        }
                        if c == lf { line += 1 }
                        i += 1
                    }
                    end = i
                    i += 1
                    if i < n, p[i] != comma, p[i] != lf, p[i] != cr {
                        throw StoreError(.importFailed, "CSV line \(line): unexpected text after the closing quote of a field",
                                         hint: "a quoted field must be followed by a comma or the end of the line; write a quote inside it as \"\"")
                    }
                    if escaped {
                        // Offsets past the end of `p` refer into `extra`, appended after tokenizing.
                        let copyStart = extra.count
                        var k = start
                        while k < end {
                            extra.append(p[k])
                            k += p[k] == quote ? 2 : 1
                        }
                        if inHeader {
                            headerSpans.append((-copyStart - 1, extra.count - copyStart))
                        } else {
                            start = base + copyStart
                            end = base + extra.count
                        }
                    } else if inHeader {
                        headerSpans.append((start, end - start))
                    }
                } else {
                    start = i
                    while i < n {
                        let c = p[i]
                        // Almost every byte is above ',' (digits, letters, '-', '.'): one test.
                        if c > comma { i &+= 1; continue }
                        if c == comma || c == lf || c == cr { break }
                        i &+= 1
                    }
                    end = i
                    if inHeader {
                        headerSpans.append((start, end - start))
                    } else {
                        isNull = end == start || (end - start == 2 && p[start] == UInt8(ascii: "N") && p[start + 1] == UInt8(ascii: "A"))
                    }
                }
                field += 1
                if !inHeader {
                    guard field <= columns else {
                        throw StoreError(.importFailed, "CSV line \(recordLine): the row has more than the header's \(columns) field\(columns == 1 ? "" : "s")",
                                         hint: "quote fields that contain commas, e.g. \"Smith, John\"")
                    }
                    if isNull {
                        spans.append(null)
                        spans.append(null)
                    } else {
                        spans.append(UInt32(truncatingIfNeeded: start))
                        spans.append(UInt32(truncatingIfNeeded: end))
                    }
                }
                if i < n, p[i] == comma { i += 1; continue }
                // End of the record: a newline or the end of the file.
                if i < n {
                    if p[i] == cr { i += 1; if i < n, p[i] == lf { i += 1 } } else { i += 1 }
                    line += 1
                }
                break
            }
            if inHeader {
                inHeader = false
                columns = field
                t.headerLine = recordLine
                // Guess the row count from the header's length to spare most regrowth.
                let estimate = min(n / max(1, i) * columns * 2, 1 << 27)
                spans.reserveCapacity(estimate)
            } else {
                guard field == columns else {
                    throw StoreError(.importFailed, "CSV line \(recordLine): the row has \(field) field\(field == 1 ? "" : "s"), but the header has \(columns)",
                                     hint: "every row needs one field per header column; leave a field empty (or NA) for a missing value")
                }
                lines.append(UInt32(truncatingIfNeeded: recordLine))
            }
        }
        guard extra.count < Int(Int32.max) - base else {
            throw StoreError(.importFailed, "the CSV file is too large to import", hint: "split the file into smaller ones")
        }
        if !inHeader { t.header = headerSpans }
        t.spans = spans
        t.lines = lines
        t.extra = extra
    }
}

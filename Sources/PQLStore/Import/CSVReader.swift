import Foundation

/// RFC 4180 CSV read record by record from a byte stream, in bounded memory, without building
/// a `String` per line or per cell.
///
/// Cells are byte ranges into the reader's buffer, so type inference and conversion read
/// numbers and dates straight from the bytes and only text cells ever become `String`s. The
/// buffer holds about a megabyte of the file and one record at most (``ImportLimits``), however
/// long the file. The rules:
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
/// let csv = try CSVReader(DataByteStream(Data("a,b\n1,\"x, y\"\n".utf8)))
/// csv.header                                  // ["a", "b"]
/// while try csv.next() { csv.string(1) }      // "x, y"
/// ```
package final class CSVReader {
    /// The column names.
    package private(set) var header: [String] = []
    /// The line of the file the current record starts on (1-based).
    package private(set) var line = 0
    /// The current record's cells as start, end pairs of offsets from `base`; a start of -1
    /// marks a NULL cell.
    private(set) var cells: [Int] = []
    private let buffer: ReadBuffer
    private let limit: Int
    /// The line at `buffer.start`.
    private var nextLine = 1
    /// Cells of the record being cut whose `""` must become `"` once the record is whole.
    private var escaped: [Int] = []

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")
    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    /// Starts reading `stream` and reads its header.
    package init(_ stream: ByteStream, limits: ImportLimits = ImportLimits()) throws(StoreError) {
        buffer = ReadBuffer(stream, maxRecordBytes: limits.maxRecordBytes)
        limit = limits.maxRecordBytes
        // A byte order mark may only open the file.
        while buffer.end - buffer.start < 3, try buffer.fill(tooLong: tooLong) {}
        if buffer.end - buffer.start >= 3, buffer.base[0] == 0xEF, buffer.base[1] == 0xBB, buffer.base[2] == 0xBF { buffer.start += 3 }
        guard try cut(header: true) else {
            throw StoreError(.importFailed, "the CSV file is empty",
                             hint: "the first line must be a header row naming the columns, e.g. name,age")
        }
        var seen: [String: Int] = [:]
        for index in 0..<cells.count / 2 {
            guard let name = cell(index).flatMap(ColumnTypeInference.string) else {
                throw StoreError(.importFailed, "CSV line \(line): the name of column \(index + 1) is not valid UTF-8",
                                 hint: "save the file as UTF-8")
            }
            guard !name.isEmpty else {
                throw StoreError(.importFailed, "CSV line \(line): column \(index + 1) has no name in the header",
                                 hint: "the first line must name every column")
            }
            if let earlier = seen[name] {
                throw StoreError(.importFailed, "CSV line \(line): columns \(earlier + 1) and \(index + 1) are both named '\(name)'",
                                 hint: "give every column a distinct name in the header")
            }
            seen[name] = index
            header.append(name)
        }
        guard header.count <= ImportTable.maxFileColumns else {
            throw StoreError(.importFailed, "the CSV header has \(header.count) columns; a table can have at most \(ImportTable.maxColumns), the store's key column among them, so a file at most \(ImportTable.maxFileColumns)",
                             hint: "split the file into tables of fewer columns")
        }
    }

    package var columnCount: Int { header.count }

    /// The bytes the reader holds at most so far (a megabyte, unless a record needed more).
    package var bufferCapacity: Int { buffer.capacity }

    /// The start of the buffer the cells point into (valid until the next `next()`).
    var base: UnsafeMutablePointer<UInt8> { buffer.base }

    /// Moves to the next record; false at the end of the file.
    package func next() throws(StoreError) -> Bool { try cut(header: false) }

    /// Cell `c` of the current record as bytes, nil for NULL (valid until the next `next()`).
    @inline(__always)
    func cell(_ c: Int) -> UnsafeBufferPointer<UInt8>? {
        let s = cells[2 * c]
        guard s >= 0 else { return nil }
        return UnsafeBufferPointer(start: buffer.base + s, count: cells[2 * c + 1] - s)
    }

    /// Cell `c` as text (nil for NULL); for tests and messages.
    package func string(_ c: Int) -> String? {
        cell(c).map { String(decoding: $0, as: UTF8.self) }
    }

    private func tooLong() -> StoreError {
        StoreError(.importFailed, "CSV line \(nextLine): a record runs past \(limit) bytes without ending",
                   hint: "close every quoted field (an unclosed quote makes the rest of the file one field), or raise ImportLimits.maxRecordBytes")
    }

    /// Cuts the next record into `cells`, reading more of the stream while the buffer ends
    /// inside it; false at the end of the file.
    private func cut(header: Bool) throws(StoreError) -> Bool {
        while true {
            if let next = try cut(buffer.base, from: buffer.start, to: buffer.end, atEnd: buffer.isAtEnd, header: header) {
                if next < 0 { return false }
                buffer.start = next
                return true
            }
            // The buffer ends inside the record (or a blank line's CR): read more, or cut it
            // again as the last one.
            _ = try buffer.fill(tooLong: tooLong)
        }
    }

    /// Cuts one record from `p[i..<n]`: the offset after it, -1 at the end of the file, or nil
    /// when the bytes run out inside it and more may follow.
    private func cut(_ p: UnsafeMutablePointer<UInt8>, from i0: Int, to n: Int, atEnd: Bool, header: Bool) throws(StoreError) -> Int? {
        var i = i0
        var line = nextLine
        // Blank lines separate nothing and hold nothing; they are consumed as they are passed.
        while i < n, p[i] == Self.lf || p[i] == Self.cr {
            if p[i] == Self.cr {
                if i + 1 == n && !atEnd { buffer.start = i; nextLine = line; return nil }
                if i + 1 < n, p[i + 1] == Self.lf { i += 1 }
            }
            i += 1
            line += 1
        }
        buffer.start = i
        nextLine = line
        if i == n { return atEnd ? -1 : nil }
        let recordLine = line
        let columns = header ? Int.max : self.header.count
        cells.removeAll(keepingCapacity: true)
        escaped.removeAll(keepingCapacity: true)
        var field = 0
        while true {
            var start: Int
            var end: Int
            var isNull = false
            if i < n, p[i] == Self.quote {
                let quoteLine = line
                i += 1
                start = i
                var doubled = false
                while true {
                    guard i < n else {
                        if !atEnd { return nil }
                        throw StoreError(.importFailed, "CSV line \(quoteLine): a quoted field is never closed",
                                         hint: "close every opening quote, and write a quote inside a quoted field as \"\"")
                    }
                    let c = p[i]
                    if c == Self.quote {
                        if i + 1 == n && !atEnd { return nil }
                        if i + 1 < n, p[i + 1] == Self.quote { doubled = true; i += 2; continue }
                        break
                    }
                    if c == Self.lf { line += 1 }
                    i += 1
                }
                end = i
                i += 1
                if i == n && !atEnd { return nil }
                if i < n, p[i] != Self.comma, p[i] != Self.lf, p[i] != Self.cr {
                    throw StoreError(.importFailed, "CSV line \(line): unexpected text after the closing quote of a field",
                                     hint: "a quoted field must be followed by a comma or the end of the line; write a quote inside it as \"\"")
                }
                if doubled { escaped.append(field) }
            } else {
                start = i
                while i < n {
                    let c = p[i]
                    // Almost every byte is above ',' (digits, letters, '-', '.'): one test.
                    if c > Self.comma { i &+= 1; continue }
                    if c == Self.comma || c == Self.lf || c == Self.cr { break }
                    i &+= 1
                }
                end = i
                if i == n && !atEnd { return nil }
                if !header {
                    isNull = end == start || (end - start == 2 && p[start] == UInt8(ascii: "N") && p[start + 1] == UInt8(ascii: "A"))
                }
            }
            field += 1
            guard field <= columns else {
                throw StoreError(.importFailed, "CSV line \(recordLine): the row has more than the header's \(columns) field\(columns == 1 ? "" : "s")",
                                 hint: "quote fields that contain commas, e.g. \"Smith, John\"")
            }
            cells.append(isNull ? -1 : start)
            cells.append(end)
            if i < n, p[i] == Self.comma {
                i += 1
                // A comma ending the bytes read so far may be followed by a field still unread.
                if i == n && !atEnd { return nil }
                continue
            }
            // The end of the record: a newline or the end of the file.
            if i < n {
                if p[i] == Self.cr {
                    if i + 1 == n && !atEnd { return nil }
                    i += 1
                    if i < n, p[i] == Self.lf { i += 1 }
                } else {
                    i += 1
                }
                line += 1
            }
            break
        }
        if !header, field != columns {
            throw StoreError(.importFailed, "CSV line \(recordLine): the row has \(field) field\(field == 1 ? "" : "s"), but the header has \(columns)",
                             hint: "every row needs one field per header column; leave a field empty (or NA) for a missing value")
        }
        // The record is whole, so its doubled quotes can be undone in place (the text only shrinks).
        for f in escaped {
            let s = cells[2 * f], e = cells[2 * f + 1]
            var w = s, r = s
            while r < e {
                p[w] = p[r]
                r += p[r] == Self.quote ? 2 : 1
                w += 1
            }
            cells[2 * f + 1] = w
        }
        self.line = recordLine
        nextLine = line
        return i
    }
}

import Foundation
import PQL

/// JSON records read one at a time from a byte stream, in bounded memory: the elements of one
/// JSON array, or JSON Lines (one value per line; a value may span lines, as pretty-printed
/// objects written one after another do).
///
/// The reader finds where each value ends (tracking strings, escapes and nesting) without
/// parsing it, and hands its bytes to ``JSONRecordParser``; it holds one record and about a
/// megabyte of the file at a time. A document that starts with `[` is an array; anything else
/// is JSON Lines. Errors are ``StoreError``s of kind `importFailed` with the line and column.
///
/// ```swift
/// let json = JSONRecordReader(DataByteStream(Data("{\"a\": 1}\n{\"a\": 2}\n".utf8)))
/// while let bytes = try json.next() { print(json.recordNumber, bytes.count) }   // 1 8, 2 8
/// ```
package final class JSONRecordReader {
    private enum Layout { case array, lines }

    /// The number of the current record (1-based).
    package private(set) var recordNumber = 0
    /// Where the current record starts.
    package private(set) var recordLine = 0
    package private(set) var recordColumn = 0

    private let buffer: ReadBuffer
    private let limit: Int
    private var layout: Layout?
    private var afterValue = false
    private var finished = false
    /// The line and column at `buffer.start`.
    private var line = 1
    private var column = 1

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

    package init(_ stream: ByteStream, limits: ImportLimits = ImportLimits()) {
        buffer = ReadBuffer(stream, maxRecordBytes: limits.maxRecordBytes)
        limit = limits.maxRecordBytes
    }

    /// The bytes the reader holds at most so far (a megabyte, unless a record needed more).
    package var bufferCapacity: Int { buffer.capacity }

    static let hint = "import needs a JSON array of objects, or one object per line (JSON Lines)"

    private func error(_ message: String) -> StoreError {
        StoreError(.importFailed, "JSON line \(line), column \(column): \(message)", hint: Self.hint)
    }

    private func tooLong() -> StoreError {
        StoreError(.importFailed, "JSON line \(line), column \(column): record \(recordNumber) runs past \(limit) bytes",
                   hint: "close every string and bracket (an unclosed one makes the rest of the file one value), or raise ImportLimits.maxRecordBytes")
    }

    /// The next byte after whitespace (consumed, newlines counted); nil at the end of the file.
    private func peekAfterSpace(newlines: Bool = true) throws(StoreError) -> UInt8? {
        while true {
            let p = buffer.base
            var i = buffer.start
            let n = buffer.end
            while i < n {
                let c = p[i]
                if c == Self.space || c == Self.tab || c == Self.cr { column += 1; i += 1; continue }
                if c == Self.lf && newlines { line += 1; column = 1; i += 1; continue }
                break
            }
            buffer.start = i
            if i < n { return p[i] }
            guard try buffer.fill(tooLong: tooLong) else { return nil }
        }
    }

    /// The bytes of the next record (valid until the next call), or nil after the last one.
    package func next() throws(StoreError) -> UnsafeBufferPointer<UInt8>? {
        guard !finished else { return nil }
        if layout == nil {
            while buffer.end - buffer.start < 3, try buffer.fill(tooLong: tooLong) {}
            if buffer.end - buffer.start >= 3, buffer.base[0] == 0xEF, buffer.base[1] == 0xBB, buffer.base[2] == 0xBF { buffer.start += 3 }
            guard let first = try peekAfterSpace() else { finished = true; return nil }
            if first == UInt8(ascii: "[") {
                layout = .array
                buffer.start += 1
                column += 1
                if try peekAfterSpace() == UInt8(ascii: "]") {
                    buffer.start += 1
                    column += 1
                    try finishArray()
                    return nil
                }
            } else {
                layout = .lines
            }
        } else if afterValue {
            if layout == .array {
                guard let c = try peekAfterSpace() else { throw error("expected ',' or ']' in an array, found end of input") }
                buffer.start += 1
                column += 1
                if c == UInt8(ascii: "]") {
                    try finishArray()
                    return nil
                }
                guard c == UInt8(ascii: ",") else {
                    column -= 1
                    throw error("expected ',' or ']' in an array")
                }
            } else if let c = try peekAfterSpace(newlines: false), c != Self.lf {
                throw error("expected a new line after a JSON value (JSON Lines has one value per line)")
            }
        }
        guard try peekAfterSpace() != nil else {
            if layout == .array { throw error("expected a JSON value, found end of input") }
            finished = true
            return nil
        }
        return try value()
    }

    /// After the closing `]`: nothing but whitespace may follow.
    private func finishArray() throws(StoreError) {
        finished = true
        if try peekAfterSpace() != nil { throw error("unexpected text after the JSON array") }
    }

    /// Scanning state of a value, kept across reads so that a long one is scanned once.
    private struct Scan {
        var offset = 0
        var depth = 0
        var inString = false
        var escape = false
        var lines = 0
        /// Scalars since the last newline (or the value's start).
        var scalars = 0
    }

    /// Finds the end of the value at `buffer.start`, reading more as needed.
    private func value() throws(StoreError) -> UnsafeBufferPointer<UInt8> {
        recordNumber += 1
        recordLine = line
        recordColumn = column
        var s = Scan()
        let first = buffer.base[buffer.start]
        let container = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        let valueStart = first == UInt8(ascii: "-") || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
            || first == UInt8(ascii: "n") || (first >= 0x30 && first <= 0x39) || container
        var ended = false
        if !valueStart {
            // Not a value: one byte is enough for the parser to say what it found.
            s.offset = 1
            s.scalars = 1
            ended = true
        }
        while !ended {
            let p = buffer.base + buffer.start
            let n = buffer.end - buffer.start
            var k = s.offset
            while k < n {
                let c = p[k]
                if c & 0xC0 != 0x80 { s.scalars &+= 1 }
                if s.inString {
                    if s.escape { s.escape = false }
                    else if c == UInt8(ascii: "\\") { s.escape = true }
                    else if c == UInt8(ascii: "\"") {
                        s.inString = false
                        if s.depth == 0 { k += 1; ended = true; break }
                    }
                } else if container {
                    switch c {
                    case UInt8(ascii: "\""): s.inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): s.depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        s.depth -= 1
                        if s.depth == 0 { k += 1; ended = true }
                    case Self.lf: s.lines += 1; s.scalars = 0
                    default: break
                    }
                    if ended { break }
                } else if c == Self.space || c == Self.tab || c == Self.cr || c == Self.lf || c == UInt8(ascii: ",")
                            || c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    s.scalars -= 1
                    ended = true
                    break
                }
                k += 1
            }
            s.offset = k
            if ended { break }
            // The value goes on past the bytes read: read more, or hand the parser what there is.
            guard try buffer.fill(tooLong: tooLong) else { break }
        }
        let bytes = UnsafeBufferPointer(start: buffer.base + buffer.start, count: s.offset)
        buffer.start += s.offset
        line += s.lines
        column = s.lines > 0 ? s.scalars + 1 : column + s.scalars
        afterValue = true
        return bytes
    }
}

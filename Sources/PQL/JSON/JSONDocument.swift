/// A JSON array or JSON Lines document read element by element, keeping each element's
/// original text so that filtered output has exactly the input's shape.
///
/// ```swift
/// let doc = try JSONDocument(bytes: Array(#"[{"a": 1}, {"a": 2}]"#.utf8))
/// doc.values.count          // 2
/// doc.text(of: 1)           // {"a": 2}
/// ```
public struct JSONDocument: Sendable {
    /// How the document holds its elements, so output can keep the same shape.
    ///
    /// ```swift
    /// let doc = try JSONDocument(bytes: Array("{\"a\": 1}\n{\"a\": 2}\n".utf8))
    /// doc.layout == .lines   // true
    /// ```
    public enum Layout: Sendable {
        /// One JSON array of elements.
        case array
        /// One JSON value per line.
        case lines
    }

    /// Whether the input was one array or one value per line.
    public let layout: Layout
    /// The elements, in input order.
    public let values: [PredicateValue]
    private let bytes: [UInt8]
    private let spans: [Range<Int>]

    /// Reads a JSON array, or JSON Lines (one value per line), from UTF-8 bytes (after a byte
    /// order mark, if one opens them).
    public init(bytes: [UInt8]) throws(JSONReadError) {
        self.bytes = bytes
        let r: Result<(Layout, [PredicateValue], [Range<Int>]), JSONReadError> = bytes.withUnsafeBufferPointer { buf in
            do throws(JSONReadError) { return .success(try Self.read(buf)) } catch { return .failure(error) }
        }
        (layout, values, spans) = try r.get()
    }

    /// The 1-based line on which element `i` starts (for messages about it: in JSON Lines, its
    /// line).
    public func line(of i: Int) -> Int {
        guard spans.indices.contains(i) else { return 0 }
        var line = 1
        for b in bytes[..<spans[i].lowerBound] where b == 0x0A { line += 1 }
        return line
    }

    /// The original text of element `i`.
    public func text(of i: Int) -> String {
        String(decoding: bytes[spans[i]], as: UTF8.self)
    }

    /// The keys of element `i` in the order its text has them (``values`` holds objects as
    /// dictionaries, which keep no order), so that tables and CSV show a file's columns in the
    /// file's order; empty when the element is not an object.
    package func keys(of i: Int) -> [String] {
        bytes.withUnsafeBufferPointer { buf in
            var reader = JSONReader(b: buf, offset: spans[i].lowerBound)
            guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "{") else { return [] }
            reader.skip(1)
            var keys: [String] = []
            // The element parsed once already: a failure here cannot happen, and only ends the list.
            do throws(JSONReadError) {
                while true {
                    reader.skipSpace()
                    guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "\"") else { break }
                    keys.append(try reader.parseString())
                    reader.skipSpace()
                    reader.skip(1)
                    reader.skipSpace()
                    _ = try reader.parseValue()
                    reader.skipSpace()
                    guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: ",") else { break }
                    reader.skip(1)
                }
            } catch {}
            return keys
        }
    }

    private static func read(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONReadError) -> (Layout, [PredicateValue], [Range<Int>]) {
        // A byte order mark (editors on Windows write one) is no part of the first value.
        var reader = JSONReader(b: buf, offset: JSONReader.byteOrderMarkLength(buf))
        reader.skipSpace()
        if reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "[") {
            // A whole-document array, unless more values follow it (then it is JSON Lines of arrays).
            var probe = reader
            if let (values, spans) = try? readArray(&probe, buf), probe.offset == buf.count {
                return (.array, values, spans)
            }
        }
        var values: [PredicateValue] = []
        var spans: [Range<Int>] = []
        while true {
            reader.skipSpace()
            if reader.offset >= buf.count { break }
            let start = reader.offset
            values.append(try reader.parseValue())
            spans.append(start..<reader.offset)
            // Only spaces may follow a value on its line.
            while reader.offset < buf.count, buf[reader.offset] == 0x20 || buf[reader.offset] == 0x09 || buf[reader.offset] == 0x0D {
                reader.skipSpace()
            }
            if reader.offset < buf.count, buf[reader.offset - 1] != 0x0A, buf[reader.offset] != 0x0A {
                throw reader.fail("expected a new line after a JSON value (JSON Lines has one value per line)")
            }
        }
        return (.lines, values, spans)
    }

    private static func readArray(_ reader: inout JSONReader, _ buf: UnsafeBufferPointer<UInt8>) throws(JSONReadError) -> ([PredicateValue], [Range<Int>]) {
        var values: [PredicateValue] = []
        var spans: [Range<Int>] = []
        reader.skip(1)
        reader.skipSpace()
        if reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "]") {
            reader.skip(1)
            reader.skipSpace()
            return (values, spans)
        }
        while true {
            reader.skipSpace()
            let start = reader.offset
            values.append(try reader.parseValue())
            spans.append(start..<reader.offset)
            reader.skipSpace()
            guard reader.offset < buf.count else { throw reader.fail("expected ',' or ']' in an array, found end of input") }
            if buf[reader.offset] == UInt8(ascii: ",") { reader.skip(1); continue }
            if buf[reader.offset] == UInt8(ascii: "]") { reader.skip(1); break }
            throw reader.fail("expected ',' or ']' in an array")
        }
        reader.skipSpace()
        return (values, spans)
    }
}

extension JSONReader {
    mutating func skip(_ n: Int) { advance(by: n) }
}

import Foundation

// Package-only entry points into the JSON reader and the ISO-8601 parser for PQLStore's table
// import, which reads millions of cells as raw bytes and needs the key order that
// `[String: PredicateValue]` forgets.

extension ISO8601 {
    /// Seconds since 2001-01-01T00:00:00Z (a `Date`'s measure) for ISO-8601 text given as UTF-8
    /// bytes, or nil; lets CSV import test millions of cells without building a `String` for each.
    package static func secondsSinceReferenceDate(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        parse(bytes)
    }
}

extension JSONReader {
    /// The keys of the JSON object `text`, in the order they are written (a repeated key once,
    /// at its first place), or nil when the text is not one well-formed object.
    package static func objectKeys(in text: String) -> [String]? {
        var t = text
        return t.withUTF8 { buf -> [String]? in
            var reader = JSONReader(b: buf)
            reader.skipSpace()
            guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "{") else { return nil }
            reader.advance(by: 1)
            var keys: [String] = []
            var seen: Set<String> = []
            reader.skipSpace()
            if reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "}") { return keys }
            while true {
                reader.skipSpace()
                guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: "\""),
                      let key = try? reader.parseString() else { return nil }
                if seen.insert(key).inserted { keys.append(key) }
                reader.skipSpace()
                guard reader.offset < buf.count, buf[reader.offset] == UInt8(ascii: ":") else { return nil }
                reader.advance(by: 1)
                reader.skipSpace()
                guard (try? reader.parseValue()) != nil else { return nil }
                reader.skipSpace()
                guard reader.offset < buf.count else { return nil }
                if buf[reader.offset] == UInt8(ascii: ",") { reader.advance(by: 1); continue }
                if buf[reader.offset] == UInt8(ascii: "}") { return keys }
                return nil
            }
        }
    }
}

import Foundation

/// An error in JSON input, with its place.
///
/// ```swift
/// do { _ = try JSONReader.value(from: "[1, 2") } catch let e as JSONReadError { print(e) }
/// // line 1, column 6: expected ',' or ']' in an array, found end of input
/// ```
public struct JSONReadError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// What is wrong, in one sentence.
    public let message: String
    /// UTF-8 byte offset into the input.
    public let offset: Int
    /// 1-based line of the problem.
    public let line: Int
    /// 1-based column of the problem, in characters.
    public let column: Int

    /// Whether the text is well-formed JSON holding a value PQL cannot take (a `{"$date": …}`
    /// that is no date), rather than text that is not JSON.
    package private(set) var isAboutAValue = false
    /// What a value needs to be, when the ``message`` says what is wrong with one.
    package private(set) var hint: String? = nil

    /// The same error, about a value of well-formed JSON, with what the value needs to be.
    package func aboutAValue(hint: String? = nil) -> JSONReadError {
        var e = self
        e.isAboutAValue = true
        e.hint = hint
        return e
    }

    /// What to do about a value of well-formed JSON PQL cannot take: a repeated key's own
    /// hint, else `dates` (the other such values are `{"$date": …}` objects that are no date).
    package func valueHint(otherwise dates: String) -> String { fix ?? dates }

    /// What to do about a value that is not a date: a key an object repeats (``JSONKeys``), a
    /// number no PQL value holds exactly.
    package private(set) var fix: String? = nil

    /// The same error, about a value of well-formed JSON that `fix` says how to mend.
    package func aboutAValue(fix: String) -> JSONReadError {
        var e = aboutAValue()
        e.fix = fix
        return e
    }

    /// Where and what: `line 3, column 7: expected a value`.
    public var description: String { "line \(line), column \(column): \(message)" + (hint.map { " (\($0))" } ?? "") }

    /// The ``description``, so that `error.localizedDescription` names the place too.
    ///
    /// ```swift
    /// do { _ = try JSONReader.value(from: "[1, 2") } catch { print(error.localizedDescription) }
    /// // line 1, column 6: expected ',' or ']' in an array, found end of input
    /// ```
    public var errorDescription: String? { description }
}

/// Reads JSON text into ``PredicateValue``s: integers stay integers (`30` is `.int`, `30.0` is
/// `.double`), integers beyond 64 bits are exact decimals (up to 38 digits; more is an error,
/// never a rounded double), `null` is `.null`, an object that is exactly
/// `{"$date": "<ISO-8601>"}` is a date (decision D8), and one that is exactly
/// `{"$double": "nan"}` (`"inf"`, `"-inf"`, any number) a double, as
/// ``PredicateValue/jsonText(keyOrder:)`` writes them. An object that repeats a key (or holds
/// two keys equal as Swift strings, such as `é` composed and decomposed) is an error naming
/// them, rather than one value silently dropped. A byte order mark before the text is skipped.
///
/// ```swift
/// let v = try JSONReader.value(from: #"{"age": 30, "born": {"$date": "1994-05-01"}}"#)
/// ```
public struct JSONReader {
    /// Deeper nesting is an error rather than a stack overflow.
    public static let maxDepth = 512

    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    /// Parses one JSON value that makes up the whole text.
    ///
    /// ```swift
    /// let v = try JSONReader.value(from: #"{"born": {"$date": "1990-05-01"}, "tags": ["a"]}"#)
    /// ```
    public static func value(from text: String) throws(JSONReadError) -> PredicateValue {
        var t = text
        // withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        return try t.withUTF8 { buf in Result { () throws(JSONReadError) in try whole(buf) } }.get()
    }

    /// Parses UTF-8 bytes holding one JSON value.
    ///
    /// ```swift
    /// let v = try JSONReader.value(from: Array(#"[1, 2.5, null]"#.utf8))   // [1, 2.5, nil]
    /// ```
    public static func value(from bytes: [UInt8]) throws(JSONReadError) -> PredicateValue {
        try bytes.withUnsafeBufferPointer { buf in Result { () throws(JSONReadError) in try whole(buf) } }.get()
    }

    /// One value, surrounded by nothing but whitespace.
    private static func whole(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONReadError) -> PredicateValue {
        var reader = JSONReader(b: buf, offset: byteOrderMarkLength(buf))
        reader.skipSpace()
        let v = try reader.parseValue()
        reader.skipSpace()
        guard reader.i == buf.count else { throw reader.fail("unexpected text after the JSON value") }
        return v
    }

    package init(b: UnsafeBufferPointer<UInt8>, offset: Int = 0) {
        self.b = b
        self.i = offset
    }

    package var offset: Int { i }

    /// 3 when the bytes open with UTF-8's byte order mark (editors on Windows write one), else 0.
    package static func byteOrderMarkLength(_ buf: UnsafeBufferPointer<UInt8>) -> Int {
        buf.count >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF ? 3 : 0
    }

    package mutating func advance(by n: Int) { i += n }

    package func fail(_ message: String, at position: Int? = nil) -> JSONReadError {
        let p = min(position ?? i, b.count)
        var line = 1
        var lineStart = 0
        for k in 0..<p where b[k] == 0x0A { line += 1; lineStart = k + 1 }
        // A byte order mark is no column of the first line.
        if lineStart == 0 { lineStart = min(Self.byteOrderMarkLength(b), p) }
        let column = String(decoding: UnsafeBufferPointer(rebasing: b[lineStart..<p]), as: UTF8.self).count + 1
        return JSONReadError(message: message, offset: p, line: line, column: column)
    }

    private func found() -> String {
        guard i < b.count else { return "end of input" }
        let c = b[i]
        return c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : String(format: "byte 0x%02X", c)
    }

    package mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    package mutating func parseValue() throws(JSONReadError) -> PredicateValue {
        guard i < b.count else { throw fail("expected a JSON value, found end of input") }
        switch b[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("expected a JSON value, found \(found())")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { throw fail("expected \(word), found \(found())") }
        let p = word.utf8Start
        for k in 0..<n where b[i + k] != p[k] { throw fail("expected \(word), found \(found())") }
        i += n
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        if depth > Self.maxDepth { throw fail("JSON nests deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseArray() throws(JSONReadError) -> PredicateValue {
        try enter()
        defer { depth -= 1 }
        i += 1
        var out: [PredicateValue] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
        while true {
            skipSpace()
            out.append(try parseValue())
            skipSpace()
            guard i < b.count else { throw fail("expected ',' or ']' in an array, found end of input") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
            throw fail("expected ',' or ']' in an array, found \(found())")
        }
    }

    private mutating func parseObject() throws(JSONReadError) -> PredicateValue {
        try enter()
        defer { depth -= 1 }
        let start = i
        i += 1
        var out: [String: PredicateValue] = [:]
        var dateStart = start, dateEnd = start
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .dictionary(out) }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a quoted key in an object, found \(found())") }
            let keyStart = i
            let key = try parseString()
            // A repeated key (or one equal to an earlier key as a Swift string) would drop a value.
            if let earlier = out.index(forKey: key) {
                throw fail(JSONKeys.duplicate(out.keys[earlier], key, in: "one object"), at: keyStart).aboutAValue(fix: JSONKeys.hint)
            }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after an object key, found \(found())") }
            i += 1
            skipSpace()
            if key == "$date" { dateStart = i }
            out[key] = try parseValue()
            if key == "$date" { dateEnd = i }
            skipSpace()
            guard i < b.count else { throw fail("expected ',' or '}' in an object, found end of input") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("expected ',' or '}' in an object, found \(found())")
        }
        if out.count == 1, let d = out["$double"] {
            // What jsonText() writes for the doubles JSON has no number for: NaN, ±infinity.
            guard case .string(let text) = d, let x = Double(text) else {
                throw fail("a {\"$double\": …} object needs a number written as a string, such as \"nan\", \"inf\", \"-inf\" or \"2.5\"", at: start).aboutAValue()
            }
            return .double(x)
        }
        if out.count == 1, let d = out["$date"] {
            let needed = "a {\"$date\": …} object needs an ISO-8601 date string such as \"2024-05-01T12:00:00Z\""
            guard case .string(let text) = d else { throw fail(needed, at: start).aboutAValue() }
            guard let date = ISO8601.date(from: text) else {
                // The JSON is well formed: say what is wrong with the date, at the part at
                // fault when the string is written without escapes (its bytes are its text's).
                guard let (problem, offset) = ISO8601.problem(in: text) else { throw fail(needed, at: dateStart).aboutAValue() }
                let written = dateEnd - dateStart == text.utf8.count + 2
                let shown = text.count > 40 ? String(text.prefix(37)) + "…" : text
                throw fail("the date \"\(shown)\" cannot be read: \(problem)", at: written ? dateStart + 1 + offset : dateStart).aboutAValue(hint: needed)
            }
            return .date(date)
        }
        return .dictionary(out)
    }

    package mutating func parseString() throws(JSONReadError) -> String {
        let start = i
        i += 1
        let contentStart = i
        // Fast path: no escapes.
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: b[contentStart..<i])
                i += 1
                guard let s = String(validating: raw, as: UTF8.self) else { throw fail("a string is not valid UTF-8", at: start) }
                return s
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { break }
            i += 1
        }
        var bytes = Array(UnsafeBufferPointer(rebasing: b[contentStart..<i]))
        while true {
            guard i < b.count else { throw fail("a string is never closed", at: start) }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("a control character must be escaped inside a string") }
            if c != UInt8(ascii: "\\") { bytes.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw fail("a string ends inside an escape") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var v = try hex4()
                if (0xD800...0xDBFF).contains(v), i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                    // A low surrogate completes the pair; any other escape is left for the next
                    // turn of the loop (the lone high surrogate becomes U+FFFD on its own).
                    let mark = i
                    i += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        v = 0xFFFD
                        i = mark
                    }
                } else if (0xD800...0xDFFF).contains(v) {
                    v = 0xFFFD
                }
                bytes.append(contentsOf: Array(String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8))
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i - 2)
            }
        }
        guard let s = String(validating: bytes, as: UTF8.self) else { throw fail("a string is not valid UTF-8", at: start) }
        return s
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < b.count else { throw fail("\\u needs four hexadecimal digits") }
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            default: throw fail("\\u needs four hexadecimal digits")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    private mutating func parseNumber() throws(JSONReadError) -> PredicateValue {
        let start = i
        var negative = false
        if b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { throw fail("expected a digit in a number", at: i) }
        if b[i] == UInt8(ascii: "0"), i + 1 < b.count, b[i + 1] >= 0x30, b[i + 1] <= 0x39 {
            throw fail("numbers cannot have leading zeros", at: start)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b[i] - 0x30))
            overflow = overflow || o1 || o2
            magnitude = s
            i += 1
        }
        var isDouble = false
        if i < b.count, b[i] == UInt8(ascii: ".") {
            isDouble = true
            i += 1
            guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { throw fail("expected a digit after '.' in a number") }
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        }
        if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
            isDouble = true
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { throw fail("expected a digit in the exponent") }
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
        }
        if !isDouble && !overflow {
            if !negative && magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
            if negative && magnitude <= UInt64(Int64.max) + 1 {
                return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        return try exactNumber(text, isInteger: !isDouble, at: start)
    }

    /// What to do about a number no PQL value holds exactly.
    static let numberFix = "write the number as a string (in quotes) to keep it as text"

    private func beyondDoubles(_ text: String, at start: Int) -> JSONReadError {
        fail("the number \(text.count > 48 ? String(text.prefix(45)) + "…" : text) is beyond the range of a double (±1.8e308)", at: start)
            .aboutAValue(fix: Self.numberFix)
    }

    /// A number that is not a 64-bit integer, without rounding an integer or overflowing: an
    /// integer beyond 64 bits is a decimal, as imports keep it (a double would round
    /// 18446744073709551617 to …616, and `pql query FILE` would disagree with the store);
    /// past the doubles (1e400) JSON has no value PQL could print back (infinity would come
    /// out as null, and pass `n > 1`).
    private func exactNumber(_ text: String, isInteger: Bool, at start: Int) throws(JSONReadError) -> PredicateValue {
        if isInteger {
            // Decimal keeps 38 digits; its text shows whether it kept them all.
            guard let d = Decimal(string: text), "\(d)" == text else {
                throw fail("the integer \(text.count > 48 ? String(text.prefix(45)) + "…" : text) has more digits than can be kept exactly (38)", at: start)
                    .aboutAValue(fix: Self.numberFix)
            }
            return .decimal(d)
        }
        guard let d = Double(text), d.isFinite else { throw beyondDoubles(text, at: start) }
        return .double(d)
    }
}

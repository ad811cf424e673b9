import Foundation

/// A value encodes as the JSON it looks like wherever that reads back as the same kind:
/// `null`, `true`, `42`, `2.5`, `"text"`, `[…]`, `{…}`. The kinds JSON has no form of, and
/// doubles that would read back as integers, encode as a one-key object tagged with `$`
/// (the convention of MongoDB's Extended JSON):
///
/// | value | encoded |
/// |---|---|
/// | `.double(2)`, `.double(.infinity)`, `.double(.nan)` | `{"$double": "2.0"}`, `{"$double": "inf"}`, `{"$double": "nan"}` |
/// | `.decimal(Decimal(string: "0.1")!)` | `{"$decimal": "0.1"}` (exact) |
/// | `.date(Date(timeIntervalSinceReferenceDate: 5.25))` | `{"$date": 5.25}` (seconds since 2001, as `CAST(…, "NSDate")`) |
/// | `.data(Data([1, 2]))` | `{"$data": "AQI="}` (base64) |
/// | `.set([1, 2])` | `{"$set": [1, 2]}` |
/// | a dictionary whose one key is a tag, `["$date": 1]` | `{"$dictionary": {"$date": 1}}` |
///
/// Decoding reads both forms back to the kind encoded: every value round-trips to an equal
/// value of the same case. An integer beyond `Int64` decodes as a `.decimal`, exactly, and
/// `$date` also takes the ISO-8601 text that ``jsonText(keyOrder:)`` and `pql` write. A plain
/// number with no fraction decodes as an `.int` however it is written (`2`, `2.0`, `1e3`:
/// `Decoder` does not show the text), which is why such doubles encode tagged.
///
/// ```swift
/// let json = try JSONEncoder().encode(PredicateValue.array([1, 2.5, .date(Date(timeIntervalSinceReferenceDate: 0))]))
/// // [1,2.5,{"$date":0}]
/// let back = try JSONDecoder().decode(PredicateValue.self, from: json)
/// ```
extension PredicateValue: Codable {
    /// The keys of the tagged forms.
    enum Tag: String, CaseIterable {
        case double = "$double"
        case decimal = "$decimal"
        case date = "$date"
        case data = "$data"
        case set = "$set"
        case dictionary = "$dictionary"
    }

    /// Any string as a coding key, for dictionaries.
    struct DynamicKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the value as described above.
    ///
    /// ```swift
    /// let text = String(decoding: try JSONEncoder().encode(PredicateValue.double(2)), as: UTF8.self)   // {"$double":"2.0"}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .double(let d):
            // A number with a fraction cannot be taken for an integer; any other double can
            // (JSON writes 2.0 as 2), and JSON has no infinities or NaN.
            if d.isFinite && d.rounded(.towardZero) != d {
                var c = encoder.singleValueContainer()
                try c.encode(d)
            } else {
                var c = encoder.container(keyedBy: DynamicKey.self)
                try c.encode(d.description, forKey: DynamicKey(Tag.double.rawValue))
            }
        case .decimal(let d):
            var c = encoder.container(keyedBy: DynamicKey.self)
            try c.encode(d.description, forKey: DynamicKey(Tag.decimal.rawValue))
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .date(let d):
            var c = encoder.container(keyedBy: DynamicKey.self)
            let seconds = d.timeIntervalSinceReferenceDate
            if seconds.isFinite {
                try c.encode(seconds, forKey: DynamicKey(Tag.date.rawValue))
            } else {
                try c.encode(seconds.description, forKey: DynamicKey(Tag.date.rawValue))
            }
        case .data(let d):
            var c = encoder.container(keyedBy: DynamicKey.self)
            try c.encode(d.base64EncodedString(), forKey: DynamicKey(Tag.data.rawValue))
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for e in a { try c.encode(e) }
        case .set(let a):
            var c = encoder.container(keyedBy: DynamicKey.self)
            try c.encode(a, forKey: DynamicKey(Tag.set.rawValue))
        case .dictionary(let d):
            var c = encoder.container(keyedBy: DynamicKey.self)
            if d.count == 1, let key = d.keys.first, Tag(rawValue: key) != nil {
                // Would read back as a tagged value: wrap it.
                var inner = c.nestedContainer(keyedBy: DynamicKey.self, forKey: DynamicKey(Tag.dictionary.rawValue))
                try inner.encode(d[key]!, forKey: DynamicKey(key))
            } else {
                for (k, v) in d { try c.encode(v, forKey: DynamicKey(k)) }
            }
        }
    }

    /// Decodes either form.
    ///
    /// ```swift
    /// let v = try JSONDecoder().decode(PredicateValue.self, from: Data(#"{"$decimal": "0.1"}"#.utf8))   // .decimal(0.1)
    /// ```
    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.singleValueContainer() {
            if c.decodeNil() { self = .null; return }
            if let b = try? c.decode(Bool.self) { self = .bool(b); return }
            if let i = try? c.decode(Int64.self) { self = .int(i); return }
            if let d = try? c.decode(Double.self) {
                // An integer too large for Int64 (as Foundation numbers beyond it become decimals).
                if d.isFinite, d.rounded(.towardZero) == d, let exact = try? c.decode(Decimal.self) {
                    self = .decimal(exact)
                } else {
                    self = .double(d)
                }
                return
            }
            if let s = try? c.decode(String.self) { self = .string(s); return }
        }
        if var u = try? decoder.unkeyedContainer() {
            var a: [PredicateValue] = []
            while !u.isAtEnd { a.append(try u.decode(PredicateValue.self)) }
            self = .array(a)
            return
        }
        let c = try decoder.container(keyedBy: DynamicKey.self)
        let keys = c.allKeys
        if keys.count == 1, let tag = Tag(rawValue: keys[0].stringValue) {
            self = try Self.decode(tag, from: c, key: keys[0])
            return
        }
        var d: [String: PredicateValue] = [:]
        for k in keys { d[k.stringValue] = try c.decode(PredicateValue.self, forKey: k) }
        self = .dictionary(d)
    }

    private static func decode(_ tag: Tag, from c: KeyedDecodingContainer<DynamicKey>, key: DynamicKey) throws -> PredicateValue {
        func bad(_ what: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(tag.rawValue) needs \(what)")
        }
        switch tag {
        case .double:
            guard let d = Double(try c.decode(String.self, forKey: key)) else { throw bad("a number as text (\"2.0\", \"inf\", \"nan\")") }
            return .double(d)
        case .decimal:
            let text = try c.decode(String.self, forKey: key)
            // Decimal prints its NaN as "NaN" but does not parse it back.
            if text == "NaN" { return .decimal(.nan) }
            guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw bad("a decimal number as text (\"0.1\")") }
            return .decimal(d)
        case .date:
            if let seconds = try? c.decode(Double.self, forKey: key) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            let text = try c.decode(String.self, forKey: key)
            if let seconds = Double(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            // The form `jsonText()` and `pql` write.
            guard let date = ISO8601.date(from: text) else { throw bad("the seconds since 2001-01-01, or an ISO-8601 date") }
            return .date(date)
        case .data:
            guard let d = Data(base64Encoded: try c.decode(String.self, forKey: key)) else { throw bad("base64 text") }
            return .data(d)
        case .set:
            return .set(try c.decode([PredicateValue].self, forKey: key))
        case .dictionary:
            let inner = try c.nestedContainer(keyedBy: DynamicKey.self, forKey: key)
            var d: [String: PredicateValue] = [:]
            for k in inner.allKeys { d[k.stringValue] = try inner.decode(PredicateValue.self, forKey: k) }
            return .dictionary(d)
        }
    }
}

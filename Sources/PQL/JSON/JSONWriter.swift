import Foundation

extension PredicateValue {
    /// The value as compact JSON, the form `pql` reads back: dates as `{"$date": "<ISO-8601>"}`,
    /// data as base64 strings, NaN and infinities as `{"$double": "nan"}`, `{"$double": "inf"}`
    /// and `{"$double": "-inf"}` (the tagged form of `Codable`, which JSON has no number for),
    /// negative zero as `-0.0`. Dictionary keys are sorted unless `keyOrder` names them.
    ///
    /// ```swift
    /// PredicateValue.dictionary(["name": "Zoë", "age": 30]).jsonText()   // {"age":30,"name":"Zoë"}
    /// ```
    public func jsonText(keyOrder: [String]? = nil) -> String {
        var out = ""
        write(to: &out, keyOrder: keyOrder)
        return out
    }

    private func write(to out: inout String, keyOrder: [String]?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            // Not null: a row that matched `a > 0` would show "a": null.
            if !d.isFinite { out += "{\"$double\":\"\(d)\"}" }
            else if d == 0 { out += d.sign == .minus ? "-0.0" : "0.0" }
            else if d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) + ".0" }
            else { out += "\(d)" }
        case .decimal(let d): out += "\(d)"
        case .string(let s): JSONText.quote(s, to: &out)
        case .date(let d): out += "{\"$date\":"; JSONText.quote(ISO8601.string(from: d), to: &out); out += "}"
        case .data(let d): JSONText.quote(d.base64EncodedString(), to: &out)
        case .array(let a), .set(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out, keyOrder: nil)
            }
            out += "]"
        case .dictionary(let d):
            out += "{"
            var keys = keyOrder?.filter { d[$0] != nil } ?? d.keys.sorted()
            if keyOrder != nil { keys += d.keys.filter { !keys.contains($0) }.sorted() }
            for (i, k) in keys.enumerated() {
                if i > 0 { out += "," }
                JSONText.quote(k, to: &out)
                out += ":"
                d[k]?.write(to: &out, keyOrder: nil)
            }
            out += "}"
        }
    }
}

/// JSON string quoting, shared by every JSON PQL writes.
package enum JSONText {
    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
    package static func quote(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        out += "\""
    }
}

import Foundation
import PQL

/// How a value reads in a table cell, and how wide it is on a terminal.
enum CellText {
    static func text(_ v: PredicateValue) -> String {
        switch v {
        case .null: return "NULL"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)"
        case .decimal(let d): return "\(d)"
        case .string(let s): return visible(s)
        // PQL's own ISO 8601 text, as JSON Lines has it: proleptic Gregorian before 1582 (where
        // Foundation's formatter switches to the Julian calendar) and every digit of the
        // fraction that reads back as the same date, so a CSV export imports back unchanged.
        case .date(let d): return ISO8601.string(from: d)
        case .data(let d): return "<\(d.count) bytes>"
        default: return v.jsonText()
        }
    }

    static func isNumeric(_ v: PredicateValue) -> Bool {
        switch v {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    /// Control characters would break the table's lines: shown as symbols instead.
    static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            switch u.value {
            case 0x0A: out.append("↵")
            case 0x09: out.append("⇥")
            case 0..<0x20: out.append(Unicode.Scalar(0x2400 + u.value)!)
            case 0x7F: out.append("␡")
            default: out.append(u)
            }
        }
        return String(out)
    }

    /// Terminal cells `s` takes, character by character: CJK and emoji (ZWJ sequences, flags,
    /// variation selector 16 included) take two, combining marks and joiners none (see
    /// `TerminalText.cells`).
    static func width(_ s: String) -> Int {
        s.reduce(0) { $0 + TerminalText.cells($1) }
    }

    /// `s` cut to at most `limit` cells, with an ellipsis when cut.
    static func truncated(_ s: String, to limit: Int) -> String {
        guard width(s) > limit else { return s }
        var out = ""
        var w = 0
        for c in s {
            let cw = TerminalText.cells(c)
            if w + cw > limit - 1 { break }
            out.append(c)
            w += cw
        }
        while out.last?.isWhitespace == true { out.removeLast() }
        return out + "…"
    }
}

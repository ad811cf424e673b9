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
        case .date(let d): return dateFormatter.string(from: d)
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

    nonisolated(unsafe) static let dateFormatter: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f
    }()

    /// Terminal cells: East Asian wide characters and most emoji take two, marks none.
    static func width(_ s: String) -> Int {
        var w = 0
        for u in s.unicodeScalars { w += width(u) }
        return w
    }

    static func width(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x300 { return 1 }
        switch u.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `s` cut to at most `limit` cells, with an ellipsis when cut.
    static func truncated(_ s: String, to limit: Int) -> String {
        guard width(s) > limit else { return s }
        var out = ""
        var w = 0
        for c in s {
            let cw = width(String(c))
            if w + cw > limit - 1 { break }
            out.append(c)
            w += cw
        }
        while out.last?.isWhitespace == true { out.removeLast() }
        return out + "…"
    }
}

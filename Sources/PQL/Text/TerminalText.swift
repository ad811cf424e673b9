/// Text from the input made safe to show on a terminal: control characters (ESC, BEL, a
/// carriage return, C1 controls such as CSI) would otherwise reach the terminal raw and be
/// obeyed — colour changes, a rewritten title, a cursor moved over the message — so every
/// error rendering shows them as symbols, as the REPL's tables do.
///
/// ```swift
/// TerminalText.visible("a\u{1B}[31m")   // "a␛[31m"
/// ```
package enum TerminalText {
    /// `s` with C0 controls shown as their Control Pictures (`␛`, `␇`, `␍`…; one character
    /// each, so columns stay where they were), DEL as `␡` and C1 controls as `\u{9B}`.
    /// Newlines and tabs are kept when `keepingLineBreaks` (multi-line messages), else shown
    /// as `↵` and `⇥`.
    package static func visible(_ s: String, keepingLineBreaks: Bool = true) -> String {
        guard s.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks) }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            guard needsEscape(u, keepingLineBreaks) else { out.append(u); continue }
            switch u.value {
            case 0x0A: out.append("↵")
            case 0..<0x20: out.append(Unicode.Scalar(0x2400 + u.value)!)
            case 0x7F: out.append("␡")
            default: out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return String(out)
    }

    private static func needsEscape(_ u: Unicode.Scalar, _ keepingLineBreaks: Bool) -> Bool {
        switch u.value {
        case 0x09: return false
        case 0x0A: return !keepingLineBreaks
        case 0..<0x20, 0x7F...0x9F: return true
        default: return false
        }
    }

    /// Blanks as wide as `shown` (already made visible) on a terminal, keeping its tabs, for a
    /// caret line under it: a wide character gets two blanks, a combining mark none.
    package static func blanks(under shown: some StringProtocol) -> String {
        var out = ""
        for c in shown {
            if c == "\t" { out.append("\t"); continue }
            out += String(repeating: " ", count: cells(c))
        }
        return out
    }

    /// Terminal cells `s` takes: East Asian wide characters and most emoji take two, marks
    /// none (approximate, as terminals are).
    package static func cells(_ s: some StringProtocol) -> Int {
        s.reduce(0) { $0 + cells($1) }
    }

    /// A long line cut around one place, so that an error on a 16 MiB line shows a screenful:
    /// at most `before` characters before `split` and `after` from it, each cut side marked
    /// with `…`. Returns the text before and from the split, both already visible.
    package static func window(before head: Substring, after tail: Substring,
                               before: Int = 100, after: Int = 160) -> (head: String, tail: String) {
        var h = head, t = tail
        var cutHead = false, cutTail = false
        // Walking back a bounded number of characters from the split costs nothing on long lines.
        if let start = h.index(h.endIndex, offsetBy: -before, limitedBy: h.startIndex), start > h.startIndex {
            h = h[start...]
            cutHead = true
        }
        if let end = t.index(t.startIndex, offsetBy: after, limitedBy: t.endIndex), end < t.endIndex {
            t = t[..<end]
            cutTail = true
        }
        return ((cutHead ? "…" : "") + visible(String(h), keepingLineBreaks: false),
                visible(String(t), keepingLineBreaks: false) + (cutTail ? "…" : ""))
    }
}

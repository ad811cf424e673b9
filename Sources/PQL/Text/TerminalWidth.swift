/// How many terminal cells text takes, as terminals draw it: East Asian wide and fullwidth
/// characters and emoji take two cells, combining marks and format characters (zero-width
/// joiners, variation selectors) none, and an emoji sequence — joined by ZWJ, with a skin-tone
/// modifier, a flag, a keycap, or a text character made emoji by variation selector 16 — is one
/// glyph of two cells.
///
/// ```swift
/// TerminalText.cells("日本")       // 4
/// TerminalText.cells("e\u{301}")   // 1 (e and a combining acute accent)
/// TerminalText.cells("👩‍💻")         // 2 (woman, ZWJ, laptop)
/// ```
extension TerminalText {
    /// Terminal cells of one character (a grapheme cluster).
    package static func cells(_ c: Character) -> Int {
        let scalars = c.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 { return cells(first) }
        let p = first.properties
        // Variation selector 15 asks for text presentation, 16 for emoji presentation.
        if scalars.contains("\u{FE0E}") && p.isEmoji { return 1 }
        if scalars.contains("\u{FE0F}") && p.isEmoji { return 2 }
        // ZWJ sequences, modifier sequences and flags: one emoji glyph.
        if p.isEmojiPresentation || (p.isEmoji && scalars.contains("\u{200D}")) { return 2 }
        // A base and its marks; Hangul syllables spelled as jamo (the medial and final jamo take none).
        return min(2, scalars.reduce(0) { $0 + cells($1) })
    }

    /// Terminal cells of one scalar on its own: 0 for marks, format characters and Hangul medial
    /// and final jamo, 2 for East Asian wide and fullwidth characters and emoji presentation, else 1.
    package static func cells(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x300 { return 1 }
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }
        switch u.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if u.properties.isEmojiPresentation || isWide(v) { return 2 }
        return 1
    }

    /// East Asian Width W and F (Unicode's EastAsianWidth.txt) outside emoji: CJK, kana,
    /// Hangul, Yi, Tangut, fullwidth forms and the CJK extension planes.
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
             0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

import Foundation

/// Folding for the `[c]` and `[d]` options: both sides of a comparison are folded the same
/// way, then compared literally.
///
/// - `[c]`: full case folding (ß → ss, Σ/σ/ς alike), width-insensitive (Ａ → A).
/// - `[d]`: canonical decomposition with diacritic marks removed (é → e, Å → A), and the
///   letters whose "diacritic" is a stroke or a missing dot that users expect to match their
///   base letter (Ł → L, Ø → O, Đ → D, Ħ → H, ı → i).
/// - Either option also makes canonically equivalent strings equal (é and e + U+0301), as
///   Apple's non-literal comparison does.
///
/// ASCII text takes a fast path that never leaves the bytes.
package enum StringFolding {
    package static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if isASCII(s) {
            return caseInsensitive ? asciiLowercased(s) : s
        }
        var text = diacriticInsensitive ? s.decomposedStringWithCanonicalMapping : s.canonicallyComposed
        var scalars = String.UnicodeScalarView()
        var changed = false
        for var u in text.unicodeScalars {
            // Width first, so that a halfwidth sound mark (ﾞ U+FF9E → U+3099) is then seen as
            // the combining mark it is.
            if let narrow = widthFolded(u) {
                u = narrow
                changed = true
            }
            if diacriticInsensitive {
                if isDiacriticMark(u) {
                    changed = true
                    continue
                }
                if let base = strokeBase[u.value] {
                    scalars.append(base)
                    changed = true
                    continue
                }
            }
            scalars.append(u)
        }
        if changed { text = String(scalars) }
        if caseInsensitive {
            // Upper- then lower-casing is full case folding for all but a few scripts: ß → SS → ss.
            // Lower-casing first as well catches the letters whose upper case is themselves but
            // whose fold is not: capital sharp s ẞ → ß → SS → ss (CaseFolding.txt: 1E9E → ss).
            text = text.lowercased().uppercased().lowercased()
            if diacriticInsensitive {
                // Upper-casing can add marks again (ŉ → ʼN); strip once more.
                text = String(String.UnicodeScalarView(text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                    !isDiacriticMark($0)
                }))
            }
        }
        // Compose what is left: [d]'s decomposition splits Hangul syllables into jamo, which a
        // substring search must not match one by one (한 does not begin with 하), and width
        // folding can leave a letter and its mark apart (ｶﾞ → カ + U+3099 → ガ).
        if diacriticInsensitive || caseInsensitive || changed { text = text.canonicallyComposed }
        return text
    }

    @inline(__always)
    static func isASCII(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { buf in
            // Eight bytes at a time.
            var i = 0
            let n = buf.count
            while i + 8 <= n {
                let w = UnsafeRawPointer(buf.baseAddress! + i).loadUnaligned(as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
            while i < n {
                if buf[i] >= 0x80 { return false }
                i += 1
            }
            return true
        }
    }

    static func asciiLowercased(_ s: String) -> String {
        var s = s
        return s.withUTF8 { buf in
            guard buf.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(decoding: buf, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: buf.count) { out in
                for i in 0..<buf.count {
                    let b = buf[i]
                    out[i] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
                }
                return buf.count
            }
        }
    }

    /// A combining mark that is a diacritic (Unicode's Diacritic property): accents, cedillas,
    /// rings, Hebrew and Arabic vowel points, kana sound marks. Not every mark is one: the
    /// vowel signs of Indic scripts (कि, கா) are letters' parts, and stripping them would make
    /// different words equal under [d].
    @inline(__always)
    static func isDiacriticMark(_ u: Unicode.Scalar) -> Bool {
        switch u.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return u.properties.isDiacritic
        default: return false
        }
    }

    /// Fullwidth ASCII and the ideographic space fold to their ASCII forms, and the other
    /// width variants of the Halfwidth and Fullwidth Forms block (halfwidth katakana and
    /// Hangul, fullwidth ¥ ￡…) to their ordinary forms (width-insensitive).
    @inline(__always)
    private static func widthFolded(_ u: Unicode.Scalar) -> Unicode.Scalar? {
        switch u.value {
        case 0xFF01...0xFF5E: return Unicode.Scalar(u.value - 0xFEE0)
        case 0x3000: return " "
        case 0xFFA0...0xFFDC:
            // Halfwidth Hangul → compatibility jamo, one step (NFKD would go on to the
            // conjoining jamo, which ㄱ itself never becomes here).
            let v = u.value
            let base: UInt32? = switch v {
            case 0xFFA0: 0x3164
            case 0xFFA1...0xFFBE: v - 0xFFA1 + 0x3131
            case 0xFFC2...0xFFC7: v - 0xFFC2 + 0x314F
            case 0xFFCA...0xFFCF: v - 0xFFCA + 0x3155
            case 0xFFD2...0xFFD7: v - 0xFFD2 + 0x315B
            case 0xFFDA...0xFFDC: v - 0xFFDA + 0x3161
            default: nil
            }
            return base.flatMap(Unicode.Scalar.init)
        case 0xFF5F...0xFFEE:
            // The other <narrow>/<wide> mappings of the block are single scalars that do not
            // decompose further (￣ → ¯ → space + mark is left alone).
            let mapped = String(u).decomposedStringWithCompatibilityMapping.unicodeScalars
            return mapped.count == 1 && mapped.first != u ? mapped.first : nil
        default: return nil
        }
    }

    /// Letters without a canonical decomposition whose mark users treat as a diacritic.
    private static let strokeBase: [UInt32: Unicode.Scalar] = [
        0x0141: "L", 0x0142: "l", 0x00D8: "O", 0x00F8: "o", 0x0110: "D", 0x0111: "d",
        0x0126: "H", 0x0127: "h", 0x0131: "i", 0x0166: "T", 0x0167: "t", 0x0180: "b",
        0x0197: "I", 0x0268: "i", 0x01B5: "Z", 0x01B6: "z", 0x00D0: "D", 0x00F0: "d",
    ]
}

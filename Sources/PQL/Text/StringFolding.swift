import Foundation

/// Folding for the `[c]` and `[d]` options: both sides of a comparison are folded the same
/// way, then compared literally.
///
/// - `[c]`: full case folding (ß → ss, Σ/σ/ς alike), width-insensitive (Ａ → A).
/// - `[d]`: canonical decomposition with combining marks removed (é → e, Å → A), and the
///   letters whose "diacritic" is a stroke or a missing dot that users expect to match their
///   base letter (Ł → L, Ø → O, Đ → D, Ħ → H, ı → i).
/// - Either option also makes canonically equivalent strings equal (é and e + U+0301), as
///   Apple's non-literal comparison does.
///
/// ASCII text takes a fast path that never leaves the bytes.
enum StringFolding {
    static func fold(_ s: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if isASCII(s) {
            return caseInsensitive ? asciiLowercased(s) : s
        }
        var text = diacriticInsensitive ? s.decomposedStringWithCanonicalMapping : s.precomposedStringWithCanonicalMapping
        var scalars = String.UnicodeScalarView()
        var changed = false
        for u in text.unicodeScalars {
            if diacriticInsensitive {
                switch u.properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .spacingMark:
                    changed = true
                    continue
                default: break
                }
                if let base = strokeBase[u.value] {
                    scalars.append(base)
                    changed = true
                    continue
                }
            }
            if let narrow = widthFolded(u) {
                scalars.append(narrow)
                changed = true
                continue
            }
            scalars.append(u)
        }
        if changed { text = String(scalars) }
        if caseInsensitive {
            // Upper- then lower-casing is full case folding for all but a few scripts: ß → SS → ss.
            text = text.uppercased().lowercased()
            if diacriticInsensitive {
                // Upper-casing can add marks again (ŉ → ʼN); strip once more.
                text = String(String.UnicodeScalarView(text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                    let c = $0.properties.generalCategory
                    return c != .nonspacingMark && c != .enclosingMark && c != .spacingMark
                }))
            } else {
                text = text.precomposedStringWithCanonicalMapping
            }
        }
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

    /// Fullwidth ASCII and the ideographic space fold to their ASCII forms (width-insensitive).
    @inline(__always)
    private static func widthFolded(_ u: Unicode.Scalar) -> Unicode.Scalar? {
        switch u.value {
        case 0xFF01...0xFF5E: return Unicode.Scalar(u.value - 0xFEE0)
        case 0x3000: return " "
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

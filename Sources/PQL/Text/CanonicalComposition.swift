import Foundation

extension String {
    /// The text in Unicode's NFC. Foundation's NFC on Linux leaves a Hangul syllable without a
    /// final consonant apart from a final consonant jamo after it (가 + U+11A8), where Unicode
    /// composes them (각), as Swift's `==` and PostgreSQL's `normalize` do: PQL composes them
    /// after Foundation, so that its folds and LIKE agree with both.
    ///
    /// ```swift
    /// "\u{AC00}\u{11A8}".canonicallyComposed == "\u{AC01}"   // true
    /// ```
    package var canonicallyComposed: String {
        let nfc = precomposedStringWithCanonicalMapping
        guard nfc.unicodeScalars.contains(where: { Self.finalJamo.contains($0.value) }) else { return nfc }
        var out = String.UnicodeScalarView()
        for u in nfc.unicodeScalars {
            if Self.finalJamo.contains(u.value), let last = out.last, Self.syllables.contains(last.value),
               (last.value - Self.syllables.lowerBound) % 28 == 0, let composed = Unicode.Scalar(last.value + u.value - 0x11A7) {
                out.removeLast()
                out.append(composed)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// Hangul's final consonants (T jamo that compose) and precomposed syllables.
    private static let finalJamo: ClosedRange<UInt32> = 0x11A8...0x11C2
    private static let syllables: Range<UInt32> = 0xAC00..<0xD7A4
}

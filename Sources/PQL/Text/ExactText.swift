/// A `String` as a dictionary key that compares and hashes its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence, so "é" and "e" + U+0301 are one key;
/// caches of compiled forms must keep them apart: PCRE2 matches code points, and SQLite
/// reads identifiers byte for byte. Unlike a `[UInt8]` key, nothing is copied per lookup.
///
/// ```swift
/// var compiled: [ExactText: Int] = [ExactText("e\u{301}"): 1]
/// compiled[ExactText("é")]   // nil
/// ```
package struct ExactText: Hashable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (a: ExactText, b: ExactText) -> Bool {
        a.text.utf8.elementsEqual(b.text.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        var text = self.text
        // Native strings hand out their bytes without copying; a bridged one is made native once.
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

import Testing
@testable import PQL

/// ``Keyword/lookup(length:low:high:)`` compares packed words with constants written out by
/// hand; these tests tie the constants to ``Keyword/spelling``.
@Suite("Keyword lookup")
struct KeywordLookupTests {
    /// The lexer's way in: the word packed as ``PackedBytes`` packs it, once at the end of the
    /// buffer (bytes read one by one) and once with bytes after it (eight-byte loads); the two
    /// must agree.
    static func lookup(_ word: String) -> Keyword? {
        let n = word.utf8.count
        guard n >= 2, n <= 15 else { return nil }
        let found = [0, 16].map { padding in
            (Array(word.utf8) + Array(repeating: UInt8(ascii: "x"), count: padding)).withUnsafeBufferPointer { b in
                Keyword.lookup(length: n, low: PackedBytes.load(b, 0, min(n, 8)), high: n > 8 ? PackedBytes.load(b, 8, n) : 0)
            }
        }
        #expect(found[0] == found[1], "\(word)")
        return found[0]
    }

    @Test func everySpellingFindsItsKeyword() {
        for k in Keyword.allCases where k != .utiConformsTo && k != .utiEquals {
            let s = k.spelling
            #expect(Self.lookup(s) == k, "\(s)")
            #expect(Self.lookup(s.lowercased()) == k, "\(s.lowercased())")
            let mixed = String(s.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
            #expect(Self.lookup(mixed) == k, "\(mixed)")
        }
    }

    @Test func nearMissesAreNoKeywords() {
        for k in Keyword.allCases where k != .utiConformsTo && k != .utiEquals {
            let s = k.spelling
            for miss in [s + "S", s + "_", s + "1", String(s.dropLast()), "_" + s.dropFirst(), String(s.dropLast()) + "\u{7F}"]
            where !Keyword.allCases.contains(where: { $0.spelling == miss }) {
                #expect(Self.lookup(miss) == nil, "\(miss)")
            }
        }
        for word in ["", "a", "x", "ANDX", "ORR", "nam", "name", "age", "BEGINSWIT", "BEGINSWITHX", "caseinsensitivex"] {
            #expect(Self.lookup(word) == nil, "\(word)")
        }
    }
}

/// The reserved words of reference §1.3. Matching is case-insensitive (decision D4).
enum Keyword: UInt8, CaseIterable, Sendable {
    case and, or, `in`, not, all, any, someQuantifier, noneQuantifier, like, caseInsensitive, ci, matches, contains
    case beginsWith, endsWith, between, null, `nil`, `self`, `true`, yes, `false`, no
    case first, last, size, anyKey, subquery, fetch, cast, truePredicate, falsePredicate
    case utiConformsTo, utiEquals

    /// The upper-case spelling.
    var spelling: String {
        switch self {
        case .caseInsensitive: return "CASEINSENSITIVE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .anyKey: return "ANYKEY"
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .utiConformsTo: return "UTI-CONFORMS-TO"
        case .utiEquals: return "UTI-EQUALS"
        case .someQuantifier: return "SOME"
        case .noneQuantifier: return "NONE"
        default: return "\(self)".uppercased()
        }
    }

    /// Looks up an ASCII word without allocating: the upper-cased bytes are packed into two
    /// machine words and found in a small open-addressing table.
    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
        let n = end - start
        guard n >= 2, n <= 15 else { return nil }
        // Keywords in the table are all letters. Clearing bit 5 upper-cases a letter and turns
        // no other byte into one, so a word matches exactly when it did with a full ASCII
        // upper-casing, without a branch per byte.
        var key = PackedWord()
        for i in 0..<min(n, 8) { key.low |= UInt64(bytes[start + i] & 0xDF) << (8 * UInt64(i)) }
        if n > 8 { for i in 8..<n { key.high |= UInt64(bytes[start + i] & 0xDF) << (8 * UInt64(i - 8)) } }
        return slots.withUnsafeBufferPointer { slots in
            var i = key.slot
            while true {
                let entry = slots[i]
                guard let keyword = entry.keyword else { return nil }
                if entry.low == key.low && entry.high == key.high { return keyword }
                i = (i + 1) & (slotCount - 1)
            }
        }
    }

    /// Up to 16 bytes packed little-endian into two words.
    struct PackedWord: Hashable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        mutating func append(_ byte: UInt8, at i: Int) {
            if i < 8 { low |= UInt64(byte) << (8 * UInt64(i)) } else { high |= UInt64(byte) << (8 * UInt64(i - 8)) }
        }
        init() {}
        init(_ s: String) {
            for (i, b) in s.utf8.enumerated() { append(b, at: i) }
        }
        /// A multiplicative hash into the slot table.
        var slot: Int {
            Int(truncatingIfNeeded: ((low &+ high &* 0x100000001B3) &* 0x9E3779B97F4A7C15) >> 57) & (Keyword.slotCount - 1)
        }
    }

    /// A power of two, at least twice the number of keywords.
    fileprivate static let slotCount = 128

    private static let slots: [(low: UInt64, high: UInt64, keyword: Keyword?)] = {
        var t: [(low: UInt64, high: UInt64, keyword: Keyword?)] = Array(repeating: (0, 0, nil), count: slotCount)
        for k in allCases where k != .utiConformsTo && k != .utiEquals {
            let key = PackedWord(k.spelling)
            var i = key.slot
            while t[i].keyword != nil { i = (i + 1) & (slotCount - 1) }
            t[i] = (key.low, key.high, k)
        }
        return t
    }()

    /// Every reserved spelling, upper-cased: the printer `#`-escapes keys found here.
    static let reservedSpellings: Set<String> = Set(allCases.map(\.spelling))
}

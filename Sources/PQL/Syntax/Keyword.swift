/// The reserved words of spec §1.3. Matching is case-insensitive (decision D4).
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
    /// machine words.
    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
        let n = end - start
        guard n >= 2, n <= 15 else { return nil }
        var key = PackedWord()
        for i in 0..<n {
            var b = bytes[start + i]
            if b >= 0x61 && b <= 0x7A { b -= 0x20 }
            key.append(b, at: i)
        }
        return table[key]
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
    }

    private static let table: [PackedWord: Keyword] = {
        var t: [PackedWord: Keyword] = [:]
        for k in allCases where k != .utiConformsTo && k != .utiEquals { t[PackedWord(k.spelling)] = k }
        return t
    }()

    /// Every reserved spelling, upper-cased: the printer `#`-escapes keys found here.
    static let reservedSpellings: Set<String> = Set(allCases.map(\.spelling))
}

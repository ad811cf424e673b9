import Foundation

/// The `[c]`, `[d]`, `[n]`, `[l]` options compiled for one comparison. Constants are folded
/// once at compile time (``prepare(_:)``); each value is folded per evaluation.
struct StringOptions: Sendable, Hashable {
    let caseInsensitive: Bool
    let diacriticInsensitive: Bool
    let localized: Bool

    static let literal = StringOptions(caseInsensitive: false, diacriticInsensitive: false, localized: false)

    init(caseInsensitive: Bool, diacriticInsensitive: Bool, localized: Bool) {
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        self.localized = localized
    }

    /// `[n]` means the caller promises normalised text: compare literally, ignoring c and d.
    init(_ options: ComparisonOptions) throws(EvalError) {
        if options.contains(.wordBoundary) {
            throw EvalError.unsupported("the [w] option (word-boundary matching) has no defined meaning outside Apple's Spotlight",
                                        hint: "remove [w]; use MATCHES with \\b for word boundaries")
        }
        let normalized = options.contains(.normalized)
        self.init(caseInsensitive: !normalized && options.contains(.caseInsensitive),
                  diacriticInsensitive: !normalized && options.contains(.diacriticInsensitive),
                  localized: !normalized && options.contains(.localeSensitive))
    }

    var isLiteral: Bool { !caseInsensitive && !diacriticInsensitive && !localized }

    /// The form both sides are compared in.
    @inline(__always)
    func prepare(_ s: String) -> String {
        if !caseInsensitive && !diacriticInsensitive { return s }
        return StringFolding.fold(s, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
    }

    var foundationOptions: String.CompareOptions {
        var o: String.CompareOptions = []
        if caseInsensitive { o.insert(.caseInsensitive) }
        if diacriticInsensitive { o.insert(.diacriticInsensitive) }
        if caseInsensitive || diacriticInsensitive { o.insert(.widthInsensitive) }
        return o
    }

    func equal(_ a: String, _ b: String) throws(EvalError) -> Bool {
        if localized { return a.compare(b, options: foundationOptions, range: nil, locale: .current) == .orderedSame }
        if isLiteral { return a.utf8.elementsEqual(b.utf8) }
        return prepare(a).utf8.elementsEqual(prepare(b).utf8)
    }

    /// Literal order is Unicode scalar order (see `scalarOrder`); options fold first.
    func compare(_ a: String, _ b: String) throws(EvalError) -> ComparisonResult {
        if localized { return a.compare(b, options: foundationOptions, range: nil, locale: .current) }
        return Self.scalarOrder(prepare(a), prepare(b))
    }

    /// Literal order is Unicode scalar order, which is UTF-8 byte order: the order SQLite's
    /// BINARY collation and its indexes use, so the store sorts and ranges exactly as memory
    /// does (decision D3). It equals Apple's UTF-16 order except between U+E000–U+FFFF and
    /// characters beyond U+FFFF (decision D18).
    static func scalarOrder(_ a: String, _ b: String) -> ComparisonResult {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (x?, y?):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }
}

/// Substring tests on prepared (folded) strings. An empty needle never matches (reference §6.6).
enum StringSearch {
    /// BEGINSWITH / ENDSWITH / CONTAINS of `subject` against a needle already prepared with
    /// `options`. An ASCII subject is folded on the fly, byte by byte, without allocating.
    static func test(_ op: ComparisonOperator, subject: String, preparedNeedle needle: String,
                     options: StringOptions) -> Bool {
        if needle.isEmpty { return false }
        if options.caseInsensitive || options.diacriticInsensitive, let r = asciiTest(op, subject, needle, lower: options.caseInsensitive) {
            return r
        }
        let hay = options.prepare(subject)
        switch op {
        case .beginsWith: return hasPrefix(hay, needle)
        case .endsWith: return hasSuffix(hay, needle)
        default: return contains(hay, needle)
        }
    }

    /// nil when the subject is not ASCII (then it needs the full fold).
    private static func asciiTest(_ op: ComparisonOperator, _ subject: String, _ needle: String, lower: Bool) -> Bool? {
        var s = subject, n = needle
        return s.withUTF8 { hay -> Bool? in
            for b in hay where b >= 0x80 { return nil }
            return n.withUTF8 { nd -> Bool in
                let h = hay.count, k = nd.count
                guard k <= h else { return false }
                @inline(__always) func fold(_ b: UInt8) -> UInt8 { lower && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
                @inline(__always) func matchAt(_ i: Int) -> Bool {
                    for j in 0..<k where fold(hay[i + j]) != nd[j] { return false }
                    return true
                }
                switch op {
                case .beginsWith: return matchAt(0)
                case .endsWith: return matchAt(h - k)
                default:
                    for i in 0...(h - k) where matchAt(i) { return true }
                    return false
                }
            }
        }
    }

    static func hasPrefix(_ s: String, _ p: String) -> Bool {
        !p.isEmpty && s.utf8.starts(with: p.utf8)
    }

    static func hasSuffix(_ s: String, _ p: String) -> Bool {
        !p.isEmpty && s.utf8.reversed().starts(with: p.utf8.reversed())
    }

    static func contains(_ s: String, _ p: String) -> Bool {
        guard !p.isEmpty else { return false }
        var s = s, p = p
        return s.withUTF8 { hay in
            p.withUTF8 { needle in
                let n = needle.count, h = hay.count
                guard n <= h else { return false }
                let first = needle[0]
                var i = 0
                while i <= h - n {
                    if hay[i] == first {
                        var k = 1
                        while k < n && hay[i + k] == needle[k] { k += 1 }
                        if k == n { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    /// BEGINSWITH / ENDSWITH / CONTAINS with `[l]`: Foundation's locale-aware search.
    static func localized(_ s: String, _ p: String, _ options: StringOptions, anchored: ComparisonOperator) -> Bool {
        guard !p.isEmpty else { return false }
        var o = options.foundationOptions
        if anchored == .beginsWith { o.insert(.anchored) }
        if anchored == .endsWith { o.formUnion([.anchored, .backwards]) }
        return s.range(of: p, options: o, range: nil, locale: .current) != nil
    }
}

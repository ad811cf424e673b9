/// A compiled LIKE pattern: `*` matches any run of characters (including none), `?` exactly
/// one, `\*` `\?` `\\` stand for themselves, and the match covers the whole string (reference §6.6).
/// Matching works on Unicode scalars of NFC text (after folding for `[c]`/`[d]`), in
/// O(pattern × subject) time at worst — no backtracking blow-up.
struct LikePattern: Sendable {
    enum Element: Sendable, Equatable {
        case literal(Unicode.Scalar)
        case any  // ?
        case star // *
    }

    let elements: [Element]
    let options: StringOptions

    init(_ pattern: String, options: StringOptions) {
        self.options = options
        let prepared = options.prepare(pattern).canonicallyComposed
        var out: [Element] = []
        var escaping = false
        for u in prepared.unicodeScalars {
            if escaping { out.append(.literal(u)); escaping = false; continue }
            switch u {
            case "\\": escaping = true
            case "*": if out.last != .star { out.append(.star) }
            case "?": out.append(.any)
            default: out.append(.literal(u))
            }
        }
        if escaping { out.append(.literal("\\")) }
        elements = out
    }

    var isEmpty: Bool { elements.isEmpty }

    func matches(_ subject: String) -> Bool {
        // An empty pattern never matches (reference §6.6), not even the empty string.
        if elements.isEmpty { return false }
        let s = Array(options.prepare(subject).canonicallyComposed.unicodeScalars)
        let p = elements
        var si = 0, pi = 0
        var starP = -1, starS = 0
        while si < s.count {
            if pi < p.count {
                switch p[pi] {
                case .star:
                    starP = pi; starS = si; pi += 1
                    continue
                case .any:
                    si += 1; pi += 1
                    continue
                case .literal(let c) where c == s[si]:
                    si += 1; pi += 1
                    continue
                default: break
                }
            }
            // Mismatch: let the last star swallow one more character, or fail.
            guard starP >= 0 else { return false }
            pi = starP + 1
            starS += 1
            si = starS
        }
        while pi < p.count, p[pi] == .star { pi += 1 }
        return pi == p.count
    }
}

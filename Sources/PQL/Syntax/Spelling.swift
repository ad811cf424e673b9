/// Near-miss suggestions for misspelled keywords, functions and keys.
enum Spelling {
    /// Words and candidates longer than this (in bytes) get no suggestions.
    static let maxLength = 256

    /// The candidate closest to `word` (case-insensitive Damerau–Levenshtein), if it is close
    /// enough to be a likely typo: at most a third of the word's length, and at least one edit.
    static func nearest(to word: String, in candidates: [String]) -> String? {
        nearest(to: word, in: candidates, limit: 1).first
    }

    /// Up to `limit` candidates, closest first.
    static func nearest(to word: String, in candidates: [String], limit: Int) -> [String] {
        // The distance takes time in the product of the lengths: words longer than any name
        // someone types are not compared (a 16 MiB key must not take hours to misspell).
        guard word.utf8.count <= maxLength else { return [] }
        let w = Array(word.lowercased().unicodeScalars)
        guard !w.isEmpty else { return [] }
        let maxDistance = max(1, w.count / 3)
        var scored: [(Int, String)] = []
        for c in candidates where c.utf8.count <= maxLength {
            let d = distance(w, Array(c.lowercased().unicodeScalars), cap: maxDistance)
            if d <= maxDistance { scored.append((d, c)) }
        }
        scored.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var seen = Set<String>()
        return scored.map(\.1).filter { seen.insert($0).inserted }.prefix(limit).map { $0 }
    }

    /// Optimal string alignment distance; gives up early (returns cap + 1) past `cap`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], cap: Int) -> Int {
        if abs(a.count - b.count) > cap { return cap + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev2 = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            var rowMin = cur[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, prev2[j - 2] + 1) }
                cur[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > cap { return cap + 1 }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[b.count]
    }
}

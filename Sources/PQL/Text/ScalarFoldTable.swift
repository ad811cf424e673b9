import Foundation

/// `[c]` / `[d]` / `[cd]` folding of non-ASCII text one scalar at a time, for the hot paths of
/// BEGINSWITH / ENDSWITH / CONTAINS.
///
/// ``StringFolding/fold(_:caseInsensitive:diacriticInsensitive:)`` normalises, strips marks and
/// case-maps whole strings, which costs microseconds per value. For the scalars of the common
/// alphabets (Latin, Latin Extended, Vietnamese, Greek except sigma, Cyrillic) folding a string
/// is the same as folding each scalar alone and concatenating — none of them is or folds to a
/// combining mark, so nothing composes or reorders across scalars, and none has a
/// context-dependent case mapping. The table holds each such scalar's fold, computed once by
/// ``StringFolding`` itself; a string with any other scalar is not folded here (nil), and the
/// caller uses the full fold.
final class ScalarFoldTable: @unchecked Sendable {
    // @unchecked: the buffers are written once in init and only read afterwards.

    let caseInsensitive: Bool
    let diacriticInsensitive: Bool
    /// Folded bytes per input byte, at most, for any scalar in the table (ASCII counts 1).
    let maxExpansion: Int

    /// The scalar ranges covered, each with one entry per scalar: `offset << 8 | length` into
    /// `bytes`; length 0xFF means "not in the table".
    private static let ranges: [ClosedRange<UInt32>] = [0x80...0x24F, 0x370...0x52F, 0x1E00...0x1EFF]
    private let entries: UnsafeMutablePointer<UInt32>
    private let starts: (UInt32, UInt32, UInt32)
    private let ends: (UInt32, UInt32, UInt32)
    private let bases: (Int, Int, Int)
    private let bytes: UnsafeMutablePointer<UInt8>

    private static let absent: UInt32 = 0xFF

    private init(caseInsensitive: Bool, diacriticInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        let ranges = Self.ranges
        let total = ranges.reduce(0) { $0 + $1.count }
        entries = .allocate(capacity: total)
        var pool: [UInt8] = []
        var expansion = 1
        var base = 0
        var bases: [Int] = []
        for range in ranges {
            bases.append(base)
            for v in range {
                var entry = Self.absent
                if let u = Unicode.Scalar(v), Self.foldsAlone(u) {
                    let folded = Array(StringFolding.fold(String(Character(u)), caseInsensitive: caseInsensitive,
                                                          diacriticInsensitive: diacriticInsensitive).utf8)
                    if folded.count < 0xFF, Self.startsCleanly(folded) {
                        entry = UInt32(pool.count) << 8 | UInt32(folded.count)
                        pool += folded
                        let inputLength = String(Character(u)).utf8.count
                        expansion = Swift.max(expansion, (folded.count + inputLength - 1) / inputLength)
                    }
                }
                entries[base] = entry
                base += 1
            }
        }
        bytes = .allocate(capacity: Swift.max(pool.count, 1))
        bytes.initialize(from: pool, count: pool.count)
        maxExpansion = expansion
        starts = (ranges[0].lowerBound, ranges[1].lowerBound, ranges[2].lowerBound)
        ends = (ranges[0].upperBound, ranges[1].upperBound, ranges[2].upperBound)
        self.bases = (bases[0], bases[1], bases[2])
    }

    /// Scalars whose fold can be taken alone: not a mark (marks attach to what precedes them),
    /// not a sigma (its lower case depends on the next letter), not Hangul (jamo compose).
    private static func foldsAlone(_ u: Unicode.Scalar) -> Bool {
        switch u.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .unassigned, .control, .format, .surrogate, .privateUse:
            return false
        default: break
        }
        switch u.value {
        case 0x3A3, 0x3C2, 0x3C3, 0x3F2, 0x3F9: return false   // Σ σ ς ϲ Ϲ
        default: return true
        }
    }

    /// The fold must not start with a combining mark, which could combine with the fold of the
    /// scalar before it.
    private static func startsCleanly(_ folded: [UInt8]) -> Bool {
        guard let first = String(decoding: folded, as: UTF8.self).unicodeScalars.first else { return true }
        switch first.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: return true
        }
    }

    private static let c = ScalarFoldTable(caseInsensitive: true, diacriticInsensitive: false)
    private static let d = ScalarFoldTable(caseInsensitive: false, diacriticInsensitive: true)
    private static let cd = ScalarFoldTable(caseInsensitive: true, diacriticInsensitive: true)

    /// The table for the options, or nil when they fold nothing (literal or `[n]`) or are
    /// localized (`[l]` uses Foundation).
    static func table(for options: StringOptions) -> ScalarFoldTable? {
        guard !options.localized else { return nil }
        switch (options.caseInsensitive, options.diacriticInsensitive) {
        case (true, false): return c
        case (false, true): return d
        case (true, true): return cd
        case (false, false): return nil
        }
    }

    /// The fold of one scalar, or nil when it is not in the table.
    @inline(__always)
    private func entry(_ v: UInt32) -> UInt32? {
        let e: UInt32
        if v <= ends.0 {
            guard v >= starts.0 else { return nil }
            e = entries[bases.0 + Int(v - starts.0)]
        } else if v >= starts.1 && v <= ends.1 {
            e = entries[bases.1 + Int(v - starts.1)]
        } else if v >= starts.2 && v <= ends.2 {
            e = entries[bases.2 + Int(v - starts.2)]
        } else {
            return nil
        }
        return e & 0xFF == Self.absent ? nil : e
    }

    /// Folds UTF-8 text into `out` (room for `text.count * maxExpansion` bytes) exactly as
    /// `StringFolding.fold` folds the whole string. Returns the folded length, or nil when the
    /// text has a scalar outside the table.
    func fold(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let n = text.count
        guard n > 0, let p = text.baseAddress else { return 0 }
        let lower = caseInsensitive
        var i = 0, o = 0
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 {
                out[o] = lower && b0 >= 0x41 && b0 <= 0x5A ? b0 | 0x20 : b0
                o += 1
                i += 1
                continue
            }
            let v: UInt32
            if b0 < 0xE0 {
                guard i + 1 < n else { return nil }
                v = UInt32(b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F)
                i += 2
            } else if b0 < 0xF0 {
                guard i + 2 < n else { return nil }
                v = UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
                i += 3
            } else {
                return nil
            }
            guard let e = entry(v) else { return nil }
            let length = Int(e & 0xFF), offset = Int(e >> 8)
            (out + o).update(from: bytes + offset, count: length)
            o += length
        }
        return o
    }
}

/// BEGINSWITH / ENDSWITH / CONTAINS with `[c]`/`[d]`: the same answers as
/// ``StringSearch/test(_:subject:preparedNeedle:options:)``, without building folded strings.
/// Without options the bytes are compared as they are; ASCII subjects are folded on the fly;
/// others through ``ScalarFoldTable`` (built on the first non-ASCII subject).
enum FoldedSearch {
    /// `op` of `subject` against `needle` (the constant already folded with `options`, as
    /// UTF-8), or nil when the subject has a scalar the table does not cover.
    static func test(_ op: ComparisonOperator, subject: String, needle: [UInt8], options: StringOptions) -> Bool? {
        let k = needle.count
        if k == 0 { return false }
        let result = subject.utf8.withContiguousStorageIfAvailable { text -> Bool? in
            needle.withUnsafeBufferPointer { nd -> Bool? in
                let q = nd.baseAddress!
                if !options.caseInsensitive && !options.diacriticInsensitive {
                    return search(op, text.baseAddress, text.count, q, k, lower: false)
                }
                if isASCII(text) {
                    return search(op, text.baseAddress, text.count, q, k, lower: options.caseInsensitive)
                }
                guard let table = ScalarFoldTable.table(for: options) else { return nil }
                let capacity = text.count * table.maxExpansion
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> Bool? in
                    let out = buffer.baseAddress!
                    guard let h = table.fold(text, into: out) else { return nil }
                    return search(op, UnsafePointer(out), h, q, k, lower: false)
                }
            }
        }
        return result ?? nil
    }

    /// The same test on raw UTF-8 (SQLite's text), without making a String, for the cases that
    /// need no table: no options, or an ASCII subject. nil otherwise.
    static func test(_ op: ComparisonOperator, utf8 text: UnsafeBufferPointer<UInt8>, needle: [UInt8], options: StringOptions) -> Bool? {
        let k = needle.count
        if k == 0 { return false }
        let folding = options.caseInsensitive || options.diacriticInsensitive
        if folding && !isASCII(text) { return nil }
        return needle.withUnsafeBufferPointer { nd in
            search(op, text.baseAddress, text.count, nd.baseAddress!, k, lower: options.caseInsensitive)
        }
    }

    @inline(__always)
    private static func isASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = text.baseAddress else { return true }
        let n = text.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The byte search on text of length `h` (lower-cased on the fly when `lower`).
    @inline(__always)
    private static func search(_ op: ComparisonOperator, _ hay: UnsafePointer<UInt8>?, _ h: Int,
                               _ q: UnsafePointer<UInt8>, _ k: Int, lower: Bool) -> Bool {
        guard k <= h, let hay else { return false }
        @inline(__always) func fold(_ b: UInt8) -> UInt8 { lower && b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        @inline(__always) func matchAt(_ i: Int) -> Bool {
            var j = 0
            while j < k {
                if fold(hay[i + j]) != q[j] { return false }
                j += 1
            }
            return true
        }
        switch op {
        case .beginsWith: return matchAt(0)
        case .endsWith: return matchAt(h - k)
        default:
            let first = q[0]
            var i = 0
            while i <= h - k {
                if fold(hay[i]) == first && matchAt(i) { return true }
                i += 1
            }
            return false
        }
    }
}

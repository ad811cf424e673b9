import Foundation

/// The evaluator's semantics, opened to the store's SQLite functions so that both backends
/// run the very same code for string options, LIKE, MATCHES, comparisons and arithmetic
/// (decision D3). Package-internal: not part of PQL's public API.
package enum SharedSemantics {
    /// Prepared string options (`[c]`, `[d]`, `[l]`; `[n]` means literal).
    package struct Options: Sendable, Hashable {
        let base: StringOptions
        /// The `ComparisonOptions` bits these came from.
        package let rawValue: Int
        package init(_ options: ComparisonOptions) throws(PredicateEvaluationError) {
            base = try StringOptions(options)
            rawValue = options.rawValue
        }
        package init(rawValue: Int) throws(PredicateEvaluationError) { try self.init(ComparisonOptions(rawValue: rawValue)) }
        package var isLiteral: Bool { base.isLiteral }
        package var isLocalized: Bool { base.localized }
        /// The folded form values are compared in (identity for literal options).
        package func fold(_ s: String) -> String { base.prepare(s) }
    }

    /// A compiled right-hand string operand: a folded needle, a LIKE pattern or a regex.
    package struct PreparedString: @unchecked Sendable {
        let op: ComparisonOperator
        let options: StringOptions
        let raw: String
        let needle: String
        let needleBytes: [UInt8]
        let like: LikePattern?
        let regex: RegexPattern?

        package init(_ op: ComparisonOperator, _ text: String, _ options: Options) throws(PredicateEvaluationError) {
            self.op = op
            self.options = options.base
            raw = text
            needle = options.base.localized ? text : options.base.prepare(text)
            needleBytes = Array(needle.utf8)
            like = op == .like ? LikePattern(text, options: options.base) : nil
            regex = op == .matches ? try RegexPattern(text, options: options.base) : nil
        }

        /// Whether `subject` satisfies `subject <op> text` (BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES).
        package func test(_ subject: String) throws(PredicateEvaluationError) -> Bool {
            switch op {
            case .like: return like?.matches(subject) ?? false
            case .matches: return try regex?.matches(subject) ?? false
            default:
                if options.localized { return StringSearch.localized(subject, raw, options, anchored: op) }
                // The evaluator's fast path first: ASCII folded on the fly, the rest through the fold table.
                if let r = FoldedSearch.test(op, subject: subject, needle: needleBytes, options: options) { return r }
                return StringSearch.test(op, subject: subject, preparedNeedle: needle, options: options)
            }
        }

        /// The same test on UTF-8 bytes as SQLite hands them over; a String is made only when
        /// the subject needs the fold table or the general path.
        package func test(utf8 subject: UnsafeBufferPointer<UInt8>) throws(PredicateEvaluationError) -> Bool {
            if op != .like, op != .matches, !options.localized,
               let r = FoldedSearch.test(op, utf8: subject, needle: needleBytes, options: options) {
                return r
            }
            return try test(String(decoding: subject, as: UTF8.self))
        }
    }

    /// String equality under options, as `==[cd]` evaluates it.
    package static func equal(_ a: String, _ b: String, _ options: Options) throws(PredicateEvaluationError) -> Bool {
        try options.base.equal(a, b)
    }

    /// String order under options: -1, 0 or 1.
    package static func compare(_ a: String, _ b: String, _ options: Options) throws(PredicateEvaluationError) -> Int {
        switch try options.base.compare(a, b) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    /// One comparison on two values, exactly as the in-memory evaluator applies it.
    package static func apply(_ op: ComparisonOperator, _ l: PredicateValue, _ r: PredicateValue,
                              _ options: Options) throws(PredicateEvaluationError) -> Bool {
        try ComparisonEvaluation.apply(op, l, r, options.base, .none)
    }

    /// Binary arithmetic (`+ - * / %` and the bitwise operators) as the evaluator computes it.
    package static func arithmetic(_ f: BuiltinFunction, _ a: PredicateValue, _ b: PredicateValue) throws(PredicateEvaluationError) -> PredicateValue {
        try Arithmetic.binary(f, a, b)
    }

    /// Up to `limit` names near `word`, closest first (for "did you mean" hints).
    package static func nearestNames(to word: String, in candidates: [String], limit: Int = 2) -> [String] {
        Spelling.nearest(to: word, in: candidates, limit: limit)
    }

    /// The sort order the evaluator uses (nil < numbers < dates < strings < data …).
    package static func sortOrder(_ a: PredicateValue, _ b: PredicateValue, caseInsensitive: Bool) -> Int {
        let o = caseInsensitive ? StringOptions(caseInsensitive: true, diacriticInsensitive: false, localized: false) : .literal
        switch ValueComparison.sortOrder(a, b, o) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }
}

extension SharedSemantics {
    /// A built-in function applied to evaluated arguments, as the evaluator applies it.
    package static func function(_ f: BuiltinFunction, _ args: [PredicateValue]) throws(PredicateEvaluationError) -> PredicateValue {
        try FunctionEvaluation.apply(f, args)
    }

    /// `CAST(value, type)` as the evaluator computes it.
    package static func cast(_ v: PredicateValue, to type: PredicateValue) throws(PredicateEvaluationError) -> PredicateValue {
        try Casting.cast(v, to: type)
    }

    /// The value of an expression that reads no key path and no variable (constant folding),
    /// within the limits of the call it belongs to (a store fetch installs its budget).
    package static func evaluateConstant(_ e: ExpressionNode) throws(PredicateEvaluationError) -> PredicateValue {
        let compiler = EvaluatorCompiler(reader: PredicateValue.predicateReader, functions: .none, folds: false)
        let f = try compiler.compile(e)
        var state = EvaluationState(variables: [:], limits: EvaluationBudget.current?.limits ?? .default)
        return try f(PredicateValue.null, &state)
    }
}

extension SharedSemantics {
    /// The scalars a string can start with and still satisfy `BEGINSWITH[c] needle`: a superset,
    /// so the store can narrow a prefix search to index ranges before the exact test. nil when
    /// there are too many, or for options other than `[c]` (where marks may fold away), or
    /// when one of them is a combining mark: text can begin with marks in another order, which
    /// normalisation reorders (`U+0345 U+0301` begins with U+0301 once folded), so its first
    /// stored scalar says nothing.
    package static func caseInsensitivePrefixStarts(_ needle: String) -> [Unicode.Scalar]? {
        let folded = StringFolding.fold(needle, caseInsensitive: true, diacriticInsensitive: false)
        guard let x = folded.unicodeScalars.first else { return nil }
        var members: Set<Unicode.Scalar> = [x]
        var queue: [Unicode.Scalar] = [x]
        while let m = queue.popLast() {
            var next: [Unicode.Scalar] = CaseFoldIndex.shared.scalars(foldingTo: m)
            // A string may spell a composed letter as base + marks (A + U+030A for Å), or with
            // a halfwidth base that composes after width folding: follow canonical decomposition.
            let d = Array(String(m).decomposedStringWithCanonicalMapping.unicodeScalars)
            for k in 1...max(1, d.count) {
                var prefix = String.UnicodeScalarView()
                prefix.append(contentsOf: d.prefix(k))
                let composed = String(prefix).canonicallyComposed.unicodeScalars
                if composed.count == 1, let c = composed.first { next.append(c) }
            }
            for n in next where members.insert(n).inserted {
                queue.append(n)
                if members.count > 24 { return nil }
            }
        }
        if members.contains(where: { $0.properties.canonicalCombiningClass != .notReordered }) { return nil }
        return members.sorted { $0.value < $1.value }
    }

    /// The `[c]` fold of `needle` when it is ASCII and not empty (`ß` → `ss`), else nil.
    package static func caseInsensitiveASCIIFold(_ needle: String) -> String? {
        let folded = StringFolding.fold(needle, caseInsensitive: true, diacriticInsensitive: false)
        return !folded.isEmpty && folded.utf8.allSatisfy({ $0 < 0x80 }) ? folded : nil
    }

    /// `BEGINSWITH[c] needle` as ranges of strings in Unicode scalar order (SQLite's BINARY
    /// order), one group per scalar a matching string can start with: every matching string
    /// lies in some group's `envelope`, and every string in one of its `certain` ranges
    /// matches, so the exact test is needed only for the rest of the envelope. nil when
    /// ``caseInsensitivePrefixStarts(_:)`` is.
    ///
    /// The certain ranges are the ASCII spellings of an ASCII fold with at most three letters
    /// (`a`/`A`, `ab`/`aB`/`Ab`/`AB`), each followed by nothing or by a scalar below U+0300: such
    /// a string folds to the needle followed by the fold of the rest, since no scalar below
    /// U+0300 composes with, or changes the case of, what precedes it.
    ///
    /// ```swift
    /// let groups = SharedSemantics.caseInsensitivePrefixRanges("a")!
    /// // ["A", "B") certain ["A", "A\u{300}"); ["a", "b") certain ["a", "a\u{300}");
    /// // ["ẚ", "ẛ"), ["Ａ", "Ｂ"), ["ａ", "ｂ") with nothing certain
    /// ```
    package static func caseInsensitivePrefixRanges(_ needle: String) -> [PrefixRangeGroup]? {
        guard let starts = caseInsensitivePrefixStarts(needle) else { return nil }
        var spellings: [String] = []
        let bytes = Array((caseInsensitiveASCIIFold(needle) ?? "").utf8)
        if !bytes.isEmpty, bytes.filter({ $0 >= 0x61 && $0 <= 0x7A }).count <= 3 {
            var spelled: [[UInt8]] = [[]]
            for b in bytes {
                let variants: [UInt8] = b >= 0x61 && b <= 0x7A ? [b - 0x20, b] : [b]
                spelled = spelled.flatMap { s in variants.map { s + [$0] } }
            }
            spellings = spelled.map { String(decoding: $0, as: UTF8.self) }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        return starts.map { c in
            var next = c.value + 1
            if next == 0xD800 { next = 0xE000 }
            let envelope = ScalarOrderRange(lower: String(c), upper: Unicode.Scalar(next).map { String($0) })
            let certain = spellings.filter { $0.unicodeScalars.first == c }
                .map { ScalarOrderRange(lower: $0, upper: $0 + "\u{300}") }
            return PrefixRangeGroup(start: c, envelope: envelope, certain: certain)
        }
    }
}

/// The strings from `lower` (included) to `upper` (excluded; nil: no upper bound) in Unicode
/// scalar order, which is the order of their UTF-8 bytes and SQLite's BINARY collation.
package struct ScalarOrderRange: Equatable, Sendable {
    package var lower: String
    package var upper: String?

    package init(lower: String, upper: String?) {
        self.lower = lower
        self.upper = upper
    }
}

/// The strings starting with `start` (the `envelope`) for a case-insensitive prefix search,
/// and the ranges of them that certainly match.
package struct PrefixRangeGroup: Equatable, Sendable {
    package var start: Unicode.Scalar
    package var envelope: ScalarOrderRange
    package var certain: [ScalarOrderRange]
}

/// For each scalar, the scalars whose `[c]` fold starts with it (built once, on first use).
private final class CaseFoldIndex: @unchecked Sendable {
    static let shared = CaseFoldIndex()
    private let index: [UInt32: [Unicode.Scalar]]

    private init() {
        var index: [UInt32: [Unicode.Scalar]] = [:]
        // Every scalar past ASCII that the fold may change: case, width, and NFC (a singleton
        // such as U+0340 → U+0300, a composition exclusion such as U+0958 → U+0915 U+093C).
        // A list of blocks once left out µ (U+00B5, folding to μ): BEGINSWITH[c] 'μ' missed "µg".
        for v in UInt32(0x80)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            let p = u.properties
            guard p.changesWhenCaseFolded || p.changesWhenCaseMapped || p.changesWhenNFKCCaseFolded
                    || (0xFF01...0xFFEE).contains(v) else { continue }
            let f = StringFolding.fold(String(Character(u)), caseInsensitive: true, diacriticInsensitive: false)
            guard let first = f.unicodeScalars.first, first != u else { continue }
            index[first.value, default: []].append(u)
        }
        // ASCII letters: 'A' folds to 'a'.
        for v in UInt32(0x41)...0x5A { index[v + 0x20, default: []].append(Unicode.Scalar(v)!) }
        self.index = index
    }

    func scalars(foldingTo x: Unicode.Scalar) -> [Unicode.Scalar] { index[x.value] ?? [] }
}

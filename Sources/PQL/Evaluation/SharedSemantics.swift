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
        let like: LikePattern?
        let regex: RegexPattern?

        package init(_ op: ComparisonOperator, _ text: String, _ options: Options) throws(PredicateEvaluationError) {
            self.op = op
            self.options = options.base
            raw = text
            needle = options.base.localized ? text : options.base.prepare(text)
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
                return StringSearch.test(op, subject: subject, preparedNeedle: needle, options: options)
            }
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

extension SourceRange {
    /// The range of `length` bytes at UTF-8 `offset` in `source`, with its line and column.
    package init(locating offset: Int, length: Int, in source: String) {
        self.init(offset: offset, length: length, in: source)
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

    /// The value of an expression that reads no key path and no variable (constant folding).
    package static func evaluateConstant(_ e: ExpressionNode) throws(PredicateEvaluationError) -> PredicateValue {
        let compiler = EvaluatorCompiler(reader: PredicateValue.predicateReader, functions: .none)
        let f = try compiler.compile(e)
        var state = EvaluationState(variables: [:])
        return try f(PredicateValue.null, &state)
    }
}

/// How much work one evaluation call may do: a filter over an array, one `evaluate`, a
/// ``PredicateQuery``, a store fetch. Past a limit the call stops with a
/// ``PredicateEvaluationError`` (`.workLimit`, or `.regexLimit` for MATCHES) whose hint names
/// the limit, instead of running for as long as the predicate asks: a 921-byte predicate of
/// eight nested SUBQUERYs over a 30-element list would otherwise run for days.
///
/// ```swift
/// // A search box's predicate on the server: at most ten million steps per request.
/// let limits = EvaluationLimits(maxSteps: 10_000_000, maxRegexSteps: 100_000_000)
/// let rows = try people.filter(predicate.compiled(for: Person.self), limits: limits)
/// ```
///
/// **Steps** measure the evaluator's work: each element a call tests costs as many steps as the
/// predicate has nodes, each element a SUBQUERY tests as many as its predicate has, and every
/// element an `ANY`/`ALL`, a collection operator (`@sum`, `@count`…), a function of a
/// collection, a set operation or `IN`/`CONTAINS` on a collection ranges over costs one. A
/// step takes about 15 ns in a release build (nested SUBQUERYs measured here: 100 million
/// steps in 1.5 s). In the store, steps are SQLite's virtual-machine instructions.
///
/// **Regex steps** are PCRE2's match-limit units (about 3 ns each), summed over every MATCHES
/// of the call. A match may use up to 1,000 + 10 × the subject's length of them free of
/// charge — work linear in the text, like any other comparison; what a backtracking pattern
/// uses beyond that is charged. Each single match also stops at PCRE2's own limit of
/// 10,000,000 units.
///
/// The limits count work, not time, so a result never depends on the machine's load.
/// Cancelling the Swift task stops a call as well (checked every few thousand steps).
public struct EvaluationLimits: Hashable, Sendable {
    /// The steps one call may take; nil for no limit.
    public var maxSteps: Int?
    /// The regex steps all the MATCHES of one call may take together; nil for no limit beyond
    /// each match's own.
    public var maxRegexSteps: Int?

    /// Creates limits for one call; nil means no limit, and negative numbers count as 0.
    ///
    /// ```swift
    /// let strict = EvaluationLimits(maxSteps: 10_000_000, maxRegexSteps: 100_000_000)
    /// ```
    public init(maxSteps: Int?, maxRegexSteps: Int?) {
        self.maxSteps = maxSteps.map { Swift.max(0, $0) }
        self.maxRegexSteps = maxRegexSteps.map { Swift.max(0, $0) }
    }

    /// The library's default: a backstop that no ordinary workload meets (ten billion steps,
    /// two to three minutes of evaluation — a million elements at 10,000 steps each; ten
    /// billion regex steps, about half a minute of backtracking), so that a hostile predicate
    /// stops in minutes rather than days. Pass tighter limits where predicates come from
    /// untrusted input.
    public static let `default` = EvaluationLimits(maxSteps: 10_000_000_000, maxRegexSteps: 10_000_000_000)

    /// The default of the `pql` command line and REPL: seconds of work (200 million steps,
    /// about three seconds — a million rows at 200 steps each; a billion regex steps, about
    /// three seconds of backtracking).
    public static let interactive = EvaluationLimits(maxSteps: 200_000_000, maxRegexSteps: 1_000_000_000)

    /// No limit beyond each MATCHES's own (cancellation still stops a call).
    public static let unlimited = EvaluationLimits(maxSteps: nil, maxRegexSteps: nil)
}

extension EvaluationLimits {
    /// `1000000000` as `1,000,000,000`, the same in every locale.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}

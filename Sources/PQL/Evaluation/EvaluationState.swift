/// The state of one evaluation call: variable bindings (SUBQUERY and `:=` add to them) and
/// the steps taken against the call's ``EvaluationLimits``.
///
/// Steps are counted where work can multiply — per element tested, per element a SUBQUERY
/// tests, per element of a collection an operator goes through — with one addition and one
/// comparison each; every ``checkInterval`` steps, and at the limit, a checkpoint stops a call
/// that is over its limit or whose task is cancelled.
///
/// `@usableFromInline` with its hot methods `@inlinable`: the filter loop over a buffer is
/// specialized in the caller's module for the caller's element type (see ``ElementBorrow``).
@usableFromInline
struct EvaluationState {
    @usableFromInline var variables: [String: PredicateValue]
    /// Steps taken so far in this call.
    @usableFromInline private(set) var steps = 0
    /// The step count at which the next checkpoint runs.
    @usableFromInline var nextCheck: Int
    /// ``EvaluationLimits/maxSteps``, or `Int.max`.
    @usableFromInline let maxSteps: Int
    /// The address of the element under test, when the loop lends it from its buffer
    /// (``ElementBorrow``): where key-path accessors' stored properties are read in place
    /// (``StoredField``). nil for a value tested on its own. Only the steps of the root type
    /// read it, and they are only ever given the element itself.
    @usableFromInline var element: UnsafeRawPointer? = nil

    /// Steps between two checks for cancellation: well under a millisecond of work.
    @usableFromInline static let checkInterval = 4_096

    @inlinable
    init(variables: [String: PredicateValue], limits: EvaluationLimits = .default) {
        self.variables = variables
        maxSteps = limits.maxSteps ?? .max
        nextCheck = Swift.min(maxSteps, Self.checkInterval)
    }

    /// Counts `n` steps (`n` ≥ 0).
    @inlinable @inline(__always)
    mutating func charge(_ n: Int) throws(EvalError) {
        steps &+= n
        if steps >= nextCheck { try checkpoint() }
    }

    /// Counts `n` steps at once when that reaches no checkpoint (a block of elements charged
    /// together, the hot loops' way of counting); false, counting nothing, when it would.
    @inlinable @inline(__always)
    mutating func chargeIfClear(_ n: Int) -> Bool {
        let after = steps &+ n
        guard after < nextCheck, after >= steps else { return false }
        steps = after
        return true
    }

    /// Over the limit: a `.workLimit` error; a cancelled task: `.cancelled`. Else the next
    /// checkpoint is set.
    @usableFromInline @inline(never)
    mutating func checkpoint() throws(EvalError) {
        if steps > maxSteps || steps < 0 {
            throw EvalError(kind: .workLimit,
                            message: "the evaluation took more than \(EvaluationLimits.grouped(maxSteps)) steps, its limit",
                            hint: WorkLimitHint.text(for: EvaluationBudget.current?.predicate,
                                                     setting: "EvaluationLimits.maxSteps; pql: --max-steps, the REPL: .limits steps N"))
        }
        if Task.isCancelled {
            throw EvalError(kind: .cancelled, message: "the evaluation was cancelled after \(EvaluationLimits.grouped(steps)) steps")
        }
        let remaining = maxSteps - steps
        nextCheck = steps + (remaining == 0 ? 1 : Swift.min(remaining, Self.checkInterval))
    }
}

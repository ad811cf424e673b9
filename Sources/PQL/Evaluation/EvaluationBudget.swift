#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one evaluation call has spent of the limits that are not counted in its
/// ``EvaluationState``: the regex steps of every MATCHES (which runs deep inside comparisons
/// that see no state), and in the store, SQLite's virtual-machine instructions (counted by the
/// connection's progress handler).
///
/// A call installs its budget for the current thread (``run(_:_:)``); MATCHES and the store's
/// progress handler find it there. Only that thread touches it, so it needs no lock.
@usableFromInline
package final class EvaluationBudget {
    package let limits: EvaluationLimits
    /// Regex steps charged so far (see ``EvaluationLimits``).
    private(set) var regexSteps = 0
    /// Virtual-machine instructions SQLite ran so far, in the store.
    package private(set) var machineSteps = 0
    /// Set when the progress handler stopped SQLite for a limit: the error to report instead of
    /// SQLite's "interrupted".
    package private(set) var exceeded: PredicateEvaluationError?

    /// The predicate the call evaluates, when known: a step-limit error names what in it
    /// multiplies the work (``WorkLimitHint``).
    package let predicate: PredicateNode?

    init(_ limits: EvaluationLimits, predicate: PredicateNode? = nil) {
        self.limits = limits
        self.predicate = predicate
    }

    /// The budget of the call running on this thread, if it has one.
    package static var current: EvaluationBudget? {
        guard let key, let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<EvaluationBudget>.fromOpaque(p).takeUnretainedValue()
    }

    private static func install(_ budget: EvaluationBudget?) {
        guard let key else { return }
        pthread_setspecific(key, budget.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// Runs `body` with a new budget for `limits` as this thread's current one, then restores
    /// the previous one. Without limits to count here (no regex limit, and no step limit whose
    /// error would name `predicate`), and no outer budget, nothing is installed.
    @usableFromInline
    package static func run<T, E: Error>(_ limits: EvaluationLimits, store: Bool = false, about predicate: PredicateNode? = nil,
                                         _ body: () throws(E) -> T) throws(E) -> T {
        let previous = current
        let needed = (store ? limits.maxSteps != nil || limits.maxRegexSteps != nil : limits.maxRegexSteps != nil)
            || (predicate != nil && limits.maxSteps != nil)
        if !needed && previous == nil { return try body() }
        let budget = needed ? EvaluationBudget(limits, predicate: predicate) : nil
        install(budget)
        defer { install(previous) }
        return try withExtendedLifetime(budget) { () throws(E) -> T in try body() }
    }

    /// Runs `body` outside any budget (cleaning up after a call that stopped at its limit:
    /// rolling a transaction back must not be stopped too).
    package static func outside<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try continuing(nil, body)
    }

    /// Runs `body` with `budget` as this thread's current one (a call continued on another
    /// thread: a large stack).
    static func continuing<T, E: Error>(_ budget: EvaluationBudget?, _ body: () throws(E) -> T) throws(E) -> T {
        let previous = current
        install(budget)
        defer { install(previous) }
        return try body()
    }

    // MARK: Regex steps

    /// Regex steps left, or nil without a limit.
    var regexStepsLeft: Int? { limits.maxRegexSteps.map { max(0, $0 - regexSteps) } }

    func chargeRegex(_ n: Int) { regexSteps += n }

    var regexLimitError: PredicateEvaluationError {
        PredicateEvaluationError(
            kind: .regexLimit,
            message: "the MATCHES tests of this evaluation took more than \(EvaluationLimits.grouped(limits.maxRegexSteps ?? 0)) regex backtracking steps together, the limit",
            hint: "simplify the pattern (avoid nested repetition such as (a+)+), or raise the limit (EvaluationLimits.maxRegexSteps; pql: --max-regex-steps, the REPL: .limits regex N)")
    }

    // MARK: SQLite

    /// Counts `n` virtual-machine instructions; false, with ``exceeded`` set, past the limit.
    package func chargeMachineSteps(_ n: Int) -> Bool {
        machineSteps += n
        guard let max = limits.maxSteps, machineSteps > max else { return true }
        exceeded = PredicateEvaluationError(
            kind: .workLimit,
            message: "the query ran more than \(EvaluationLimits.grouped(max)) SQLite steps, its limit",
            hint: WorkLimitHint.text(for: predicate, setting: "EvaluationLimits.maxSteps of the EntityQuery; pql: --max-steps, the REPL: .limits steps N"))
        return false
    }

    /// The progress handler's check, every `n` instructions: false to stop the statement (a
    /// limit or a cancelled task).
    package static func sqliteProgress(_ n: Int) -> Bool {
        if let budget = current, !budget.chargeMachineSteps(n) { return false }
        return !Task.isCancelled
    }
}

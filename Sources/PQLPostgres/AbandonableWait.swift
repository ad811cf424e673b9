import Synchronization

// Structured concurrency waits for every child task, and PostgresNIO has a wait no
// cancellation ends (a statement written to a closed connection). The waits PQL must be able
// to give up on run here: the operation in a task of its own, the
// caller on a continuation that the first of the operation's end, the give-up condition and
// the caller's cancellation resumes.

/// Runs `operation` in a task of its own and returns its result, unless `giveUp` gives an
/// error first: `giveUp` gets the function to call with it and returns the function that
/// undoes what it set up (a timer, a watch), called once the outcome is known. A result that
/// comes after the caller gave up goes to `leftover` (a connection to close). Cancelling the
/// caller cancels the operation's task and waits for it as before.
func abandonable<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T,
                              leftover: @escaping @Sendable (T) async -> Void = { _ in },
                              giveUp: (_ give: @escaping @Sendable (any Error) -> Void) -> (@Sendable () -> Void)) async throws -> T {
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            outcome.wait(c)
            let undo = giveUp { error in outcome.deliver(.failure(error)) }
            outcome.attach(Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                undo()
                if !outcome.deliver(result), case .success(let value) = result { await leftover(value) }
            })
        }
    } onCancel: {
        outcome.cancel()
    }
}

/// Waits for `task` to end, `limit` at most: true when it ended, false when the wait gave up
/// (the task goes on). For tasks whose end nothing else bounds, such as a client's `run()`.
func waitFor(_ task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
    struct GaveUp: Error {}
    do {
        try await abandonable({ await task.value }) { give in
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                give(GaveUp())
            }
            return { timer.cancel() }
        }
        return true
    } catch {
        return false
    }
}

/// The one result a waiting caller gets: the first delivered, the others dropped.
final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var waiter: CheckedContinuation<T, any Error>?
        var given: Result<T, any Error>?
        var task: Task<Void, Never>?
        var cancelled = false
    }
    private let state = Locked(State())

    func wait(_ c: CheckedContinuation<T, any Error>) {
        let early = state.withLock { s -> Result<T, any Error>? in
            if let given = s.given { return given }
            s.waiter = c
            return nil
        }
        if let early { c.resume(with: early) }
    }

    /// Gives `result` to the caller, unless one was given already; true when it was.
    @discardableResult
    func deliver(_ result: Result<T, any Error>) -> Bool {
        let (first, waiter) = state.withLock { s -> (Bool, CheckedContinuation<T, any Error>?) in
            guard s.given == nil else { return (false, nil) }
            s.given = result
            defer { s.waiter = nil }
            return (true, s.waiter)
        }
        waiter?.resume(with: result)
        return first
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}

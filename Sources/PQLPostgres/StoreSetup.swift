import PQLStore
import Synchronization

/// What a store reads from the server before its first call (the model saved or inferred, what
/// inference left out, the indexes), read once by the first call that needs it: a store can
/// then be made before its client runs, as a service group builds its services before it
/// starts `client.run()`.
///
/// Calls that arrive while the setup runs await the one task that runs it. A setup that fails
/// is forgotten, so the next call tries again rather than failing for ever on a server that
/// was restarting. A caller cancelled while it waits stops waiting at once; the setup goes on
/// for the others, and is cancelled when no caller waits for it any more. The setup's own
/// waits are the store's (`PostgresWaitLimits`).
final class StoreSetup: Sendable {
    /// What inference left out (both empty for a saved or given model).
    struct Skipped: Sendable {
        var tables: [String: String] = [:]
        var columns: [String: String] = [:]
    }

    private enum Phase {
        case pending
        /// `generation` tells the finishing task whether its result is still wanted.
        case running(generation: Int, task: Task<Void, Never>)
        case done(Skipped)
    }

    private struct State {
        var phase = Phase.pending
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        /// Waiters whose cancellation came before they waited.
        var cancelledEarly: Set<Int> = []
    }

    private let state: Locked<State>
    /// How many times the setup started (tests: concurrent first calls start it once).
    let runs = Atomic<Int>(0)

    init() { state = Locked(State()) }

    /// A setup already done: a transaction's store, made by a store that was set up.
    init(done skipped: Skipped) { state = Locked(State(phase: .done(skipped))) }

    /// What inference left out, or nil before the setup has run.
    var skipped: Skipped? {
        state.withLock { s in
            if case .done(let skipped) = s.phase { return skipped }
            return nil
        }
    }

    /// Returns once `work` has run to its end, starting it when no call has yet; throws its
    /// error (and the next call runs it again), or `.cancelled` when the caller's task is.
    func ensure(_ work: @escaping @Sendable () async throws(StoreError) -> Skipped) async throws(StoreError) {
        if skipped != nil { return }
        let id = state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        defer { _ = state.withLock { $0.cancelledEarly.remove(id) } }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                    let ready: (any Error)?? = state.withLock { s in
                        if case .done = s.phase { return .some(nil) }
                        if s.cancelledEarly.contains(id) { return .some(Self.cancelled) }
                        s.waiters[id] = c
                        if case .pending = s.phase {
                            s.generation += 1
                            let generation = s.generation
                            // Started under the lock, so that its end cannot come before it is recorded.
                            s.phase = .running(generation: generation, task: Task { [self] in
                                runs.add(1, ordering: .relaxed)
                                do throws(StoreError) { finish(generation, .success(try await work())) } catch {
                                    finish(generation, .failure(error))
                                }
                            })
                        }
                        return nil
                    }
                    if let ready {
                        if let error = ready { c.resume(throwing: error) } else { c.resume() }
                    }
                }
            } onCancel: {
                withdraw(id)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.server, "setting up the store: \(error)")
        }
    }

    private static var cancelled: StoreError {
        ServerErrors.cancelled("the call was cancelled while the store read its model from the server")
    }

    /// Ends the waits of generation `generation`'s callers with its result.
    private func finish(_ generation: Int, _ result: Result<Skipped, StoreError>) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            guard case .running(let g, _) = s.phase, g == generation else { return [] }
            switch result {
            case .success(let skipped): s.phase = .done(skipped)
            case .failure: s.phase = .pending
            }
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters {
            switch result {
            case .success: w.resume()
            case .failure(let error): w.resume(throwing: error)
            }
        }
    }

    /// A waiting caller was cancelled: it stops waiting; the setup stops when it was the last.
    private func withdraw(_ id: Int) {
        let (waiter, task) = state.withLock { s -> (CheckedContinuation<Void, any Error>?, Task<Void, Never>?) in
            guard let waiter = s.waiters.removeValue(forKey: id) else {
                s.cancelledEarly.insert(id)
                return (nil, nil)
            }
            if s.waiters.isEmpty, case .running(_, let task) = s.phase {
                s.phase = .pending
                return (waiter, task)
            }
            return (waiter, nil)
        }
        task?.cancel()
        waiter?.resume(throwing: Self.cancelled)
    }
}

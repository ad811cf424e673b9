import Dispatch
import Foundation
import PQLStore

/// The one place where `pql`'s synchronous commands wait for async work (the PostgreSQL
/// store's calls): each call runs in a detached task while the calling thread waits.
///
/// Ctrl-C reaches the call in two ways, both ending in `Task.cancel()`, which the store turns
/// into a cancel of the statement on the server (`pg_cancel_backend`): the interrupt flag the
/// SIGINT handler raises (the REPL's, or the one `ServerStore` installs for batch commands),
/// looked at while waiting, and ``cancel()`` from another thread (the REPL's watcher, through
/// `QuerySource.interrupt()`).
final class BlockingCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var running: Task<Void, Never>?

    /// Runs `body` to its end and returns what it returned or throws what it threw.
    func wait<T: Sendable>(_ body: @escaping @Sendable () async throws(StoreError) -> T) throws(StoreError) -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome<T>()
        // Detached: the caller may be on the main thread, which this wait blocks, so the task
        // must not inherit its actor.
        let task = Task.detached {
            do throws(StoreError) {
                outcome.set(.success(try await body()))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        lock.withLock { running = task }
        defer { lock.withLock { running = nil } }
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if InterruptFlag.isRaised { task.cancel() }
        }
        return try outcome.get()
    }

    /// Cancels the call running now, if any (safe from any thread).
    func cancel() { lock.withLock { running?.cancel() } }

    /// A result handed from the task to the waiting thread.
    private final class Outcome<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<T, StoreError>?
        func set(_ r: Result<T, StoreError>) { lock.withLock { result = r } }
        func get() throws(StoreError) -> T {
            // Set before `done` was signalled, which the waiter saw.
            guard let r = lock.withLock({ result }) else { throw StoreError(.server, "a call to the server ended without a result") }
            return try r.get()
        }
    }
}

import PostgresNIO
import PQLStore
import Synchronization

/// PostgresNIO's pool with the wait for a connection bounded. `client.withConnection` waits
/// as long as it takes; and PostgresNIO 1.33's pool, when the connections it has close while
/// calls wait for one (the server restarting, or ending sessions), opens no new connection
/// for those calls until another call comes: without a bound they could wait for ever.
///
/// The lease runs in a child task, the body in the caller's own (bodies are not `Sendable`:
/// a transaction's is the caller's code), and a timer in a third: a task group holds all three,
/// so that none outlives the call. The child hands the connection over and keeps the lease
/// until the body gives it back.
struct Lease: Sendable {
    let client: PostgresClient
    let limits: PostgresWaitLimits

    /// Runs `body` on a connection of the pool, or throws a `StoreError` of kind
    /// `StoreError.Kind.timedOut` saying `what` waited when none was free within
    /// `limits.connectionWait`. Cancelling the caller while it waits ends the wait
    /// (PostgresNIO withdraws the request); while `body` runs, `body` decides.
    func withConnection<T>(_ what: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let handoff = Handoff()
        let limit = limits.connectionWait
        let client = self.client
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await client.withConnection { connection in await handoff.lend(connection) }
                } catch {
                    handoff.fail(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                // Woken by the end of the call (or the caller's cancellation), not by the time.
                guard !Task.isCancelled else { return }
                handoff.fail(StoreError(.timedOut, "\(what): no connection to the PostgreSQL server was free within \(describe(limit))",
                                        hint: "every connection of the pool was busy, or the server refused new ones (max_connections, the role's connection limit, a restart); try again, or raise PostgresWaitLimits.connectionWait"))
            }
            defer {
                handoff.giveBack()
                group.cancelAll()
            }
            let connection = try await handoff.borrow()
            return try await body(connection)
        }
    }

    /// The connection passing from the leasing child to the caller, and back.
    private final class Handoff: Sendable {
        private struct State {
            var connection: PostgresConnection?
            var failure: (any Error)?
            var borrower: CheckedContinuation<PostgresConnection, any Error>?
            var lender: CheckedContinuation<Void, Never>?
            /// The caller is done (or gave up): a connection lent now goes straight back.
            var returned = false
        }
        private let state = Locked(State())

        /// The child's side: hands `connection` to the caller and waits until it comes back
        /// (not ended by cancellation: the caller may still be using it).
        func lend(_ connection: PostgresConnection) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let (borrower, returned) = state.withLock { s -> (CheckedContinuation<PostgresConnection, any Error>?, Bool) in
                    if s.returned || s.failure != nil { return (nil, true) }
                    s.connection = connection
                    s.lender = c
                    defer { s.borrower = nil }
                    return (s.borrower, false)
                }
                if returned { c.resume() } else { borrower?.resume(returning: connection) }
            }
        }

        /// No connection will come: the lease failed, or the timer ran out first.
        func fail(_ error: any Error) {
            let borrower = state.withLock { s -> CheckedContinuation<PostgresConnection, any Error>? in
                guard s.connection == nil, s.failure == nil else { return nil }
                s.failure = error
                defer { s.borrower = nil }
                return s.borrower
            }
            borrower?.resume(throwing: error)
        }

        /// The caller's side: the connection, or the failure; its cancellation ends the wait.
        func borrow() async throws -> PostgresConnection {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (c: CheckedContinuation<PostgresConnection, any Error>) in
                    let ready = state.withLock { s -> Result<PostgresConnection, any Error>? in
                        if let connection = s.connection { return .success(connection) }
                        if let failure = s.failure { return .failure(failure) }
                        s.borrower = c
                        return nil
                    }
                    if let ready { c.resume(with: ready) }
                }
            } onCancel: {
                fail(CancellationError())
            }
        }

        /// The caller is done with the connection (or never got it): the lease ends.
        func giveBack() {
            let lender = state.withLock { s in
                s.returned = true
                defer { s.lender = nil }
                return s.lender
            }
            lender?.resume()
        }
    }
}

/// A duration as a person reads it in a message: `30 s`, `250 ms`.
func describe(_ d: Duration) -> String {
    let (seconds, attoseconds) = d.components
    let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    if ms % 1000 == 0 { return "\(ms / 1000) s" }
    return "\(ms) ms"
}

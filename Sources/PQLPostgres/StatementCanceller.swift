import NIOCore
import PostgresNIO
import Synchronization

/// Stops the statement of a call whose task was cancelled: `pg_cancel_backend` from another
/// connection of the pool, repeated every 250 ms until the call reports the statement ended.
/// PostgreSQL drops a cancel that arrives while the backend reads the statement's next
/// message (between Parse and Execute, when it already shows as active), and a cancel that
/// reaches an idle backend does nothing, so the connection goes back to the pool only once the
/// repeats are over: they cannot stop another task's statement.
///
/// The repeats last `limits.cancelling` at most. A server that does not stop the statement by
/// then (a backend lost in a long computation, a network that drops the requests) gets its
/// connection closed: the call throws at once, and the server ends the statement when it next
/// checks its client (`client_connection_check_interval`).
final class StatementCanceller: Sendable {
    private let connection: PostgresConnection
    private let backend: Int32
    private let lease: Lease
    private struct State {
        var ended = false
        var closed = false
        var task: Task<Void, Never>?
    }
    private let state = Locked(State())

    init(connection: PostgresConnection, backend: Int32, lease: Lease) {
        self.connection = connection
        self.backend = backend
        self.lease = lease
    }

    /// Starts the repeats (once; not after the statement has ended).
    func start() {
        let connection = connection, backend = backend, lease = lease
        state.withLock { s in
            guard !s.ended, s.task == nil else { return }
            s.task = Task { [self] in
                let deadline = ContinuousClock.now + lease.limits.cancelling
                while !isEnded, !connection.isClosed {
                    let left = deadline - ContinuousClock.now
                    if left <= .zero {
                        // Without waiting for the server (it is not answering).
                        state.withLock { $0.closed = true }
                        _ = connection.close() as EventLoopFuture<Void>
                        return
                    }
                    var limits = lease.limits
                    limits.connectionWait = min(limits.connectionWait, left)
                    _ = try? await Lease(client: lease.client, limits: limits).withConnection("cancelling a statement") { c in
                        try await c.run("SELECT pg_cancel_backend(\(backend))", logger: Self.logger)
                    }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
        }
    }

    private var isEnded: Bool { state.withLock { $0.ended } }

    /// Whether the repeats gave up and closed the connection.
    var closedConnection: Bool { state.withLock { $0.closed } }

    /// The call's statement has ended: stops the repeats, and returns once they have stopped
    /// (a request already sent is answered first).
    func statementEnded() async {
        let task = state.withLock { s in
            s.ended = true
            return s.task
        }
        task?.cancel()
        await task?.value
    }

    private static let logger: Logger = {
        var l = Logger(label: "PQLPostgres")
        l.logLevel = .critical
        return l
    }()
}

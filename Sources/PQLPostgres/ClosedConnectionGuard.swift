import NIOCore
import PostgresNIO
import PQLStore
import Synchronization

// PostgresNIO (1.33) sends a statement with `channel.write(task, promise: nil)`: on a
// connection that is closed, or closes before the write reaches its handler, the write fails
// unseen and the statement's own promise is never completed, so `query`, `copyFrom` and the
// pool's `client.query` wait forever. The server closes connections when it restarts, when it
// crashes and resets every session, on `pg_terminate_backend` and on `idle_session_timeout`;
// the pool can hand out a connection whose close it has not yet heard of. This is what hung
// the test suite on a loaded machine: every statement of PQL's starts through
// `startGuarded(on:_:)`, which gives up its wait when the connection closes.

/// The error of a statement whose connection closed before the server answered it.
struct ConnectionClosedError: Error, CustomStringConvertible {
    var description: String { "the PostgreSQL server closed the connection" }
}

extension PostgresConnection {
    /// Starts `query` (PostgresNIO's `query`) and returns its rows, or throws
    /// `ConnectionClosedError` when the connection is, or becomes, closed before the server
    /// answers. Once the rows come, a close fails their sequence as PostgresNIO does.
    func statement(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await startGuarded(on: self) { try await self.query(query, logger: logger) }
    }

    /// Runs a statement to its end: an error the server sends after the first rows (a
    /// cancelled `pg_sleep`, a failed cast in row 1000) is thrown here, not lost with an
    /// unread row sequence.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await statement(query, logger: logger) {}
    }

    /// `COPY table (columns) FROM STDIN`, fed by `writeData`, guarded as ``statement(_:logger:)``
    /// is: it throws `ConnectionClosedError` when the connection closes, whatever PostgresNIO's
    /// copy was waiting for.
    func copy(into table: String, columns: [String], logger: Logger,
              _ writeData: @escaping @Sendable (PostgresCopyFromWriter) async throws -> Void) async throws {
        try await startGuarded(on: self) {
            try await self.copyFrom(table: table, columns: columns, format: .text(.init()), logger: logger, writeData: writeData)
        }
    }
}

/// Runs `operation` (a PostgresNIO call on `connection`) and returns what it returns, unless
/// `connection` closes first: then it throws `ConnectionClosedError` and leaves the operation,
/// whose wait PostgresNIO may never end, behind (see ``abandonable(_:leftover:giveUp:)``).
func startGuarded<T: Sendable>(on connection: PostgresConnection, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    if connection.isClosed { throw ConnectionClosedError() }
    return try await abandonable(operation) { give in
        let watch = CloseWatch.shared.add(connection) { give(ConnectionClosedError()) }
        return { CloseWatch.shared.remove(watch) }
    }
}

/// The statements waiting on each open connection, failed together when it closes: one
/// `closeFuture` callback per connection (a callback per statement would pile up on a
/// connection that lives for millions of them).
final class CloseWatch: Sendable {
    static let shared = CloseWatch()

    struct Token: Sendable {
        let connection: ObjectIdentifier
        let number: Int
    }

    private struct Watched {
        /// Held so that its identifier is not reused while it is watched.
        let connection: PostgresConnection
        var waiting: [Int: @Sendable () -> Void] = [:]
    }
    private let watched = Locked<[ObjectIdentifier: Watched]>([:])
    private let numbers = Atomic<Int>(0)

    /// Calls `onClose` when `connection` closes (at once, on its event loop, if it already has),
    /// unless ``remove(_:)`` comes first.
    func add(_ connection: PostgresConnection, _ onClose: @escaping @Sendable () -> Void) -> Token {
        let key = ObjectIdentifier(connection)
        let number = numbers.add(1, ordering: .relaxed).newValue
        let first = watched.withLock { w in
            let first = w[key] == nil
            w[key, default: Watched(connection: connection)].waiting[number] = onClose
            return first
        }
        if first {
            connection.closeFuture.whenComplete { _ in
                let waiting = self.watched.withLock { $0.removeValue(forKey: key)?.waiting.values }
                if let waiting { for onClose in waiting { onClose() } }
            }
        }
        return Token(connection: key, number: number)
    }

    func remove(_ token: Token) {
        watched.withLock { w in _ = w[token.connection]?.waiting.removeValue(forKey: token.number) }
    }
}

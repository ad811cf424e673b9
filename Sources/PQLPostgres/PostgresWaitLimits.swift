/// How long a PostgreSQL store waits for what the server and the pool decide: a new
/// connection, a free connection of the pool, and a cancelled statement to stop. When a limit
/// runs out the call throws a `StoreError` of kind `StoreError.Kind.timedOut` that names what
/// it waited for; nothing else in the store waits without end (a call waiting for its turn
/// on a transaction's connection, or for a stream's next batch, ends with its task's
/// cancellation, and a statement whose connection the server closes throws at once).
///
/// Statements themselves are not limited here: a slow fetch runs until it ends or its task is
/// cancelled. Cap them on the server with `statement_timeout` in the URL's `options`.
///
/// ```swift
/// var limits = PostgresWaitLimits()
/// limits.connectionWait = .seconds(5)   // a web request would rather fail than queue
/// let store = try await PostgresPredicateStore(url: "postgres://app@db/shop", waitLimits: limits)
/// ```
public struct PostgresWaitLimits: Sendable, Hashable {
    /// Opening a connection: reaching the server, TLS and the login. 10 seconds unless the
    /// URL sets libpq's `connect_timeout` (in seconds).
    public var connecting: Duration = .seconds(10)
    /// Waiting for a free connection of the pool: every connection busy, or the server
    /// refusing new ones (`max_connections`, a role's connection limit, a restart). 30 seconds.
    public var connectionWait: Duration = .seconds(30)
    /// How long the statement of a cancelled task is asked to stop (`pg_cancel_backend`,
    /// repeated) before its connection is closed, which ends the call at once. The server then
    /// ends the statement when it next looks at the connection (PQL asks every session to look
    /// every 5 seconds, `client_connection_check_interval`). 10 seconds.
    public var cancelling: Duration = .seconds(10)

    /// The limits above: 10 s to connect, 30 s for a free connection, 10 s for a cancelled statement.
    ///
    /// ```swift
    /// let limits = PostgresWaitLimits()
    /// print(limits.connectionWait)   // 30.0 seconds
    /// ```
    public init() {}
}

import Foundation
import PostgresNIO
import PQL
import PQLStore
import Synchronization

/// PQL's store on a PostgreSQL server: a `StoreModel` (the same model type as the SQLite
/// `PredicateStore`'s) over the tables of one PostgreSQL schema, on PostgresNIO's
/// `PostgresClient` — the client Vapor and Hummingbird apps already hold.
///
/// What it does today: open from a connection URL or an existing client; take the model from
/// Swift, a model file or an Xcode model, or infer it from the tables it finds (primary keys,
/// column types, foreign keys as to-one relationships with to-many inverses); create the tables
/// of a model; install PQL's SQL functions (``installFunctions()``); import CSV, JSON and
/// JSON Lines through `COPY`; insert records, one, many in one transaction, or `Encodable`
/// values, with the SQLite store's rules (``insert(_:_:)-(String,[[String:PredicateValue]])``,
/// ``insert(_:encoding:)``); fetch, stream and count with an `EntityQuery`
/// (``fetch(_:)-(EntityQuery)``, ``records(matching:)``, ``count(_:)-(EntityQuery)``): PQL's one SQL compiler in its PostgreSQL dialect,
/// the same rows as memory and SQLite, and `.unsupported` for what PostgreSQL cannot answer as PQL does;
/// chosen properties, `Decodable` records and templates (``fetchProperties(_:_:distinct:)``,
/// ``fetch(_:as:)``, ``fetch(template:variables:)``); updates and deletes, one object or a batch
/// in one transaction (``batchUpdate(_:set:)``, ``batchDelete(_:)``), as the SQLite store does them;
/// several calls as one transaction (`transaction(_:)`).
///
/// Every call is `async` and cancellable: cancelling the calling task cancels the statement on
/// the server (`pg_cancel_backend` from another connection), which then throws a
/// `StoreError` of kind `StoreError.Kind.cancelled`. The store is `Sendable`: share one
/// between tasks; calls run side by side on the client's pooled connections.
///
/// ```swift
/// let store = try await PostgresPredicateStore(url: "postgres://app:secret@localhost:5432/shop?sslmode=disable")
/// print(store.model.entities.map(\.name))
/// let n = try await store.count("Order")
/// await store.close()
/// ```
public final class PostgresPredicateStore: Sendable {
    /// The PostgreSQL client the store runs its statements on.
    public let client: PostgresClient
    /// The PostgreSQL schema holding the model's tables (`public` unless given).
    public let schema: String
    /// Where ``installFunctions()`` puts PQL's SQL functions (`pql`).
    public let functionSchema: String
    /// The tables model inference left out (a table without a single-column integer primary
    /// key, which PQL needs to identify rows), each with the reason. Empty when the model was
    /// given or saved, and until the store has read its model (``prepare()``, or its first call).
    ///
    /// ```swift
    /// try await store.prepare()
    /// for (table, reason) in store.skippedTables { print("left out \(table): \(reason)") }
    /// ```
    public var skippedTables: [String: String] { setup.skipped?.tables ?? [:] }
    /// The columns model inference left out (`"table.column"`), each with the reason: text
    /// PostgreSQL compares otherwise than PQL does even for `==` (`char(n)`, `citext`, a
    /// nondeterministic collation), where no predicate could give memory's rows. Empty when
    /// the model was given or saved, and until the store has read its model (``prepare()``).
    ///
    /// ```swift
    /// for (column, reason) in store.skippedColumns { print("left out \(column): \(reason)") }
    /// ```
    public var skippedColumns: [String: String] { setup.skipped?.columns ?? [:] }

    /// Shared with the stores a `transaction(_:)` hands its body, whose imports may grow it.
    private let state: SharedModel
    /// Reading the model and the indexes from the server, once, at the first call that needs
    /// them (shared with the stores transactions hand their bodies).
    let setup: StoreSetup
    /// Whether the model was given when the store opened, rather than read from the database
    /// (saved or inferred): an import then keeps it, where it otherwise takes the model
    /// another process saved since.
    let modelIsGiven: Bool
    /// The `client.run()` task of a store opened from a URL; nil for a client the caller runs.
    private let runner: Task<Void, Never>?
    /// Backend process ids by connection, for `pg_cancel_backend`.
    private let backends = Locked<[Int: Int32]>([:])
    let logger: Logger
    /// The connection of the transaction this store's calls run in, for the store a
    /// transaction hands its body; nil for a store that takes a pooled connection per call.
    let pinned: PinnedConnection?
    /// The indexes `BEGINSWITH[c]` compiles by, as last read (shared with transactions' stores).
    let indexCatalog: IndexCatalog
    /// How long the store waits for a connection, a free connection of the pool, and a
    /// cancelled statement to stop (see ``PostgresWaitLimits``).
    ///
    /// ```swift
    /// print(store.waitLimits.connectionWait)   // 30.0 seconds
    /// ```
    public let waitLimits: PostgresWaitLimits

    /// The model the store uses (grown by imports that add entities or attributes).
    ///
    /// A model given to the initializer is the model from the start. Without one, the store
    /// reads it from the server (the model PQL saved, else one inferred from the tables) at its
    /// first call, or at ``prepare()``, which returns it; until then this is an empty model.
    /// A store opened from a URL has read it when the initializer returns.
    ///
    /// ```swift
    /// for entity in store.model.entities { print(entity.name, entity.attributes.map(\.name)) }
    /// ```
    public var model: StoreModel { state.value.withLock { $0 } }

    /// Reads what the store needs from the server before its first statement, unless done
    /// already, and returns the model: the model PQL saved in ``schema``, else one inferred from
    /// its tables (a model given to the initializer is kept as it is), and the indexes that
    /// `BEGINSWITH[c]` compiles by. Every call that needs these does this first, so calling it
    /// is optional: it lets a service fail at startup rather than at its first request, and
    /// fills ``model``, ``skippedTables`` and ``skippedColumns`` for code that reads them
    /// before any call. Concurrent first calls wait for one reading; a reading that fails
    /// throws (a `StoreError` of kind `StoreError.Kind.timedOut` when no connection came
    /// within `waitLimits.connectionWait`, as when the client is not running) and the next call
    /// tries again.
    ///
    /// ```swift
    /// let store = try PostgresPredicateStore(client: client)   // no I/O
    /// // … once client.run() runs:
    /// let model = try await store.prepare()
    /// print(model.entities.map(\.name))
    /// ```
    @discardableResult
    public func prepare() async throws(StoreError) -> StoreModel {
        try await setup.ensure { () async throws(StoreError) -> StoreSetup.Skipped in try await self.readSetup() }
        return model
    }

    /// What ``prepare()`` reads, run once by `setup`.
    private func readSetup() async throws(StoreError) -> StoreSetup.Skipped {
        var skipped = StoreSetup.Skipped()
        if !modelIsGiven {
            if let saved = try await Self.savedModel(lease, schema: schema, logger: logger) {
                setModel(saved)
            } else {
                let inferred = try await PostgresSchemaInference.model(lease, schema: schema, logger: logger)
                setModel(inferred.model)
                skipped = StoreSetup.Skipped(tables: inferred.skipped, columns: inferred.skippedColumns)
            }
        }
        await readIndexesIfOld()
        return skipped
    }

    /// For the calls that show SQL without running it, which cannot wait for the model: refuses
    /// them while the model is still to be read from the server.
    func requireModel(_ what: String) throws(StoreError) {
        guard !modelIsGiven, setup.skipped == nil else { return }
        throw StoreError(.unsupported, "\(what) needs the store's model, which it has not read from the server yet",
                         hint: "call `try await store.prepare()` first (or give the model to the initializer)")
    }

    /// Opens the database a connection URL names (see ``PostgresConnectionURL``: TCP or a
    /// unix-socket directory, `sslmode`), with `model`, or — when `model` is nil — the model
    /// PQL saved there, else one inferred from the tables of `schema`.
    ///
    /// The store creates its own `PostgresClient` and runs it (`client.run()`) in a task of its
    /// own until ``close()``. Connecting fails at once with a `StoreError` of kind
    /// `StoreError.Kind.server` when the server cannot be reached or refuses the login, and of
    /// kind `StoreError.Kind.timedOut` when it does not answer within `waitLimits.connecting`
    /// (or the URL's `connect_timeout`).
    ///
    /// ```swift
    /// let store = try await PostgresPredicateStore(url: "postgres://postgres@%2Ftmp%2Fpg/pql")
    /// ```
    public convenience init(url: String, model: StoreModel? = nil, schema: String = "public",
                            functionSchema: String = "pql", waitLimits: PostgresWaitLimits = PostgresWaitLimits()) async throws(StoreError) {
        try await self.init(connectingTo: try PostgresConnectionURL(url), shown: PostgresConnectionURL.withoutPassword(url),
                            model: model, schema: schema, functionSchema: functionSchema, waitLimits: waitLimits)
    }

    /// Opens `parsed` (``init(url:model:schema:functionSchema:waitLimits:)``), `shown` in messages.
    convenience init(connectingTo parsed: PostgresConnectionURL, shown: String, model: StoreModel?, schema: String,
                     functionSchema: String, waitLimits: PostgresWaitLimits = PostgresWaitLimits()) async throws(StoreError) {
        var parsed = parsed
        var limits = waitLimits
        if let t = parsed.connectTimeout { limits.connecting = t }
        let logger = { var l = Logger(label: "PQLPostgres"); l.logLevel = .critical; return l }()
        // One connection first: a server that is down or refuses the login is reported now,
        // where the pool would retry with backoff. A session default the server does not take
        // (an engine without PostgreSQL's jit, a platform without client_connection_check_interval)
        // is left out, and the connection tried again.
        while true {
            do {
                // PostgresNIO bounds the whole opening, login included, by connectTimeout.
                var configuration = try parsed.connectionConfiguration()
                configuration.options.connectTimeout = .init(limits.connecting)
                let probe = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try? await probe.close()
                break
            } catch {
                if let e = error as? PSQLError, let info = e.serverInfo, ["42704", "22023"].contains(info[.sqlState] ?? ""),
                   let refused = parsed.sessionDefaults.keys.first(where: { (info[.message] ?? "").contains("\"\($0)\"") || (info[.message] ?? "").contains("\($0) ") }) {
                    parsed.sessionDefaults[refused] = nil
                    continue
                }
                let e = ServerErrors.storeError(error, doing: "connecting to \(shown)")
                guard e.kind == .timedOut else { throw e }
                throw StoreError(.timedOut, "connecting to \(shown): the server did not answer within \(describe(limits.connecting))", hint: e.hint)
            }
        }
        var configuration = parsed.configuration()
        configuration.options.connectTimeout = limits.connecting
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let runner = Task { await client.run() }
        self.init(client: client, runner: runner, model: model, schema: schema, functionSchema: functionSchema, waitLimits: limits)
        do throws(StoreError) {
            try await prepare()
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// Uses a client the caller made and runs, as a Vapor or Hummingbird app does, without
    /// touching the server: the store can be made before `client.run()` starts (a
    /// `ServiceGroup` runs the client after its services are built). `client.run()` must be
    /// running in a task (a service group, or `Task { await client.run() }`) for as long as
    /// the store is used: a call made while it is not waits up to `waitLimits.connectionWait`
    /// for a connection, then throws a `StoreError` of kind `StoreError.Kind.timedOut`.
    /// ``close()`` leaves the client running.
    ///
    /// With `model` nil, the store reads the model PQL saved in `schema`, else infers one from
    /// its tables, at its first call (or at ``prepare()``); ``model`` is empty until then. A
    /// model given here is used as it is from the start.
    ///
    /// ```swift
    /// let client = PostgresClient(configuration: try PostgresConnectionURL(url).configuration())
    /// let store = try PostgresPredicateStore(client: client)
    /// let running = Task { await client.run() }
    /// let n = try await store.count("flights")   // reads the model first
    /// ```
    public convenience init(client: PostgresClient, model: StoreModel? = nil, schema: String = "public",
                            functionSchema: String = "pql", waitLimits: PostgresWaitLimits = PostgresWaitLimits()) throws(StoreError) {
        for (name, value) in [("schema", schema), ("functionSchema", functionSchema)] where value.isEmpty || value.utf8.contains(0) {
            throw StoreError(.invalidValue, "the \(name) '\(value)' cannot name a PostgreSQL schema",
                             hint: "give a schema name of one or more characters without U+0000")
        }
        self.init(client: client, runner: nil, model: model, schema: schema, functionSchema: functionSchema, waitLimits: waitLimits)
    }

    private init(client: PostgresClient, runner: Task<Void, Never>?, model: StoreModel?, schema: String,
                 functionSchema: String, waitLimits: PostgresWaitLimits) {
        self.client = client
        self.runner = runner
        self.schema = schema
        self.functionSchema = functionSchema
        self.waitLimits = waitLimits
        var logger = Logger(label: "PQLPostgres")
        logger.logLevel = .critical
        self.logger = logger
        self.state = SharedModel(model ?? Self.emptyModel)
        self.modelIsGiven = model != nil
        self.setup = StoreSetup()
        self.pinned = nil
        self.indexCatalog = IndexCatalog()
    }

    /// The store a transaction's body gets: `store`'s client, schema and model, its calls on `connection`.
    init(_ store: PostgresPredicateStore, pinnedTo connection: PinnedConnection) {
        client = store.client
        runner = nil
        schema = store.schema
        functionSchema = store.functionSchema
        setup = store.setup
        state = store.state
        modelIsGiven = store.modelIsGiven
        logger = store.logger
        pinned = connection
        indexCatalog = store.indexCatalog
        waitLimits = store.waitLimits
    }

    deinit { runner?.cancel() }

    /// Stops the client the store made from a URL (its connections close); does nothing to a
    /// client the caller gave. The store is not used afterwards. Waits up to
    /// `waitLimits.cancelling` for the client to stop; past that it returns, and the client
    /// stops in the background.
    ///
    /// ```swift
    /// await store.close()
    /// ```
    public func close() async {
        guard let runner else { return }
        runner.cancel()
        // PostgresNIO's run() ends once its pool has shut down; a pool that never reports the
        // end (seen as a test suite that hung, every thread idle, no connection left) must not
        // hold the caller for ever.
        _ = await waitFor(runner, atMost: waitLimits.cancelling)
    }

    /// The model of a store that has not read its own yet.
    private static let emptyModel: StoreModel = {
        do { return try StoreModel([], names: .postgreSQL) } catch { preconditionFailure("a model without entities is valid: \(error)") }
    }()

    func setModel(_ model: StoreModel) { state.value.withLock { $0 = model } }

    // MARK: running statements

    /// Runs `body` on a pooled connection (in a transaction's store, on the transaction's, in a
    /// savepoint); cancelling the task cancels the statement running on the server. Errors
    /// become `StoreError`s saying `what` failed; the wait for a connection is bounded by
    /// `waitLimits.connectionWait`.
    func withConnection<T: Sendable>(_ what: String, _ body: (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        do {
            if let pinned {
                return try await pinned.call(what, logger: logger) { connection in try await self.cancellable(on: connection, body) }
            }
            return try await lease.withConnection(what) { connection in try await self.cancellable(on: connection, body) }
        } catch {
            throw ServerErrors.cancellation(of: ServerErrors.storeError(error, doing: what), "\(what) was cancelled")
        }
    }

    /// The store's client, its waits bounded by `waitLimits`.
    var lease: Lease { Lease(client: client, limits: waitLimits) }

    /// Runs `body` on `connection`, cancelling its statement on the server when the task is cancelled.
    private nonisolated(nonsending) func cancellable<T: Sendable>(on connection: PostgresConnection, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let pid = try await backendID(connection)
        let canceller = StatementCanceller(connection: connection, backend: pid, lease: lease)
        // A cancel request reaching an idle backend does nothing; the connection goes back to
        // the pool only once the requests are answered, so they cannot stop another task's
        // statement (see StatementCanceller).
        do {
            let result = try await withTaskCancellationHandler {
                try await body(connection)
            } onCancel: {
                canceller.start()
            }
            await canceller.statementEnded()
            return result
        } catch {
            await canceller.statementEnded()
            if canceller.closedConnection {
                throw ServerErrors.cancelled("the call was cancelled, and the server did not stop its statement within \(describe(waitLimits.cancelling)): PQL closed the statement's connection (the server ends the statement when it next checks the connection)")
            }
            throw error
        }
    }

    /// After a statement's rows stopped being read (the task cancelled, the consumer of a
    /// stream gone, a row that failed to decode): cancels the statement on the server and waits
    /// until the server has ended it, so that it neither runs on unseen nor holds the connection
    /// when it goes back to the pool. An error the server sent, or a lost connection, means the
    /// statement is over; PostgresNIO's own cancel (`.queryCancelled`) only stopped the reading.
    func stop(statementOn connection: PostgresConnection, cancelling error: any Error) async throws {
        if let e = error as? PSQLError, e.code != .queryCancelled { return }
        if error is ConnectionClosedError { return }
        let pid = try await backendID(connection)
        let canceller = StatementCanceller(connection: connection, backend: pid, lease: lease)
        canceller.start()
        // A statement queued on the connection runs once the server has ended the first one
        // (it throws at once when the connection closes, as the canceller's last resort does).
        // In a task of its own: the caller's may be cancelled, and this wait must not be.
        let logger = self.logger
        await Task { _ = try? await connection.run("SELECT 1", logger: logger) }.value
        await canceller.statementEnded()
    }

    func backendID(_ connection: PostgresConnection) async throws -> Int32 {
        if let pid = backends.withLock({ $0[connection.id] }) { return pid }
        var pid: Int32 = 0
        for try await row in try await connection.statement("SELECT pg_backend_pid()", logger: logger) {
            pid = try row.decode(Int32.self)
        }
        backends.withLock { $0[connection.id] = pid }
        return pid
    }

    /// Runs statements in one transaction on one connection (ROLLBACK when `body` throws); in a
    /// transaction's store, in a savepoint of it, as the SQLite store's nested transactions.
    func transaction<T: Sendable>(_ what: String, _ body: (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        // A transaction's store runs each call in a savepoint already.
        if pinned != nil { return try await withConnection(what, body) }
        return try await withConnection(what) { connection in
            try await connection.run("BEGIN", logger: self.logger)
            do {
                let result = try await body(connection)
                try await connection.run("COMMIT", logger: self.logger)
                return result
            } catch {
                // The connection may be broken or the statement cancelled: ROLLBACK as best we can
                // (twice: a repeated cancel request, see withConnection, may stop the first).
                if (try? await connection.run("ROLLBACK", logger: self.logger)) == nil {
                    try? await connection.run("ROLLBACK", logger: self.logger)
                }
                throw error
            }
        }
    }

    /// The qualified, quoted name of a table of the store's schema.
    func qualified(_ table: String) -> String { "\(quote(schema)).\(quote(table))" }

    // MARK: counting

    /// How many records `entity` has (sub-entities' included, as a fetch of the entity returns
    /// them); ``count(_:)-(EntityQuery)`` counts those a predicate matches.
    ///
    /// ```swift
    /// let flights = try await store.count("flights")
    /// ```
    public func count(_ entity: String) async throws(StoreError) -> Int {
        let model = try await prepare()
        let e = try model.entity(named: entity)
        let root = model.root(e)
        var sql = "SELECT count(*) FROM \(qualified(root.table))"
        if model.isInheritanceTree(root) && !(e.name == root.name) {
            let numbers = model.descendants(e).map { String(model.entityNumber($0)) }
            sql += " WHERE \(quote(StoreSchemaNames.entityColumn)) IN (\(numbers.joined(separator: ", ")))"
        }
        let query = PostgresQuery(unsafeSQL: sql)
        return try await withConnection("counting \(entity)") { connection in
            var n = 0
            for try await row in try await connection.statement(query, logger: self.logger) { n = try row.decode(Int.self) }
            return n
        }
    }
}

/// A PostgreSQL identifier in double quotes, any `"` doubled.
func quote(_ identifier: String) -> String { FoldFunctionSQL.quoteIdentifier(identifier) }

import PostgresNIO
import PQL
import PQLStore
import Synchronization

extension PostgresPredicateStore {
    /// Runs `body` as one transaction on one connection: everything it wrote is kept if it
    /// returns, nothing if it throws or its task is cancelled. `body` gets a store whose calls
    /// run in the transaction (its reads see its own writes; other connections see nothing
    /// until the commit).
    ///
    /// Each call inside runs in a savepoint of the transaction, so a call that fails (a
    /// constraint, an overflow the predicate raises, a stream left early) leaves the
    /// transaction as it was before that call, as on the SQLite store; `body` may catch the
    /// error and go on. The calls share one connection and take turns on it (calls of
    /// `async let`s or child tasks run one after another); ``records(matching:)`` reads through
    /// a cursor, a batch per turn, so a loop over its records may make other calls. Calling
    /// `transaction(_:)` on the store `body` gets nests a savepoint; while it is open, only
    /// calls made inside it take the connection (a sibling task's call waits), so its
    /// rollback undoes nothing else. The store `body` gets must not be kept: after the
    /// transaction, its calls throw a `StoreError` of kind `StoreError.Kind.unsupported`.
    /// Inside `body`, call the store it gets, not this one: this one takes another connection
    /// of the pool, which waits for a row the transaction has locked until it commits, and
    /// for a free connection while every one is held by such a transaction.
    ///
    /// This overload is for bodies that throw only `StoreError` (write them
    /// `{ (tx) throws(StoreError) in … }`); a body that throws errors of its own gets the
    /// generic overload, which passes them through unchanged.
    ///
    /// ```swift
    /// let moved = try await store.transaction { (tx) throws(StoreError) in
    ///     let n = try await tx.batchDelete(try EntityQuery("Draft", where: "age > 30"))
    ///     _ = try await tx.insert("Log", ["text": .string("deleted \(n) drafts")])
    ///     return n
    /// }
    /// ```
    public func transaction<T: Sendable>(_ body: (PostgresPredicateStore) async throws(StoreError) -> T) async throws(StoreError) -> T {
        try await prepare()
        do {
            return try await runTransaction { (tx) async throws -> T in try await body(tx) }
        } catch {
            throw Self.cancellation(ServerErrors.storeError(error, doing: "the transaction"))
        }
    }

    /// Runs `body` as one transaction, letting it throw errors of its own: everything it wrote
    /// is kept if it returns, nothing if it throws or its task is cancelled (see
    /// the overload for bodies that throw only `StoreError`, for the store `body` gets and its rules).
    ///
    /// The call throws untyped: an error `body` throws comes out unchanged, after the
    /// rollback; a failure of the store's own (the commit, a call inside `body` that `body`
    /// lets through) is a `StoreError`.
    ///
    /// ```swift
    /// struct OutOfStock: Error {}
    /// try await store.transaction { tx in
    ///     let item = try await tx.fetch(try EntityQuery("Item", where: "sku == %@", "A-1"))[0]
    ///     let stock = item["stock"]?.intValue ?? 0
    ///     if stock == 0 { throw OutOfStock() }   // nothing written
    ///     try await tx.update("Item", id: item.id, ["stock": .int(Int64(stock - 1))])
    /// }
    /// ```
    public func transaction<T: Sendable, Failure: Error>(_ body: (PostgresPredicateStore) async throws(Failure) -> T) async throws -> T {
        try await prepare()
        let thrown = Locked<Failure?>(nil)
        do {
            return try await runTransaction { (tx) async throws -> T in
                do throws(Failure) { return try await body(tx) } catch {
                    thrown.withLock { $0 = error }
                    throw error
                }
            }
        } catch {
            if let thrown = thrown.withLock({ $0 }) {
                if let e = thrown as? StoreError { throw Self.cancellation(e) }
                throw thrown
            }
            throw Self.cancellation(ServerErrors.storeError(error, doing: "the transaction"))
        }
    }

    /// A server error of a transaction whose task was cancelled: the cancellation, which caused it.
    private static func cancellation(_ error: StoreError) -> StoreError {
        ServerErrors.cancellation(of: error, cancelledMessage)
    }

    private static let cancelledMessage = "the transaction was cancelled; nothing of it was written"

    /// BEGIN, `body`, COMMIT on a connection of the pool (a savepoint in a transaction's
    /// store); ROLLBACK, and the model as it was, when anything throws or the task is cancelled.
    private func runTransaction<T: Sendable>(_ body: (PostgresPredicateStore) async throws -> T) async throws -> T {
        let before = model
        do {
            if let pinned {
                // While the savepoint is open, only calls made inside `body` (its task and the
                // tasks it starts) take the connection: a sibling's write would otherwise land
                // in the savepoint, and a rollback of it undo that write too.
                let scope = PinnedConnection.newScope()
                let name = try await pinned.exclusive("starting a nested transaction", logger: logger) { c in
                    let name = try await pinned.savepoint(on: c, logger: self.logger)
                    pinned.open(scope)
                    return name
                }
                return try await PinnedConnection.$scopes.withValue(PinnedConnection.scopes.union([scope])) {
                    do {
                        let result = try await body(self)
                        try await pinned.exclusive("ending a nested transaction", logger: logger) { c in
                            defer { pinned.close(scope) }
                            try await pinned.release(name, on: c, logger: self.logger)
                        }
                        return result
                    } catch {
                        await pinned.rollback(to: name, closing: scope, logger: logger)
                        throw error
                    }
                }
            }
            return try await lease.withConnection("starting a transaction") { connection in
                let pin = PinnedConnection(connection)
                defer { pin.end() }
                try await connection.run("BEGIN", logger: self.logger)
                do {
                    let result = try await body(PostgresPredicateStore(self, pinnedTo: pin))
                    // A task cancelled while its body ran keeps nothing, even when the body
                    // caught the cancellation of its last call.
                    if Task.isCancelled {
                        throw ServerErrors.cancelled(Self.cancelledMessage)
                    }
                    try await pin.finish { c in
                        // COMMIT of a transaction an error aborted answers ROLLBACK without an
                        // error: a statement first says whether it is still alive (25P02 if not).
                        try await c.run("SELECT 1", logger: self.logger)
                        try await c.run("COMMIT", logger: self.logger)
                    }
                    return result
                } catch {
                    await pin.rollback(logger: self.logger)
                    throw error
                }
            }
        } catch {
            if model != before { setModel(before) }
            throw error
        }
    }
}

/// The one connection of a transaction, with its state: open until the transaction ends,
/// busy while a call runs on it.
final class PinnedConnection: Sendable {
    private let raw: PostgresConnection
    private struct State {
        var open = true
        var busy = false
        /// The nested transactions open on the connection (their savepoints), outermost first.
        var scopes: [UInt64] = []
        /// Calls waiting for the connection, in the order they came, with the nested
        /// transactions each was made in.
        /// A turn resumes with true; a call cancelled while it waits, with false.
        var waiting: [(number: Int, scopes: Set<UInt64>, turn: CheckedContinuation<Bool, Never>)] = []
        /// Numbers for savepoint and cursor names.
        var names = 0

        /// Whether a call made in `scopes` may take the connection now: it is free, and the
        /// call was made inside every nested transaction open on it.
        func admits(_ scopes: Set<UInt64>) -> Bool { !busy && self.scopes.allSatisfy(scopes.contains) }
    }
    private let state = Locked(State())

    /// The nested transactions the current task runs in (its body's, and those around it).
    @TaskLocal static var scopes: Set<UInt64> = []
    private static let scopeNumbers = Atomic<UInt64>(0)
    static func newScope() -> UInt64 { scopeNumbers.add(1, ordering: .relaxed).newValue }

    /// A nested transaction's savepoint is open (the caller holds the connection).
    func open(_ scope: UInt64) { state.withLock { $0.scopes.append(scope) } }

    /// It has ended: calls from outside it may run again.
    func close(_ scope: UInt64) {
        state.withLock { s in
            s.scopes.removeAll { $0 == scope }
            return Self.next(&s)
        }?.resume(returning: true)
    }

    init(_ connection: PostgresConnection) { raw = connection }

    /// Closes the transaction to later calls: its connection goes back to the pool.
    func end() {
        state.withLock { s in
            s.open = false
            return Self.next(&s)
        }?.resume(returning: true)
    }

    /// Runs `body` on the connection, in a savepoint: a failure rolls back to it, so the
    /// transaction stays usable (PostgreSQL otherwise refuses every statement after an error
    /// until the end of the transaction).
    func call<T: Sendable>(_ what: String, logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await exclusive(what, logger: logger) { connection in
            let name = try await savepoint(on: connection, logger: logger)
            do {
                let result = try await body(connection)
                try await release(name, on: connection, logger: logger)
                return result
            } catch {
                await Self.undo("ROLLBACK TO SAVEPOINT \(name)", on: connection, logger: logger)
                throw error
            }
        }
    }

    /// Runs `body` with the connection to itself (after the calls before it, which hold it for
    /// one statement each: a stream reads through a cursor, batch by batch), or throws when the
    /// transaction has ended.
    func exclusive<T: Sendable>(_ what: String, logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await acquire(what)
        defer { relinquish() }
        return try await body(raw)
    }

    private func acquire(_ what: String) async throws(StoreError) {
        let ended = StoreError(.unsupported, "\(what) used the store of a transaction that has ended",
                               hint: "make the transaction's calls inside its body, and other calls on the store itself")
        guard state.withLock({ $0.open }) else { throw ended }
        let scopes = Self.scopes
        // A call waits for the one holding the connection, which holds it for one statement
        // (bounded as every statement is); its task's cancellation ends the wait.
        let number = state.withLock { s in s.names += 1; return s.names }
        let gotTurn = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let ready = state.withLock { s in
                    guard s.admits(scopes) else { s.waiting.append((number, scopes, c)); return false }
                    s.busy = true
                    return true
                }
                if ready { c.resume(returning: true) }
            }
        } onCancel: {
            state.withLock { s in
                s.waiting.firstIndex { $0.number == number }.map { s.waiting.remove(at: $0).turn }
            }?.resume(returning: false)
        }
        guard gotTurn else {
            throw ServerErrors.cancelled("\(what) was cancelled while it waited for its turn on the transaction's connection")
        }
        if !state.withLock({ $0.open }) {
            relinquish()
            throw ended
        }
    }

    /// Hands the connection to the first waiting call it may serve now, if any (the first
    /// made inside the innermost open nested transaction, while one is open).
    private func relinquish() {
        state.withLock { s in
            s.busy = false
            return Self.next(&s)
        }?.resume(returning: true)
    }

    /// The waiting call to resume, marked as holding the connection; nil if none may run.
    /// Once the transaction has ended, each waiting call is let go in turn, to throw.
    private static func next(_ s: inout State) -> CheckedContinuation<Bool, Never>? {
        guard !s.busy, let i = s.waiting.firstIndex(where: { !s.open || s.admits($0.scopes) }) else { return nil }
        s.busy = true
        return s.waiting.remove(at: i).turn
    }

    func savepoint(on connection: PostgresConnection, logger: Logger) async throws -> String {
        let name = "pql_savepoint_\(state.withLock { s in s.names += 1; return s.names })"
        try await connection.run(PostgresQuery(unsafeSQL: "SAVEPOINT \(name)"), logger: logger)
        return name
    }

    func cursorName() -> String { "pql_cursor_\(state.withLock { s in s.names += 1; return s.names })" }

    /// Closes a cursor of a stream that ended or was left (nothing to do once the transaction has ended).
    /// In a savepoint of its own, as a call: a nested transaction rolled back while its stream
    /// was open has dropped the cursor already, and the failed CLOSE must not abort the
    /// transaction around it (every later call, and the commit, then failed with 25P02).
    func close(_ cursor: String, logger: Logger) async {
        _ = try? await call("closing a cursor", logger: logger) { c in
            try await c.run(PostgresQuery(unsafeSQL: "CLOSE \(cursor)"), logger: logger)
        }
    }

    func release(_ name: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"), logger: logger)
    }

    /// Undoes a nested transaction and ends it (nothing to undo once the whole transaction has ended).
    func rollback(to name: String, closing scope: UInt64, logger: Logger) async {
        _ = try? await exclusive("rolling back a nested transaction", logger: logger) { c in
            await Self.undo("ROLLBACK TO SAVEPOINT \(name)", on: c, logger: logger)
        }
        close(scope)
    }

    /// Undoes the whole transaction, whatever call was interrupted, once that call has ended
    /// (see ``finish(_:)``).
    func rollback(logger: Logger) async {
        try? await finish { c in await Self.undo("ROLLBACK", on: c, logger: logger) }
    }

    /// Runs the transaction's last statement (its COMMIT or ROLLBACK): closes it to calls that
    /// do not hold the connection yet (they throw, as after ``end()``), waits for the one that
    /// does, then runs `last` with the connection. A call may outlive the body that made it (a
    /// stream's fetch, left when the body threw, holds the connection while its statement is
    /// cancelled, then rolls back to its savepoint): run beside the ROLLBACK, its statements
    /// reached the next transaction the pool gave the connection to, which then failed as
    /// aborted (25P02) or lost what it wrote since a savepoint of the same name.
    func finish<T: Sendable>(_ last: (PostgresConnection) async throws -> T) async throws -> T {
        // Not ended by cancellation: the COMMIT or ROLLBACK must run.
        _ = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { s in
                s.open = false
                guard s.busy else { s.busy = true; return true }
                // First in line: the calls waiting behind it are refused once it is done.
                s.waiting.insert((0, [], c), at: 0)
                return false
            }
            if ready { c.resume(returning: true) }
        }
        defer { relinquish() }
        return try await last(raw)
    }

    /// Runs an undoing statement in a task of its own (the caller's may be cancelled, and this
    /// must run), twice if need be: a cancel request repeated for the statement before (see
    /// `withConnection`) may stop the first.
    private static func undo(_ sql: String, on connection: PostgresConnection, logger: Logger) async {
        await Task {
            if (try? await connection.run(PostgresQuery(unsafeSQL: sql), logger: logger)) == nil {
                try? await connection.run(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
        }.value
    }
}

/// The model of a store and of the stores its transactions hand their bodies.
final class SharedModel: Sendable {
    let value: Locked<StoreModel>
    init(_ model: StoreModel) { value = Locked(model) }
}

import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Synchronization
import Testing

/// Every wait of the PostgreSQL store ends: a statement on a connection the server closed
/// throws at once, the waits for a connection and for a free connection of the pool are
/// bounded (`PostgresWaitLimits`), a call waiting for its turn in a transaction ends with its
/// task's cancellation, and a statement that ignores cancel requests loses its connection.
/// Each test waits for the store with a deadline of its own (generous, 10 minutes: the suite's
/// other tests keep the cooperative pool and NIO's event loops busy for minutes, the load test
/// on purpose, and two full runs on 2 cores saw a 2 s connect end after more than 180 s), so
/// that a regression fails it instead of hanging the suite; the assertions are about what ends
/// and how, not how fast.
@Suite struct PostgresWaitTests {
    /// `body`'s outcome, or nil when it has not ended after `seconds` (the task is left behind).
    static func ended<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        let box = Locked<Result<T, any Error>?>(nil)
        let task = Task {
            do { let v = try await body(); box.withLock { $0 = .success(v) } } catch { box.withLock { $0 = .failure(error) } }
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let r = box.withLock({ $0 }) { return r }
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = task
        // Looked at once more: on a starved cooperative pool this task can wake only after
        // the deadline, when the body had ended long before.
        return box.withLock { $0 }
    }

    static let quiet: Logger = { var l = Logger(label: "test"); l.logLevel = .critical; return l }()

    /// A role of its own with a connection limit, and its URL: the limit stands for a small
    /// `max_connections`; dropped afterwards with everything it owns.
    static func withRole<T>(connectionLimit: Int, _ body: (_ url: String, _ role: String, _ admin: PostgresPredicateStore) async throws -> T) async throws -> T {
        let base = try TestServer.url()
        let admin = try await PostgresPredicateStore(url: base, model: try StoreModel([]))
        let role = "pql_wait_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'wait' CONNECTION LIMIT \(connectionLimit)")
        try await admin.execute("CREATE SCHEMA \(role) AUTHORIZATION \(role)")
        // Tests grant on the one database side by side, and concurrent GRANTs on an object fail
        // ("tuple concurrently updated"): an advisory lock takes them in turn.
        try await admin.execute("DO $$ BEGIN PERFORM pg_advisory_xact_lock(\(Self.grantLock)); EXECUTE format('GRANT CREATE ON DATABASE %I TO \(role)', current_database()); END $$")
        var c = URLComponents(string: base)!
        c.user = role
        c.password = "wait"
        do {
            let result = try await body(c.string!, role, admin)
            await Self.dropRole(role, admin)
            return result
        } catch {
            await Self.dropRole(role, admin)
            throw error
        }
    }

    /// Waits until the server holds no session of `role` (a closed connection's backend ends a
    /// moment after the client closes it, and counts against the role's limit until then).
    static func waitUntilNoSession(of role: String, _ admin: PostgresPredicateStore) async throws {
        for _ in 0..<600 {
            if try await admin.rows("SELECT count(*)::text FROM pg_stat_activity WHERE usename = '\(role)'") == [["0"]] { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the sessions of \(role) did not end")
    }

    /// The advisory lock the roles' grants on the test database take in turn.
    static let grantLock = 7_242_001

    static func dropRole(_ role: String, _ admin: PostgresPredicateStore) async {
        try? await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        try? await admin.execute("DROP SCHEMA \(role) CASCADE")
        // DROP OWNED revokes the database grant: in turn with the GRANTs, as above.
        try? await admin.execute("DO $$ BEGIN PERFORM pg_advisory_xact_lock(\(Self.grantLock)); EXECUTE 'DROP OWNED BY \(role)'; END $$")
        try? await admin.execute("DROP ROLE \(role)")
        await admin.close()
    }

    /// The cause of the hang: PostgresNIO writes a statement to a closed connection without
    /// noticing, and waits for its answer for ever. PQL's statements throw instead.
    @Test func aStatementOnAConnectionTheServerClosedThrows() async throws {
        let parsed = try PostgresConnectionURL(try TestServer.url())
        for delay in [0, 5, 100] {
            let victim = try await PostgresConnection.connect(configuration: try parsed.connectionConfiguration(), id: 1, logger: Self.quiet)
            let killer = try await PostgresConnection.connect(configuration: try parsed.connectionConfiguration(), id: 2, logger: Self.quiet)
            var pid: Int32 = 0
            for try await row in try await victim.statement("SELECT pg_backend_pid()", logger: Self.quiet) { pid = try row.decode(Int32.self) }
            try await killer.run("SELECT pg_terminate_backend(\(pid))", logger: Self.quiet)
            if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
            let outcome = await Self.ended(within: 600) { try await victim.run("SELECT 1", logger: Self.quiet) }
            switch outcome {
            case nil: Issue.record("a statement on a closed connection waited for ever (delay \(delay) ms)")
            case .success?: Issue.record("a statement on a closed connection succeeded")
            case .failure(let e)?:
                #expect(e is ConnectionClosedError || (e as? PSQLError) != nil, "\(e)")
                #expect(ServerErrors.storeError(e, doing: "x").kind == .server)
            }
            try? await killer.close()
        }
    }

    /// The same through the store, in a transaction whose connection the server ends (as a
    /// restart does): the next call and the transaction throw, and nothing is written.
    @Test func aTransactionWhoseConnectionTheServerEndsThrowsAndWritesNothing() async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { store, schema in
            _ = try await store.createTables()
            try await store.installFunctions()
            let outcome = await Self.ended(within: 600) { () async throws -> Int in
                try await store.transaction { (tx) throws(StoreError) in
                    _ = try await tx.insert("Person", ["name": "Ann"])
                    let pid = try await tx.rows("SELECT pg_backend_pid()::text")[0][0]!
                    try await store.execute("SELECT pg_terminate_backend(\(pid))")
                    return try await tx.count(EntityQuery("Person"))
                }
            }
            switch outcome {
            case nil: Issue.record("the transaction waited for ever on its closed connection")
            case .success?: Issue.record("a transaction on a closed connection succeeded")
            case .failure(let e)?:
                let error = try #require(e as? StoreError, "\(e)")
                #expect(error.kind == .server, "\(error)")
                // Whichever came first: the server's last word, or the close itself.
                #expect(error.message.contains("the connection to the PostgreSQL server was closed") || error.message.contains("SQLSTATE 57P01"), "\(error)")
                #expect(error.hint?.contains("run the call again") == true, "\(error)")
            }
            #expect(try await store.count("Person") == 0)
            // The store goes on: the pool opens new connections.
            _ = try await store.insert("Person", ["name": "Bob"])
            #expect(try await store.count("Person") == 1)
            _ = schema
        }
    }

    /// A call that finds no free connection (the role's limit reached by a transaction of
    /// the same store) gives up after `connectionWait`, with an error naming what it waited for.
    @Test func aCallThatFindsNoFreeConnectionTimesOut() async throws {
        try await Self.withRole(connectionLimit: 1) { url, role, admin in
            let setup = try await PostgresPredicateStore(url: url, model: PeopleSchema.model, schema: role, functionSchema: role)
            _ = try await setup.createTables()
            await setup.close()
            var limits = PostgresWaitLimits()
            limits.connectionWait = .seconds(3)
            try await Self.waitUntilNoSession(of: role, admin)
            let store = try await PostgresPredicateStore(url: url, model: PeopleSchema.model, schema: role, functionSchema: role, waitLimits: limits)
            #expect(store.waitLimits.connectionWait == .seconds(3))
            let outcome = await Self.ended(within: 600) { () async throws -> Int in
                try await store.transaction { (tx) throws(StoreError) in
                    _ = try await tx.insert("Person", ["name": "Ann"])
                    // The outer store needs a second connection, which the server refuses.
                    return try await store.count("Person")
                }
            }
            switch outcome {
            case nil: Issue.record("a call waited for ever for a connection")
            case .success?: Issue.record("a second connection was had past the role's limit")
            case .failure(let e)?:
                let error = try #require(e as? StoreError, "\(e)")
                #expect(error.kind == .timedOut, "\(error)")
                #expect(error.message.contains("counting Person") && error.message.contains("within 3 s"), "\(error)")
            }
            // Once the server takes connections again, the store answers (PostgresNIO's pool,
            // while the server refuses it a connection, keeps new calls waiting even with a
            // connection idle: they time out until then).
            try await admin.execute("ALTER ROLE \(role) CONNECTION LIMIT 5")
            var counted: Int?
            for _ in 0..<30 where counted == nil {
                counted = try? await store.count("Person")
            }
            #expect(counted == 0)
            await store.close()
        }
    }

    /// A server that accepts the connection and never answers: opening a store gives up after
    /// the URL's `connect_timeout`.
    @Test func connectingToAServerThatNeverAnswersTimesOut() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let url = "postgres://nobody:x@127.0.0.1:\(listener.port)/db?sslmode=disable&connect_timeout=2"
        let outcome = await Self.ended(within: 600) { try await PostgresPredicateStore(url: url, model: try StoreModel([])) }
        switch outcome {
        case nil: Issue.record("connecting to a silent server waited for ever")
        case .success?: Issue.record("a silent server was taken for PostgreSQL")
        case .failure(let e)?:
            let error = try #require(e as? StoreError, "\(e)")
            #expect(error.kind == .timedOut, "\(error)")
            #expect(error.message.contains("did not answer within 2 s"), "\(error)")
            #expect(!error.message.contains(":x@"), "the password shows: \(error)")
        }
        // libpq's reading of the parameter.
        #expect(try PostgresConnectionURL("postgres://h/db?connect_timeout=1").connectTimeout == .seconds(2))
        #expect(try PostgresConnectionURL("postgres://h/db").connectTimeout == nil)
        for bad in ["0", "-3", "x", "100000"] {
            #expect(throws: StoreError.self) { try PostgresConnectionURL("postgres://h/db?connect_timeout=\(bad)") }
        }
    }

    /// A call waiting for its turn on a transaction's connection, behind a slow statement,
    /// ends when its task is cancelled, not when the slow statement does.
    @Test func aCallWaitingForItsTurnInATransactionEndsWithItsCancellation() async throws {
        try await PostgresStreamingTests.withSlowStatement { (pg, schema, slow) async throws in
            try await pg.transaction { (tx) async throws in
                // The slow count (minutes) holds the transaction's connection first…
                let slowCount = Task { try await tx.count(slow) }
                #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: true))
                // …so this call waits for its turn, until its task is cancelled.
                let waiting = Task { try await tx.count(EntityQuery("Person")) }
                try await Task.sleep(for: .milliseconds(200))
                waiting.cancel()
                switch await Self.ended(within: 600, { try await waiting.value }) {
                case nil: Issue.record("a cancelled call waited for ever for its turn")
                case .success?: Issue.record("the call had its turn while the slow count held the connection")
                case .failure(let e)?: #expect((e as? StoreError)?.kind == .cancelled, "\(e)")
                }
                // It ended by its cancellation, not by the slow count's end: that still runs.
                #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: true))
                slowCount.cancel()
                _ = await slowCount.result
            }
        }
    }

    /// A client that dies mid-statement (kill -9 of pql, a closed laptop): its sessions ask the
    /// server to check the client every 5 s (`client_connection_check_interval`), so the
    /// statement stops within seconds instead of running its course (adversarial run, F30).
    @Test func theStatementOfADeadClientStops() async throws {
        let url = try PostgresConnectionURL(try TestServer.url())
        #expect(url.sessionDefaults["client_connection_check_interval"] == "5s")
        let client = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: Self.quiet)
        var setting = ""
        for try await row in try await client.statement("SELECT current_setting('client_connection_check_interval')", logger: Self.quiet) {
            setting = try row.decode(String.self)
        }
        #expect(setting == "5s")
        let marker = "pql_dead_client_" + UUID().uuidString.prefix(8)
        let sleeping = Task { try? await client.run(PostgresQuery(unsafeSQL: "SELECT pg_sleep(3600) AS \(marker)"), logger: Self.quiet) }
        #expect(try await PostgresCommandLine.waitForStatement(containing: marker, running: true))
        // The socket closed with no word to the server, as when the process is killed.
        _ = client.close() as EventLoopFuture<Void>
        // An hour's sleep that ends: the server noticed its client had gone.
        #expect(try await PostgresCommandLine.waitForStatement(containing: marker, running: false))
        _ = await sleeping.value
    }

    /// A statement that swallows cancel requests: once `cancelling` has passed, its
    /// connection is closed and the cancelled call ends.
    @Test func aStatementThatIgnoresCancelRequestsLosesItsConnection() async throws {
        try await TestServer.withStore(setup: ["""
            CREATE FUNCTION $SCHEMA.stubborn() RETURNS int LANGUAGE plpgsql AS $$
            BEGIN
                FOR i IN 1..36000 LOOP
                    BEGIN PERFORM pg_sleep(0.1); EXCEPTION WHEN query_canceled THEN NULL; END;
                END LOOP;
                RETURN 1;
            END $$
            """]) { store, schema in
            var limits = PostgresWaitLimits()
            limits.cancelling = .seconds(1)
            let limited = try await PostgresPredicateStore(url: try TestServer.url(), model: try StoreModel([]), schema: schema,
                                                           functionSchema: schema, waitLimits: limits)
            let call = Task { try await limited.rows("SELECT \(quote(schema)).stubborn()::text") }
            #expect(try await PostgresCommandLine.waitForStatement(containing: "stubborn", running: true))
            call.cancel()
            let outcome = await Self.ended(within: 600) { try await call.value }
            switch outcome {
            case nil: Issue.record("a call whose statement ignores cancel requests waited for ever")
            case .success?: Issue.record("the stubborn statement finished")
            case .failure(let e)?:
                // An hour's statement that swallows every cancel: the call ended because PQL
                // closed its connection once `cancelling` had passed.
                #expect((e as? StoreError)?.kind == .cancelled, "\(e)")
                #expect((e as? StoreError)?.message.contains("closed the statement's connection") == true, "\(e)")
            }
            // The server ends the orphaned statement when it next checks the client.
            #expect(try await PostgresCommandLine.waitForStatement(containing: "stubborn", running: false))
            // The pool goes on.
            #expect(try await limited.rows("SELECT 1::text") == [["1"]])
            await limited.close()
        }
    }
}

/// A TCP port that accepts connections (the kernel completes them) and never says a word.
final class SilentListener: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            port = 0
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}

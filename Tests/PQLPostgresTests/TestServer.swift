import Foundation
import PostgresNIO
@testable import PQLPostgres
import PQLStore
import Testing

/// The PostgreSQL server the tests run against: `PQL_POSTGRES_URL`, as `scripts/test` and
/// `scripts/postgres run` set it. Without it, or when it does not answer, the tests fail (they
/// are not skipped), saying how to run them.
enum TestServer {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static let howToRun = "run the PostgreSQL tests through scripts/test, or scripts/postgres run -- swift test --filter PQLPostgresTests"

    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["PQL_POSTGRES_URL"], !url.isEmpty else {
            throw Unavailable(description: "PQL_POSTGRES_URL is not set: \(howToRun)")
        }
        return url
    }

    /// One store for every test's setup and cleanup: Swift Testing starts the tests side by
    /// side, and a store per test for them held a pool of its own (about half the server's
    /// connections, which then ran out).
    static let admin = Task { () async throws -> PostgresPredicateStore in
        try await PostgresPredicateStore(url: try url(), model: try StoreModel([]), waitLimits: patient)
    }

    /// The tests' stores wait long for a connection: the shared admin store queues every
    /// test's setup and cleanup, and on a loaded machine (two cores, the thread sanitizer's
    /// slowdown, SCRAM logins taking seconds) the default 30 s ran out while nothing was wrong.
    /// The tests of the limits themselves (PostgresWaitTests) give their own.
    static let patient: PostgresWaitLimits = {
        var limits = PostgresWaitLimits()
        limits.connecting = .seconds(120)
        limits.connectionWait = .seconds(600)
        return limits
    }()

    /// Runs `body` with a store on a schema of its own (its functions in it too), dropped
    /// afterwards whatever happens, so tests run side by side and leave nothing behind.
    static func withStore<T>(model: StoreModel? = nil, setup: [String] = [],
                             _ body: (PostgresPredicateStore, String) async throws -> T) async throws -> T {
        let url = try url()
        let schema = "pqltest_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin: PostgresPredicateStore
        do {
            admin = try await Self.admin.value
            try await admin.execute("CREATE SCHEMA \(quote(schema))")
        } catch {
            throw Unavailable(description: "the PostgreSQL server at \(PostgresConnectionURL.redacted(url)) does not answer (\(error)): \(howToRun)")
        }
        do {
            for sql in setup { try await admin.execute(sql.replacingOccurrences(of: "$SCHEMA", with: quote(schema))) }
            let store = try await PostgresPredicateStore(url: url, model: model, schema: schema, functionSchema: schema, waitLimits: patient)
            let result: T
            do { result = try await body(store, schema) } catch {
                await store.close()
                throw error
            }
            await store.close()
            try await admin.execute("DROP SCHEMA \(quote(schema)) CASCADE")
            return result
        } catch {
            try? await admin.execute("DROP SCHEMA \(quote(schema)) CASCADE")
            throw error
        }
    }
}

extension PostgresPredicateStore {
    /// Runs SQL written by a test (no parameters).
    func execute(_ sql: String) async throws(StoreError) {
        try await withConnection("running \(sql)") { connection in
            try await connection.run(PostgresQuery(unsafeSQL: sql), logger: self.logger)
        }
    }

    /// The rows of a test's query, each column as text (NULL as nil).
    func rows(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws(StoreError) -> [[String?]] {
        try await withConnection("running \(sql)") { connection in
            var out: [[String?]] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: self.logger) {
                var values: [String?] = []
                for cell in row { values.append(try cell.decode(String?.self)) }
                out.append(values)
            }
            return out
        }
    }
}

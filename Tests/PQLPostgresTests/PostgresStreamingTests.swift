import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `records(matching:)` on a real server: the records `fetch` gives, in order, read as they
/// arrive; a consumer that stops early or is cancelled leaves no statement running.
@Suite struct PostgresStreamingTests {
    static func collect(_ stream: PostgresRecordStream) async throws(StoreError) -> [StoreRecord] {
        var out: [StoreRecord] = []
        for try await r in stream { out.append(r) }
        return out
    }

    @Test func streamingGivesWhatFetchGives() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            // Past one batch (256 records), several times.
            let tags = (0..<1000).map { i -> [String: PredicateValue] in ["name": .string("t\(i % 37)"), "weight": .int(Int64(i % 11))] }
            let ids = try await pg.insert("Tag", tags)
            #expect(try lite.insert("Tag", tags) == ids)
            let queries = [
                EntityQuery("Person", sort: [SortRule("name")]),
                try EntityQuery("Person", where: "age > %@", [25], sort: [SortRule("age", ascending: false)], offset: 1, limit: 3),
                EntityQuery("Tag", sort: [SortRule("weight"), SortRule("name", ascending: false)]),
                try EntityQuery("Tag", where: "weight > 3", sort: [SortRule("weight")], offset: 100, limit: 700),
                try EntityQuery("Tag", where: "name == 'nobody'"),
                EntityQuery("Company"),
            ]
            for q in queries {
                let streamed = try await Self.collect(pg.records(matching: q))
                let fetched = try await pg.fetch(q)
                #expect(streamed == fetched, "\(q)")
                #expect(streamed.map(\.id) == (try lite.fetch(q)).map(\.id), "\(q)")
            }
            #expect(try await Self.collect(pg.records(matching: EntityQuery("Tag"))).count == 1006)
            // The count's SQL is what count(_:) runs: run by hand, it gives the same number.
            let weighty = try EntityQuery("Tag", where: "weight > %@", [3])
            let counted = try pg.countSQL(for: weighty)
            #expect(counted.sql.hasPrefix("SELECT count(") && counted.bindings == [.integer(3)], "\(counted)")
            var binds = PostgresBindings()
            binds.append(Int64(3))
            #expect(try await pg.rows("SELECT (\(counted.sql))::text", binds) == [[String(try await pg.count(weighty))]])
            // Errors are the fetch's, as StoreErrors, from the first next().
            var iterator = pg.records(matching: try EntityQuery("Person", where: "nope == 1")).makeAsyncIterator()
            do throws(StoreError) {
                _ = try await iterator.next()
                Issue.record("a fetch of an unknown key streamed")
            } catch {
                #expect(error.kind == .unknownKey)
            }
        }
    }

    /// A statement each row of which costs a scan of 60,000 rows: it would run for minutes on
    /// the server if only the client stopped reading.
    static func withSlowStatement(_ body: (PostgresPredicateStore, String, EntityQuery) async throws -> Void) async throws {
        try await PostgresBatchTests.withBoth { _, pg, schema in
            let person = try await pg.insert("Person", ["name": "many"])
            try await pg.execute("INSERT INTO \(quote(schema)).\"Tag\" (name, weight, person) SELECT 'x', g, \(person) FROM generate_series(1, 60000) g")
            let query = try EntityQuery("Tag", where: "person.tags.@count > 0")
            try await body(pg, schema, query)
        }
    }

    @Test func breakingEarlyStopsTheStatementOnTheServer() async throws {
        try await Self.withSlowStatement { (pg, schema, query) async throws in
            var iterator = pg.records(matching: query).makeAsyncIterator()
            #expect(try await iterator.next() != nil)
            #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: true))
            iterator = pg.records(matching: EntityQuery("Company")).makeAsyncIterator()
            #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: false))
            // The pool's connections still work.
            #expect(try await pg.count("Tag") == 60006)
            _ = iterator
        }
    }

    /// Unsorted, the consumer is cancelled while rows come; sorted, before the first one.
    @Test(arguments: [false, true])
    func cancellingTheConsumerCancelsTheStatement(sorted: Bool) async throws {
        try await Self.withSlowStatement { (pg, schema, slow) async throws in
            var query = slow
            if sorted { query.sort = [SortRule("weight")] }
            let consumer = Task { () async throws(StoreError) -> Int in
                var n = 0
                for try await _ in pg.records(matching: query) { n += 1 }
                return n
            }
            #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: true))
            consumer.cancel()
            do {
                _ = try await consumer.value
                Issue.record("a cancelled stream ended without an error")
            } catch {
                #expect((error as? StoreError)?.kind == .cancelled, "\(error)")
            }
            #expect(try await PostgresCommandLine.waitForStatement(containing: schema, running: false))
        }
    }
}

import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `transaction(_:)` on a real server: all of the body's writes or none, visible to the body
/// and to no other connection before the commit; a failing call leaves the transaction usable
/// (savepoints), nested transactions, the body's own errors unchanged, cancellation, calls that
/// would share the connection at once, and a transaction's store kept past its end.
@Suite struct PostgresTransactionTests {
    struct OutOfStock: Error, Equatable {}

    static func withStore(_ body: (PostgresPredicateStore) async throws -> Void) async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            _ = try await store.insert("Company", ["name": "Acme"])
            try await body(store)
        }
    }

    static func people(_ store: PostgresPredicateStore) async throws -> [String] {
        try await store.fetch(EntityQuery("Person", sort: [SortRule("name")])).map { $0["name"].stringValue ?? "nil" }
    }

    @Test func commitsEverythingTheBodyWroteAndOnlyThenShowsIt() async throws {
        try await Self.withStore { store in
            let n = try await store.transaction { (tx) throws(StoreError) in
                _ = try await tx.insert("Person", ["name": "Ann", "age": 30])
                _ = try await tx.insert("Person", [["name": "Bob", "age": 40], ["name": "Cy", "age": 50]])
                // The body reads its own writes; the store outside (another connection) sees none.
                #expect(try await tx.count(EntityQuery("Person")) == 3)
                #expect(try await store.count(EntityQuery("Person")) == 0)
                return try await tx.batchUpdate(try EntityQuery("Person", where: "age >= 40"), set: ["city": "Paris"])
            }
            #expect(n == 2)
            #expect(try await Self.people(store) == ["Ann", "Bob", "Cy"])
            #expect(try await store.count(EntityQuery("Person", where: "city == 'Paris'")) == 2)
        }
    }

    @Test func theBodysOwnErrorComesOutUnchangedAndNothingIsWritten() async throws {
        try await Self.withStore { store in
            await #expect(throws: OutOfStock()) {
                try await store.transaction { tx in
                    _ = try await tx.insert("Person", ["name": "Ann"])
                    _ = try await tx.batchDelete(EntityQuery("Company"))
                    throw OutOfStock()
                }
            }
            #expect(try await Self.people(store) == [])
            #expect(try await store.count("Company") == 1)
            // A StoreError the body lets through rolls back too, and comes out as it was.
            do {
                try await store.transaction { (tx) throws(StoreError) in
                    _ = try await tx.insert("Person", ["name": "Ann"])
                    _ = try await tx.insert("Person", ["name": "Bob", "nickname": "B"])
                }
                Issue.record("an unknown key was written")
            } catch let error as StoreError {
                #expect(error.kind == .unknownKey, "\(error)")
            }
            #expect(try await Self.people(store) == [])
        }
    }

    @Test func aFailedCallLeavesTheTransactionUsable() async throws {
        try await Self.withStore { store in
            try await store.transaction { (tx) throws(StoreError) in
                _ = try await tx.insert("Person", ["name": "Ann", "age": .int(.max)])
                // The server raises the overflow: without a savepoint, every later statement of
                // the transaction would be refused ("current transaction is aborted").
                let overflowing = try EntityQuery("Person", where: "age + 1 > 0")
                do throws(StoreError) {
                    _ = try await tx.fetch(overflowing)
                    Issue.record("the overflow was not raised")
                } catch {
                    #expect(error.kind == .evaluation, "\(error)")
                }
                // The same overflow raised by a stream's cursor.
                do throws(StoreError) {
                    for try await _ in tx.records(matching: overflowing) {}
                    Issue.record("the stream's overflow was not raised")
                } catch {
                    #expect(error.kind == .evaluation, "\(error)")
                }
                // A constraint the server checks: the company link to no object.
                do throws(StoreError) {
                    _ = try await tx.insert("Person", ["name": "Ghost", "employer": 999])
                    Issue.record("a link to no object was written")
                } catch {
                    #expect(error.kind == .constraint, "\(error)")
                }
                _ = try await tx.insert("Person", ["name": "Bob"])
            }
            #expect(try await Self.people(store) == ["Ann", "Bob"])
        }
    }

    @Test func nestedTransactionsRollBackAlone() async throws {
        try await Self.withStore { store in
            try await store.transaction { tx in
                _ = try await tx.insert("Person", ["name": "Outer"])
                await #expect(throws: OutOfStock()) {
                    try await tx.transaction { inner in
                        _ = try await inner.insert("Person", ["name": "Inner"])
                        #expect(try await inner.count(EntityQuery("Person")) == 2)
                        throw OutOfStock()
                    }
                }
                try await tx.transaction { (inner) throws(StoreError) in
                    _ = try await inner.insert("Person", ["name": "Kept"])
                }
                #expect(try await Self.people(tx) == ["Kept", "Outer"])
            }
            #expect(try await Self.people(store) == ["Kept", "Outer"])
        }
    }

    @Test func callsTakeTurnsOnTheConnectionAndAStreamLeavesItFreeBetweenBatches() async throws {
        try await Self.withStore { store in
            _ = try await store.insert("Person", (0..<2_000).map { ["name": .string("p\($0)"), "age": .int(Int64($0))] })
            try await store.transaction { (tx) async throws in
                // Updating what a stream of the same transaction reads, row by row: the stream
                // holds the connection only while it fetches a batch (a cursor), not between.
                var seen = 0
                for try await person in tx.records(matching: EntityQuery("Person", sort: [SortRule("age")])) {
                    try await tx.update("Person", id: person.id, ["city": "Streamed"])
                    seen += 1
                    if seen == 700 { break }   // past the first batch; leaving closes the cursor
                }
                // Calls from child tasks at once take turns.
                async let a = tx.count(EntityQuery("Person", where: "city == 'Streamed'"))
                async let b = tx.batchUpdate(try EntityQuery("Person", where: "age >= 1990"), set: ["city": "Late"])
                async let c = tx.fetchIDs(try EntityQuery("Person", where: "age < 3"))
                let (streamed, late, ids) = try await (a, b, c)
                #expect(streamed == 700 && late == 10 && ids.count == 3)
                // A stream read to its end inside the transaction sees its writes.
                var all = 0
                for try await _ in tx.records(matching: try EntityQuery("Person", where: "city IN %@", [["Streamed", "Late"] as PredicateValue])) { all += 1 }
                #expect(all == 710)
            }
            #expect(try await store.count(EntityQuery("Person", where: "city == 'Streamed'")) == 700)
            #expect(try await store.count(EntityQuery("Person", where: "city == 'Late'")) == 10)
        }
    }

    /// A nested transaction's savepoint holds only the calls made inside it: a sibling task's
    /// write waits for it to end, and its rollback undoes nothing of the sibling's (cold run:
    /// the sibling's successful insert vanished with the rollback).
    @Test func aNestedRollbackKeepsWhatSiblingTasksWrote() async throws {
        try await Self.withStore { store in
            try await store.transaction { tx in
                _ = try await tx.insert("Person", ["name": "first"])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<8 {
                        group.addTask {
                            try await Task.sleep(for: .milliseconds(20 * (i % 3)))
                            do {
                                try await tx.transaction { inner in
                                    _ = try await inner.insert("Person", ["name": .string("m\(i)")])
                                    try await Task.sleep(for: .milliseconds(50))
                                    if i % 2 == 1 { throw OutOfStock() }
                                    _ = try await inner.insert("Person", ["name": .string("n\(i)")])
                                }
                            } catch is OutOfStock {}
                        }
                        group.addTask {
                            try await Task.sleep(for: .milliseconds(10 * i))
                            _ = try await tx.insert("Person", ["name": .string("s\(i)")])
                        }
                    }
                    try await group.waitForAll()
                }
                _ = try await tx.insert("Person", ["name": "outer"])
            }
            var want = ["first", "outer"]
            for i in 0..<8 {
                want.append("s\(i)")
                if i % 2 == 0 { want += ["m\(i)", "n\(i)"] }
            }
            #expect(try await Self.people(store) == want.sorted())
        }
    }

    /// A transaction that an error aborted outside any call's savepoint is not reported as
    /// committed (PostgreSQL answers such a COMMIT with a rollback, not an error).
    @Test func anAbortedTransactionThrowsAtTheCommit() async throws {
        try await Self.withStore { store in
            do throws(StoreError) {
                try await store.transaction { (tx) throws(StoreError) in
                    _ = try await tx.insert("Person", ["name": "lost"])
                    _ = try? await tx.pinned!.exclusive("failing", logger: tx.logger) { c in try await c.run("SELECT 1 / 0", logger: tx.logger) }
                }
                Issue.record("the transaction reported a commit")
            } catch {
                #expect(error.kind == .server && error.hint?.contains("nothing of the transaction was written") == true, "\(error)")
            }
            let left = try await Self.people(store)
            #expect(left == [])
        }
    }

    /// Cancelled while its body loops over a stream and updates each record: nothing written,
    /// and the error is the cancellation, wherever it lands (cold run: sometimes "current
    /// transaction is aborted" of kind server).
    @Test func aCancelledStreamingTransactionSaysCancelled() async throws {
        try await Self.withStore { store in
            _ = try await store.insert("Person", (0..<1_500).map { ["name": .string("p\($0)"), "age": .int(Int64($0))] })
            for delay in [30, 90, 160, 250, 400] {
                let running = Task {
                    try await store.transaction { (tx) throws(StoreError) in
                        for try await person in tx.records(matching: EntityQuery("Person")) {
                            try await tx.update("Person", id: person.id, ["city": "Touched"])
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(delay))
                running.cancel()
                do {
                    try await running.value
                } catch let error as StoreError {
                    #expect(error.kind == .cancelled, "after \(delay) ms: \(error)")
                }
                #expect(try await store.count(EntityQuery("Person", where: "city == 'Touched'")) == 0, "after \(delay) ms")
            }
        }
    }

    @Test func aTransactionsStoreKeptPastItsEndRefusesCalls() async throws {
        try await Self.withStore { store in
            let kept = try await store.transaction { (tx) throws(StoreError) in tx }
            do {
                _ = try await kept.count(EntityQuery("Person"))
                Issue.record("a call ran on a transaction that has ended")
            } catch let error as StoreError {
                #expect(error.kind == .unsupported && error.message.contains("has ended"), "\(error)")
            }
            #expect(try await store.count(EntityQuery("Person")) == 0)
        }
    }

    @Test func cancellingTheTaskRollsBackEverything() async throws {
        try await Self.withStore { store in
            let started = AsyncStream<Void>.makeStream()
            let running = Task {
                try await store.transaction { (tx) throws(StoreError) in
                    _ = try await tx.insert("Person", ["name": "Ann"])
                    started.continuation.yield()
                    // A statement that runs until cancelled: pg_sleep in a predicate PQL cannot
                    // write, so through the store's plain SQL entry for tests.
                    try await tx.withConnection("sleeping") { connection in
                        try await connection.run("SELECT pg_sleep(30)", logger: tx.logger)
                    }
                }
            }
            for await _ in started.stream { break }
            try await Task.sleep(for: .milliseconds(200))
            running.cancel()
            do {
                try await running.value
                Issue.record("the transaction committed although its task was cancelled")
            } catch let error as StoreError {
                #expect(error.kind == .cancelled, "\(error)")
            }
            #expect(try await Self.people(store) == [])
            // The connection went back to the pool usable: the next transaction commits.
            try await store.transaction { (tx) throws(StoreError) in _ = try await tx.insert("Person", ["name": "Bob"]) }
            #expect(try await Self.people(store) == ["Bob"])
        }
    }

    @Test func anImportRolledBackTakesItsNewEntityWithIt() async throws {
        try await Self.withStore { store in
            let table = ImportTable(columns: ["code"], types: [.string], optional: [false], rows: [["UA"], ["AA"]])
            await #expect(throws: OutOfStock()) {
                try await store.transaction { (tx) async throws in
                    let imported = try await tx.importTable(table, into: "Airline")
                    #expect(imported == 2)
                    #expect(tx.model.entities.contains { $0.name == "Airline" })
                    throw OutOfStock()
                }
            }
            #expect(!store.model.entities.contains { $0.name == "Airline" })
            // The table went with the rollback: importing again creates it afresh.
            let again = try await store.importTable(table, into: "Airline")
            #expect(again == 2)
            #expect(try await store.count("Airline") == 2)
        }
    }

    /// A call still running when its transaction ends (a stream's fetch being cancelled after
    /// its body threw: it holds the connection while its cancel requests are answered, then
    /// rolls back to its savepoint) ends before the connection goes back to the pool. Before,
    /// the ROLLBACK ran beside it and the connection was handed on: the straggler's
    /// `ROLLBACK TO SAVEPOINT pql_savepoint_1` then reached the next transaction on it, which
    /// failed as aborted (25P02), or lost what it wrote since its own pql_savepoint_1.
    @Test func aStragglingCallEndsBeforeItsConnectionIsReused() async throws {
        struct Left: Error {}
        try await Self.withStore { store in
            for round in 0..<5 {
                let started = AsyncStream<Void>.makeStream()
                do {
                    try await store.transaction { tx in
                        Task {
                            _ = try? await tx.withConnection("straggling") { connection in
                                started.continuation.yield()
                                try await connection.run("SELECT pg_sleep(0.1)", logger: tx.logger)
                                try await Task.sleep(for: .milliseconds(100))
                                throw Left()
                            }
                        }
                        for await _ in started.stream { break }
                        throw Left()
                    }
                    Issue.record("the body's error was lost")
                } catch is Left {}
                for k in 0..<3 {
                    try await store.transaction { tx in
                        _ = try await tx.insert("Person", ["name": .string("a\(round)-\(k)"), "age": 1])
                        try await Task.sleep(for: .milliseconds(150))
                        _ = try await tx.insert("Person", ["name": .string("b\(round)-\(k)"), "age": 2])
                    }
                }
            }
            #expect(try await store.count(EntityQuery("Person")) == 5 * 3 * 2)
        }
    }

    /// A nested transaction rolled back while its stream was open (left by `break`, or by an
    /// error thrown in the loop) drops the stream's cursor with it; the stream's CLOSE then
    /// fails, in a savepoint of its own, and the outer transaction carries on. Before, the
    /// failed CLOSE aborted it: every later call, and the commit, failed with 25P02.
    @Test func aNestedRollbackWithAnOpenStreamLeavesTheOuterTransactionUsable() async throws {
        struct Boom: Error {}
        try await Self.withStore { store in
            _ = try await store.insert("Person", (0..<1_500).map { ["name": .string("p\($0)"), "age": .int(Int64($0))] })
            let all = EntityQuery("Person", sort: [SortRule("age")])
            for leaveByThrowing in [false, true] {
                try await store.transaction { tx in
                    _ = try await tx.insert("Person", ["name": "before", "age": -1])
                    do {
                        try await tx.transaction { inner in
                            _ = try await inner.insert("Person", ["name": "inner", "age": -1])
                            for try await _ in inner.records(matching: all) {
                                if leaveByThrowing { throw Boom() }
                                break
                            }
                            throw Boom()
                        }
                    } catch is Boom {}
                    _ = try await tx.insert("Person", ["name": "after", "age": -1])
                }
            }
            let names = try await store.fetch(EntityQuery("Person", where: "age == -1")).map { $0["name"].stringValue ?? "nil" }
            #expect(names.sorted() == ["after", "after", "before", "before"])
        }
    }
}

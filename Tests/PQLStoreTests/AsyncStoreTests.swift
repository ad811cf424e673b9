import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// The async API: many tasks read while one writes, each read sees one committed state, and
/// cancelling a task stops the statement it runs with a typed `.cancelled` error.
@Suite("Async store", .serialized)
struct AsyncStoreTests {
    static let model: StoreModel = {
        do throws(StoreError) {
            return try StoreModel([ModelEntity("Item", attributes: [
                ModelAttribute("batch", .integer64, isIndexed: true),
                ModelAttribute("kind", .string),
            ])])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    static func withFileStore(_ body: (PredicateStore) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-async-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try PredicateStore(path: dir.appendingPathComponent("a.sqlite").path, model: model))
    }

    /// The writer adds items in pairs, one transaction each ("a" and "b"), then relabels some
    /// pairs with one batch update: every fetch, a single statement, sees whole pairs only, and
    /// each reader sees the number of items never shrink.
    // The limit only guards against a hang: under the thread sanitizer, beside the rest of the
    // suite on two cores, the test has taken 7 minutes.
    @Test(.timeLimit(.minutes(15)))
    func readersSeeCommittedStatesWhileOneTaskWrites() async throws {
        try await Self.withFileStore { plain throws in
            let store = AsyncPredicateStore(plain)
            let pairs = 120, readers = 8
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for batch in 0..<pairs {
                        try await store.transaction { (s) throws(StoreError) in
                            try s.insert("Item", ["batch": .int(Int64(batch)), "kind": "a"])
                            try s.insert("Item", ["batch": .int(Int64(batch)), "kind": "b"])
                        }
                        if batch % 10 == 9 {
                            let changed = try await store.batchUpdate(EntityQuery("Item", where: "batch == %@", [batch]),
                                                                      set: ["kind": "c"])
                            #expect(changed == 2)
                        }
                    }
                }
                for _ in 0..<readers {
                    group.addTask {
                        var seen = 0
                        for _ in 0..<40 {
                            let items = try await store.fetch(EntityQuery("Item"))
                            var perBatch: [Int64: Int] = [:]
                            for item in items { perBatch[Int64(item["batch"].intValue ?? -1), default: 0] += 1 }
                            #expect(perBatch.values.allSatisfy { $0 == 2 })
                            #expect(items.count >= seen)
                            seen = items.count
                            let n = try await store.count(EntityQuery("Item"))
                            #expect(n >= seen && n % 2 == 0)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.count(EntityQuery("Item")) == 2 * pairs)
            #expect(try await store.count(EntityQuery("Item", where: "kind == 'c'")) == 2 * (pairs / 10))
            #expect(try await store.batchDelete(EntityQuery("Item", where: "kind == 'c'")) == 2 * (pairs / 10))
            #expect(try await store.fetchIDs(EntityQuery("Item")).count == 2 * pairs - 2 * (pairs / 10))
        }
    }

    /// A transaction whose body throws keeps nothing.
    @Test func aFailedTransactionKeepsNothing() async throws {
        try await Self.withFileStore { plain throws in
            let store = AsyncPredicateStore(plain)
            let kind: StoreError.Kind? = await {
                do throws(StoreError) {
                    try await store.transaction { (s) throws(StoreError) in
                        try s.insert("Item", ["batch": 1, "kind": "a"])
                        try s.insert("Nothing", ["batch": 1])
                    }
                    return nil
                } catch {
                    return error.kind
                }
            }()
            #expect(kind == .unknownEntity)
            #expect(try await store.count(EntityQuery("Item")) == 0)
        }
    }

    /// The SUBQUERY of `StoreCancellationTests` runs for hours; cancelling the task that awaits
    /// it ends it with `.cancelled`, caught as a `StoreError` (typed throws), and the store
    /// goes on working.
    @Test(.timeLimit(.minutes(2)))
    func cancellingTheTaskStopsARunningFetch() async throws {
        try await StoreCancellationTests.withStores { plain throws in
            let store = AsyncPredicateStore(plain)
            let task = Task { () -> StoreError.Kind? in
                do throws(StoreError) {
                    _ = try await store.fetch(StoreCancellationTests.endless)
                    return nil
                } catch {
                    return error.kind
                }
            }
            // Cancelling at once may stop the fetch before it starts; the later cancel, from a
            // thread of its own, reaches it while it runs.
            Thread { Thread.sleep(forTimeInterval: 0.3); task.cancel() }.start()
            #expect(await task.value == .cancelled)
            #expect(try await store.count(EntityQuery("Person", where: "age == 3")) > 0)
        }
    }

    /// Cancelling one task's count leaves another task's fetch, running at the same time, alone
    /// (unlike `PredicateStore.interrupt()`, which stops every statement). A file store: in
    /// memory, reads take turns on the one connection.
    @Test(.timeLimit(.minutes(2)))
    func cancellationStopsOnlyItsOwnTask() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-async-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let store = AsyncPredicateStore(try StoreCancellationTests.makeStore(path: dir.appendingPathComponent("c.sqlite").path))
            let endless = Task { () -> StoreError.Kind? in
                do throws(StoreError) {
                    _ = try await store.count(StoreCancellationTests.endless)
                    return nil
                } catch {
                    return error.kind
                }
            }
            let started = Date()
            var others = 0
            // Reads until the endless count has surely begun, cancels it, and reads once more.
            while Date().timeIntervalSince(started) < 0.3 {
                others += try await store.count(EntityQuery("Person", where: "age == 3"))
            }
            endless.cancel()
            #expect(await endless.value == .cancelled)
            #expect(others > 0)
            #expect(try await store.fetchIDs(EntityQuery("Person", where: "age == 3")).count > 0)
        }
    }

    /// A task cancelled before its call starts gets `.cancelled` without running it: nothing is written.
    @Test func aCancelledTaskWritesNothing() async throws {
        try await Self.withFileStore { plain throws in
            let store = AsyncPredicateStore(plain)
            let task = Task { () -> StoreError.Kind? in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(StoreError) {
                    try await store.insert("Item", ["batch": 1, "kind": "a"])
                    return nil
                } catch {
                    return error.kind
                }
            }
            #expect(await task.value == .cancelled)
            #expect(try await store.count(EntityQuery("Item")) == 0)
        }
    }

    /// Decoding, updating and deleting one object go through the same queues.
    @Test func decodesUpdatesAndDeletes() async throws {
        struct Item: Decodable, Sendable, Equatable { var batch: Int64; var kind: String }
        try await Self.withFileStore { plain throws in
            let store = AsyncPredicateStore(plain)
            let ids = try await store.insert("Item", [["batch": 1, "kind": "a"], ["batch": 2, "kind": "b"]])
            try await store.update("Item", id: ids[0], ["kind": "z"])
            try await store.delete("Item", id: ids[1])
            #expect(try await store.fetch(EntityQuery("Item"), as: Item.self) == [Item(batch: 1, kind: "z")])
        }
    }
}

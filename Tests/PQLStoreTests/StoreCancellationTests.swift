import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// A running fetch stops when its Swift task is cancelled (SQLite's progress handler asks) or
/// when another thread calls `interrupt()` (`sqlite3_interrupt`), on the writing connection
/// and on the pooled readers alike; the store works normally afterwards.
@Suite("Store cancellation", .serialized)
struct StoreCancellationTests {
    /// 20,000 people in one company: the correlated SUBQUERY below compares every pair, about
    /// 4·10⁸ LIKE tests — hours of work that only cancellation ends.
    static func makeStore(path: String) throws -> PredicateStore {
        let store = try PredicateStore(path: path, model: PeopleModel.model)
        let company = try store.insert("Company", PeopleModel.company("Acme", founded: nil, size: nil))
        _ = try store.insertRows("Person", columns: ["name", "age", "employer"],
                                 rows: (0..<20_000).map { [.string("person \($0)"), .int(Int64($0 % 90)), .int(company)] })
        return store
    }

    static let endless = EntityQuery("Person", predicate: try! PredicateNode(format:
        "SUBQUERY(employer.employees, $e, $e.name LIKE[c] '*x*').@count > 0"))

    static func withStores(_ body: (PredicateStore) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try makeStore(path: dir.appendingPathComponent("c.sqlite").path))
        try await body(try makeStore(path: ":memory:"))
    }

    static func errorKind<T>(_ result: Result<T, any Error>) -> StoreError.Kind? {
        guard case .failure(let error) = result else { return nil }
        return (error as? StoreError)?.kind
    }

    @Test(.timeLimit(.minutes(2)))
    func taskCancellationStopsARunningFetch() async throws {
        try await Self.withStores { store in
            let task = Task.detached { try store.fetchIDs(Self.endless) }
            // From a thread of its own: the fetch blocks a thread of the cooperative pool
            // (libdispatch's pool on Linux, one thread per core), which other tests may have
            // filled, so neither this test nor a block queued on a dispatch queue might run.
            Thread { Thread.sleep(forTimeInterval: 0.3); task.cancel() }.start()
            let result = await task.result
            #expect(Self.errorKind(result) == .cancelled)
            let afterwards = try store.count(EntityQuery("Person", where: "age == 3"))
            #expect(afterwards > 0)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func interruptStopsARunningFetch() async throws {
        try await Self.withStores { store in
            let task = Task.detached { try store.count(Self.endless) }
            // An interrupt reaches only a statement that is running, so it repeats until the
            // count has started and stopped.
            let stop = LockedValue(false)
            Thread {
                while !stop.current {
                    Thread.sleep(forTimeInterval: 0.2)
                    store.interrupt()
                }
            }.start()
            let result = await task.result
            stop.withLock { $0 = true }
            #expect(Self.errorKind(result) == .cancelled)
            let afterwards = try store.count(EntityQuery("Person", where: "age == 3"))
            #expect(afterwards > 0)
        }
    }
}

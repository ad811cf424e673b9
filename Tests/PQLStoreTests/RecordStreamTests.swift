import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// `records(matching:)`: the same records as `fetch`, read lazily; stopping early or cancelling
/// ends the statement and frees the connection; memory stays bounded however many rows match.
@Suite("Record streams", .serialized)
struct RecordStreamTests {
    static let model: StoreModel = {
        do throws(StoreError) {
            return try StoreModel([ModelEntity("Row", attributes: [
                ModelAttribute("n", .integer64),
                ModelAttribute("label", .string),
            ])])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    /// A store of `rows` rows generated inside SQLite (a recursive CTE), so that making it
    /// costs the test's memory nothing.
    static func makeStore(path: String, rows: Int) throws -> PredicateStore {
        let store = try PredicateStore(path: path, model: model)
        try store.connection.execute("""
            WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < \(rows))
            INSERT INTO "Row" ("n", "label") SELECT i, 'row ' || i FROM seq
            """)
        return store
    }

    static func withFileStore(rows: Int, _ body: (PredicateStore) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try makeStore(path: dir.appendingPathComponent("s.sqlite").path, rows: rows))
    }

    @Test func streamsWhatFetchReturns() async throws {
        try await Self.withFileStore(rows: 1_000) { store throws in
            var page = EntityQuery("Row")
            page.limit = 300
            page.offset = 5
            let queries = [EntityQuery("Row"),
                           try EntityQuery("Row", where: "modulus:by:(n, 7) == 3", sort: [SortRule("n", ascending: false)]),
                           try EntityQuery("Row", where: "n > 10000"),
                           page]
            for query in queries {
                var streamed: [StoreRecord] = []
                for try await r in store.records(matching: query) { streamed.append(r) }
                let fetched = try store.fetch(query)
                #expect(streamed == fetched)
            }
        }
    }

    @Test func aBadQueryThrowsAtTheFirstRecord() async throws {
        let store = try PredicateStore.inMemory(Self.model)
        var iterator = store.records(matching: EntityQuery("Nothing")).makeAsyncIterator()
        let kind: StoreError.Kind? = await {
            do throws(StoreError) {
                _ = try await iterator.next()
                return nil
            } catch {
                return error.kind
            }
        }()
        #expect(kind == .unknownEntity)
    }

    /// An in-memory store reads on its one connection, under the writer's lock: a write after
    /// the loop can only run once the abandoned stream has let it go.
    @Test(.timeLimit(.minutes(1)))
    func stoppingEarlyReleasesTheConnection() async throws {
        let store = try Self.makeStore(path: ":memory:", rows: 100_000)
        var seen = 0
        for try await _ in store.records(matching: EntityQuery("Row")) {
            seen += 1
            if seen == 10 { break }
        }
        #expect(seen == 10)
        try await AsyncPredicateStore(store).insert("Row", ["n": 0, "label": "after"])
        #expect(try store.count(EntityQuery("Row")) == 100_001)
    }

    /// Cancelling the consuming task ends the stream with `.cancelled`, also while SQLite is
    /// working through rows that do not match (the statement itself is interrupted).
    @Test(.timeLimit(.minutes(2)))
    func cancellingTheTaskEndsTheStream() async throws {
        try await StoreCancellationTests.withStores { store throws in
            let consumed = LockedValue(0)
            let task = Task { () -> StoreError.Kind? in
                do throws(StoreError) {
                    for try await _ in store.records(matching: StoreCancellationTests.endless) {
                        consumed.withLock { $0 += 1 }
                    }
                    return nil
                } catch {
                    return error.kind
                }
            }
            Thread { Thread.sleep(forTimeInterval: 0.3); task.cancel() }.start()
            #expect(await task.value == .cancelled)
            #expect(try store.count(EntityQuery("Person", where: "age == 3")) > 0)
        }
    }

    /// Current resident memory in KiB (VmRSS from /proc), nil elsewhere.
    static func residentKiB() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// 2,000,000 records (hundreds of megabytes as `StoreRecord`s held at once)
    /// stream through while resident memory grows by far less than that.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "resident memory is read from Linux's /proc"))
    func memoryStaysBoundedOverMillionsOfRows() async throws {
        let rows = 2_000_000
        try await Self.withFileStore(rows: rows) { store throws in
            let before = try #require(Self.residentKiB())
            var peak = before, count = 0, sum: Int64 = 0
            for try await r in store.records(matching: EntityQuery("Row")) {
                count += 1
                sum &+= Int64(r["n"].intValue ?? 0)
                if count % 50_000 == 0 { peak = max(peak, Self.residentKiB() ?? 0) }
            }
            #expect(count == rows)
            #expect(sum == Int64(rows) * Int64(rows + 1) / 2)
            // Held at once, the records would take over 400 MB. The bound leaves room for the
            // tests that run beside this one in the same process (64 MB was exceeded by them
            // alone once the suite grew: 72 MB in one run).
            #expect(peak - before < 128 * 1024, "resident memory grew by \(peak - before) KiB")
        }
    }
}

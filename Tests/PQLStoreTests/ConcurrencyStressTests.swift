import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// Many threads share compiled predicates and one file store: parallel readers on WAL while
/// one writer flips a subset of rows back and forth in transactions. Every result is checked
/// against a single-threaded run of the same queries on each of the two committed states, so a
/// reader that saw half a transaction, a wrong row, or a crash fails the test.
@Suite("Concurrency stress", .serialized)
struct ConcurrencyStressTests {
    static let people = 1_500
    static let readerThreads = 8
    static let roundsPerReader = 60
    static let writerFlips = 40

    static let formats = [
        "age > 40", "age BETWEEN {20, 30}", "name BEGINSWITH[c] 'p1'", "city IN {'Paris', 'Lima'}", "active == YES",
        "active == NO AND age < 30", "ANY tags.name == 'vip'", "tags.@count >= 2", "employer.name == 'Acme'",
        "SUBQUERY(tags, $t, $t.weight > 2).@count > 0", "name CONTAINS[cd] 'E'", "score != nil AND score < 10",
        "NOT (city == 'Paris') OR active == YES", "email MATCHES '.*@b\\\\.org'", "ALL tags.weight > 0",
    ]

    /// A file store with people whose `active` flag the writer flips for everyone under 30.
    static func makeStore(in dir: URL) throws -> (PredicateStore, [PredicateValue], [Int64]) {
        let store = try PredicateStore(path: dir.appendingPathComponent("stress.sqlite").path, model: PeopleModel.model)
        let companies = try store.insert("Company", [PeopleModel.company("Acme", founded: 1, size: 3), PeopleModel.company("Initech", founded: nil, size: nil)])
        var ids: [Int64] = []
        var objects: [PredicateValue] = []
        try store.transaction { () throws(StoreError) in
            for i in 0..<people {
                let row: [String: PredicateValue] = [
                    "name": .string("p\(i)\(i % 7 == 0 ? "é" : "e")"), "age": .int(Int64(i % 70)),
                    "city": .string(["Paris", "Lima", "Oslo"][i % 3]), "email": .string("p\(i)@\(i % 2 == 0 ? "b" : "c").org"),
                    "active": .bool(false), "score": i % 5 == 0 ? .null : .double(Double(i % 40) / 2),
                    "employer": i % 4 == 0 ? .null : .int(companies[i % 2]),
                ]
                let id = try store.insert("Person", row)
                ids.append(id)
                var tags: [PredicateValue] = []
                for t in 0..<(i % 4) {
                    let tag: [String: PredicateValue] = ["name": .string(t == 1 ? "vip" : "t\(t)"), "weight": .int(Int64((i + t) % 5))]
                    try store.insert("Tag", tag.merging(["person": .int(id)]) { a, _ in a })
                    tags.append(.dictionary(tag))
                }
                var object = row
                object["employer"] = i % 4 == 0 ? .null : .dictionary(PeopleModel.company(i % 2 == 0 ? "Acme" : "Initech", founded: nil, size: nil))
                object["tags"] = .array(tags)
                objects.append(.dictionary(object))
            }
        }
        return (store, objects, ids)
    }

    static let flipQuery = EntityQuery("Person", predicate: try! PredicateNode(format: "age < 30"))

    @Test func parallelReadersOneWriterAgreeWithSingleThreadedRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (store, objects, ids) = try Self.makeStore(in: dir)
        let queries = try Self.formats.map { try EntityQuery("Person", where: $0) }

        // Single-threaded answers in both committed states.
        let before = try queries.map { try store.fetchIDs($0).sorted() }
        _ = try store.batchUpdate(Self.flipQuery, set: ["active": true])
        let after = try queries.map { try store.fetchIDs($0).sorted() }
        _ = try store.batchUpdate(Self.flipQuery, set: ["active": false])
        #expect(try queries.map { try store.fetchIDs($0).sorted() } == before)
        #expect(before != after, "the writer's flip must change some answers, or the test proves nothing")
        #expect(before.contains { !$0.isEmpty })

        // The compiled predicates shared by every thread, and memory's answers for them.
        let compiled = try Self.formats.map { try PredicateNode(format: $0).compiled(for: PredicateValue.self) }
        let memory = try compiled.map { c in try objects.indices.filter { try c.evaluate(objects[$0]) }.map { ids[$0] } }
        #expect(memory == before, "the store and memory disagree before any concurrency")

        let failures = LockedValue<[String]>([])
        let group = DispatchGroup()
        let writerDone = LockedValue(false)
        // The writer: each transaction flips the flag and adds then removes a company, so a
        // reader that sees part of it sees a mixed state.
        DispatchQueue.global().async(group: group) {
            do {
                for i in 0..<Self.writerFlips {
                    try store.transaction { () throws(StoreError) in
                        _ = try store.batchUpdate(Self.flipQuery, set: ["active": .bool(i % 2 == 0)])
                        _ = try store.insert("Company", PeopleModel.company("churn\(i)", founded: nil, size: Int64(i)))
                    }
                }
                if Self.writerFlips % 2 == 1 { _ = try store.batchUpdate(Self.flipQuery, set: ["active": false]) }
            } catch {
                failures.record("writer: \(error)")
            }
            writerDone.withLock { $0 = true }
        }
        for t in 0..<Self.readerThreads {
            DispatchQueue.global().async(group: group) {
                for round in 0..<Self.roundsPerReader {
                    let q = (t * 7 + round) % queries.count
                    do {
                        let got: [Int64]
                        switch round % 3 {
                        case 0: got = try store.fetchIDs(queries[q]).sorted()
                        case 1: got = try store.fetch(queries[q]).map(\.id).sorted()
                        default:
                            let n = try store.count(queries[q])
                            if n != before[q].count && n != after[q].count {
                                failures.record("count of \(Self.formats[q]) is \(n), neither \(before[q].count) nor \(after[q].count)")
                            }
                            got = before[q]
                        }
                        if got != before[q] && got != after[q] {
                            failures.record("\(Self.formats[q]): \(got.count) rows, neither state (\(before[q].count) / \(after[q].count))")
                        }
                        // The shared compiled predicate, evaluated on this thread.
                        let m = try objects.indices.filter { try compiled[q].evaluate(objects[$0]) }.map { ids[$0] }
                        if m != memory[q] { failures.record("memory: \(Self.formats[q]) gave \(m.count) rows, not \(memory[q].count)") }
                    } catch {
                        failures.record("reader \(t): \(Self.formats[q]): \(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(writerDone.current)
        for f in failures.current.prefix(10) { Issue.record(Comment(rawValue: f)) }
        #expect(failures.current.isEmpty)
        // After the writer: the first state again, single-threaded, and a sound file.
        #expect(try queries.map { try store.fetchIDs($0).sorted() } == before)
        #expect(try store.count(EntityQuery("Company", where: "name BEGINSWITH 'churn'")) == Self.writerFlips)
        #expect(try store.integrityCheck() == ["ok"])
    }

    /// Reads run side by side: while one reader is stopped inside its row callback, another
    /// thread's fetch completes (one connection behind a lock would wait forever here).
    @Test(.timeLimit(.minutes(1)))
    func readersDoNotWaitForEachOther() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (store, _, _) = try Self.makeStore(in: dir)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            var first = true
            try? store.forEach(EntityQuery("Person")) { (_) throws(StoreError) in
                if first {
                    first = false
                    inside.signal()
                    release.wait()
                }
            }
        }
        inside.wait()
        // The first read holds its statement open; this one must not wait for it, and neither must a write.
        #expect(try store.count(EntityQuery("Person")) == Self.people)
        #expect(try store.batchUpdate(Self.flipQuery, set: ["active": true]) > 0)
        #expect(try store.count(EntityQuery("Person", where: "active == YES")) > 0)
        release.signal()
        group.wait()
    }

    /// Inside a transaction, reads on the writing thread see its uncommitted changes; other
    /// threads see the committed state until it commits.
    @Test func readsInsideATransactionSeeItsChanges() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (store, _, _) = try Self.makeStore(in: dir)
        let active = EntityQuery("Person", predicate: try PredicateNode(format: "active == YES"))
        try store.transaction { () throws(StoreError) in
            let n = try store.batchUpdate(Self.flipQuery, set: ["active": true])
            #expect(try store.count(active) == n)
            // Another thread (a Thread, not DispatchQueue.sync, which may run the block on
            // this very thread) reads without waiting for the open transaction.
            let seen = LockedValue(-1)
            let done = DispatchSemaphore(value: 0)
            Thread {
                let n = (try? store.count(active)) ?? -2
                seen.withLock { $0 = n }
                done.signal()
            }.start()
            done.wait()
            #expect(seen.current == 0)
        }
        #expect(try store.count(active) > 0)
    }
}

extension LockedValue where Value == [String] {
    func record(_ failure: String) { withLock { $0.append(failure) } }
}

import BenchmarkRecords
import Foundation
import PostgresNIO
import PQL
import PQLPostgres
import PQLStore

/// `records`: 100,000 rows of a Codable struct through `PostgresPredicateStore.fetch(_:as:)`,
/// beside PostgresNIO decoding the same SELECT by hand (`row.decode((Int64, String, …).self)`
/// into the struct) on the store's own client.
struct RecordsBenchmark {
    var n = 100_000
    var runs = 9

    static func parse(_ arguments: [String]) -> RecordsBenchmark {
        var b = RecordsBenchmark()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst(), let number = Int(value), number > 0 else { usageError("\(flag) needs a positive number") }
            switch flag {
            case "--n": b.n = number
            case "--runs": b.runs = number
            default: usageError("unknown argument \(flag)")
            }
        }
        return b
    }

    func run(url: String) async throws -> String {
        let schema = "pqlbench_records_\(ProcessInfo.processInfo.processIdentifier)"
        let store = try await PostgresPredicateStore(url: url, model: Reading.model, schema: schema)
        let readings = Reading.generate(n)
        do {
            try await store.createTables()
            _ = try await store.importTable(Reading.table(readings), into: Reading.entity)
            try await store.client.query(PostgresQuery(unsafeSQL: "VACUUM ANALYZE \"\(schema)\".\"\(Reading.entity)\""))
            let query = EntityQuery(Reading.entity)
            let compiled = try store.sql(for: query)
            precondition(compiled.bindings.isEmpty, "the SELECT takes no parameters")
            let sql = compiled.sql
            let pql: () async throws -> [Reading] = { try await store.fetch(query, as: Reading.self) }
            let hand: () async throws -> [Reading] = {
                var out: [Reading] = []
                let rows = try await store.client.query(PostgresQuery(unsafeSQL: sql))
                for try await (id, name, score, count, flag, created, note) in rows.decode((Int64, String, Double, Int, Bool?, Date, String?).self) {
                    out.append(Reading(id: id, name: name, score: score, count: count, flag: flag, created: created, note: note))
                }
                return out
            }
            // The same rows, or the timing compares different work.
            // An unordered SELECT: the server may hand the rows out in another order (a
            // synchronized scan starts mid-table), so they are compared by key.
            let a = try await pql().sorted { $0.id < $1.id }, b = try await hand().sorted { $0.id < $1.id }
            precondition(a == readings && b == readings, "PQL's \(a.count) rows or the hand-decoded \(b.count) differ from the \(n) stored")
            // Interleaved, so that a noisy machine's drift falls on both alike.
            var pqlTimes: [Double] = [], handTimes: [Double] = []
            for _ in 0..<runs {
                for (body, times) in [(pql, 0), (hand, 1)] {
                    let start = ContinuousClock.now
                    let rows = try await body()
                    let ms = (ContinuousClock.now - start) / .milliseconds(1)
                    precondition(rows.count == n)
                    if times == 0 { pqlTimes.append(ms) } else { handTimes.append(ms) }
                }
            }
            try await store.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
            await store.close()
            let p = pqlTimes.sorted()[runs / 2], h = handTimes.sorted()[runs / 2]
            return """
                records: \(n) rows of a Codable struct (Int64 key, String, Double, Int, Bool?, Date, String?), median of \(runs) runs
                  SELECT: \(sql)
                  PQL store.fetch(_:as:)                    \(String(format: "%8.1f", p)) ms
                  PostgresNIO row.decode((Int64, …).self)   \(String(format: "%8.1f", h)) ms
                  ratio PQL/PostgresNIO                     \(String(format: "%8.2f", p / h))x
                """
        } catch {
            _ = try? await store.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
            await store.close()
            throw error
        }
    }
}

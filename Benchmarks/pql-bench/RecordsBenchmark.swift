import Foundation
import GRDB
import PQL
import PQLStore
import BenchmarkRecords

/// `pql-bench records`: 100,000 rows of a Codable struct through `PredicateStore.fetch(_:as:)`,
/// beside GRDB's Codable `FetchableRecord` reading the same SQLite file with the same SELECT
/// (PQL's own, its key column aliased `id` for GRDB's coding keys).
struct RecordsBenchmark {
    var n = 100_000
    var runs = 9

    static let usage = """
          records      ms to fetch n rows of a Codable struct through store.fetch(_:as:) beside
                       GRDB's Codable FetchableRecord on the same file and SELECT
            --n N      rows (default 100000)
            --runs R   timed runs of each after one warm-up, interleaved; the median counts (default 9)
        """

    static func parse(_ arguments: [String]) -> RecordsBenchmark {
        var b = RecordsBenchmark()
        var rest = arguments[...]
        while let arg = rest.popFirst() {
            guard let v = rest.popFirst(), let number = Int(v), number > 0 else { fail("\(arg) needs a positive number") }
            switch arg {
            case "--n": b.n = number
            case "--runs": b.runs = number
            default: fail("unknown argument '\(arg)'\n\(usage)")
            }
        }
        return b
    }

    /// GRDB's record: the same fields, decoded by GRDB's own Codable support.
    struct GRDBReading: Codable, FetchableRecord {
        var id: Int64
        var name: String
        var score: Double
        var count: Int
        var flag: Bool?
        var created: Date
        var note: String?
    }

    func run() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pql-bench-records-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let readings = Reading.generate(n)
        let store: PredicateStore
        let query = EntityQuery(Reading.entity)
        let sql: String
        do {
            store = try PredicateStore(path: path, model: Reading.model)
            _ = try store.importTable(Reading.table(readings), into: Reading.entity)
            sql = try store.sql(for: query).sql
        } catch { fail("cannot make the store: \(error)") }
        // GRDB decodes by column name: the key column is named for the `id` coding key.
        guard let keyColumn = sql.range(of: #"t0."Z_PK""#) else { fail("unexpected SELECT: \(sql)") }
        let grdbSQL = sql.replacingCharacters(in: keyColumn, with: #"t0."Z_PK" AS "id""#)
        let queue: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.readonly = true
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch { fail("GRDB cannot open the file: \(error)") }

        var pqlRows: [Reading] = [], grdbRows: [GRDBReading] = []
        func pql() {
            do { pqlRows = try store.fetch(query, as: Reading.self) } catch { fail("PQL: \(error)") }
        }
        func grdb() {
            do { grdbRows = try queue.read { db in try GRDBReading.fetchAll(db, sql: grdbSQL) } } catch { fail("GRDB: \(error)") }
        }
        pql(); grdb()
        // The same rows, or the timing compares different work. GRDB reads a REAL as seconds since
        // 1970 where PQL keeps seconds since 2001: the dates differ by that offset only.
        guard pqlRows == readings, grdbRows.count == n, zip(grdbRows, readings).allSatisfy({ g, r in
            g.id == r.id && g.name == r.name && g.score == r.score && g.count == r.count && g.flag == r.flag && g.note == r.note
                && g.created.timeIntervalSince1970 == r.created.timeIntervalSinceReferenceDate
        }) else { fail("PQL's \(pqlRows.count) rows or GRDB's \(grdbRows.count) differ from the \(n) stored") }
        var pqlTimes: [Double] = [], grdbTimes: [Double] = []
        for _ in 0..<runs {
            pqlTimes.append(Timing.nanoseconds(pql) / 1e6)
            grdbTimes.append(Timing.nanoseconds(grdb) / 1e6)
        }
        let p = Statistics.median(pqlTimes), g = Statistics.median(grdbTimes)
        return """
            records: \(n) rows of a Codable struct (Int64 key, String, Double, Int, Bool?, Date, String?), median of \(runs) runs
              SELECT: \(sql)
              PQL store.fetch(_:as:)                 \(String(format: "%8.1f", p)) ms
              GRDB Codable FetchableRecord.fetchAll  \(String(format: "%8.1f", g)) ms
              ratio PQL/GRDB                         \(String(format: "%8.2f", p / g))x
            """
    }
}

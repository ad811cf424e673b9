import ArgumentParser
import Foundation
import PQL
import PQLPostgres
import PQLStore

extension QueryCommand {
    /// `pql query postgres://…`: the same fetch, compiled to PostgreSQL's SQL and run on the
    /// server, printed as on SQLite.
    func run(onServer url: String) throws {
        ServerStore.cancelOnInterrupt()
        if !groupBy.isEmpty {
            throw ServerStore.notYet("--group-by", hint: "query the rows (pql query URL --entity E > rows.jsonl) and group them in an SQLite store made by pql import")
        }
        if sql && count { throw ServerStore.notYet("--sql with --count", hint: "--sql alone shows the fetch's SQL") }
        let s = try ServerStore.open(url, writing: false)
        var query = try selection.query(try Self.entity(entity, among: s.entityNames, in: s.shownURL))
        query.sort = try sortKeys.map(FilterCommand.sortRule)
        query.limit = limit
        query.offset = offset
        if sql {
            do { Output.write(ServerStore.listing(try s.store.sql(for: query))) } catch { throw error.userFacing }
            return
        }
        let q = query
        if count {
            Output.line(try s.run { (store) async throws(StoreError) in try await store.count(q) })
            return
        }
        let records = try s.run { (store) async throws(StoreError) in try await store.fetch(q) }
        // Columns from the first record (the model's attributes when none matches).
        let writer = RecordWriter((format ?? .jsonl).plainRenderer, columns: records.first?.keys ?? s.attributeNames(query.entity))
        for r in records { writer.write(r.keys.map { r.values[$0] ?? .null }, columns: r.keys) }
        writer.finish()
    }
}

extension ImportCommand {
    /// `pql import postgres://… FILE`: the rows through `COPY`, into a new table (its model
    /// saved in the database) or an existing one, all or nothing.
    func run(onServer url: String) throws {
        ServerStore.cancelOnInterrupt()
        let start = Date()
        let source: ImportSource
        let columns: ImportColumns
        do {
            source = try ImportSource(contentsOf: URL(fileURLWithPath: file))
            // The whole file is checked before anything is written.
            columns = try source.inferColumns()
        } catch {
            throw error.userFacing
        }
        let s = try ServerStore.open(url, writing: true)
        let entity = self.entity
        let n = try s.run { (store) async throws(StoreError) in try await store.importFile(source, into: entity, columns: columns) }
        let seconds = Date().timeIntervalSince(start)
        let rate = seconds >= 0.5 ? ", \(Int(Double(n) / seconds)) rows/s" : ""
        Output.error("imported \(n) rows into \(entity) (\(columns.names.count) attributes) in \(String(format: "%.2f", seconds)) s\(rate)")
    }
}

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
        if !groupBy.isEmpty { return try runGroupOnServer(url) }
        let s = try ServerStore.open(url, writing: false)
        var query = try selection.query(try Self.entity(entity, among: s.entityNames, in: s.shownURL))
        query.sort = try sortKeys.map(FilterCommand.sortRule)
        query.limit = limit
        query.offset = offset
        if sql {
            s.readIndexes()
            do { Output.write(ServerStore.listing(try count ? s.store.countSQL(for: query) : s.store.sql(for: query))) } catch { throw error.userFacing }
            return
        }
        let q = query
        if count {
            Output.line(try s.run { (store) async throws(StoreError) in try await store.count(q) })
            return
        }
        // Printed as the rows arrive, as the SQLite path prints them: columns from the first
        // record (the model's attributes when none matches); table and box gather the rows.
        let output = StreamedOutput(renderer: (format ?? .jsonl).plainRenderer)
        try s.run { (store) async throws(StoreError) in
            for try await r in store.records(matching: q) { output.write(r) }
        }
        output.finish(columns: s.attributeNames(query.entity))
    }
}

/// The writer of `pql query URL`'s records, used by the task that reads them from the server
/// while the command's thread waits for it (see `BlockingCalls`), then by that thread.
private final class StreamedOutput: @unchecked Sendable {
    // @unchecked: one thread at a time uses it, the waiting one only after the task ended.
    private let renderer: ResultRenderer
    private var writer: RecordWriter?

    init(renderer: ResultRenderer) { self.renderer = renderer }

    func write(_ r: StoreRecord) {
        if writer == nil { writer = RecordWriter(renderer, columns: r.keys) }
        writer?.write(r.keys.map { r.values[$0] ?? .null }, columns: r.keys)
    }

    func finish(columns: [String]) {
        (writer ?? RecordWriter(renderer, columns: columns)).finish()
    }
}

extension ImportCommand {
    /// `pql import postgres://… FILE`: the rows through `COPY`, into a new table (its model
    /// saved in the database) or an existing one, all or nothing.
    func run(onServer url: String) throws {
        ServerStore.cancelOnInterrupt()
        let source: ImportSource
        let columns: ImportColumns
        do {
            source = try ImportSource(contentsOf: URL(fileURLWithPath: file))
            // The whole file is checked before anything is written.
            columns = try source.inferColumns()
        } catch {
            throw error.userFacing
        }
        let links = try links()
        let s = try ServerStore.open(url, writing: true)
        let entity = self.entity
        // Timed from the first row sent, as on SQLite: connecting is not the import's speed.
        let start = Date()
        let n = try s.run { (store) async throws(StoreError) in try await store.importFile(source, into: entity, columns: columns, links: links) }
        let seconds = Date().timeIntervalSince(start)
        let rate = seconds >= 0.5 ? ", \(Int(Double(n) / seconds)) rows/s" : ""
        Output.error("imported \(n) rows into \(entity) (\(Self.shape(columns, links))) in \(String(format: "%.2f", seconds)) s\(rate)")
    }
}

extension UpdateCommand {
    /// `pql update postgres://…`: one UPDATE in one transaction on the server, with the SQLite
    /// store's rules (see `PostgresPredicateStore.batchUpdate`); expressions of `--set-expr`
    /// run natively or are refused before anything is written.
    func run(onServer url: String) throws {
        ServerStore.cancelOnInterrupt()
        var (set, computed) = try Self.parseAssignments(assignments, expressions: expressionAssignments)
        let s = try ServerStore.open(url, writing: true)
        let query = try selection.query(try QueryCommand.entity(entity, among: s.entityNames, in: s.shownURL))
        let guessed = Self.readNumericTextAsExpressions(&set, &computed, entity: query.entity, model: s.model)
        if computed.isEmpty {
            let values = set
            Output.line(try s.run { (store) async throws(StoreError) in try await store.batchUpdate(query, set: values) })
            return
        }
        // Each guessed expression compiled alone first, so a failure names the --set it came from.
        for (key, text) in guessed.sorted(by: { $0.key < $1.key }) {
            do throws(StoreError) {
                _ = try s.store.sql(for: EntityQuery(query.entity, predicate: .comparison(ComparisonNode(computed[key]!, .notEqual, .constant(.null)))))
            } catch {
                throw Self.guessFailed(key: key, text: text, entity: query.entity, error).userFacing
            }
        }
        let all = computed.merging(set.mapValues { .constant($0) }) { a, _ in a }
        Output.line(try s.run { (store) async throws(StoreError) in try await store.batchUpdate(query, computing: all) })
    }
}

extension DeleteCommand {
    /// `pql delete postgres://…`: the matching records deleted on the server in one
    /// transaction, the delete rules followed (see `PostgresPredicateStore.batchDelete`).
    func run(onServer url: String) throws {
        ServerStore.cancelOnInterrupt()
        let s = try ServerStore.open(url, writing: true)
        let query = try selection.query(try QueryCommand.entity(entity, among: s.entityNames, in: s.shownURL))
        Output.line(try s.run { (store) async throws(StoreError) in try await store.batchDelete(query) })
    }
}

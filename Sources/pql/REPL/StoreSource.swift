import Foundation
import PQL
import PQLStore

/// An SQLite store: queries are fetch requests compiled to SQL.
final class StoreSource: QuerySource {
    let store: PredicateStore
    let title: String
    private var counts: [String: Int] = [:]

    /// The database file, for ``protectedFiles``.
    let path: String?

    init(store: PredicateStore, title: String, path: String?) {
        self.store = store
        self.title = title
        self.path = path
    }

    var protectedFiles: [String] { path.map { p in [p, p + "-wal", p + "-shm", p + "-journal"] } ?? [] }

    var entityNames: [String] { store.model.entities.filter { !$0.isAbstract }.map(\.name) }
    var skippedTables: [String: String] { store.skippedTables }

    /// The entity with the most rows (the flights, on the demo): the one people came to query.
    var defaultEntity: String? {
        entityNames.max { (rowCount($0) ?? 0) < (rowCount($1) ?? 0) }
    }

    func rowCount(_ entity: String) -> Int? {
        if let n = counts[entity] { return n }
        let n = try? store.count(EntityQuery(entity))
        counts[entity] = n
        return n
    }

    func entity(named name: String) -> EntityInfo? {
        let model = store.model
        guard let e = try? model.entity(named: name) else { return nil }
        return EntityInfo(e, in: model, rowCount: rowCount(name))
    }

    func count(_ r: QueryRequest) throws -> Int { try store.count(r.entityQuery) }

    func rows(_ r: QueryRequest, columns: [String]) throws -> [[PredicateValue]] {
        try store.fetchProperties(columns, r.entityQuery).map { row in columns.map { row[$0] ?? .null } }
    }

    func groups(_ query: GroupQuery) throws -> [[String: PredicateValue]] { try store.fetch(query) }

    func distinct(_ keyPaths: [String], _ r: QueryRequest) throws -> [[PredicateValue]] {
        var q = r.entityQuery
        q.sort = keyPaths.map { SortRule($0) }
        return try store.fetchProperties(keyPaths, q, distinct: true).map { row in keyPaths.map { row[$0] ?? .null } }
    }

    func sql(_ r: QueryRequest) throws -> (sql: String, bindings: [String])? {
        let c = try store.sql(for: r.entityQuery)
        return (c.sql, c.bindings.map { "\($0)" })
    }

    func plan(_ r: QueryRequest) throws -> [String]? { try store.queryPlan(for: r.entityQuery) }

    /// Compiling a fetch of the key paths (run for no rows) resolves them as a query would.
    func checkKeyPaths(_ keyPaths: [String], entity: String) throws {
        _ = try store.fetchProperties(keyPaths, EntityQuery(entity, limit: 0))
    }

    func interrupt() { store.interrupt() }
}

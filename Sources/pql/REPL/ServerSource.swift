import Foundation
import PQL
import PQLPostgres
import PQLStore

/// A PostgreSQL database: queries are fetch requests compiled to PostgreSQL's SQL and run on
/// the server (see `PostgresPredicateStore`); Ctrl-C cancels the statement there.
final class ServerSource: QuerySource {
    let server: ServerStore
    let title: String
    private var counts: [String: Int] = [:]

    init(server: ServerStore) {
        self.server = server
        self.title = "\(server.shownURL) (PostgreSQL)"
    }

    var entityNames: [String] { server.entityNames }
    var skippedTables: [String: String] { server.store.skippedTables }

    /// The entity with the most rows, as on SQLite.
    var defaultEntity: String? {
        entityNames.max { (rowCount($0) ?? 0) < (rowCount($1) ?? 0) }
    }

    func rowCount(_ entity: String) -> Int? {
        if let n = counts[entity] { return n }
        let n = try? server.call { (s) async throws(StoreError) in try await s.count(entity) }
        counts[entity] = n
        return n
    }

    func entity(named name: String) -> EntityInfo? {
        let model = server.model
        guard let e = try? model.entity(named: name) else { return nil }
        return EntityInfo(e, in: model, rowCount: rowCount(name))
    }

    func count(_ r: QueryRequest) throws -> Int {
        let q = r.entityQuery
        return try server.call { (s) async throws(StoreError) in try await s.count(q) }
    }

    func rows(_ r: QueryRequest, columns: [String]) throws -> [[PredicateValue]] {
        let q = r.entityQuery
        return try server.call { (s) async throws(StoreError) in try await s.fetchProperties(columns, q) }
            .map { row in columns.map { row[$0] ?? .null } }
    }

    func groups(_ query: GroupQuery) throws -> [[String: PredicateValue]] {
        try server.call { (s) async throws(StoreError) in try await s.fetch(query) }
    }

    func distinct(_ keyPaths: [String], _ r: QueryRequest) throws -> [[PredicateValue]] {
        var q = r.entityQuery
        q.sort = keyPaths.map { SortRule($0) }
        let sorted = q
        return try server.call { (s) async throws(StoreError) in try await s.fetchProperties(keyPaths, sorted, distinct: true) }
            .map { row in keyPaths.map { row[$0] ?? .null } }
    }

    var parameterPrefix: String { "$" }

    func sql(_ r: QueryRequest) throws -> (sql: String, bindings: [String])? {
        server.readIndexes()
        let c = try server.store.sql(for: r.entityQuery)
        return (c.sql, c.bindings.map { "\($0)" })
    }

    func plan(_ r: QueryRequest) throws -> [String]? {
        let q = r.entityQuery
        return try server.call { (s) async throws(StoreError) in try await s.explain(q) }
    }

    /// A fetch of the key paths for no rows resolves them as a query would.
    func checkKeyPaths(_ keyPaths: [String], entity: String) throws {
        _ = try server.call { (s) async throws(StoreError) in try await s.fetchProperties(keyPaths, EntityQuery(entity, limit: 0)) }
    }

    func interrupt() { server.interrupt() }
}

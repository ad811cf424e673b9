import Foundation
import PQL
import PQLStore

/// An SQLite store: queries are fetch requests compiled to SQL.
final class StoreSource: QuerySource {
    let store: PredicateStore
    let title: String
    private var counts: [String: Int] = [:]

    init(store: PredicateStore, title: String) {
        self.store = store
        self.title = title
    }

    var entityNames: [String] { store.model.entities.filter { !$0.isAbstract }.map(\.name) }

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
        guard let e = try? store.model.entity(named: name) else { return nil }
        let attributes = store.model.allAttributes(e).map { a -> EntityInfo.Attribute in
            var notes: [String] = []
            if a.isUnique { notes.append("unique") }
            if a.isIndexed { notes.append("indexed") }
            if !a.isOptional { notes.append("required") }
            return EntityInfo.Attribute(name: a.name, type: a.type.rawValue, notes: notes.joined(separator: ", "))
        }
        let relationships = store.model.allRelationships(e).map {
            EntityInfo.Relationship(name: $0.name, target: $0.destination, toMany: $0.isToMany)
        }
        return EntityInfo(name: e.name, attributes: attributes, relationships: relationships, rowCount: rowCount(name))
    }

    /// The request as a fetch: the session parsed the predicate already; its text goes along
    /// so that errors point into it.
    private func query(_ r: QueryRequest) -> EntityQuery {
        var q = EntityQuery(r.entity, predicate: r.predicate, sort: r.sort, offset: r.offset, limit: r.limit,
                            variables: r.variables, limits: r.limits)
        q.predicateText = r.text
        q.sourceMap = r.sourceMap
        return q
    }

    func count(_ r: QueryRequest) throws -> Int { try store.count(query(r)) }

    func rows(_ r: QueryRequest, columns: [String]) throws -> [[PredicateValue]] {
        try store.fetchProperties(columns, query(r)).map { row in columns.map { row[$0] ?? .null } }
    }

    func groups(_ query: GroupQuery) throws -> [[String: PredicateValue]] { try store.fetch(query) }

    func distinct(_ keyPaths: [String], _ r: QueryRequest) throws -> [[PredicateValue]] {
        var q = query(r)
        q.sort = keyPaths.map { SortRule($0) }
        return try store.fetchProperties(keyPaths, q, distinct: true).map { row in keyPaths.map { row[$0] ?? .null } }
    }

    func sql(_ r: QueryRequest) throws -> (sql: String, bindings: [String])? {
        let c = try store.sql(for: query(r))
        return (c.sql, c.bindings.map { "\($0)" })
    }

    func plan(_ r: QueryRequest) throws -> [String]? { try store.queryPlan(for: query(r)) }

    /// Compiling a fetch of the key paths (run for no rows) resolves them as a query would.
    func checkKeyPaths(_ keyPaths: [String], entity: String) throws {
        _ = try store.fetchProperties(keyPaths, EntityQuery(entity, limit: 0))
    }

    func interrupt() { store.interrupt() }
}

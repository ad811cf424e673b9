import PostgresNIO
import PQL
import PQLStore

/// Writes of many-to-many links (rows of the relationship's join table), with the SQLite
/// store's rules and errors: `link` and `unlink`, and `insert` and `update` taking a
/// many-to-many as an array of keys. A key no object of the destination has is a `StoreError`
/// of kind `.constraint`, and the transaction leaves everything as it was.
extension PostgresPredicateStore {
    /// Links one object to others through a many-to-many relationship (a link that exists
    /// already stays one) and returns how many links are new.
    ///
    /// ```swift
    /// try await store.link("note", id: 1, "tag", to: [1, 2])
    /// ```
    @discardableResult
    public func link(_ entity: String, id: Int64, _ relationship: String, to ids: [Int64]) async throws(StoreError) -> Int {
        let model = self.model
        let e = try model.entity(named: entity)
        let (r, join) = try model.manyToMany(relationship, of: e)
        return try await transaction("linking \(entity).\(relationship)") { connection in
            try await self.requireObjects(e, [id], as: "there is no \(e.name) with key", kind: .invalidValue, model: model, on: connection)
            return try await self.addLinks(r, join, from: e, id: id, to: ids, model: model, on: connection)
        }
    }

    /// Removes links of one object through a many-to-many relationship (the objects stay) and
    /// returns how many were removed; keys it is not linked to are ignored.
    ///
    /// ```swift
    /// try await store.unlink("note", id: 1, "tag", from: [2])
    /// ```
    @discardableResult
    public func unlink(_ entity: String, id: Int64, _ relationship: String, from ids: [Int64]) async throws(StoreError) -> Int {
        let model = self.model
        let e = try model.entity(named: entity)
        let (_, join) = try model.manyToMany(relationship, of: e)
        var binds = PostgresBindings()
        binds.append(id)
        binds.append(ids)
        let sql = "WITH removed AS (DELETE FROM \(qualified(join.table)) WHERE \(quote(join.sourceColumn)) = $1 AND \(quote(join.destinationColumn)) = ANY($2) RETURNING 1) SELECT count(*) FROM removed"
        return try await transaction("unlinking \(entity).\(relationship)") { connection in
            try await self.count(BoundSQL(sql: sql, binds: binds), on: connection)
        }
    }

    /// Adds the links `id` → `ids` of `r` after checking every target exists.
    func addLinks(_ r: ModelRelationship, _ join: StoreModel.JoinLink, from e: ModelEntity, id: Int64, to ids: [Int64],
                  model: StoreModel, on connection: PostgresConnection) async throws -> Int {
        let dest = try model.entity(named: r.destination)
        try await requireObjects(dest, ids, as: "\(e.name).\(r.name) would link to no \(dest.name): none has key", model: model, on: connection)
        let (a, b) = (quote(join.sourceColumn), quote(join.destinationColumn))
        let table = qualified(join.table)
        var added = 0
        for target in ids {
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(target)
            // Inferred join tables may lack a unique key on the pair: a repeated link is not added.
            added += try await count(BoundSQL(sql: """
                WITH added AS (INSERT INTO \(table) (\(a), \(b)) SELECT $1::bigint, $2::bigint \
                WHERE NOT EXISTS (SELECT 1 FROM \(table) WHERE \(a) = $1 AND \(b) = $2) RETURNING 1) SELECT count(*) FROM added
                """, binds: binds), on: connection)
        }
        return added
    }

    /// Replaces the links of `id` through `r` with `ids` (an insert's or update's array of keys).
    func setLinks(_ r: ModelRelationship, _ join: StoreModel.JoinLink, from e: ModelEntity, id: Int64, to ids: [Int64],
                  model: StoreModel, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(id)
        try await connection.run(PostgresQuery(unsafeSQL: "DELETE FROM \(qualified(join.table)) WHERE \(quote(join.sourceColumn)) = $1", binds: binds), logger: logger)
        _ = try await addLinks(r, join, from: e, id: id, to: ids, model: model, on: connection)
    }

    /// Refuses keys that no object of `entity` (or its sub-entities) has; `message` precedes the key.
    func requireObjects(_ entity: ModelEntity, _ ids: [Int64], as message: String, kind: StoreError.Kind = .constraint,
                        model: StoreModel, on connection: PostgresConnection) async throws {
        let root = model.root(entity)
        var sql = "SELECT 1 FROM \(qualified(root.table)) WHERE \(quote(root.primaryKey)) = $1"
        if entity.parent != nil {
            sql += " AND \(quote(StoreSchemaNames.entityColumn)) IN (\(model.descendants(entity).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
        }
        for id in ids {
            var binds = PostgresBindings()
            binds.append(id)
            guard try await exists(BoundSQL(sql: sql + " LIMIT 1", binds: binds), on: connection) else {
                throw StoreError(kind, "\(message) \(id)", hint: kind == .constraint ? "insert that \(entity.name) first, or give the key of an existing one" : "give the key insert returned")
            }
        }
    }
}

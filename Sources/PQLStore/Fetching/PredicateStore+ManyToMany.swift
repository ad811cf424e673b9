import PQL

/// Writes of many-to-many links: rows of the relationship's join table. `link` and `unlink`
/// add and remove them; `insert` and `update` take a many-to-many as an array of keys; deletes
/// remove the deleted objects' links (after the delete rule's own work). Every link is checked:
/// a key no object of the destination has is a `StoreError` of kind `.constraint`, and the
/// write leaves everything as it was.
extension PredicateStore {
    /// Links one object to others through a many-to-many relationship (rows of its join table;
    /// a link that exists already stays one) and returns how many links are new.
    ///
    /// ```swift
    /// try store.link("Note", id: note, "tags", to: [urgent, later])
    /// ```
    @discardableResult
    public func link(_ entity: String, id: Int64, _ relationship: String, to ids: [Int64]) throws(StoreError) -> Int {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let (r, join) = try model.manyToMany(relationship, of: e)
            return try connection.transaction { () throws(StoreError) in
                try requireObjects(e, [id], as: "there is no \(e.name) with key", kind: .invalidValue)
                return try addLinks(r, join, from: e, id: id, to: ids)
            }
        }
    }

    /// Removes links of one object through a many-to-many relationship (the objects stay) and
    /// returns how many were removed; keys it is not linked to are ignored.
    ///
    /// ```swift
    /// try store.unlink("Note", id: note, "tags", from: [later])
    /// ```
    @discardableResult
    public func unlink(_ entity: String, id: Int64, _ relationship: String, from ids: [Int64]) throws(StoreError) -> Int {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let (_, join) = try model.manyToMany(relationship, of: e)
            let q = SQLIdentifier.quote
            return try connection.transaction { () throws(StoreError) in
                let s = try connection.prepare("DELETE FROM \(q(join.table)) WHERE \(q(join.sourceColumn)) = ?1 AND \(q(join.destinationColumn)) = ?2", cached: true)
                var removed = 0
                for target in ids {
                    try s.run([.integer(id), .integer(target)])
                    removed += connection.changes
                }
                return removed
            }
        }
    }

    /// Adds the links `id` → `ids` of `r` after checking every target exists (in the caller's
    /// transaction, which a refusal rolls back).
    func addLinks(_ r: ModelRelationship, _ join: StoreModel.JoinLink, from e: ModelEntity, id: Int64, to ids: [Int64]) throws(StoreError) -> Int {
        let dest = try model.entity(named: r.destination)
        try requireObjects(dest, ids, as: "\(e.name).\(r.name) would link to no \(dest.name): none has key")
        let q = SQLIdentifier.quote
        // Inferred join tables may lack a unique key on the pair: a repeated link is not added.
        let s = try connection.prepare("""
            INSERT INTO \(q(join.table)) (\(q(join.sourceColumn)), \(q(join.destinationColumn))) SELECT ?1, ?2 \
            WHERE NOT EXISTS (SELECT 1 FROM \(q(join.table)) WHERE \(q(join.sourceColumn)) = ?1 AND \(q(join.destinationColumn)) = ?2)
            """, cached: true)
        var added = 0
        for target in ids {
            try s.run([.integer(id), .integer(target)])
            added += connection.changes
        }
        return added
    }

    /// Replaces the links of `id` through `r` with `ids` (an insert's or update's array of keys).
    func setLinks(_ r: ModelRelationship, _ join: StoreModel.JoinLink, from e: ModelEntity, id: Int64, to ids: [Int64]) throws(StoreError) {
        let q = SQLIdentifier.quote
        try connection.prepare("DELETE FROM \(q(join.table)) WHERE \(q(join.sourceColumn)) = ?1", cached: true).run([.integer(id)])
        _ = try addLinks(r, join, from: e, id: id, to: ids)
    }

    /// Refuses keys that no object of `entity` (or its sub-entities) has; `message` precedes the key.
    func requireObjects(_ entity: ModelEntity, _ ids: [Int64], as message: String, kind: StoreError.Kind = .constraint) throws(StoreError) {
        let q = SQLIdentifier.quote
        let root = model.root(entity)
        var sql = "SELECT 1 FROM \(q(root.table)) WHERE \(q(root.primaryKey)) = ?1"
        if entity.parent != nil {
            sql += " AND \(q(StoreSchema.entityColumn)) IN (\(model.descendants(entity).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
        }
        let s = try connection.prepare(sql + " LIMIT 1", cached: true)
        for id in ids {
            try s.bind([.integer(id)])
            defer { s.reset() }
            guard try s.step() else {
                throw StoreError(kind, "\(message) \(id)", hint: kind == .constraint ? "insert that \(entity.name) first, or give the key of an existing one" : "give the key insert returned")
            }
        }
    }

    /// A delete's work on the many-to-many `r` of the objects in the temporary table `temp`:
    /// deny refuses while they have links, cascade deletes the linked objects, and every rule
    /// (no action too: a join row naming no object would link a later object given its key)
    /// then removes the deleted objects' rows of the join table.
    func deleteLinks(_ r: ModelRelationship, of entity: ModelEntity, deleted temp: String, depth: Int) throws(StoreError) {
        let q = SQLIdentifier.quote
        let join = try model.joinLink(of: r, on: entity)
        let dest = try model.entity(named: r.destination)
        let destRoot = model.root(dest)
        let root = model.root(entity)
        let linked = "SELECT \(q(join.destinationColumn)) FROM \(q(join.table)) WHERE \(q(join.sourceColumn)) IN (SELECT \(q(root.primaryKey)) FROM temp.\(q(temp)))"
        let related = "SELECT \(q(destRoot.primaryKey)) FROM \(q(destRoot.table)) WHERE \(q(destRoot.primaryKey)) IN (\(linked))"
        switch r.deleteRule {
        case .deny:
            if try connection.prepare(related + " LIMIT 1").step() {
                throw StoreError(.constraint, "cannot delete \(entity.name): its relationship '\(r.name)' has the deny rule and still links \(r.destination) objects",
                                 hint: "unlink the related \(r.destination) objects first (unlink), or delete them")
            }
        case .cascade:
            _ = try LargeStack.run(if: depth >= 8) { () throws(StoreError) -> Int in
                try self.deleteRows(of: dest, keys: CompiledSQL(sql: related, bindings: []), depth: depth + 1)
            }
        case .nullify, .noAction:
            break
        }
        try connection.execute("DELETE FROM \(q(join.table)) WHERE \(q(join.sourceColumn)) IN (SELECT \(q(root.primaryKey)) FROM temp.\(q(temp)))")
    }
}

extension StoreModel {
    /// The many-to-many relationship `name` of `entity` and its join table; an error naming
    /// what the key is otherwise.
    package func manyToMany(_ name: String, of entity: ModelEntity) throws(StoreError) -> (ModelRelationship, JoinLink) {
        guard let r = allRelationships(entity).first(where: { $0.name == name }) else {
            throw StoreError.unknownKey(name, entity: entity.name, candidates: allRelationships(entity).filter(\.isManyToMany).map(\.name))
        }
        guard r.isManyToMany else {
            throw StoreError(.invalidValue, "\(entity.name).\(name) is not a many-to-many relationship",
                             hint: r.isToMany ? "link its objects by setting their to-one \(r.inverse ?? "relationship") (update)" : "set a to-one with update")
        }
        return (r, try joinLink(of: r, on: entity))
    }
}

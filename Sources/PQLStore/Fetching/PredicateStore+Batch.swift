import PQL

extension PredicateStore {
    /// Sets attributes (or to-one links) on every matching object in one statement and
    /// returns how many changed.
    ///
    /// ```swift
    /// let n = try store.batchUpdate(EntityQuery("Flight", where: "dep_delay > 120"), set: ["cancelled": true])
    /// ```
    @discardableResult
    public func batchUpdate(_ query: EntityQuery, set values: [String: PredicateValue]) throws(StoreError) -> Int {
        try placingErrors(of: query) { () throws(StoreError) -> Int in
        try EvaluationBudget.run(query.limits, store: true, about: query.predicate) { () throws(StoreError) -> Int in try locked { () throws(StoreError) in
            let e = try model.entity(named: query.entity)
            let plan = try InsertPlan(model: model, entity: e)
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes())
            let keys = try builder.keys()
            var bindings = keys.bindings
            var sets: [String] = []
            let assignments = try plan.assignments(values)
            for (column, value) in assignments {
                bindings.append(value)
                sets.append("\(SQLIdentifier.quote(column)) = ?\(bindings.count)")
            }
            guard !sets.isEmpty else { throw StoreError(.invalidValue, "a batch update needs at least one value to set") }
            let root = model.root(e)
            try checkLinks(of: e, assignments: assignments, keys: keys)
            return try connection.transaction { () throws(StoreError) in
                let s = try connection.prepare("UPDATE \(SQLIdentifier.quote(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(SQLIdentifier.quote(root.primaryKey)) IN (\(keys.sql))")
                try s.run(bindings, foldedAllowed: true)
                return connection.changes
            }
        } }
        }
    }

    /// Deletes every matching object, applying the delete rules of its relationships
    /// (nullify, cascade, deny) in the same transaction, and returns how many were deleted.
    ///
    /// ```swift
    /// let n = try store.batchDelete(EntityQuery("Flight", where: "year < 2013"))
    /// ```
    @discardableResult
    public func batchDelete(_ query: EntityQuery) throws(StoreError) -> Int {
        try placingErrors(of: query) { () throws(StoreError) -> Int in
        try EvaluationBudget.run(query.limits, store: true, about: query.predicate) { () throws(StoreError) -> Int in try locked { () throws(StoreError) in
            let e = try model.entity(named: query.entity)
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes())
            let keys = try builder.keys()
            return try connection.transaction { () throws(StoreError) in try deleteRows(of: e, keys: keys, depth: 0) }
        } }
        }
    }

    /// How many levels of related objects one batch delete's cascades may reach (a chain of
    /// replies to replies cascades one level per reply).
    static let maxCascadeDepth = 200

    /// Deletes the rows of `entity` whose keys `keys` selects. The rows are copied to a
    /// temporary table first, so the delete rules can follow their links after they are gone
    /// (which also ends cascades that loop back).
    func deleteRows(of entity: ModelEntity, keys: CompiledSQL, depth: Int) throws(StoreError) -> Int {
        guard depth < Self.maxCascadeDepth else {
            throw StoreError(.constraint, "cascading deletes go deeper than \(Self.maxCascadeDepth) levels of related objects",
                             hint: "delete the deepest objects first, in several batch deletes")
        }
        let q = SQLIdentifier.quote
        let root = model.root(entity)
        let temp = "pql_deleted_\(depth)"
        let relationships = model.descendants(entity).flatMap { model.allRelationships($0) }
            .reduce(into: [ModelRelationship]()) { acc, r in if !acc.contains(r) { acc.append(r) } }
        var columns = [root.primaryKey]
        let compiler = PredicateSQLCompiler(model: model)
        for r in relationships where r.deleteRule != .noAction && !r.isManyToMany {
            let l = try compiler.link(r, from: entity)
            if !columns.contains(l.local) { columns.append(l.local) }
        }
        let unguarded = model.linksWithoutRule(into: entity)
        for (_, r) in unguarded {
            let referenced = r.referencedColumn ?? root.primaryKey
            if !columns.contains(referenced) { columns.append(referenced) }
        }

        try connection.execute("DROP TABLE IF EXISTS temp.\(q(temp))")
        let copy = try connection.prepare("CREATE TEMP TABLE \(q(temp)) AS SELECT \(columns.map(q).joined(separator: ", ")) FROM \(q(root.table)) WHERE \(q(root.primaryKey)) IN (\(keys.sql))")
        try copy.run(keys.bindings, foldedAllowed: true)
        defer { try? connection.execute("DROP TABLE IF EXISTS temp.\(q(temp))") }
        // Nothing (left) to delete: a cascade ends here, also one whose rules loop back (a
        // tree's children cascading to their own entity), which would otherwise recurse on.
        guard try connection.prepare("SELECT 1 FROM temp.\(q(temp)) LIMIT 1").step() else { return 0 }
        let delete = try connection.prepare("DELETE FROM \(q(root.table)) WHERE \(q(root.primaryKey)) IN (SELECT \(q(root.primaryKey)) FROM temp.\(q(temp)))")
        try delete.run()
        let deleted = connection.changes
        for r in relationships {
            if r.isManyToMany {
                try deleteLinks(r, of: entity, deleted: temp, depth: depth)
                continue
            }
            let l = try compiler.link(r, from: entity)
            let destRoot = model.root(l.destination)
            let related = "SELECT \(q(destRoot.primaryKey)) FROM \(q(destRoot.table)) WHERE \(q(l.remote)) IN (SELECT \(q(l.local)) FROM temp.\(q(temp)))"
            switch r.deleteRule {
            case .noAction:
                continue
            case .deny:
                let s = try connection.prepare(related + " LIMIT 1")
                if try s.step() {
                    throw StoreError(.constraint, "cannot delete \(entity.name): its relationship '\(r.name)' has the deny rule and still has \(r.destination) objects",
                                     hint: "delete or unlink the related \(r.destination) objects first")
                }
            case .nullify:
                // A to-one's link is in the deleted row itself; a to-many's is on the other side.
                guard r.isToMany else { continue }
                let inverse = try model.storingInverse(of: r, on: entity)
                if !inverse.isOptional {
                    let s = try connection.prepare(related + " LIMIT 1")
                    if try s.step() {
                        throw StoreError(.constraint, "cannot delete \(entity.name): the nullify rule of '\(r.name)' would leave \(r.destination) objects without \(inverse.name), which is not optional",
                                         hint: "delete or relink those \(r.destination) objects first, or give '\(r.name)' the cascade rule")
                    }
                }
                try connection.execute("UPDATE \(q(destRoot.table)) SET \(q(l.remote)) = NULL WHERE \(q(l.remote)) IN (SELECT \(q(l.local)) FROM temp.\(q(temp)))")
            case .cascade:
                // A deep chain recurses once per level: past a few levels, go on on a large stack
                // (the caller's may be a 512 KiB thread of the cooperative pool).
                let destination = l.destination
                _ = try LargeStack.run(if: depth >= 8) { () throws(StoreError) -> Int in
                    try self.deleteRows(of: destination, keys: CompiledSQL(sql: related, bindings: []), depth: depth + 1)
                }
            }
        }
        // Links no delete rule covers (a to-one without an inverse) must not be left dangling.
        for (source, r) in unguarded {
            let sourceRoot = model.root(source)
            let referenced = r.referencedColumn ?? root.primaryKey
            let s = try connection.prepare("SELECT 1 FROM \(q(sourceRoot.table)) WHERE \(q(r.foreignKeyColumn)) IN (SELECT \(q(referenced)) FROM temp.\(q(temp))) LIMIT 1")
            if try s.step() {
                throw StoreError(.constraint, "cannot delete \(entity.name): \(source.name) objects still link to it through \(source.name).\(r.name), which has no inverse to carry a delete rule",
                                 hint: "delete or relink those \(source.name) objects first, or give \(source.name).\(r.name) an inverse with a delete rule")
            }
        }
        return deleted
    }
}

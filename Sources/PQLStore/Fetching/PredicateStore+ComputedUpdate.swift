import PQL

extension PredicateStore {
    /// Sets attributes (or to-one links) of every matching object to values computed from the
    /// object, as Core Data's `NSBatchUpdateRequest.propertiesToUpdate` takes expressions, and
    /// returns how many objects changed.
    ///
    /// Each expression is in the predicate language (`price * 1.1`, `stock - 1`,
    /// `uppercase:(code)`, a constant) and is compiled by the same SQL compiler as the
    /// expressions inside predicates, so it has the evaluator's meaning: integer arithmetic
    /// that overflows is an error, not a wrapped or rounded number, and nil stays nil. Every
    /// expression reads the object as it was before the update. Each result is checked
    /// against its attribute by the rules `insert(_:_:)` applies: a double with no fraction
    /// fits an integer attribute, `3.5` does not (an error that names the attribute, the
    /// object and the expression), nil needs an optional attribute, and NaN is refused. All
    /// values are computed and checked before any is written (memory grows with the number
    /// of matching objects); all objects change in one transaction, or on any error none do.
    ///
    /// ```swift
    /// let n = try store.batchUpdate(EntityQuery("Flight", where: "dest == 'SFO'"),
    ///                               computing: ["dep_delay": try ExpressionNode(format: "dep_delay - 5")])
    /// ```
    @discardableResult
    public func batchUpdate(_ query: EntityQuery, computing expressions: [String: ExpressionNode]) throws(StoreError) -> Int {
        try placingErrors(of: query) { () throws(StoreError) -> Int in
        try EvaluationBudget.run(query.limits, store: true, about: query.predicate) { () throws(StoreError) -> Int in try locked { () throws(StoreError) in
            let e = try model.entity(named: query.entity)
            let plan = try InsertPlan(model: model, entity: e)
            let ordered = expressions.sorted { $0.key < $1.key }
            guard !ordered.isEmpty else { throw StoreError(.invalidValue, "a batch update needs at least one value to set") }
            for (key, _) in ordered { try plan.requireSettable(key) }
            let trees = ordered.map { query.variables.isEmpty ? $0.value : $0.value.substituting(query.variables) }
            for (key, tree) in zip(ordered.map(\.key), trees) where PredicateNode.comparison(ComparisonNode(tree, .equal, .constant(.null))).nestsDeeper(than: PredicateNode.maxCompileDepth) {
                throw StoreError(.unsupported, "the expression for \(e.name).\(key) nests deeper than \(PredicateNode.maxCompileDepth) levels",
                                 hint: "compute it in fewer steps")
            }
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes())
            let (select, results) = try builder.computed(trees, keys: ordered.map(\.key))
            let root = model.root(e)
            let q = SQLIdentifier.quote
            return try connection.transaction { () throws(StoreError) -> Int in
                // Every value is computed before any is written, so each reads the old object.
                var rows: [(id: Int64, assignments: [(column: String, value: SQLValue)])] = []
                let s = try connection.prepare(select.sql)
                try s.bind(select.bindings, foldedAllowed: true)
                defer { s.reset() }
                while try s.step() {
                    let id = s.int64(0)
                    var values: [String: PredicateValue] = [:]
                    for (i, (key, tree)) in zip(ordered.map(\.key), trees).enumerated() {
                        let raw = s.value(Int32(i + 1))
                        let value = raw == .null && results[i].nullIsNaN ? PredicateValue.double(.nan) : results[i].kind.value(raw)
                        if case .double(let d) = value, d.isNaN {
                            throw StoreError(.invalidValue, "\(e.name).\(key) = \(tree) is NaN for the \(e.name) with key \(id), which the store cannot hold",
                                             hint: "guard the expression, e.g. with a ternary on the divisor")
                        }
                        values[key] = value
                    }
                    for (key, tree) in zip(ordered.map(\.key), trees) {
                        do throws(StoreError) { _ = try plan.assignment(key, values[key] ?? .null) } catch {
                            throw StoreError(error.kind, "\(e.name).\(key) = \(tree) gives \(values[key] ?? .null) for the \(e.name) with key \(id): \(error.message)",
                                             hint: error.hint)
                        }
                    }
                    rows.append((id, try plan.assignments(values)))
                }
                guard let first = rows.first else { return 0 }
                let sets = first.assignments.enumerated().map { i, a in "\(q(a.column)) = ?\(i + 1)" }
                let update = try connection.prepare("UPDATE \(q(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(q(root.primaryKey)) = ?\(sets.count + 1)")
                let linked = linkedColumns(of: e)
                for row in rows {
                    if row.assignments.contains(where: { linked.contains($0.column) }) {
                        let keys = CompiledSQL(sql: "SELECT \(q(root.primaryKey)) FROM \(q(root.table)) WHERE \(q(root.primaryKey)) = ?1", bindings: [.integer(row.id)])
                        try checkLinks(of: e, assignments: row.assignments, keys: keys)
                    }
                    try update.run(row.assignments.map(\.value) + [.integer(row.id)])
                }
                return rows.count
            }
        } }
        }
    }

    /// The columns of `entity`'s table that a link involves: a to-one's key column, or a
    /// column some to-one (from any entity) refers to. Writing one needs `checkLinks`.
    private func linkedColumns(of entity: ModelEntity) -> Set<String> {
        let root = model.root(entity)
        var out = Set(model.allRelationships(entity).filter { !$0.isToMany }.map(\.foreignKeyColumn))
        for source in model.entities {
            for r in source.relationships where !r.isToMany {
                guard let dest = try? model.entity(named: r.destination), model.root(dest).name == root.name else { continue }
                out.insert(r.referencedColumn ?? root.primaryKey)
            }
        }
        return out
    }
}

import PQL

extension PredicateStore {
    /// The groups of the matching records, one row per group: the group keys (named by their
    /// key paths) and the aggregates (named by their aliases), as `GroupQuery` describes them.
    /// One SQL statement: `GROUP BY` the keys (to-one key paths joined), the aggregates as the
    /// evaluator's own functions (`pql_average_function`, …), `having` and the sort around them.
    ///
    /// ```swift
    /// let worst = try store.fetch(GroupQuery("Flight", where: "dep_delay != nil", groupBy: ["airline.name"],
    ///                                        select: ["avg": "average:(dep_delay)"],
    ///                                        sort: [SortRule("avg", ascending: false)]))
    /// // [["airline.name": "Frontier Airlines Inc.", "avg": 20.2…], …]
    /// ```
    public func fetch(_ group: GroupQuery) throws(StoreError) -> [[String: PredicateValue]] {
        try fetchGroups(group, try GroupStatement.plan(group))
    }

    private func fetchGroups(_ group: GroupQuery, _ plan: GroupPlan) throws(StoreError) -> [[String: PredicateValue]] {
        try reading(within: group.limits, about: group.predicate) { (connection, model, indexes) throws(StoreError) in
            let (st, kinds, _) = try GroupStatement.build(group, model: model, indexes: indexes)
            let s = try run(st, on: connection)
            // A cached statement left open would hold its read transaction (an old snapshot, and no checkpoints).
            defer { s.reset() }
            var out: [[String: PredicateValue]] = []
            while try step(s) {
                out.append(plan.row(kinds.enumerated().map { $0.element.value(s.value(Int32($0.offset))) }))
            }
            return out
        }
    }

    /// The SQL and bindings of a grouping fetch, without running it.
    ///
    /// ```swift
    /// print(try store.sql(for: GroupQuery("Flight", groupBy: ["origin"], select: ["n": "count:(id)"])))
    /// ```
    public func sql(for group: GroupQuery) throws(StoreError) -> CompiledSQL {
        try locked { () throws(StoreError) in
            try GroupStatement.build(group, model: model, indexes: indexes()).sql
        }
    }
}

/// The statement of a grouping fetch, in any database's dialect:
/// `SELECT * FROM (SELECT keys, aggregates FROM … WHERE … GROUP BY keys) g WHERE having ORDER BY … LIMIT …`.
/// The dialect spells the aggregates (``SQLDialect/groupAggregate(_:of:kind:order:)``): SQLite
/// runs the evaluator's own, PostgreSQL native SQL with the evaluator's semantics.
package enum GroupStatement {
    package static func plan(_ group: GroupQuery) throws(StoreError) -> GroupPlan {
        do { return try GroupPlan(group) } catch { throw StoreError(evaluation: error) }
    }

    /// The statement, the kind of each column (keys, then aggregates), and the predicate's own
    /// value behind each parameter where it has one (see `SelectBuilder.typedBindings`).
    package static func build(_ group: GroupQuery, model: StoreModel, dialect: any SQLDialect,
                              prefixIndexes: PrefixIndexes? = nil) throws(StoreError) -> (sql: CompiledSQL, kinds: [SQLKind], typed: [PredicateValue?]) {
        try build(group, model: model, indexes: nil, dialect: dialect, prefixIndexes: prefixIndexes)
    }

    static func build(_ group: GroupQuery, model: StoreModel, indexes: IndexUse?,
                      dialect: any SQLDialect = SQLiteDialect(), prefixIndexes: PrefixIndexes? = nil) throws(StoreError) -> (sql: CompiledSQL, kinds: [SQLKind], typed: [PredicateValue?]) {
        let plan = try plan(group)
        let query = EntityQuery(group.entity, predicate: group.predicate, variables: group.variables, limits: group.limits)
        var b = try SelectBuilder(model: model, query: query, indexes: indexes, dialect: dialect)
        b.compiler.prefixIndexes = prefixIndexes
        // The groups' keys and aggregates are resolved after the WHERE: what they read is unknown here.
        let w = try b.whereClause(selecting: nil)
        var columns: [(sql: String, kind: SQLKind)] = []
        for path in plan.keys {
            switch try b.compiler.resolve(path, from: b.scope, alias: "t0", entity: b.entity, whole: path) {
            case .scalar(let e) where !e.isObject: columns.append((dialect.render(e.node), e.kind))
            default:
                let key = path.joined(separator: ".")
                throw StoreError(.unsupported, "cannot group by '\(key)'", hint: "group by an attribute, or an attribute of a to-one relationship: \(key).name")
            }
        }
        let groupBy = columns.map(\.sql)
        let order = dialect.render(b.scope.keyColumn)
        for item in plan.items {
            guard let operation = item.operation else {
                columns.append((dialect.render(.countAll), .integer))
                continue
            }
            let argument = group.variables.isEmpty ? item.argument : item.argument.substituting(group.variables)
            let x: SQLExpression
            do throws(StoreError) { x = try b.compiler.scalar(argument, in: b.scope) } catch {
                throw error.passing(through: .expression(argument))
            }
            if x.isObject {
                throw StoreError(.unsupported, "\(item.function.selector) cannot take a related object",
                                 hint: "aggregate one of its attributes: \(item.function.selector)(\(argument).name)")
            }
            let kind: SQLKind
            switch operation {
            case .average, .averageOperator: kind = .real
            case .sum, .sumOperator: kind = x.kind == .boolean ? .integer : x.kind.domain == .number ? x.kind : .unknown
            default: kind = x.kind
            }
            var aggregate: String
            do throws(StoreError) {
                guard let native = try dialect.groupAggregate(operation, of: dialect.render(x.node), kind: x.kind, order: order) else {
                    // The grouped form (value, kind, 1): nils skipped, a group without values nil.
                    let tag = b.compiler.bindRaw(.integer(x.tag))
                    columns.append((dialect.render(.call(.aggregate(operation), [x.node, tag, .integer(1)])), kind))
                    continue
                }
                aggregate = native
            } catch {
                throw error.passing(through: .expression(argument))
            }
            columns.append((aggregate, kind))
        }
        let names = columns.indices.map { dialect.quote("c\($0)") }
        let inner = "SELECT " + zip(columns, names).map { "\($0.sql) AS \($1)" }.joined(separator: ", ")
            + " FROM \(dialect.from(b.scope))\(w)" + (groupBy.isEmpty ? "" : " GROUP BY " + groupBy.joined(separator: ", "))
        var outer = "SELECT \(names.joined(separator: ", ")) FROM (\(inner)) g"
        if plan.having != .constant(true) {
            for (i, c) in columns.enumerated() {
                b.compiler.variables[GroupPlan.variableName(i)] = .value(SQLExpression(node: .column(alias: "g", name: "c\(i)"), kind: c.kind, nullable: true))
            }
            let having = group.variables.isEmpty ? plan.having : plan.having.substituting(group.variables)
            // Every key path became a variable: the scope only satisfies the compiler's signature.
            let scope = b.compiler.makeScope(b.entity)
            let c = try b.compiler.compile(having, in: scope)
            outer += " WHERE \(dialect.render(c.node))"
        }
        var terms: [String] = []
        for (column, rule) in plan.sort {
            terms.append(try dialect.sortTerm(names[column], rule, kind: columns[column].kind, values: SortedValues()))
        }
        for i in plan.keys.indices { terms.append(try dialect.sortTerm(names[i], SortRule("key"), kind: columns[i].kind, values: SortedValues())) }
        if !terms.isEmpty { outer += " ORDER BY " + terms.joined(separator: ", ") }
        if group.limit != nil || group.offset > 0 {
            let l = b.compiler.bindRaw(.integer(Int64(group.limit ?? -1)))
            let o = b.compiler.bindRaw(.integer(Int64(group.offset)))
            outer += dialect.page(limit: l, offset: o)
        }
        return (CompiledSQL(sql: outer, bindings: b.compiler.bindings.values), columns.map(\.kind), b.typedBindings)
    }
}

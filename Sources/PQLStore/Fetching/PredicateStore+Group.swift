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
        try reading(within: group.limits) { (connection, model, indexedColumns) throws(StoreError) in
            let (st, kinds) = try GroupStatement.build(group, model: model, indexedColumns: indexedColumns)
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
            try GroupStatement.build(group, model: model, indexedColumns: indexedColumns()).sql
        }
    }
}

/// The statement of a grouping fetch:
/// `SELECT * FROM (SELECT keys, aggregates FROM … WHERE … GROUP BY keys) g WHERE having ORDER BY … LIMIT …`.
enum GroupStatement {
    static func plan(_ group: GroupQuery) throws(StoreError) -> GroupPlan {
        do { return try GroupPlan(group) } catch { throw StoreError(evaluation: error) }
    }

    static func build(_ group: GroupQuery, model: StoreModel, indexedColumns: Set<IndexedColumn>?) throws(StoreError) -> (sql: CompiledSQL, kinds: [SQLKind]) {
        let plan = try plan(group)
        let query = EntityQuery(group.entity, predicate: group.predicate, variables: group.variables, limits: group.limits)
        var b = try SelectBuilder(model: model, query: query, indexedColumns: indexedColumns)
        let w = try b.whereClause()
        let dialect = b.dialect
        var columns: [(node: SQLNode, kind: SQLKind)] = []
        for path in plan.keys {
            switch try b.compiler.resolve(path, from: b.scope, alias: "t0", entity: b.entity, whole: path) {
            case .scalar(let e) where !e.isObject: columns.append((e.node, e.kind))
            default:
                let key = path.joined(separator: ".")
                throw StoreError(.unsupported, "cannot group by '\(key)'", hint: "group by an attribute, or an attribute of a to-one relationship: \(key).name")
            }
        }
        let groupBy = columns.map { dialect.render($0.node) }
        for item in plan.items {
            guard let operation = item.operation else {
                columns.append((.countAll, .integer))
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
            let tag = b.compiler.bindRaw(.integer(x.tag))
            let kind: SQLKind
            switch operation {
            case .average, .averageOperator: kind = .real
            case .sum, .sumOperator: kind = x.kind == .boolean ? .integer : x.kind.domain == .number ? x.kind : .unknown
            default: kind = x.kind
            }
            // The grouped form (value, kind, 1): nils skipped, a group without values nil.
            columns.append((.call(.aggregate(operation), [x.node, tag, .integer(1)]), kind))
        }
        let names = columns.indices.map { dialect.quote("c\($0)") }
        let inner = "SELECT " + zip(columns, names).map { "\(dialect.render($0.node)) AS \($1)" }.joined(separator: ", ")
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
        var order: [String] = []
        for (column, rule) in plan.sort {
            order.append("\(names[column])\(dialect.collation(rule.comparison)) \(rule.ascending ? "ASC" : "DESC")")
        }
        order += plan.keys.indices.map { "\(names[$0]) ASC" }
        if !order.isEmpty { outer += " ORDER BY " + order.joined(separator: ", ") }
        if group.limit != nil || group.offset > 0 {
            let l = b.compiler.bindRaw(.integer(Int64(group.limit ?? -1)))
            let o = b.compiler.bindRaw(.integer(Int64(group.offset)))
            outer += dialect.page(limit: l, offset: o)
        }
        return (CompiledSQL(sql: outer, bindings: b.compiler.bindings.values), columns.map(\.kind))
    }
}

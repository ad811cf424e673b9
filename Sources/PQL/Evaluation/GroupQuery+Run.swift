extension GroupQuery {
    /// The groups of the matching elements, one row per group (see ``GroupQuery``).
    ///
    /// ```swift
    /// let rows = try GroupQuery(groupBy: ["city"], select: ["n": "count:(name)"]).run(on: people)
    /// // [["city": "Paris", "n": 2], …]
    /// ```
    public func run<S: Sequence>(on elements: S, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [[String: PredicateValue]]
        where S.Element: PredicateEvaluable
    {
        try rows(in: Array(elements), reader: S.Element.predicateReader, functions: functions)
    }

    /// The groups of the matching elements of `elements`, read with `reader`.
    ///
    /// ```swift
    /// let rows = try query.rows(in: records, reader: PredicateValue.predicateReader)
    /// ```
    public func rows<Element>(in elements: [Element], reader: ValueReader<Element>,
                              functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [[String: PredicateValue]] {
        let plan = try GroupPlan(self)
        // No rows wanted: nothing is evaluated, as SQLite runs nothing under LIMIT 0.
        if limit == 0 { return [] }
        let matches = try PredicateQuery(predicate, variables: variables, limits: limits)
            .indices(in: elements, reader: reader, functions: functions)
        let compiler = EvaluatorCompiler(reader: reader, functions: functions)
        let keyReaders = try plan.keys.map { (k) throws(EvalError) in try compiler.compileKeyPath(k) }
        let substituted = plan.items.map { $0.argument.substituting(variables) }
        let argumentReaders = try substituted.map { (e) throws(EvalError) in try compiler.compile(e) }
        var state = EvaluationState(variables: variables, limits: limits)
        // Each group's aggregates, in order of first appearance; sorted below.
        var groups: [[PredicateValue]: Int] = [:]
        var keys: [[PredicateValue]] = []
        var aggregates: [[SharedSemantics.Aggregate?]] = []
        var counts: [Int] = []
        var valued: [[Bool]] = []   // per group and aggregate: was any non-nil value added
        let fresh = plan.items.map { $0.operation.map { SharedSemantics.Aggregate($0) } }
        if plan.keys.isEmpty {
            // Without group keys every element is in one group, matches or not (as SQL's aggregate of no rows).
            groups[[]] = 0
            keys.append([])
            aggregates.append(fresh)
            counts.append(0)
            valued.append(Array(repeating: false, count: fresh.count))
        }
        try EvaluationBudget.run(limits, about: predicate) { () throws(EvalError) in
            for i in matches {
                do throws(EvalError) {
                    try state.charge(keyReaders.count + argumentReaders.count)
                    var key: [PredicateValue] = []
                    for r in keyReaders { key.append(try r(elements[i], &state)) }
                    let g: Int
                    if let existing = groups[key] { g = existing } else {
                        g = keys.count
                        groups[key] = g
                        keys.append(key)
                        aggregates.append(fresh)
                        counts.append(0)
                        valued.append(Array(repeating: false, count: fresh.count))
                    }
                    counts[g] += 1
                    for (j, r) in argumentReaders.enumerated() {
                        let v = try r(elements[i], &state)
                        // Grouped aggregates skip nils, as SQL's and Core Data's do.
                        if aggregates[g][j] != nil, !v.isNull {
                            try aggregates[g][j]!.add(v)
                            valued[g][j] = true
                        }
                    }
                } catch {
                    throw error.on(element: i)
                }
            }
        }
        var rows: [[PredicateValue]] = []
        for g in keys.indices {
            var row = keys[g]
            for (j, a) in aggregates[g].enumerated() {
                // A group with no value to aggregate gives nil (SQL's rule), count: its records.
                if let a { row.append(valued[g][j] ? try a.result() : .null) } else { row.append(.int(Int64(counts[g]))) }
            }
            rows.append(row)
        }
        if plan.having != .constant(true) {
            let having = try CompiledPredicate(plan.having, reader: PredicateValue.predicateReader)
            var kept: [[PredicateValue]] = []
            for row in rows {
                if try having.evaluate(.null, variables: plan.variables(row, variables), limits: limits) { kept.append(row) }
            }
            rows = kept
        }
        let order = plan.sort + plan.keys.indices.map { (column: $0, rule: SortRule("key")) }
        rows.sort { a, b in
            for (column, rule) in order {
                var r = ValueComparison.sortOrder(a[column], b[column], rule.options)
                if !rule.ascending { r = r.reversed }
                if r != .orderedSame { return r == .orderedAscending }
            }
            return false
        }
        return rows[PredicateQuery.page(of: rows.count, offset: offset, limit: limit)].map(plan.row)
    }
}

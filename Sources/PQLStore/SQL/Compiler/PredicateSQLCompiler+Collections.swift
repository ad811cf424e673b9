import PQL

/// To-many key paths: quantifiers, membership, @count and the other aggregates, SUBQUERY.
///
/// ANY is `key IN (SELECT fk FROM destination WHERE …)`: uncorrelated, so SQLite runs the
/// subquery once and probes it by key (measured 8x faster than a correlated
/// EXISTS, which is also quadratic without an index: reference §8.2). ALL is its complement over the
/// elements that fail; NONE parses as NOT ANY. Aggregates are correlated scalar subqueries
/// that the foreign-key index answers.
extension PredicateSQLCompiler {
    /// A subquery's FROM and WHERE over the destination rows of `src`, with `$variable` bound.
    /// Uncorrelated element lists skip rows whose key is NULL only when `skipNullKeys` (for
    /// NOT IN, where a NULL in the list would make every miss NULL); `key IN (…)` does not need
    /// it, and the test would cost a comparison per destination row.
    mutating func elements(of src: CollectionSource, correlated: Bool, skipNullKeys: Bool = true,
                                   body: (inout PredicateSQLCompiler, SQLScope, SQLExpression?) throws(StoreError) -> SQLNode?)
        throws(StoreError) -> (from: SQLScope, conditions: [SQLNode])
    {
        let inner = elementScope(src)
        let remote = inner.ownerKey ?? .column(alias: inner.alias, name: src.remoteColumn)
        var conditions: [SQLNode] = correlated ? [.binary(remote, .equal, src.outerKey.node)] : skipNullKeys ? [.isNull(remote, negated: true)] : []
        if let f = entityFilter(src.destination, alias: inner.alias) { conditions.append(f) }
        // The element value, when the path goes on past the relationship.
        var element: SQLExpression? = nil
        let rest = src.rest.filter { !CollectionOperator.isOperator($0) }
        if !rest.isEmpty {
            switch try resolve(rest, from: inner, alias: inner.alias, entity: src.destination, whole: [src.name] + rest) {
            case .scalar(let x): element = x
            case .collection(let c):
                throw fail(.unsupported, "invalid keypath '\(src.name).\(rest.joined(separator: "."))': too many to-many relationships (\(src.name), \(c.name))",
                           hint: "nest the second one in a SUBQUERY: SUBQUERY(\(src.name), $x, ANY $x.\(c.name)… )")
            case .values: break
            }
        }
        if let (variable, predicate) = src.filter {
            let saved = variables[variable]
            variables[variable] = element.map { Binding.value($0) } ?? Binding.object(inner)
            defer { variables[variable] = saved }
            // Only `$variable` reaches the element; everything else is the outer row (§4.8).
            conditions.append(try compile(predicate, in: src.filterScope ?? inner).node)
        }
        if let extra = try body(&self, inner, element) { conditions.append(extra) }
        return (inner, conditions)
    }

    /// The destination rows of `src` under a new alias, their owner key marked: the inverse's
    /// foreign key, or for a many-to-many the join table joined in (`dest JOIN links ON
    /// links.destination = dest.key`), so that one link is one element and every form over a
    /// to-many (ANY, ALL, SUBQUERY, @count, the aggregates) reads a many-to-many unchanged.
    mutating func elementScope(_ src: CollectionSource) -> SQLScope {
        let inner = makeScope(src.destination)
        if let links = src.links {
            inner.joinLinks(links, alias: nextAlias())
        } else {
            inner.ownerKey = .column(alias: inner.alias, name: src.remoteColumn)
        }
        return inner
    }

    /// `SELECT fk FROM destination WHERE conditions`: the keys of the rows with an element
    /// that passes, for `key IN (…)`. Uncorrelated, the database lists them once. But when a
    /// condition reads the outer row (`ANY tags.name ==[c] name`), the list is made again for
    /// every outer row, and each time from every destination row: a fold or a comparison per
    /// pair of rows, quadratic (PostgreSQL cancelled such statements on a thousand rows). Then
    /// the list is correlated on the foreign key too (`fk = key`), so each outer row reads only
    /// its own elements, through the foreign-key index, in SQLite and in PostgreSQL alike.
    mutating func keyList(_ src: CollectionSource, from: SQLScope, conditions: [SQLNode]) -> SQLSelect {
        let remote = from.ownerKey ?? .column(alias: from.alias, name: src.remoteColumn)
        var sub = SQLSelect(columns: [remote], from: from, conditions: conditions)
        if !sub.freeAliases.isEmpty {
            sub.conditions.insert(.binary(remote, .equal, src.outerKey.node), at: 0)
        }
        return sub
    }

    /// `(SELECT COUNT(*) …)`: the number of destination rows (SUBQUERY: of those that match).
    mutating func count(_ src: CollectionSource) throws(StoreError) -> SQLExpression {
        let (from, conditions) = try elements(of: src, correlated: true) { _, _, _ throws(StoreError) in nil }
        return SQLExpression(node: .subquery(SQLSelect(columns: [.countAll], from: from, conditions: conditions)),
                             kind: .integer, nullable: false)
    }

    /// `rel.@sum.x`, `@avg`, `@min`, `@max`, `@count` (also after a SUBQUERY's filter).
    mutating func aggregate(_ src: CollectionSource) throws(StoreError) -> SQLExpression {
        let ops = src.rest.filter(CollectionOperator.isOperator)
        guard ops.count == 1, let op = ops.first else {
            throw fail(.unsupported, "only one collection operator per key path in the store")
        }
        let known = CollectionOperator(component: op)
        if known == .count {
            guard src.rest.last == op else {
                throw fail(.unsupported, "invalid keypath: it continues after @count")
            }
            return try count(src)
        }
        guard let operation = known?.aggregate else {
            throw fail(.unsupported, "the collection operator \(op) has no SQL form",
                       hint: "the store supports @count, @sum, @avg, @min and @max; fetch and use \(op) in memory")
        }
        guard src.rest.first == op, src.rest.count > 1 else {
            throw fail(.unsupported, "\(op) needs an attribute after it", hint: "write \(src.name).\(op).attribute")
        }
        var plain = src
        plain.rest.removeFirst()
        return try aggregate(operation, over: plain)
    }

    /// An aggregate over the values of a to-many key path (`rel.attr`, after a SUBQUERY's
    /// filter too), one value per row: a correlated subquery the foreign-key index answers.
    ///
    /// `@sum`, `@avg`, the functions `sum:`, `average:`, `min:`, `max:`, and `@min`/`@max` of
    /// values SQLite does not order as the evaluator does (data, unknown kinds) run the
    /// evaluator's own aggregate (`pql_sum`, …: nil counted as 0 or an error, integer sums
    /// exact or an overflow error, non-numbers raised where memory raises them). `@min` and
    /// `@max` of numbers, strings and dates use SQLite's `min`/`max`, which skip NULL as they do.
    mutating func aggregate(_ operation: SharedSemantics.Aggregate.Operation, over src: CollectionSource) throws(StoreError) -> SQLExpression {
        var value: SQLExpression? = nil
        let (from, conditions) = try elements(of: src, correlated: true) { _, _, element throws(StoreError) in
            value = element
            return nil
        }
        guard let value, !value.isObject else {
            throw fail(.unsupported, "\(operation.rawValue) needs an attribute of \(src.name)'s objects",
                       hint: "write \(operation.isCollectionOperator ? "\(src.name).\(operation.rawValue).attribute" : "\(operation.rawValue)(\(src.name).attribute)")")
        }
        let select: SQLNode, kind: SQLKind
        let native = [.number, .string, .date].contains(value.kind.domain)
        switch operation {
        case .minOperator where native, .maxOperator where native:
            if nativeOnly && value.kind == .boolean {
                refuse("\(operation.rawValue) of a boolean attribute", hint: "count the true ones instead: SUBQUERY(…, $x, $x.flag == YES).@count > 0")
            }
            select = .call(operation == .minOperator ? .min : .max, [nativeOnly ? collatedIfText(value) : value.node])
            kind = value.kind
        case .sumOperator where nativeOnly, .averageOperator where nativeOnly:
            // The evaluator's @sum skips nil, as SQL's sum does (and is 0 for no elements);
            // its @avg counts nil as 0, so SQL averages coalesce(x, 0). Numbers only: a
            // boolean or a string raises in memory.
            guard [.integer, .real, .decimal].contains(value.kind) else {
                refuse("\(operation.rawValue) of a value that is not a number",
                       hint: "\(operation.rawValue) in PostgreSQL takes an integer, double or decimal attribute")
                return SQLExpression(node: .boolean(false), kind: .unknown, nullable: true)
            }
            select = operation == .sumOperator ? .call(.sum, [value.node])
                                               : .call(.average, [value.nullable ? .call(.coalesce, [value.node, .integer(0)]) : value.node])
            kind = operation == .sumOperator ? value.kind : .real
        default:
            if nativeOnly {
                refuse("\(operation.rawValue) of \(src.name)", hint: "PostgreSQL fetches take @count, @sum, @avg, @min and @max of attributes of text, numbers or dates")
            }
            let tag = bindRaw(.integer(value.tag))
            select = .call(.aggregate(operation), [value.node, tag, .integer(0), sourceNode])
            switch operation {
            case .averageOperator, .average: kind = .real
            case .sumOperator, .sum: kind = value.kind == .boolean ? .integer : value.kind.domain == .number ? value.kind : .unknown
            default: kind = value.kind
            }
        }
        return SQLExpression(node: .subquery(SQLSelect(columns: [select], from: from, conditions: conditions)),
                             kind: kind, nullable: operation != .sumOperator && operation != .sum)
    }

    /// `ANY`/`ALL` (and `NONE` = `NOT ANY`) over a collection.
    mutating func compileQuantified(_ c: ComparisonNode, options: SharedSemantics.Options, in scope: SQLScope) throws(StoreError) -> SQLCondition {
        let isAll = c.quantifier == .all
        switch try operand(c.lhs, in: scope) {
        case .collection(let src) where src.filter == nil && !src.hasOperator:
            let rhs = c.rhs
            let (from, conditions) = try elements(of: src, correlated: false, skipNullKeys: isAll) { compiler, inner, element throws(StoreError) in
                // No key after the relationship: the elements are its objects (`ANY tags == %@`).
                let element = element ?? compiler.object(inner, entity: src.destination, nullable: false)
                let r = try compiler.operandForElement(rhs, scope: scope)
                let cond = try compiler.compareElement(c.op, options: options, element, r, scope: scope)
                return isAll ? .not(.call(.coalesce, [cond.node, .boolean(false)])) : cond.node
            }
            let sub = keyList(src, from: from, conditions: conditions)
            if isAll {
                // ALL over no elements holds (§3.2), including a row whose key is NULL.
                let notIn = SQLNode.inSubquery(src.outerKey.node, sub, negated: true)
                return SQLCondition(node: .parenthesized(src.outerKey.nullable ? .chain([.isNull(src.outerKey.node, negated: false), notIn], .or) : notIn),
                                    nullable: false)
            }
            return SQLCondition(node: .inSubquery(src.outerKey.node, sub, negated: false), nullable: true)
        case .values(let items):
            // ANY {a, b} == x: one comparison per element.
            var parts: [SQLCondition] = []
            let r = try operandForElement(c.rhs, scope: scope)
            for item in items { parts.append(try compareElement(c.op, options: options, item, r, scope: scope)) }
            if parts.isEmpty {
                // ANY {} … / ALL {} …: the right side is still evaluated, as in memory.
                if case .scalar(let x) = r { return decided(isAll, evaluating: [x]) }
                return isAll ? .alwaysTrue : .alwaysFalse
            }
            let joined = parts.map { isAll ? $0.definite : $0.node }
            return SQLCondition(node: .parenthesized(.chain(joined, isAll ? .and : .or)), nullable: !isAll && parts.contains { $0.nullable })
        default:
            throw fail(.unsupported, "\(isAll ? "ALL" : "ANY") needs a to-many key path or a collection on its left",
                       hint: "drop the quantifier for a single value, or quantify over a to-many relationship's attribute")
        }
    }

    /// The right side of a quantified comparison (a scalar or a collection of values).
    private mutating func operandForElement(_ e: ExpressionNode, scope: SQLScope) throws(StoreError) -> SQLOperand {
        let r = try operand(e, in: scope)
        if case .collection(let src) = r, src.hasOperator || src.filter != nil {
            locator?.enter(.expression(e))
            defer { locator?.leave() }
            return .scalar(try aggregateOrCount(src))
        }
        return r
    }

    private mutating func compareElement(_ op: ComparisonOperator, options: SharedSemantics.Options, _ element: SQLExpression,
                                         _ r: SQLOperand, scope: SQLScope) throws(StoreError) -> SQLCondition {
        switch (op, r) {
        case (.in, .values(let items)): return try membership(element, inValues: items, options: options)
        case (.between, .values(let bounds)): return try between(element, bounds, options: options)
        case (.in, .collection(let src)): return try membership(element, in: src, options: options, scope: scope)
        case (_, .scalar(let x)):
            return try compare(op, options: options, element, x)
        default:
            throw fail(.unsupported, "ANY, ALL and NONE compare each element with one value, or test it IN a collection; \(op.symbol) with a collection on the right has no SQL form",
                       hint: "compare with one value (ANY tags == 1), or write ANY tags IN {1, 2}")
        }
    }

    mutating func aggregateOrCount(_ src: CollectionSource) throws(StoreError) -> SQLExpression {
        src.hasOperator ? try aggregate(src) : try count(src)
    }
}

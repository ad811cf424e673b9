import PQL

/// How one database spells the compiler's SQL structure: identifiers, parameters, truth values,
/// the names of functions, paging. The structure (``SQLNode``, ``SQLSelect``, ``SQLScope``) is
/// the same for every database; what every SQL database spells alike is rendered here once.
package protocol SQLDialect: Sendable {
    /// `name` quoted as an identifier.
    func quote(_ name: String) -> String
    /// The placeholder of parameter `slot` (0-based).
    func parameter(_ slot: Int) -> String
    /// A truth value where a condition stands.
    func boolean(_ value: Bool) -> String
    /// The name a function is called by.
    func name(of function: SQLFunction) -> String
    /// ` LIMIT … OFFSET …` (with its leading space), from two bound values.
    func page(limit: SQLNode, offset: SQLNode) -> String
    /// ` COLLATE …` (with its leading space) that orders text as a sort rule's comparison does;
    /// empty for the literal order.
    func collation(_ comparison: SortRule.Comparison) -> String
    /// Whether the database has none of PQL's `pql_*` functions: the compiler then writes
    /// native SQL where the database agrees with PQL, and refuses the rest (`nativeOnly`).
    var nativeOnly: Bool { get }
    /// A call of `function` with its arguments.
    func call(_ function: SQLFunction, _ args: [SQLNode]) -> String
    /// One ORDER BY term, direction included, for the rendered `expression` (a value of
    /// `kind`) sorted by `rule`, whose `values` are known to hold no NULL or no NaN.
    func sortTerm(_ expression: String, _ rule: SortRule, kind: SQLKind, values: SortedValues) throws(StoreError) -> String
    /// `table` as the FROM clause names it (qualified by a schema where the database has them).
    /// An aggregate of integer keys (`column`) as one text, comma-separated in ascending order.
    func keyList(_ column: String) -> String
    func table(_ name: String) -> String
    /// How a binary operator is spelled (PostgreSQL has no `IS` between two values).
    func spelling(_ op: SQLBinaryOperator) -> String
    /// A grouping fetch's aggregate in the database's own SQL: `operation` over the group's
    /// values of `value` (rendered, of `kind`) with the evaluator's semantics (nils skipped, a
    /// group without a value nil); `order` is the row key, the order memory meets a group's
    /// elements in. nil: the evaluator's own `pql_*` aggregate, which the database has (SQLite).
    /// Throws `.unsupported` for what the database cannot compute as the evaluator does.
    func groupAggregate(_ operation: SharedSemantics.Aggregate.Operation, of value: String, kind: SQLKind, order: String) throws(StoreError) -> String?
}

extension SQLDialect {
    package var nativeOnly: Bool { false }

    package func call(_ function: SQLFunction, _ args: [SQLNode]) -> String {
        "\(name(of: function))(\(args.map(render).joined(separator: ", ")))"
    }

    /// SQLite orders NULL first ascending, as PQL does, and stores no NaN (it binds NaN as
    /// NULL): the plain term, which an index on the column serves.
    package func sortTerm(_ expression: String, _ rule: SortRule, kind: SQLKind, values: SortedValues) throws(StoreError) -> String {
        expression + collation(rule.comparison) + (rule.ascending ? " ASC" : " DESC")
    }

    package func table(_ name: String) -> String { quote(name) }

    /// SQLite's `group_concat`: the rows come in the order of the subquery it reads.
    package func keyList(_ column: String) -> String { "group_concat(\(column), ',')" }

    package func groupAggregate(_ operation: SharedSemantics.Aggregate.Operation, of value: String, kind: SQLKind, order: String) throws(StoreError) -> String? { nil }

    /// `alias."column"`.
    package func column(_ name: String, of alias: String) -> String { "\(alias).\(quote(name))" }

    /// The text of `node`.
    package func render(_ node: SQLNode) -> String {
        switch node {
        case .column(let alias, let name): return column(name, of: alias)
        case .parameter(let slot): return parameter(slot)
        case .integer(let n): return String(n)
        case .boolean(let b): return boolean(b)
        case .call(let f, let args): return call(f, args)
        case .countAll: return "COUNT(*)"
        case .binary(let l, let op, let r): return "\(render(l)) \(spelling(op)) \(render(r))"
        case .chain(let terms, let op): return terms.map(render).joined(separator: " \(spelling(op)) ")
        case .not(let x): return "NOT \(render(x))"
        case .isNull(let x, let negated): return "\(render(x)) \(negated ? "IS NOT NULL" : "IS NULL")"
        case .unaryPlus(let x): return "+\(render(x))"
        case .parenthesized(let x): return "(\(render(x)))"
        case .caseWhen(let c, let a, let b): return "CASE WHEN \(render(c)) THEN \(render(a)) ELSE \(render(b)) END"
        case .inList(let x, let items): return "\(render(x)) IN (\(items.map(render).joined(separator: ", ")))"
        case .inSubquery(let x, let s, let negated): return "\(render(x)) \(negated ? "NOT IN" : "IN") (\(render(s)))"
        case .subquery(let s): return "(\(render(s)))"
        case .between(let x, let lo, let hi): return "\(render(x)) BETWEEN \(render(lo)) AND \(render(hi))"
        case .collated(let x): return collated(render(x))
        case .like(let x, let p): return "\(render(x)) LIKE \(render(p)) ESCAPE '\\'"
        }
    }

    /// `SELECT columns FROM … WHERE …`.
    package func render(_ s: SQLSelect) -> String {
        let columns = s.columns.map(render).joined(separator: ", ")
        let conditions = s.conditions.isEmpty ? "" : " WHERE " + s.conditions.map(render).joined(separator: " AND ")
        return "SELECT \(columns) FROM \(from(s.from))\(conditions)"
    }

    /// `table alias LEFT JOIN table alias ON …`.
    package func from(_ scope: SQLScope) -> String {
        ([table(scope.table) + " " + scope.alias] + scope.joins.map { "\($0.isInner ? "JOIN" : "LEFT JOIN") \(table($0.table)) \($0.alias) ON \(render($0.on))" })
            .joined(separator: " ")
    }

    /// Text in Unicode scalar order: `COLLATE "C"` (SQLite's default BINARY order already is).
    /// In parentheses: BETWEEN's bounds take no COLLATE clause of their own.
    package func collated(_ x: String) -> String { nativeOnly ? "(" + x + #" COLLATE "C")"# : x }

    package func spelling(_ op: SQLBinaryOperator) -> String { Self.standardSpelling(op) }

    /// The spelling SQLite (and most databases) use.
    package static func standardSpelling(_ op: SQLBinaryOperator) -> String {
        switch op {
        case .equal: return "="
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        case .isSame: return "IS"
        case .isNotSame: return "IS NOT"
        case .and: return "AND"
        case .or: return "OR"
        }
    }
}

import PQL

/// An SQL expression with what the compiler knows of its values.
struct SQLExpression {
    var node: SQLNode
    var kind: SQLKind
    /// Whether it can be NULL.
    var nullable: Bool
    /// The value, when the expression is a bound constant.
    var constant: PredicateValue? = nil
    /// An object (a to-one relationship's destination, `SELF`, a to-many's element): its SQL is
    /// the row's key, and it compares with nil, another object or a key value (Objects.swift).
    var isObject = false
    /// The entity of an object, for messages and for refusing objects that can never be equal.
    var objectEntity: String? = nil
    /// A result of `pql_fn`, which is never nil: SQL NULL from it is NaN, which SQLite cannot
    /// store (`score / 0.0` with a zero score, `modulus:by:(x, 0.0)`). Its nil tests are
    /// constant, and the shared functions are told (`tag`) to read its NULL back as NaN.
    var nullIsNaN = false
    /// The table and column it reads, when it is a plain attribute column (for index-aware forms).
    var column: IndexedColumn? = nil

    var isNullConstant: Bool { constant?.isNull ?? false }
    /// Whether evaluating it can raise: it calls one of PQL's functions that can.
    var canRaise: Bool { constant == nil && node.canRaise }
    /// Whether it can be nil as the evaluator sees it.
    var canBeNil: Bool { nullable && !nullIsNaN }
    /// The kind tag the shared SQLite functions take (see `SQLiteFunctions.value`).
    var tag: Int64 { kind.tag | (nullIsNaN ? SQLKind.nanFlag : 0) | (isObject ? SQLKind.objectFlag : 0) }
}

/// A table's column, named case-insensitively as SQLite names them.
package struct IndexedColumn: Hashable, Sendable {
    package var table: String
    package var column: String

    package init(table: String, column: String) {
        self.table = table.lowercased()
        self.column = column.lowercased()
    }
}

/// What a PostgreSQL store read of its schema's indexes, for `BEGINSWITH[c]`, whose fastest
/// form differs between a scan and an index search (see `nativePrefix`).
package struct PrefixIndexes: Sendable, Equatable {
    /// Columns that lead a B-tree in scalar order (`COLLATE "C"`): the ranges of certain
    /// matches search it.
    package var ordered: Set<IndexedColumn>
    /// Columns whose `[c]` fold (`pql.fold_c(column)`) leads an index: the fold's LIKE searches it.
    package var caseFolded: Set<IndexedColumn>

    package init(ordered: Set<IndexedColumn>, caseFolded: Set<IndexedColumn>) {
        self.ordered = ordered
        self.caseFolded = caseFolded
    }
}

/// An SQL condition. `nullable` conditions may be NULL where the evaluator says false: NULL
/// behaves as false under AND, OR and WHERE, so only NOT needs care (see `negated`).
struct SQLCondition {
    var node: SQLNode
    var nullable: Bool

    /// An AND or OR of several conditions.
    var compound = false

    /// Whether SQLite must evaluate it short-circuiting, as the evaluator does: an AND/OR that
    /// runs PQL's functions may guard one operand with another (`x != nil AND x + 1 > 2`), and
    /// SQLite (3.40) evaluates both operands of an AND/OR that is a function's argument (as in
    /// `coalesce(…)`), which would run `pql_fn` on the NULL rows and raise where memory does
    /// not. A CASE condition short-circuits as WHERE does.
    var needsShortCircuit: Bool { compound && node.canRaise }

    /// `NOT c`, a NULL `c` counting as false.
    var negated: SQLNode {
        if !nullable { return .not(.parenthesized(node)) }
        return needsShortCircuit ? .parenthesized(.caseWhen(node, then: .boolean(false), else: .boolean(true)))
                                 : .not(.call(.coalesce, [node, .boolean(false)]))
    }

    /// The condition as 0 or 1, never NULL.
    var definite: SQLNode {
        if !nullable { return node }
        return needsShortCircuit ? .parenthesized(.caseWhen(node, then: .boolean(true), else: .boolean(false)))
                                 : .call(.coalesce, [node, .boolean(false)])
    }

    /// Whether it holds for every row.
    var isAlwaysTrue: Bool { node.isBoolean(true) }

    static var alwaysTrue: SQLCondition { SQLCondition(node: .boolean(true), nullable: false) }
    static var alwaysFalse: SQLCondition { SQLCondition(node: .boolean(false), nullable: false) }
}

/// The parameters of one statement. Each value keeps the slot it was bound in, so fragments
/// can be assembled in any order; the dialect numbers the placeholders from the slots.
struct SQLBindings {
    private(set) var values: [SQLValue] = []
    /// The predicate's own value behind each slot, when it has one: a database with typed
    /// parameters (PostgreSQL) binds a date, a boolean or a decimal as itself, not as SQLite's number.
    private(set) var typed: [PredicateValue?] = []

    mutating func add(_ value: SQLValue, typed original: PredicateValue? = nil) -> SQLNode {
        values.append(value)
        typed.append(original)
        return .parameter(values.count - 1)
    }

    /// Gives the parameter in `slot` another value, for a constant the compiler prepares after
    /// binding it (a member folded for `IN[c]`).
    mutating func replace(_ slot: Int, with value: SQLValue) {
        values[slot] = value
        typed[slot] = nil
    }
}

/// A compiled statement: SQL text and its parameter values.
///
/// ```swift
/// let compiled = try store.sql(for: EntityQuery("Flight", where: "dest == %@", ["SFO"]))
/// compiled.bindings   // [.text("SFO")]
/// ```
public struct CompiledSQL: Hashable, Sendable, CustomStringConvertible {
    /// The statement, with numbered parameters where values go (`?1`, `?2`… for SQLite; `$1`, `$2`… for PostgreSQL).
    public let sql: String
    /// The values bound to the parameters, in order.
    public let bindings: [SQLValue]

    /// How the SQL spells a parameter before its number: `?` (SQLite) or `$` (PostgreSQL), so
    /// that the ``description`` names the bindings as the SQL does.
    package let parameterPrefix: String

    package init(sql: String, bindings: [SQLValue], parameterPrefix: String = "?") {
        self.sql = sql
        self.bindings = bindings
        self.parameterPrefix = parameterPrefix
    }

    /// The SQL, then its bindings on a line of their own, numbered as the SQL numbers them
    /// (`-- bindings: ?1 = 'x'` for SQLite, `-- bindings: $1 = 'x'` for PostgreSQL).
    public var description: String {
        var s = sql
        if !bindings.isEmpty {
            s += "\n-- bindings: " + bindings.enumerated().map { "\(parameterPrefix)\($0.offset + 1) = \($0.element)" }.joined(separator: ", ")
        }
        return s
    }
}

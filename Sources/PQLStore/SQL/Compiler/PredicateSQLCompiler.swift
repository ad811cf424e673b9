import Foundation
import PQL

/// Compiles a predicate tree into an SQL condition on one entity's table (reference §8, decision D3).
///
/// The result is SQL structure (``SQLNode``), not text: a ``SQLDialect`` spells it once the
/// statement is complete. Every value becomes a parameter slot; every identifier comes from the
/// model and is quoted by the dialect. Comparisons SQLite answers the evaluator's way (same-kind operands, literal
/// options) compile to native SQL an index can serve; everything else goes through the shared
/// `pql_*` functions, which run the evaluator's own code. To-one key paths become LEFT JOINs;
/// to-many ones become subqueries (`key IN (SELECT fk …)` for ANY, measured in reference §8.2).
struct PredicateSQLCompiler {
    let model: StoreModel
    var bindings = SQLBindings()
    /// Table aliases t1, t2, … (shared by every scope of one statement).
    private let aliases = AliasCounter()
    /// `$x` of the SUBQUERYs being compiled: an object (a scope) or a value.
    var variables: [String: Binding] = [:]
    /// The columns that lead an index, when known: some forms differ for a scan and for an
    /// index search (see `caseInsensitivePrefix`). nil: assume an index may serve any column.
    var indexedColumns: Set<IndexedColumn>? = nil
    /// Native-only mode's counterpart, when the store read it: the indexes PostgreSQL's
    /// `BEGINSWITH[c]` forms differ by (see `nativePrefix`). nil: assume both kinds serve.
    var prefixIndexes: PrefixIndexes? = nil
    /// Where in the predicate's source map the node being compiled is, while compiling a
    /// parsed predicate: the `pql_*` calls that can raise take its index (see `sourceNode`).
    var locator: SourceLocator? = nil
    /// For a database without PQL's `pql_*` functions (PostgreSQL): native SQL where the
    /// database agrees with the evaluator, and where it does not, the first construct refused
    /// (``refusal``) instead of a call no server has. Set from ``SQLDialect/nativeOnly``.
    var nativeOnly = false
    /// What native-only mode could not write, with a hint: the statement must not run.
    var refusal: StoreError? = nil

    enum Binding {
        case object(SQLScope)
        case value(SQLExpression)
    }

    init(model: StoreModel) {
        self.model = model
    }

    func nextAlias() -> String { aliases.next() }

    /// A scope for the entity's table; the first one is `t0`.
    mutating func makeScope(_ entity: ModelEntity, alias: String? = nil) -> SQLScope {
        SQLScope(entity: entity, storage: model.root(entity), alias: alias ?? nextAlias())
    }

    /// An error about the node being compiled: the compile functions of predicates and
    /// operands note their node on it as it passes (``StoreError/passing(through:)``), and the
    /// innermost is where the caret goes.
    func fail(_ kind: StoreError.Kind, _ message: String, hint: String? = nil) -> StoreError {
        StoreError(kind, message, hint: hint)
    }

    /// Notes that native-only mode has no SQL for `construct` (the first one noted is reported).
    mutating func refuse(_ construct: String, hint: String) {
        if refusal == nil {
            refusal = StoreError(.unsupported, "\(construct) has no PostgreSQL form in PQL yet", hint: hint)
        }
    }

    mutating func bind(_ v: PredicateValue) -> SQLExpression {
        // Collections never reach a parameter: IN and BETWEEN take their elements apart first.
        let node = bindings.add(SQLValue(v) ?? .null, typed: v)
        if case .double(let d) = v, d.isNaN, !nativeOnly {
            // SQLite binds NaN as NULL: the constant is a NULL that means NaN, which the
            // comparisons tell from nil (`x != NaN` holds where x is nil, `x == NaN` nowhere).
            return SQLExpression(node: node, kind: .real, nullable: true, constant: v, nullIsNaN: true)
        }
        return SQLExpression(node: node, kind: SQLKind(v), nullable: v.isNull, constant: v)
    }

    mutating func bindRaw(_ v: SQLValue) -> SQLNode { bindings.add(v) }

    /// The rows of `entity` in `scope` (sub-entities share their root's table).
    mutating func entityFilter(_ entity: ModelEntity, alias: String) -> SQLNode? {
        // The root's table holds exactly the root's tree: only a sub-entity needs a filter.
        guard model.isInheritanceTree(entity), entity.parent != nil else { return nil }
        let list = model.descendants(entity).map { bindRaw(.integer(Int64(model.entityNumber($0)))) }
        return .inList(.column(alias: alias, name: StoreSchema.entityColumn), list)
    }

    // MARK: predicates

    mutating func compile(_ p: PredicateNode, in scope: SQLScope) throws(StoreError) -> SQLCondition {
        locator?.enter(.predicate(p))
        defer { locator?.leave() }
        do throws(StoreError) { return try compileNode(p, in: scope) } catch { throw error.passing(through: .predicate(p)) }
    }

    /// The last argument of a `pql_*` call that can raise: the index of the node being compiled
    /// in the predicate's source map, or -1. A literal the compiler makes, like the kind tags'
    /// meaning, not a value: it is the same for every value a `%@` or `$variable` takes.
    var sourceNode: SQLNode { .integer(Int64(locator?.node ?? -1)) }

    private mutating func compileNode(_ p: PredicateNode, in scope: SQLScope) throws(StoreError) -> SQLCondition {
        switch p {
        case .constant(let b): return b ? .alwaysTrue : .alwaysFalse
        case .and(let parts), .or(let parts):
            let isAnd: Bool = { if case .and = p { return true } else { return false } }()
            if parts.isEmpty { return isAnd ? .alwaysTrue : .alwaysFalse }
            var out: [SQLCondition] = []
            for q in parts { out.append(try compile(q, in: scope)) }
            if out.count == 1 { return out[0] }
            if nativeOnly && isAnd && out.contains(where: { $0.node.canRaise }) {
                // SQL's NULL AND x runs x, where the evaluator's false stops: a term that may be
                // NULL stops the AND before a term that can raise only once it is made false.
                out = out.map { $0.nullable ? SQLCondition(node: $0.definite, nullable: false) : $0 }
            }
            return SQLCondition(node: Self.chain(out.map(\.node), isAnd ? .and : .or),
                                nullable: out.contains { $0.nullable }, compound: true)
        case .not(let q):
            let c = try compile(q, in: scope)
            // NULL stands for false everywhere but under NOT (SQL's NOT NULL is NULL).
            return SQLCondition(node: c.negated, nullable: false)
        case .comparison(let c):
            return try compile(c, in: scope)
        }
    }
}

extension PredicateSQLCompiler {
    /// Terms a flat `(a OR b OR …)` may have: SQLite parses the chain as a left-deep tree and
    /// rejects a tree deeper than 1,000 ("Expression tree is too large"), so longer chains are
    /// grouped into parenthesised chains of at most this many terms, nested as needed.
    static let maxChainLength = 64

    /// `(t1 op t2 op …)`, grouped so that SQLite's expression depth stays logarithmic.
    static func chain(_ terms: [SQLNode], _ op: SQLBinaryOperator) -> SQLNode {
        var level = terms
        repeat {
            level = stride(from: 0, to: level.count, by: maxChainLength).map { start in
                let group = level[start..<min(start + maxChainLength, level.count)]
                return group.count == 1 ? group[group.startIndex] : .parenthesized(.chain(Array(group), op))
            }
        } while level.count > 1
        return level[0]
    }
}

final class AliasCounter {
    private var n = 0
    func next() -> String {
        n += 1
        return "t\(n)"
    }
}

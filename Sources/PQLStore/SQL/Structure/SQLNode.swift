import PQL

/// An SQL expression as the compiler builds it: a tree whose properties (can it raise an
/// evaluation error, is it a constant) are read from its structure, and which a
/// ``SQLDialect`` spells late, into text and bindings. Values are never in it: a value is a
/// ``parameter(_:)``, a slot of the statement's ``SQLBindings``; identifiers come from the model.
package indirect enum SQLNode {
    /// `alias."column"`: a column of a table in a FROM clause.
    case column(alias: String, name: String)
    /// The statement's parameter number `slot` (0-based), bound to a value.
    case parameter(Int)
    /// An integer the compiler writes itself (a source-map node), never a value of the query.
    case integer(Int64)
    /// True or false, as the dialect spells truth values in conditions.
    case boolean(Bool)
    /// A call of a function the compiler knows by identity.
    case call(SQLFunction, [SQLNode])
    /// `COUNT(*)`.
    case countAll
    /// `l op r`.
    case binary(SQLNode, SQLBinaryOperator, SQLNode)
    /// `t1 op t2 op …`, without parentheses of its own (AND and OR chains).
    case chain([SQLNode], SQLBinaryOperator)
    /// `NOT x`.
    case not(SQLNode)
    /// `x IS NULL`, or `x IS NOT NULL` when `negated`.
    case isNull(SQLNode, negated: Bool)
    /// `+x`: the value of `x`, which SQLite no longer matches against an index.
    case unaryPlus(SQLNode)
    /// `(x)`.
    case parenthesized(SQLNode)
    /// `CASE WHEN condition THEN a ELSE b END`.
    case caseWhen(SQLNode, then: SQLNode, else: SQLNode)
    /// `x IN (a, b, …)`.
    case inList(SQLNode, [SQLNode])
    /// `x IN (SELECT …)`, or `NOT IN` when `negated`.
    case inSubquery(SQLNode, SQLSelect, negated: Bool)
    /// `(SELECT …)`: one value per row.
    case subquery(SQLSelect)
    /// `x BETWEEN lo AND hi`.
    case between(SQLNode, SQLNode, SQLNode)
    /// Text compared in Unicode scalar order, as PQL's literal comparisons order it: SQLite's
    /// BINARY order already is (spelled as `x`), PostgreSQL's needs `x COLLATE "C"`. Only the
    /// compiler's native-only mode (see `PredicateSQLCompiler.nativeOnly`) writes it.
    case collated(SQLNode)
    /// `x LIKE pattern ESCAPE '\'`, the pattern a bound value: only the native-only mode writes it.
    case like(SQLNode, SQLNode)

    /// Whether evaluating it can raise an evaluation error: it calls one of PQL's functions that
    /// run the evaluator's code (a column, a parameter or SQL's own operators never raise).
    var canRaise: Bool {
        switch self {
        case .column, .parameter, .integer, .boolean, .countAll: return false
        case .call(let f, let args): return f.canRaise || args.contains { $0.canRaise }
        case .binary(let l, _, let r): return l.canRaise || r.canRaise
        case .chain(let terms, _): return terms.contains { $0.canRaise }
        case .not(let x), .isNull(let x, _), .unaryPlus(let x), .parenthesized(let x): return x.canRaise
        case .caseWhen(let c, let a, let b): return c.canRaise || a.canRaise || b.canRaise
        case .inList(let x, let items): return x.canRaise || items.contains { $0.canRaise }
        case .inSubquery(let x, let s, _): return x.canRaise || s.canRaise
        case .subquery(let s): return s.canRaise
        case .between(let x, let lo, let hi): return x.canRaise || lo.canRaise || hi.canRaise
        case .collated(let x): return x.canRaise
        case .like(let x, let p): return x.canRaise || p.canRaise
        }
    }

    /// The table aliases its columns read that no subquery inside it brings into scope: the
    /// outer rows a subquery built around it would depend on.
    var freeAliases: Set<String> {
        switch self {
        case .column(let alias, _): return [alias]
        case .parameter, .integer, .boolean, .countAll: return []
        case .call(_, let args): return args.reduce(into: []) { $0.formUnion($1.freeAliases) }
        case .binary(let l, _, let r): return l.freeAliases.union(r.freeAliases)
        case .chain(let terms, _): return terms.reduce(into: []) { $0.formUnion($1.freeAliases) }
        case .not(let x), .isNull(let x, _), .unaryPlus(let x), .parenthesized(let x), .collated(let x): return x.freeAliases
        case .caseWhen(let c, let a, let b): return c.freeAliases.union(a.freeAliases).union(b.freeAliases)
        case .inList(let x, let items): return items.reduce(into: x.freeAliases) { $0.formUnion($1.freeAliases) }
        case .inSubquery(let x, let s, _): return x.freeAliases.union(s.freeAliases)
        case .subquery(let s): return s.freeAliases
        case .between(let x, let lo, let hi): return x.freeAliases.union(lo.freeAliases).union(hi.freeAliases)
        case .like(let x, let p): return x.freeAliases.union(p.freeAliases)
        }
    }

    /// Whether a subquery is part of it.
    var readsSubquery: Bool {
        switch self {
        case .column, .parameter, .integer, .boolean, .countAll: return false
        case .inSubquery, .subquery: return true
        case .call(_, let args): return args.contains { $0.readsSubquery }
        case .binary(let l, _, let r): return l.readsSubquery || r.readsSubquery
        case .chain(let terms, _): return terms.contains { $0.readsSubquery }
        case .not(let x), .isNull(let x, _), .unaryPlus(let x), .parenthesized(let x), .collated(let x): return x.readsSubquery
        case .caseWhen(let c, let a, let b): return c.readsSubquery || a.readsSubquery || b.readsSubquery
        case .inList(let x, let items): return x.readsSubquery || items.contains { $0.readsSubquery }
        case .between(let x, let lo, let hi): return x.readsSubquery || lo.readsSubquery || hi.readsSubquery
        case .like(let x, let p): return x.readsSubquery || p.readsSubquery
        }
    }

    /// The parameter slot, when the node is a bound value.
    var parameterSlot: Int? {
        if case .parameter(let slot) = self { return slot }
        return nil
    }

    /// Whether it is the constant truth value `value`.
    func isBoolean(_ value: Bool) -> Bool {
        if case .boolean(let b) = self { return b == value }
        return false
    }
}

/// The binary operators the compiler writes.
package enum SQLBinaryOperator {
    case equal, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
    /// `IS`, `IS NOT`: comparisons for which NULL equals NULL.
    case isSame, isNotSame
    case and, or

    /// The order comparison `op` means, for `<`, `<=`, `>`, `>=`.
    init?(ordering op: ComparisonOperator) {
        switch op {
        case .lessThan: self = .lessThan
        case .lessThanOrEqual: self = .lessThanOrEqual
        case .greaterThan: self = .greaterThan
        case .greaterThanOrEqual: self = .greaterThanOrEqual
        default: return nil
        }
    }
}

/// The functions the compiler calls, by identity: the dialect names them.
package enum SQLFunction: Hashable {
    /// PQL's functions, which run the evaluator's own code (see `SQLiteFunctions`).
    case compare, between, search, prefixCaseInsensitive, builtin, cast, fold, values, decided
    /// PQL's aggregate computing `operation` over a to-many relationship's values or a group.
    case aggregate(SharedSemantics.Aggregate.Operation)
    /// SQL's own.
    case min, max, coalesce, substring
    /// The code point of a text's first scalar (0 for empty text): PostgreSQL's `ascii`,
    /// SQLite's `unicode`.
    case firstScalar
    /// SQL's own sum and average of numbers (native-only mode: `@sum`, `@avg` of attributes
    /// that are never nil), and Unicode NFC normalisation (for LIKE, which matches NFC text).
    case sum, average, normalizeNFC
    /// A boolean as the number 0 or 1, as the evaluator compares it with numbers (SQLite
    /// stores it so already; PostgreSQL's boolean needs a cast).
    case booleanAsInteger
    /// A uuid attribute as the text SQLite stores for it, Foundation's upper-case `uuidString`
    /// (SQLite's column is that text already; PostgreSQL's `uuid` type is compared with text
    /// parameters and written lower case, so it is cast and upper-cased).
    case uuidText
    /// Native-only mode's forms of PQL's arithmetic and string functions (PostgreSQL spells
    /// them with its own operators and the functions PQL installs): the value, or the
    /// evaluator's error when it is nil (arguments: value, error kind, message, hint).
    case requireValue
    /// Integer arithmetic on 64 bits, an overflow an error (PQL's `integerOverflow`).
    case integerArithmetic(NativeArithmetic)
    /// IEEE double arithmetic: infinities and signed zeros, never an overflow error.
    case realArithmetic(NativeArithmetic)
    /// An integer or boolean as a double.
    case asReal
    /// A date moved by a number of seconds (`subtracting`: backwards).
    case dateShift(subtracting: Bool)
    /// The seconds from the second date to the first, as a double.
    case dateDifference
    /// `length:` (UTF-16 code units), `uppercase:` and `lowercase:` as Swift computes them.
    case utf16Length, uppercase, lowercase
    /// The whole text matched by a regular expression the compiler translated (MATCHES).
    case regexMatch
    /// The `[c]` fold's LIKE (text, pattern) as one call whose price the planner takes from
    /// its declaration, not from the fold's expression (PostgreSQL's `pql.fold_c_like`):
    /// for a scan, where the fold runs for few rows (see `nativePrefix`).
    case caseFoldLike
    /// An integer (first) and a double compared exactly, as the evaluator compares them
    /// (a database that converts the integer to a double loses digits beyond 2^53).
    case exactNumberComparison(SQLBinaryOperator)

    /// Whether a call can raise an evaluation error by itself: PQL's functions that run the
    /// evaluator's comparisons, arithmetic and aggregates. Folding a string and returning a
    /// decided answer raise nothing.
    var canRaise: Bool {
        switch self {
        case .compare, .between, .search, .prefixCaseInsensitive, .builtin, .cast, .values, .aggregate: return true
        // A nil argument, a 64-bit overflow, a date beyond the database's range.
        case .requireValue, .integerArithmetic, .dateShift: return true
        case .fold, .decided, .min, .max, .coalesce, .substring, .firstScalar, .sum, .average, .normalizeNFC, .booleanAsInteger, .uuidText: return false
        case .realArithmetic, .asReal, .dateDifference, .utf16Length, .uppercase, .lowercase, .regexMatch, .exactNumberComparison, .caseFoldLike: return false
        }
    }
}

/// The arithmetic native-only mode writes (see `SQLFunction.integerArithmetic`).
package enum NativeArithmetic: Hashable, Sendable {
    case add, subtract, multiply, divide, modulus, negate, abs
}

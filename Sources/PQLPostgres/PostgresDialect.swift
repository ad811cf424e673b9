import PQL
import PQLStore

/// PostgreSQL's spelling of PQL's compiled SQL: `$1` parameters, `"identifiers"`, tables
/// qualified by the store's schema, `TRUE`/`FALSE`, `IS [NOT] DISTINCT FROM`, text in
/// Unicode scalar order (`COLLATE "C"`: on a UTF8 database byte order is scalar order, PQL's
/// literal order), nil first when ascending as in memory, and `[c]`/`[d]`/`[cd]` through the
/// `pql.fold_*` functions ``PostgresPredicateStore/installFunctions()`` installs.
///
/// The server has none of the `pql_*` functions SQLite runs the evaluator's code in, so the
/// compiler works in native-only mode: what it cannot write natively it refuses with a
/// `StoreError` of kind `.unsupported` before anything runs.
struct PostgresDialect: SQLDialect {
    var schema: String
    var functionSchema: String

    var nativeOnly: Bool { true }

    func quote(_ name: String) -> String { FoldFunctionSQL.quoteIdentifier(name) }

    func parameter(_ slot: Int) -> String { "$\(slot + 1)" }

    func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    func table(_ name: String) -> String { "\(quote(schema)).\(quote(name))" }

    func keyList(_ column: String) -> String { "string_agg(\(column)::text, ',' ORDER BY \(column))" }

    func name(of function: SQLFunction) -> String {
        switch function {
        case .min: return "min"
        case .max: return "max"
        case .coalesce: return "coalesce"
        case .substring: return "substr"
        case .firstScalar: return "ascii"   // the code point in a UTF8 database
        case .sum: return "sum"
        case .average: return "avg"
        case .normalizeNFC: return "normalize"
        case .booleanAsInteger, .uuidText: return ""
        case .fold: return "\(quote(functionSchema)).fold_cd"
        case .requireValue: return "\(quote(functionSchema)).arg"
        case .utf16Length: return "\(quote(functionSchema)).utf16_length"
        case .uppercase: return "\(quote(functionSchema)).uppercase"
        case .lowercase: return "\(quote(functionSchema)).lowercase"
        case .caseFoldLike: return "\(quote(functionSchema)).fold_c_like"
        case .integerArithmetic, .realArithmetic, .asReal, .dateShift, .dateDifference, .regexMatch, .exactNumberComparison: return ""
        // Native-only mode refuses every construct that needs one of these before rendering;
        // should one slip through, the server rejects the unknown function: an error, never rows.
        case .compare, .between, .search, .prefixCaseInsensitive, .builtin, .cast, .values, .decided, .aggregate:
            return "\(quote(functionSchema)).\(quote("unavailable_\(function)"))"
        }
    }

    func call(_ function: SQLFunction, _ args: [SQLNode]) -> String {
        switch (function, args.count) {
        case (.fold, 2):
            guard case .integer(let bits) = args[0] else { break }
            let suffix = bits == 1 ? "c" : bits == 2 ? "d" : "cd"
            return "\(quote(functionSchema)).fold_\(suffix)(\(render(args[1])))"
        case (.min, 1), (.max, 1):
            // `@min`/`@max` of a to-many's attribute, in a subquery correlated on the foreign
            // key. PostgreSQL rewrites a bare min/max into a walk of the attribute's own index
            // (largest first) filtered on the key, which reads the whole index for a parent
            // without children: `departures.@max.dep_delay == nil` over the demo's 1,458
            // airports took 4½ minutes. A FILTER clause keeps the aggregate an aggregate,
            // which the foreign key's index feeds (0.2 s), as @count's and @avg's are.
            let x = render(args[0])
            return "\(name(of: function))(\(x)) FILTER (WHERE \(x) IS NOT NULL)"
        case (.decided, 1):
            return "(\(render(args[0])))"
        case (.decided, _) where args.count > 1:
            // The decided answer once the operands that can raise (a nil operand, an overflow)
            // have run, as the evaluator runs them: num_nulls evaluates each of its arguments.
            let operands = args.dropFirst().map(render).joined(separator: ", ")
            let holds: Bool = { if case .boolean(true) = args[0] { return true } else { return false } }()
            return "(num_nulls(\(operands)) \(holds ? ">=" : "<") 0)"
        case (.integerArithmetic(let operation), _):
            // bigint, whatever the columns' width: PQL's integers have 64 bits. The installed
            // functions raise memory's overflow error, naming the operation (PostgreSQL's
            // operators raise "bigint out of range", which names nothing), and the node of the
            // predicate's source map it computes (the last argument), for the error's caret.
            guard let last = args.last, case .integer(let node) = last else { break }
            let x = args.dropLast().map { "(\(render($0)))::bigint" }
            let s = quote(functionSchema)
            switch (operation, x.count) {
            case (.add, 2): return "\(s).int_add(\(x[0]), \(x[1]), \(node))"
            case (.subtract, 2): return "\(s).int_subtract(\(x[0]), \(x[1]), \(node))"
            case (.multiply, 2): return "\(s).int_multiply(\(x[0]), \(x[1]), \(node))"
            case (.divide, 2): return "\(s).int_div(\(x[0]), \(x[1]), \(node))"
            case (.modulus, 2): return "\(s).int_mod(\(x[0]), \(x[1]))"
            case (.negate, 1): return "\(s).int_negate(\(x[0]), \(node))"
            case (.abs, 1): return "\(s).int_abs(\(x[0]), \(node))"
            default: break
            }
        case (.realArithmetic(let operation), _):
            let x = args.map(render)
            let s = quote(functionSchema)
            switch (operation, x.count) {
            case (.add, 2): return "\(s).float_add(\(x[0]), \(x[1]))"
            case (.subtract, 2): return "\(s).float_subtract(\(x[0]), \(x[1]))"
            case (.multiply, 2): return "\(s).float_multiply(\(x[0]), \(x[1]))"
            case (.divide, 2): return "\(s).float_divide(\(x[0]), \(x[1]))"
            case (.negate, 1): return "(-(\(x[0]))::double precision)"
            case (.abs, 1): return "abs((\(x[0]))::double precision)"
            default: break
            }
        case (.asReal, 1):
            return "(\(render(args[0])))::double precision"
        case (.dateShift(let subtracting), 2):
            return "(\(render(args[0])) \(subtracting ? "-" : "+") (\(render(args[1]))) * interval '1 second')"
        case (.dateDifference, 2):
            return "extract(epoch FROM (\(render(args[0])) - \(render(args[1]))))::double precision"
        case (.exactNumberComparison(let op), 2):
            // Below 2^53 a double compares exactly with the integer as a double; beyond, a
            // double is an integer: as a bigint when it fits, and beyond the bigints (or an
            // infinity) as numeric, whose 15 digits keep it there.
            let i = render(args[0]), d = render(args[1]), o = spelling(op)
            return "(CASE WHEN abs(\(d)) < 9007199254740992 THEN (\(i))::double precision \(o) \(d) "
                + "WHEN \(d) >= 9223372036854775808 OR \(d) < -9223372036854775808 THEN (\(i))::numeric \(o) (\(d))::numeric "
                + "ELSE \(i) \(o) (\(d))::bigint END)"
        case (.regexMatch, 2):
            return "(\(render(args[0])) COLLATE \"C\" ~ \(render(args[1])))"
        case (.sum, 1):
            // The evaluator's sum of no elements is 0; SQL's is NULL.
            return "coalesce(sum(\(render(args[0]))), 0)"
        case (.average, 1):
            return "avg(\(render(args[0])))::double precision"
        case (.booleanAsInteger, 1):
            return "(\(render(args[0])))::integer"
        case (.uuidText, 1):
            return "upper((\(render(args[0])))::text)"
        case (.normalizeNFC, 1):
            return "normalize(\(render(args[0])), NFC)"
        default: break
        }
        return "\(name(of: function))(\(args.map(render).joined(separator: ", ")))"
    }

    func page(limit: SQLNode, offset: SQLNode) -> String {
        // No limit is bound as -1; PostgreSQL's LIMIT NULL means none.
        " LIMIT NULLIF(\(render(limit)), -1) OFFSET \(render(offset))"
    }

    func collation(_ comparison: SortRule.Comparison) -> String {
        comparison == .literal ? #" COLLATE "C""# : ""
    }

    /// PQL's order: nil first ascending (PostgreSQL puts NULL last), NaN after nil and before
    /// every number (PostgreSQL puts it after every number), text by scalar or by `[c]` fold.
    /// Where `values` hold no NULL, the term leaves out `NULLS FIRST`/`LAST`, and where they
    /// hold no NaN, the `CASE` on it: the plain `price DESC` a default B-tree on the column
    /// serves, forwards or backwards. (A nullable column's PQL order is served by an index
    /// made `NULLS FIRST`.)
    func sortTerm(_ expression: String, _ rule: SortRule, kind: SQLKind, values: SortedValues) throws(StoreError) -> String {
        let direction = rule.ascending ? " ASC" : " DESC"
        let nulls = values.haveNoNull ? "" : rule.ascending ? " NULLS FIRST" : " NULLS LAST"
        switch kind {
        case .string:
            switch rule.comparison {
            case .literal: return expression + #" COLLATE "C""# + direction + nulls
            // The evaluator orders case-insensitively by the [c] folds, in scalar order.
            case .caseInsensitive: return "\(quote(functionSchema)).fold_c(\(expression))" + #" COLLATE "C""# + direction + nulls
            case .localized:
                throw StoreError(.unsupported, "sorting text in the locale's order has no PostgreSQL form in PQL yet",
                                 hint: "sort literally or case-insensitively, or sort the fetched records in memory with PredicateQuery")
            }
        case .real where !values.haveNoNaN:
            return Self.nanSortKeys(expression).map { $0 + direction + nulls }.joined(separator: ", ")
        default:
            return expression + direction + nulls
        }
    }

    /// PQL's order of a double that may hold NaN (nil, NaN, then the numbers) as two sort keys
    /// an index can hold, where PostgreSQL alone orders NaN above every number: first
    /// `x < 'NaN'` (NULL for nil, false for NaN, true for a number), then `x`. An index on
    /// these keys, as the store makes one beside each indexed double attribute
    /// (`TABLE_COLUMN_sort`), serves the sort forwards ascending and backwards descending;
    /// a `CASE` ranking nil and NaN, which this replaces, no index could serve.
    static func nanSortKeys(_ expression: String) -> [String] {
        ["(\(expression) < 'NaN'::float8)", expression]
    }

    func spelling(_ op: SQLBinaryOperator) -> String {
        switch op {
        case .isSame: return "IS NOT DISTINCT FROM"
        case .isNotSame: return "IS DISTINCT FROM"
        default: return Self.standardSpelling(op)
        }
    }
}

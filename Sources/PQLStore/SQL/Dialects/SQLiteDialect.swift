import PQL

/// SQLite's spelling: `"identifiers"`, numbered parameters `?1`, truth values `1` and `0`,
/// PQL's functions under the names `SQLiteFunctions` registers on every connection
/// (`pql_compare`, `pql_fn`, …), `LIMIT ? OFFSET ?`.
struct SQLiteDialect: SQLDialect {
    func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func parameter(_ slot: Int) -> String { "?\(slot + 1)" }

    func boolean(_ value: Bool) -> String { value ? "1" : "0" }

    func name(of function: SQLFunction) -> String {
        switch function {
        case .compare: return "pql_compare"
        case .between: return "pql_between"
        case .search: return "pql_search"
        case .prefixCaseInsensitive: return "pql_prefix_ci"
        case .builtin: return "pql_fn"
        case .cast: return "pql_cast"
        case .fold: return "pql_fold"
        case .values: return "pql_values"
        case .decided: return "pql_decided"
        case .aggregate(let operation): return SQLiteFunctions.aggregateName(operation)
        case .min: return "min"
        case .max: return "max"
        case .coalesce: return "coalesce"
        case .substring: return "substr"
        case .firstScalar: return "unicode"
        case .sum: return "sum"
        case .average: return "avg"
        // Written only in native-only mode, which SQLite (with PQL's functions) never uses.
        case .normalizeNFC: return "pql_nfc"
        case .requireValue, .integerArithmetic, .realArithmetic, .asReal, .dateShift, .dateDifference,
             .utf16Length, .uppercase, .lowercase, .regexMatch, .exactNumberComparison, .caseFoldLike:
            return "pql_native_only"
        // SQLite's booleans are the integers 0 and 1: `(x)`.
        case .booleanAsInteger: return ""
        // A uuid attribute is stored as its upper-case text: `(x)`.
        case .uuidText: return ""
        }
    }

    /// PQL's collations, registered on every connection (`SQLiteFunctions`).
    func collation(_ comparison: SortRule.Comparison) -> String {
        switch comparison {
        case .literal: return ""
        case .caseInsensitive: return " COLLATE PQL_NOCASE"
        case .localized: return " COLLATE PQL_LOCALIZED"
        }
    }

    func page(limit: SQLNode, offset: SQLNode) -> String {
        " LIMIT \(render(limit)) OFFSET \(render(offset))"
    }
}

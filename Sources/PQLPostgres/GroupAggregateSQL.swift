import Foundation
import PQL
import PQLStore

/// A grouping fetch's `sum:`, `average:`, `min:` and `max:` on PostgreSQL, with the
/// evaluator's semantics (`SharedSemantics.Aggregate` and `NumberSum`, nils skipped, a group
/// without a value nil), in native aggregates and the SQL functions PQL installs:
///
/// - `sum:` of integers (and booleans): `sum`, exact (`numeric`), cast back to `bigint`, which
///   raises "bigint out of range" where PQL raises its 64-bit overflow.
/// - `sum:`/`average:` of doubles: `float_sum`, IEEE addition from 0 in the order of the rows'
///   keys (the order memory meets the elements in), infinities where PostgreSQL's `+` raises;
///   the average divides by the count with `float_divide`.
/// - `average:` of integers: the exact total as the evaluator makes it a double
///   (`int_total_as_double`: `wraps · 2^64 + low word`), divided by the count.
/// - `min:`/`max:` of text in Unicode scalar order (`COLLATE "C"`), of dates, integers and
///   decimals natively, of booleans as `bool_and`/`bool_or`; of doubles the first extreme in
///   key order (so `-0.0` and `0.0` tie as in memory), and NaN beside another value raises as
///   the evaluator's comparison does.
/// - `sum:`/`average:` of text or dates raise the evaluator's error for a group with a value.
///
/// Decimals' sums and averages (Foundation's `Decimal` has 38 digits, PostgreSQL's `numeric`
/// more), binary data's extremes and values of no single kind are refused (`.unsupported`).
enum GroupAggregateSQL {
    /// The statements (after the arithmetic functions they call) that define the functions.
    static func statements(schema s: String) -> [String] {
        [
            // Two doubles below 7.8e307 in magnitude (under half the largest) add without overflow: the native `+`.
            """
            CREATE OR REPLACE FUNCTION \(s).float_sum_step(t double precision, x double precision) RETURNS double precision
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $pql$
            BEGIN
                IF abs(t) < 7.8e307 AND abs(x) < 7.8e307 THEN RETURN t + x; END IF;
                RETURN \(s).float_add(t, x);
            END
            $pql$
            """,
            """
            CREATE OR REPLACE AGGREGATE \(s).float_sum(double precision) (
                SFUNC = \(s).float_sum_step, STYPE = double precision, INITCOND = '0', PARALLEL = SAFE)
            """,
            // wraps = floor((t + 2^63) / 2^64), the low word t - wraps · 2^64, in exact numeric.
            """
            CREATE OR REPLACE FUNCTION \(s).int_total_as_double(t numeric) RETURNS double precision
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $pql$
            SELECT w::double precision * 18446744073709551616::double precision + (t - w * 18446744073709551616)::double precision
            FROM (SELECT div(t + 9223372036854775808, 18446744073709551616)
                         - CASE WHEN mod(t + 9223372036854775808, 18446744073709551616) < 0 THEN 1 ELSE 0 END AS w) q
            $pql$
            """,
        ]
    }

    /// The SQL of `operation` over `value` (of `kind`); `order` is the row key.
    /// A boolean counts as 0 or 1 in a sum, as in memory.
    private static func counted(_ x: String, _ kind: SQLKind) -> String {
        kind == .boolean ? "(\(x))::integer" : x
    }

    static func aggregate(_ operation: SharedSemantics.Aggregate.Operation, of value: String, kind: SQLKind,
                          order: String, functionSchema: String) throws(StoreError) -> String {
        let s = FoldFunctionSQL.quoteIdentifier(functionSchema)
        let x = "(\(value))"
        let what = operation.rawValue
        func raise(_ kind: PredicateEvaluationError.Kind, _ message: String, hint: String = "", type: String) -> String {
            "\(s).arg(NULL::\(type), \(FoldFunctionSQL.quoteLiteral(kind.rawValue)), \(FoldFunctionSQL.quoteLiteral(message)), \(FoldFunctionSQL.quoteLiteral(hint)), -1)"
        }
        func refuse(_ message: String, _ hint: String) -> StoreError { StoreError(.unsupported, message, hint: hint) }
        let inMemory = "or run the GroupQuery in memory on the fetched records"
        switch (operation, kind) {
        case (_, .null):
            return "NULL"
        case (.sum, .integer), (.sumOperator, .integer), (.sum, .boolean), (.sumOperator, .boolean):
            return "(sum(\(counted(x, kind))))::bigint"
        case (.sum, .real), (.sumOperator, .real):
            return "CASE WHEN count(\(x)) > 0 THEN \(s).float_sum((\(x))::double precision ORDER BY \(order)) END"
        case (.average, .integer), (.averageOperator, .integer), (.average, .boolean), (.averageOperator, .boolean):
            return "CASE WHEN count(\(x)) > 0 THEN \(s).int_total_as_double(sum(\(counted(x, kind)))) / count(\(x))::double precision END"
        case (.average, .real), (.averageOperator, .real):
            return "CASE WHEN count(\(x)) > 0 THEN \(s).float_divide(\(s).float_sum((\(x))::double precision ORDER BY \(order)), count(\(x))::double precision) END"
        case (.sum, .string), (.sumOperator, .string), (.average, .string), (.averageOperator, .string),
             (.sum, .date), (.sumOperator, .date), (.average, .date), (.averageOperator, .date),
             (.sum, .data), (.sumOperator, .data), (.average, .data), (.averageOperator, .data):
            let sample: PredicateValue = kind == .string ? .string("") : kind == .date ? .date(.init(timeIntervalSinceReferenceDate: 0)) : .data(.init())
            return "CASE WHEN count(\(x)) > 0 THEN \(raise(.aggregate, "\(what) found \(sample.kindDescription) among the numbers", hint: SharedSemantics.aggregateNumbersOnly, type: "double precision")) END"
        case (.sum, .decimal), (.sumOperator, .decimal), (.average, .decimal), (.averageOperator, .decimal):
            throw refuse("\(what) of decimals has no PostgreSQL form in PQL yet",
                         "PostgreSQL's numeric keeps more digits than Foundation's Decimal: aggregate a double (x * 1.0), \(inMemory)")
        case (.min, .string), (.minOperator, .string):
            return #"min(\#(x) COLLATE "C")"#
        case (.max, .string), (.maxOperator, .string):
            return #"max(\#(x) COLLATE "C")"#
        case (.min, .integer), (.minOperator, .integer), (.min, .date), (.minOperator, .date), (.min, .decimal), (.minOperator, .decimal):
            return "min(\(x))"
        case (.max, .integer), (.maxOperator, .integer), (.max, .date), (.maxOperator, .date), (.max, .decimal), (.maxOperator, .decimal):
            return "max(\(x))"
        case (.min, .boolean), (.minOperator, .boolean):
            return "bool_and(\(x))"
        case (.max, .boolean), (.maxOperator, .boolean):
            return "bool_or(\(x))"
        case (.min, .real), (.minOperator, .real), (.max, .real), (.maxOperator, .real):
            // Memory keeps the first of equal extremes (0.0 before -0.0), and cannot order NaN
            // against another value.
            let direction = operation == .min || operation == .minOperator ? "ASC" : "DESC"
            let d = "(\(x))::double precision"
            return "CASE WHEN count(\(x)) > 1 AND bool_or(\(d) = 'NaN'::double precision) THEN \(raise(.incomparable, "NaN has no order", type: "double precision")) "
                + "ELSE (array_agg(\(d) ORDER BY \(d) \(direction), \(order)) FILTER (WHERE \(x) IS NOT NULL))[1] END"
        default:
            throw refuse("\(what) of \(kind == .data ? "binary data" : "values of no single kind") has no PostgreSQL form in PQL yet",
                         "aggregate an attribute of one kind (a number, a string or a date), \(inMemory)")
        }
    }
}

extension PostgresDialect {
    func groupAggregate(_ operation: SharedSemantics.Aggregate.Operation, of value: String, kind: SQLKind, order: String) throws(StoreError) -> String? {
        try GroupAggregateSQL.aggregate(operation, of: value, kind: kind, order: order, functionSchema: functionSchema)
    }
}

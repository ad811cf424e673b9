import Foundation
import PQL

/// The SQL of the functions besides the folds that PQL installs for its native PostgreSQL
/// forms: arithmetic with the evaluator's rules where PostgreSQL's own operators differ,
/// Swift's `uppercased()`/`lowercased()` and UTF-16 length, and the evaluator's error for a
/// nil operand. Plain SQL and PL/pgSQL; `IMMUTABLE` where the result depends on the arguments
/// only.
///
/// - `int_add`, `int_subtract`, `int_multiply`, `int_negate`, `int_abs`: 64-bit integer
///   arithmetic whose overflow is the evaluator's error with the evaluator's message, which names
///   the operation and operands (`integer overflow: 9223372036854775807 + 1 does not fit in 64
///   bits`, raised by `int_overflow`); PostgreSQL's operators say only "bigint out of range".
/// - `int_div`, `int_mod`: integer division and remainder by zero are 0 (Apple's rule), and the
///   remainder by -1 is 0; PostgreSQL's own `/` and `%` raise "division by zero"; the smallest
///   integer divided by -1 is the evaluator's overflow.
/// - `float_add`, `float_subtract`, `float_multiply`, `float_divide`: IEEE double arithmetic.
///   PostgreSQL raises "value out of range: overflow" (or "underflow") where a finite result
///   becomes infinite (or zero), and "division by zero"; Swift answers ±infinity, a signed zero
///   and ±infinity or NaN. The result of PostgreSQL's operator is taken when it has one: inline
///   when the operands' magnitudes rule the errors out, else through `float_*_slow`.
/// - `uppercase`, `lowercase`: each scalar mapped by Swift's full case mapping (`ß` → `SS`),
///   from a map generated here as the folds' are (PostgreSQL's `upper`/`lower` follow the
///   database's locale, and map one character to one).
/// - `utf16_length`: `length:` counts UTF-16 code units (a scalar beyond U+FFFF counts two).
/// - `float_sum`, `int_total_as_double`: the grouping fetch's sums and averages (see
///   `GroupAggregateSQL`).
/// - `arg(x, kind, message, hint, node)`: `x`, or the evaluator's error when `x` is NULL, raised
///   with SQLSTATE `PQL01` and `kind` and `node` in its detail (see `ServerErrors`). `STABLE`, so the
///   planner never runs it early on a constant.
enum NativeFunctionSQL {
    /// The statements (after `CREATE SCHEMA`) that define the functions in `schema`.
    static func statements(schema: String) -> [String] {
        let s = FoldFunctionSQL.quoteIdentifier(schema)
        // The operator where its operands cannot take it out of range (a test of their
        // magnitudes, inlined into the statement), else a PL/pgSQL function that catches
        // PostgreSQL's range error: its exception block costs a subtransaction per row.
        // `COST 1` (it rarely runs) keeps the inlined expression cheap in the planner's eyes:
        // PostgreSQL inlines a function whose parameter appears more than once only when the
        // argument costs at most ten operators, so `a * b + c` inlines both levels
        // (1,522 ms → 235 ms on a million rows, as a PL/pgSQL call each: 1,110 ms).
        func float(_ name: String, _ op: String, safe: String, onError: String, zeroDivisor: String? = nil) -> [String] {
            [
                """
                CREATE OR REPLACE FUNCTION \(s).\(name)_slow(x double precision, y double precision) RETURNS double precision
                LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1 AS $pql$
                BEGIN
                    \(zeroDivisor.map { "IF y = 0 THEN RETURN \($0); END IF;" } ?? "")
                    RETURN x \(op) y;
                EXCEPTION WHEN numeric_value_out_of_range THEN
                    RETURN \(onError);
                END
                $pql$
                """,
                """
                CREATE OR REPLACE FUNCTION \(s).\(name)(x double precision, y double precision) RETURNS double precision
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $pql$
                SELECT CASE WHEN \(safe) THEN x \(op) y ELSE \(s).\(name)_slow(x, y) END
                $pql$
                """,
            ]
        }
        // PQL's integer arithmetic: the operator's value, or the evaluator's overflow error
        // naming the operation and its operands (memory's message). One SQL expression,
        // which PostgreSQL inlines (not STRICT: see FoldFunctionSQL.inlinable); a NULL operand
        // makes the test NULL and the value NULL. The error is raised only when the test holds:
        // PostgreSQL folds a CASE's constant conditions before its results.
        let maxInt = "9223372036854775807", minInt = "(-9223372036854775807 - 1)"
        func integer(_ name: String, arguments: String = "x bigint, y bigint, node integer", overflows: String, what: String, value: String) -> String {
            """
            CREATE OR REPLACE FUNCTION \(s).\(name)(\(arguments)) RETURNS bigint
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $pql$
            SELECT CASE WHEN \(overflows) THEN \(s).int_overflow(\(what), node) ELSE \(value) END
            $pql$
            """
        }
        // Only a finite result out of range raises: for + and -, both operands are large with
        // the same (for -, opposite) signs; halved, they add without overflow to the sign.
        let infinity = "'Infinity'::double precision", minusInfinity = "'-Infinity'::double precision"
        let negativeZero = "'-0'::double precision", zero = "0::double precision"
        let signOf = { (negative: String) in "CASE WHEN \(negative) THEN \(minusInfinity) ELSE \(infinity) END" }
        let zeroOf = { (negative: String) in "CASE WHEN \(negative) THEN \(negativeZero) ELSE \(zero) END" }
        // x * y overflows only when both magnitudes are at least 1, underflows when both are below.
        let productNegative = "(x < 0) <> (y < 0)"
        // A zero's sign: PostgreSQL prints -0 as "-0".
        let divisorNegative = "(y < 0 OR y::text = '-0')"
        // Zero, or a magnitude whose products and quotients with another such stay between
        // 1e-308 and 1e308: no overflow, and no nonzero result rounded to zero (NaN and the
        // infinities fail the test: NaN compares above every number in PostgreSQL).
        let moderate = { (v: String) in "(\(v) = 0 OR abs(\(v)) BETWEEN 1e-154 AND 1e154)" }
        return [
            """
            CREATE OR REPLACE FUNCTION \(s).int_overflow(what text, x bigint, y bigint, node integer) RETURNS bigint
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1 AS $pql$
            BEGIN
                RAISE EXCEPTION USING ERRCODE = 'PQL01',
                    MESSAGE = 'integer overflow: ' || replace(replace(what, '{x}', x::text), '{y}', coalesce(y::text, '')) || ' does not fit in 64 bits',
                    DETAIL = 'integerOverflow' || \(ServerErrors.nodeMark) || node, HINT = 'compute in floating point: multiply an operand by 1.0';
            END
            $pql$
            """,
            integer("int_add", overflows: "(y > 0 AND x > \(maxInt) - y) OR (y < 0 AND x < \(minInt) - y)", what: "'{x} + {y}', x, y", value: "x + y"),
            integer("int_subtract", overflows: "(y < 0 AND x > \(maxInt) + y) OR (y > 0 AND x < \(minInt) + y)", what: "'{x} - {y}', x, y", value: "x - y"),
            // Below 3037000500 in magnitude (its square is beyond 2^63) no product overflows.
            integer("int_multiply", overflows: "(x > 3037000499 OR x < -3037000499 OR y > 3037000499 OR y < -3037000499) "
                        + "AND (x::numeric * y::numeric) NOT BETWEEN \(minInt) AND \(maxInt)",
                    what: "'{x} * {y}', x, y", value: "x * y"),
            integer("int_negate", arguments: "x bigint, node integer", overflows: "x = \(minInt)", what: "'-({x})', x, NULL", value: "-x"),
            integer("int_abs", arguments: "x bigint, node integer", overflows: "x = \(minInt)", what: "'abs:({x})', x, NULL", value: "abs(x)"),
            """
            CREATE OR REPLACE FUNCTION \(s).int_div(x bigint, y bigint, node integer) RETURNS bigint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $pql$
            SELECT CASE WHEN y = 0 THEN 0::bigint WHEN y = -1 AND x = \(minInt) THEN \(s).int_overflow('{x} / -1', x, NULL, node) ELSE x / y END
            $pql$
            """,
            """
            CREATE OR REPLACE FUNCTION \(s).int_mod(x bigint, y bigint) RETURNS bigint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $pql$ SELECT CASE WHEN y = 0 THEN 0::bigint ELSE x % y END $pql$
            """,
        ] + float("float_add", "+", safe: "abs(x) < 1e307 AND abs(y) < 1e307", onError: signOf("x * 0.5 + y * 0.5 < 0"))
          + float("float_subtract", "-", safe: "abs(x) < 1e307 AND abs(y) < 1e307", onError: signOf("x * 0.5 - y * 0.5 < 0"))
          + float("float_multiply", "*", safe: "\(moderate("x")) AND \(moderate("y"))",
                  onError: "CASE WHEN abs(x) >= 1 THEN \(signOf(productNegative)) ELSE \(zeroOf(productNegative)) END")
          + float("float_divide", "/", safe: "\(moderate("x")) AND abs(y) BETWEEN 1e-154 AND 1e154",
                  onError: "CASE WHEN abs(x) >= abs(y) THEN \(signOf(productNegative)) ELSE \(zeroOf(productNegative)) END",
                  zeroDivisor: "CASE WHEN x = 0 OR x = 'NaN'::double precision THEN 'NaN'::double precision ELSE \(signOf("(x < 0) <> \(divisorNegative)")) END")
          + [
            """
            CREATE OR REPLACE FUNCTION \(s).arg(x anyelement, kind text, message text, hint text, node integer) RETURNS anyelement
            LANGUAGE plpgsql STABLE PARALLEL SAFE AS $pql$
            BEGIN
                IF x IS NULL THEN
                    RAISE EXCEPTION USING ERRCODE = 'PQL01', MESSAGE = message, HINT = hint, DETAIL = kind || \(ServerErrors.nodeMark) || node;
                END IF;
                RETURN x;
            END
            $pql$
            """,
        ] + FoldFunctionSQL.inlinable("utf16_length", schema: s, returns: "bigint", ascii: "char_length(t)::bigint",
                                      slow: "SELECT (char_length(t) + char_length(regexp_replace(t, '[^\\U00010000-\\U0010FFFF]+', '', 'g')))::bigint",
                                      language: "sql")
          + caseMapping("uppercase", ascii: #"upper(t COLLATE "C")"#, map: upper, schema: s)
          + caseMapping("lowercase", ascii: #"lower(t COLLATE "C")"#, map: lower, schema: s)
          + GroupAggregateSQL.statements(schema: s)
    }

    /// Every function PQL installs: the folds, then these.
    static func all(schema: String) -> [String] {
        FoldFunctionSQL.statements(schema: schema) + statements(schema: schema)
    }

    /// A short fingerprint of all of PQL's functions (see `FoldFunctionSQL.version`).
    static let version: String = {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a: the same on every run and platform
        for b in all(schema: "pql").joined(separator: "\n").utf8 {
            h = (h ^ UInt64(b)) &* 0x100_0000_01b3
        }
        return "2-" + String(h, radix: 16)
    }()

    private static func caseMapping(_ name: String, ascii: String, map: [(Unicode.Scalar, String)], schema s: String) -> [String] {
        let entries = map.map { FoldFunctionSQL.jsonString(String(Character($0.0))) + ":" + FoldFunctionSQL.jsonString($0.1) }
        let literal = FoldFunctionSQL.quoteLiteral("{" + entries.joined(separator: ",") + "}")
        return FoldFunctionSQL.inlinable(name, schema: s, returns: "text", ascii: ascii,
                                         slow: FoldFunctionSQL.characterMap(literal, over: "t", result: "mapped"))
    }

    /// Every scalar whose Swift uppercase differs from itself, with it.
    static let upper: [(Unicode.Scalar, String)] = mapping { $0.uppercased() }
    /// Every scalar whose Swift lowercase differs from itself, with it.
    static let lower: [(Unicode.Scalar, String)] = mapping { $0.lowercased() }

    private static func mapping(_ f: (String) -> String) -> [(Unicode.Scalar, String)] {
        var out: [(Unicode.Scalar, String)] = []
        let candidates = caseMapped
        var i = 0
        while i < candidates.count {
            let u = candidates[i]
            i += 1
            let m = f(String(Character(u)))
            if Array(m.unicodeScalars) != [u] { out.append((u, m)) }
        }
        return out
    }

    /// The scalars that change when case-mapped, found once for both mappings (see
    /// ``allScalars(where:)``).
    private static let caseMapped = allScalars { $0.properties.changesWhenCaseMapped }
}

import Foundation
import PQL

/// Native-only mode (``PredicateSQLCompiler/nativeOnly``): SQL for a database that has none of
/// PQL's `pql_*` functions, PostgreSQL. Where the database's own operators agree with the
/// evaluator (same-kind comparisons, BETWEEN, IN, LIKE on folded text through the installed
/// `pql.fold_*` functions, aggregates of attributes that are never nil), the compiler writes
/// them; everything else is refused (``PredicateSQLCompiler/refuse(_:hint:)``), never guessed.
extension PredicateSQLCompiler {
    /// Why a comparison of `l` and `r` has no native form, or nil when it may have one.
    func nativeRefusal(_ op: ComparisonOperator, _ options: SharedSemantics.Options,
                       _ l: SQLExpression, _ r: SQLExpression) -> StoreError? {
        if options.isLocalized && (l.kind == .string || r.kind == .string) {
            return StoreError(.unsupported, "the [l] option has no PostgreSQL form in PQL yet",
                              hint: "drop [l], or fetch and filter in memory with PredicateQuery")
        }
        for x in [l, r] {
            if case .double(let d)? = x.constant, d.isNaN {
                return StoreError(.unsupported, "NaN as a value to compare with has no PostgreSQL form in PQL yet",
                                  hint: "PostgreSQL orders NaN above every number where PQL orders it nowhere; filter NaN in memory")
            }
        }
        return nil
    }

    /// The operands with booleans as the numbers 0 and 1 when some are compared with numbers
    /// that are not booleans (the evaluator's `active == 1`), as SQLite stores them.
    mutating func numbersForBooleans(_ operands: [SQLExpression]) -> [SQLExpression] {
        let numbers = operands.filter { !$0.isNullConstant && $0.kind.domain == .number }
        guard numbers.contains(where: { $0.kind == .boolean }), numbers.contains(where: { $0.kind != .boolean }) else { return operands }
        return operands.map { x in
            guard x.kind == .boolean else { return x }
            if case .bool(let b)? = x.constant { return bind(.int(b ? 1 : 0)) }
            var n = x
            n.node = .call(.booleanAsInteger, [x.node])
            n.kind = .integer
            n.column = nil
            return n
        }
    }

    /// The `ComparisonOptions` bits of `[c]`, `[d]` or `[cd]` that pick `pql.fold_c/_d/_cd`;
    /// nil for literal and localized options.
    func foldFunctionOptions(_ options: SharedSemantics.Options) -> Int? {
        guard !options.isLiteral, !options.isLocalized else { return nil }
        let bits = options.rawValue & 3
        return bits == 0 ? nil : bits
    }

    /// `x` folded as `[c]`/`[d]` fold it: a constant folded now, by the evaluator's code; a
    /// column by the server's `pql.fold_*`, which the store generated from that same code.
    mutating func foldedForNative(_ x: SQLExpression, _ bits: Int, _ options: SharedSemantics.Options) -> SQLExpression {
        if case .string(let s)? = x.constant { return bind(.string(options.fold(s))) }
        return SQLExpression(node: .call(.fold, [.integer(Int64(bits)), x.node]), kind: .string, nullable: x.nullable)
    }

    /// The node of `x`, collated to Unicode scalar order when it is text.
    func collatedIfText(_ x: SQLExpression) -> SQLNode {
        x.kind == .string ? .collated(x.node) : x.node
    }

    /// `NOT (x = 'NaN')`: PostgreSQL stores NaN and orders it above every number, where the
    /// evaluator finds it neither above nor below anything.
    mutating func notNaN(_ x: SQLExpression) -> SQLNode {
        .not(.parenthesized(.binary(x.node, .equal, bindRaw(.real(.nan)))))
    }

    /// `l op r` in the evaluator's order: text by scalar, and NaN ordered against nothing but
    /// itself (NaN <= NaN holds, as NaN == NaN does).
    mutating func nativeOrder(_ l: SQLExpression, _ op: SQLBinaryOperator, _ r: SQLExpression) -> SQLNode {
        let base = SQLNode.binary(collatedIfText(l), op, collatedIfText(r))
        let reals = [l, r].filter { $0.kind == .real && $0.constant == nil }
        guard !reals.isEmpty else { return base }
        let guarded = SQLNode.parenthesized(.chain([base] + reals.map { notNaN($0) }, .and))
        guard op == .lessThanOrEqual || op == .greaterThanOrEqual, reals.count == 2 else { return guarded }
        return .parenthesized(.chain([guarded, .binary(l.node, .equal, r.node)], .or))
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS and LIKE of text against a constant, as SQL's LIKE:
    /// the subject folded by `pql.fold_*` under `[c]`/`[d]` (LIKE: NFC-normalised, as the
    /// evaluator matches it), the pattern made here from the evaluator's folded needle, with
    /// `%`, `_` and `\` escaped. Other forms (MATCHES, non-constant patterns, non-text) are refused.
    mutating func nativeSearch(_ op: ComparisonOperator, _ options: SharedSemantics.Options,
                               _ subject: SQLExpression, _ pattern: SQLExpression) -> SQLCondition {
        if op == .matches { return nativeMatch(options, subject, pattern) }
        guard [.beginsWith, .endsWith, .contains, .like].contains(op) else {
            refuse(op.symbol, hint: "fetch and filter in memory")
            return .alwaysFalse
        }
        guard subject.kind == .string, case .string(let text)? = pattern.constant else {
            refuse("\(op.symbol) with a pattern that is not a constant string, or on a value that is not text",
                   hint: "give the pattern as a string literal or %@ argument, on a text attribute")
            return .alwaysFalse
        }
        if options.isLocalized {
            refuse("the [l] option", hint: "drop [l], or fetch and filter in memory")
            return .alwaysFalse
        }
        let bits = foldFunctionOptions(options)
        var like = ""
        func escaped(_ u: Unicode.Scalar) -> String { u == "%" || u == "_" || u == "\\" ? "\\" + String(u) : String(u) }
        let subjectNode: SQLNode
        if op == .like {
            // The evaluator's LikePattern: `*` any run, `?` one scalar, `\` escapes, on NFC text.
            var escaping = false, empty = true, lastStar = false
            for u in options.fold(text).canonicallyComposed.unicodeScalars {
                if escaping { like += escaped(u); escaping = false; empty = false; lastStar = false; continue }
                switch u {
                case "\\": escaping = true
                case "*": if !lastStar { like += "%" }; lastStar = true; empty = false
                case "?": like += "_"; lastStar = false; empty = false
                default: like += escaped(u); lastStar = false; empty = false
                }
            }
            if escaping { like += "\\\\"; empty = false }
            if empty { return .alwaysFalse }
            subjectNode = bits.map { .call(.fold, [.integer(Int64($0)), subject.node]) } ?? .call(.normalizeNFC, [subject.node])
        } else {
            let needle = options.fold(text)
            if needle.isEmpty { return .alwaysFalse }
            let body = needle.unicodeScalars.map(escaped).joined()
            like = (op == .beginsWith ? "" : "%") + body + (op == .endsWith ? "" : "%")
            subjectNode = bits.map { .call(.fold, [.integer(Int64($0)), subject.node]) } ?? subject.node
        }
        return SQLCondition(node: .like(subjectNode, bindRaw(.text(like))), nullable: true)
    }
}

extension PredicateSQLCompiler {
    /// MATCHES as PostgreSQL's `~` on the whole text, with the pattern translated by
    /// `NativeRegex` where it means the same there; refused, naming the construct, where not.
    mutating func nativeMatch(_ options: SharedSemantics.Options, _ subject: SQLExpression, _ pattern: SQLExpression) -> SQLCondition {
        guard subject.kind == .string, case .string(let text)? = pattern.constant else {
            refuse("MATCHES with a pattern that is not a constant string, or on a value that is not text",
                   hint: "give the pattern as a string literal or %@ argument, on a text attribute")
            return .alwaysFalse
        }
        guard options.rawValue == 0 else {
            refuse("MATCHES with [c], [d] or [l]", hint: "PCRE2's caseless matching and PQL's folding have no PostgreSQL regex form: use LIKE[cd], or filter in memory")
            return .alwaysFalse
        }
        // An empty pattern matches nothing (reference §6.6).
        if text.isEmpty { return .alwaysFalse }
        switch NativeRegex.translate(text) {
        case .success(let are):
            return SQLCondition(node: .call(.regexMatch, [subject.node, bindRaw(.text(are))]), nullable: true)
        case .failure(let refusal):
            refuse("MATCHES with \(refusal.construct)", hint: refusal.hint)
            return .alwaysFalse
        }
    }
}

extension PredicateSQLCompiler {
    /// An integer compared with a double, exactly as the evaluator compares them, where the
    /// database's own comparison (the integer made a double) could differ: an integer that may
    /// lie beyond 2^53 against a double that may too. nil where the native comparison is exact.
    mutating func exactMixedComparison(_ op: ComparisonOperator, _ l: SQLExpression, _ r: SQLExpression) -> SQLCondition? {
        guard op.isEqualityOrOrder, needsExactMixedComparison(l, r) else { return nil }
        let integerFirst = l.kind == .integer
        let (i, d) = integerFirst ? (l, r) : (r, l)
        func exact(_ o: SQLBinaryOperator) -> SQLNode { .call(.exactNumberComparison(o), [i.node, d.node]) }
        let bothNil = SQLNode.parenthesized(.chain([.isNull(i.node, negated: false), .isNull(d.node, negated: false)], .and))
        // NaN equals no integer and is ordered against none.
        let nanGuard: [SQLNode] = d.constant == nil ? [notNaN(d)] : []
        switch op {
        case .equal, .notEqual:
            let equal = SQLNode.parenthesized(.chain([exact(.equal)] + nanGuard, .and))
            let eq = i.canBeNil && d.canBeNil ? SQLCondition(node: .parenthesized(.chain([equal, bothNil], .or)), nullable: true)
                                              : SQLCondition(node: equal, nullable: i.nullable || d.nullable)
            return op == .equal ? eq : SQLCondition(node: eq.negated, nullable: false)
        default:
            // `l op r` with the integer first: the order mirrored when it was on the right.
            let mirrored: [ComparisonOperator: ComparisonOperator] = [.lessThan: .greaterThan, .lessThanOrEqual: .greaterThanOrEqual,
                                                                       .greaterThan: .lessThan, .greaterThanOrEqual: .lessThanOrEqual]
            guard let o = SQLBinaryOperator(ordering: integerFirst ? op : mirrored[op] ?? op) else { return nil }
            let base = SQLNode.parenthesized(.chain([exact(o)] + nanGuard, .and))
            if (op == .lessThanOrEqual || op == .greaterThanOrEqual) && i.canBeNil && d.canBeNil {
                return SQLCondition(node: .parenthesized(.chain([base, bothNil], .or)), nullable: true)
            }
            return SQLCondition(node: base, nullable: i.nullable || d.nullable)
        }
    }
}

extension PredicateSQLCompiler {
    /// Whether an integer and a double compare differently natively than in the evaluator:
    /// the integer may lie beyond 2^53 and the double may too (see `exactMixedComparison`).
    func needsExactMixedComparison(_ l: SQLExpression, _ r: SQLExpression) -> Bool {
        guard !l.isNullConstant, !r.isNullConstant,
              (l.kind == .integer && r.kind == .real) || (l.kind == .real && r.kind == .integer) else { return false }
        let (i, d) = l.kind == .integer ? (l, r) : (r, l)
        if case .int(let n)? = i.constant, n.magnitude <= 1 << 53 { return false }
        if case .double(let x)? = d.constant, x.magnitude < 9_007_199_254_740_992 || x.isNaN { return false }
        return true
    }
}

extension ComparisonOperator {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    var isEqualityOrOrder: Bool {
        switch self {
        case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: return true
        default: return false
        }
    }
}

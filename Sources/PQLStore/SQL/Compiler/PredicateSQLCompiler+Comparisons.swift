import PQL

/// Comparisons: the operators of reference §3.1 with the nil rules of §6.2, in SQL.
extension PredicateSQLCompiler {
    mutating func compile(_ c: ComparisonNode, in scope: SQLScope) throws(StoreError) -> SQLCondition {
        let options: SharedSemantics.Options
        do { options = try SharedSemantics.Options(c.options) } catch {
            throw fail(.unsupported, error.message, hint: error.hint)
        }
        // What depends on no row is decided now, as the evaluator decides it when compiling
        // (ConstantFolding.swift): the same value, or the same error even for an empty table.
        if c.op == .between, let e = SharedSemantics.betweenShapeError(c.rhs) { throw evaluationError(e) }
        if c.lhs.isRowIndependent && c.rhs.isRowIndependent {
            do { return try SharedSemantics.evaluateConstant(c) ? .alwaysTrue : .alwaysFalse } catch { throw evaluationError(error) }
        }
        if c.op == .between, c.rhs.isRowIndependent, let e = SharedSemantics.betweenShapeError(.constant(try fold(c.rhs))) {
            throw evaluationError(e)
        }
        if c.op == .matches, case .constant(.string(let pattern)) = c.rhs {
            // The evaluator compiles a constant pattern when compiling the predicate; an
            // invalid one fails there, not at the first row that reaches it.
            do { _ = try SharedSemantics.PreparedString(.matches, pattern, options) } catch { throw evaluationError(error) }
        }
        if c.quantifier != .direct {
            return try compileQuantified(c, options: options, in: scope)
        }
        // A to-many key path on either side: membership (IN / CONTAINS) or an error.
        let lhs = try operand(c.lhs, in: scope)
        let rhs = try operand(c.rhs, in: scope)
        switch (c.op, lhs, rhs) {
        case (.in, .scalar(let x), .collection(let coll)), (.contains, .collection(let coll), .scalar(let x)):
            return try membership(x, in: coll, options: options, scope: scope)
        case (.in, .scalar(let x), .values(let items)), (.contains, .values(let items), .scalar(let x)):
            return try membership(x, inValues: items, options: options)
        case (.between, .scalar(let x), .values(let bounds)):
            return try between(x, bounds, options: options)
        case (_, .scalar(let l), .scalar(let r)):
            return try compare(c.op, options: options, l, r)
        case (_, .collection, _), (_, _, .collection):
            // The caret goes under the to-many operand, not the whole comparison.
            var toMany = c.rhs
            if case .collection = lhs { toMany = c.lhs }
            throw fail(.unsupported, "a to-many key path cannot be compared with \(c.op.symbol) directly",
                       hint: "use ANY, ALL or NONE before it, @count, or a SUBQUERY").passing(through: .expression(toMany))
        case (_, .values, _), (_, _, .values):
            if c.op == .between {
                throw fail(.typeMismatch, "BETWEEN needs a collection of exactly two bounds on its right", hint: "write x BETWEEN {low, high}")
            }
            throw fail(.unsupported, "a collection cannot be compared with \(c.op.symbol) in the store",
                       hint: "compare each element with ANY or ALL, or test membership with IN")
        }
    }

    /// The evaluator's error, raised by the store (decision D3: same kind, message and hint).
    func evaluationError(_ e: PredicateEvaluationError) -> StoreError {
        StoreError(evaluation: e)
    }

    /// One comparison of two scalars, exactly as `ComparisonEvaluation.apply` decides it; an
    /// object on either side compares as one (`objectComparison`).
    mutating func compare(_ op: ComparisonOperator, options: SharedSemantics.Options,
                          _ l: SQLExpression, _ r: SQLExpression) throws(StoreError) -> SQLCondition {
        if l.isObject || r.isObject { return try objectComparison(op, l, r) }
        var (l, r) = (l, r)
        if nativeOnly {
            if let refused = nativeRefusal(op, options, l, r) { throw refused }
            let numbers = numbersForBooleans([l, r])
            (l, r) = (numbers[0], numbers[1])
            if let exact = exactMixedComparison(op, l, r) { return exact }
            if case .string = l.kind, case .string = r.kind, !options.isLiteral, op.isEqualityOrOrder,
               let folded = foldFunctionOptions(options) {
                // Equality and order under [c]/[d]/[cd] are those of the folds (pql.fold_*).
                return try compare(op, options: try literalOptions(), foldedForNative(l, folded, options), foldedForNative(r, folded, options))
            }
        }
        let native = l.kind.comparesNatively(with: r.kind) && (options.isLiteral || l.kind.domain != .string)
        switch op {
        case .equal, .notEqual:
            let eq = op == .equal
            if l.isNullConstant && r.isNullConstant { return eq ? .alwaysTrue : .alwaysFalse }
            if l.isNullConstant || r.isNullConstant {
                let other = l.isNullConstant ? r : l
                if !other.canBeNil { return decided(!eq, evaluating: [other]) }
                return SQLCondition(node: .isNull(other.node, negated: !eq), nullable: false)
            }
            if native && l.nullIsNaN != r.nullIsNaN && l.nullable && r.nullable {
                // NaN (NULL on one side) against nil (NULL on the other) is unequal; NaN equals
                // nothing else.
                let nan = l.nullIsNaN ? l : r
                return eq ? SQLCondition(node: .binary(l.node, .equal, r.node), nullable: true)
                          : SQLCondition(node: .parenthesized(.chain([.binary(l.node, .isNotSame, r.node), .isNull(nan.node, negated: false)], .or)),
                                         nullable: false)
            }
            if native {
                if eq && (l.constant != nil || r.constant != nil || !(l.nullable && r.nullable)) {
                    // `=` keeps index use; a NULL column makes it NULL, which counts as false.
                    return SQLCondition(node: .binary(l.node, .equal, r.node), nullable: l.nullable || r.nullable)
                }
                // IS / IS NOT: nil == nil holds, and x != 5 keeps the rows where x is nil (D3).
                return SQLCondition(node: .binary(l.node, eq ? .isSame : .isNotSame, r.node), nullable: false)
            }
            if l.kind.domain != .unknown, r.kind.domain != .unknown, !(l.kind.domain == .string && r.kind.domain == .string) {
                // Different kinds are never equal; two nils are.
                let bothNil = SQLNode.parenthesized(.chain([.isNull(l.node, negated: false), .isNull(r.node, negated: false)], .and))
                if !l.canBeNil || !r.canBeNil { return decided(!eq, evaluating: [l, r]) }
                return SQLCondition(node: eq ? bothNil : .not(bothNil), nullable: false)
            }
            return shared(op, options, l, r)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if l.isNullConstant || r.isNullConstant {
                // Only nil <= nil and nil >= nil hold.
                let other = l.isNullConstant ? r : l
                guard op == .lessThanOrEqual || op == .greaterThanOrEqual else { return decided(false, evaluating: [other]) }
                if l.isNullConstant && r.isNullConstant { return .alwaysTrue }
                return other.canBeNil ? SQLCondition(node: .isNull(other.node, negated: false), nullable: false) : decided(false, evaluating: [other])
            }
            guard native, l.kind.domain != .data else { return shared(op, options, l, r) }
            guard let ordering = SQLBinaryOperator(ordering: op) else { return shared(op, options, l, r) }
            let base = nativeOnly ? nativeOrder(l, ordering, r) : SQLNode.binary(l.node, ordering, r.node)
            // nil <= nil holds, and so does NaN <= NaN (the evaluator finds NaN equal to NaN);
            // nil against NaN does not.
            if (op == .lessThanOrEqual || op == .greaterThanOrEqual) && l.nullable && r.nullable && l.nullIsNaN == r.nullIsNaN {
                let bothNil = SQLNode.parenthesized(.chain([.isNull(l.node, negated: false), .isNull(r.node, negated: false)], .and))
                return SQLCondition(node: .parenthesized(.chain([base, bothNil], .or)), nullable: true)
            }
            return SQLCondition(node: base, nullable: l.nullable || r.nullable)
        case .beginsWith:
            if nativeOnly { return nativePrefix(options, l, r) }
            if options.isLiteral, l.kind == .string, case .string(let prefix)? = r.constant {
                return prefixRange(l, prefix)
            }
            if options.rawValue == ComparisonOptions.caseInsensitive.rawValue, l.kind == .string,
               case .string(let prefix)? = r.constant, let groups = SharedSemantics.caseInsensitivePrefixRanges(prefix) {
                if let scan = scannedPrefix(l, needle: prefix) { return scan }
                return caseInsensitivePrefix(l, groups, exact: search(op, options, l, r))
            }
            return search(op, options, l, r)
        case .endsWith, .like, .matches:
            return search(op, options, l, r)
        case .contains:
            return search(.contains, options, l, r)
        case .in:
            // `'bc' IN name`: a substring test with the sides swapped; other right sides
            // (scalars that are not strings) raise the evaluator's error row by row.
            if r.kind == .string || r.kind == .unknown { return search(.contains, options, r, l) }
            return shared(.in, options, l, r)
        case .between:
            // A single value on the right: the evaluator raises for each row whose left side is
            // not nil, so the shared function decides row by row.
            return shared(.between, options, l, r)
        case .utiConformsTo, .utiEquals:
            return shared(op, options, l, r)
        }
    }

    /// `result` for every row, once the operands that can raise have been evaluated: memory
    /// evaluates both sides of a comparison before deciding it, so an error in one (arithmetic
    /// on nil, a function of the wrong kind) must not vanish because the answer is known.
    /// `pql_decided` returns its first argument after SQLite has evaluated the others.
    func decided(_ result: Bool, evaluating operands: [SQLExpression]) -> SQLCondition {
        let raising = operands.filter(\.canRaise)
        if raising.isEmpty { return result ? .alwaysTrue : .alwaysFalse }
        return SQLCondition(node: .call(.decided, [.boolean(result)] + raising.map(\.node)), nullable: false)
    }

    /// `pql_compare`: the evaluator decides, row by row (nil rules, kinds, options, errors).
    mutating func shared(_ op: ComparisonOperator, _ options: SharedSemantics.Options,
                         _ l: SQLExpression, _ r: SQLExpression) -> SQLCondition {
        if nativeOnly {
            refuse("\(op.symbol)\(options.rawValue == 0 ? "" : "[options]") between \(l.kind) and \(r.kind) operands",
                   hint: "PostgreSQL compares text with text, numbers with numbers, dates with dates, without [l]; fetch and filter in memory for the rest")
        }
        let o = bindRaw(.integer(Int64(op.rawValue)))
        let f = bindRaw(.integer(Int64(optionsRaw(options))))
        let lt = bindRaw(.integer(l.tag)), rt = bindRaw(.integer(r.tag))
        return SQLCondition(node: .call(.compare, [o, f, l.node, lt, r.node, rt, sourceNode]), nullable: false)
    }

    /// `pql_search`: BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES through the evaluator's
    /// folding, LIKE and PCRE2 code, with the pattern compiled once per statement.
    mutating func search(_ op: ComparisonOperator, _ options: SharedSemantics.Options,
                         _ subject: SQLExpression, _ pattern: SQLExpression) -> SQLCondition {
        if subject.isNullConstant || pattern.isNullConstant { return decided(false, evaluating: [subject, pattern]) }
        // An empty needle or pattern matches no string; a subject of another kind still raises.
        if case .string(let p)? = pattern.constant, p.isEmpty, subject.kind == .string { return decided(false, evaluating: [subject]) }
        if nativeOnly { return nativeSearch(op, options, subject, pattern) }
        let o = bindRaw(.integer(Int64(op.rawValue)))
        let f = bindRaw(.integer(Int64(optionsRaw(options))))
        if subject.tag != 0 || pattern.tag != 0 {
            // Dates, booleans and decimals are numbers to SQLite: their kinds name the error.
            let st = bindRaw(.integer(subject.tag)), pt = bindRaw(.integer(pattern.tag))
            return SQLCondition(node: .call(.search, [o, f, subject.node, pattern.node, st, pt, sourceNode]), nullable: false)
        }
        return SQLCondition(node: .call(.search, [o, f, subject.node, pattern.node, sourceNode]), nullable: false)
    }

    /// Case-sensitive BEGINSWITH as a range an index serves: every string with the prefix, and
    /// only those, lies in [prefix, prefix with its last character incremented), because
    /// SQLite's BINARY order is the evaluator's literal order (Unicode scalar order).
    mutating func prefixRange(_ l: SQLExpression, _ prefix: String) -> SQLCondition {
        var scalars = Array(prefix.unicodeScalars)
        guard let last = scalars.popLast() else { return decided(false, evaluating: [l]) }
        var next = last.value + 1
        if next == 0xD800 { next = 0xE000 }
        guard let bumped = Unicode.Scalar(next) else {
            let lo = bindRaw(.text(prefix))
            let length = bindRaw(.integer(Int64(prefix.unicodeScalars.count)))
            let head = SQLNode.call(.substring, [l.node, .integer(1), length])
            return SQLCondition(node: .parenthesized(.chain([.binary(l.node, .greaterThanOrEqual, lo), .binary(head, .equal, lo)], .and)), nullable: true)
        }
        scalars.append(bumped)
        var upper = ""
        upper.unicodeScalars.append(contentsOf: scalars)
        let lo = bindRaw(.text(prefix))
        let hi = bindRaw(.text(upper))
        return SQLCondition(node: .parenthesized(.chain([.binary(l.node, .greaterThanOrEqual, lo), .binary(l.node, .lessThan, hi)], .and)),
                            nullable: true)
    }

    /// `BEGINSWITH[c]` with a constant: one range per scalar a match can start with, so an
    /// index serves every term (SQLite unions the searches), and inside each range the shared
    /// function decides only where the prefix is not plainly ASCII (`a` + U+0301 composes to
    /// á; ẚ folds to aʾ). Ranges of rarer, non-ASCII starts sit behind one comparison with
    /// the lowest of them, so a scan of ASCII-starting text pays a single test for them all.
    mutating func caseInsensitivePrefix(_ l: SQLExpression, _ groups: [PrefixRangeGroup], exact: SQLCondition) -> SQLCondition {
        func term(_ g: PrefixRangeGroup) -> SQLNode {
            let envelope = scalarRange(l, g.envelope)
            if g.certain.isEmpty { return .parenthesized(.chain([envelope, exact.node], .and)) }
            let certain = g.certain.map { r -> SQLNode in
                // The envelope already holds `l >= lower` when the range starts where it does.
                if r.lower == g.envelope.lower, let upper = r.upper { return .binary(l.node, .lessThan, bindRaw(.text(upper))) }
                return .parenthesized(scalarRange(l, r))
            }
            return .parenthesized(.chain([envelope, .parenthesized(.chain(certain + [exact.node], .or))], .and))
        }
        let ascii = groups.filter { $0.start.isASCII }, rare = groups.filter { !$0.start.isASCII }
        var terms = ascii.map(term)
        if rare.count > 1, let lowest = rare.first {
            let lower = bindRaw(.text(lowest.envelope.lower))
            terms.append(.parenthesized(.chain([.binary(l.node, .greaterThanOrEqual, lower), .parenthesized(.chain(rare.map(term), .or))], .and)))
        } else {
            terms += rare.map(term)
        }
        return SQLCondition(node: .parenthesized(.chain(terms, .or)), nullable: true)
    }

    /// BEGINSWITH on PostgreSQL: the fold's LIKE (`pql.fold_c(x) LIKE 'a%'`, which an index on
    /// the fold serves), and for `[c]` with a constant needle first a test of the scalar the
    /// text starts with (`ascii(x) IN (65, 97, …)`: the code points of
    /// ``SharedSemantics/caseInsensitivePrefixStarts(_:)``, the starts SQLite's prefix ranges
    /// use): a necessary condition PostgreSQL tests before the fold (it orders a qual's terms
    /// by cost), so text that starts elsewhere never reaches the fold. One call and an integer
    /// list, where byte-order ranges of the text took five text comparisons per row: a million
    /// names, 24% not ASCII, `name BEGINSWITH[c] 'a'` 1,190 ms (the fold alone) → 250 ms
    /// (ranges) → 190 ms. Longer needles keep this form: their up to eight spellings cost more
    /// comparisons than the fold they save on text that starts right but does not match
    /// (`ann`: 130 → 160 ms).
    ///
    /// A one-letter needle first takes the text in the ranges that certainly match (`A` or `a`
    /// followed by nothing or a scalar below U+0300), without folding it, and folds the rest
    /// of the text that starts right. How depends on the indexes the store read
    /// (``prefixIndexes``), because PostgreSQL serves an OR by an index only when an index
    /// serves each of its arms, and prices each arm for every row when it scans:
    ///
    /// - `x COLLATE "C"` and the fold both indexed, or the indexes unknown: `(x < 'A\u{300}'
    ///   AND x >= 'A') OR (x >= 'a' AND x < 'a\u{300}') OR (ascii(x) IN (…) AND
    ///   pql.fold_c(x) LIKE 'a%')`, a BitmapOr of the two indexes. Served by psql (hand-written
    ///   ASCII-only `x LIKE 'a%' OR x LIKE 'A%'`, 65 ms with its index): 69 ms.
    /// - Only the fold indexed: the fold's form above, which its index serves.
    /// - Otherwise (a scan): the same ranges, with the fold's LIKE in one call,
    ///   `pql.fold_c_like(x, 'a%')`, which PostgreSQL prices at its declared cost. With the
    ///   fold's inlined expression in it, the OR looked like some 28 operators a row, where
    ///   most rows stop at the first comparison, and PostgreSQL chose a parallel scan, whose
    ///   workers, on two shared cores, compete with the client decoding the matches (1.26x
    ///   the hand-written SQL end to end); priced at its cost it scans serially (1.03x). The
    ///   call's own overhead is paid only by text that starts like a match and is outside the
    ///   ranges (`À…`, `a` + U+0301).
    ///
    /// Each range tests first the bound most text lies beyond, so that it fails on one
    /// comparison (text above `A…`; capitals below `a…`). The start test stays inside the last
    /// arm: as a condition of its own, PostgreSQL, which has no statistics for `ascii(x)`,
    /// guessed a fiftieth of the matches and chose a parallel plan whose `Gather` of them cost
    /// more than the fold saved.
    mutating func nativePrefix(_ options: SharedSemantics.Options, _ l: SQLExpression, _ r: SQLExpression) -> SQLCondition {
        let exact = search(.beginsWith, options, l, r)
        if case .boolean = exact.node { return exact }
        guard options.rawValue == ComparisonOptions.caseInsensitive.rawValue, l.kind == .string,
              case .string(let prefix)? = r.constant, let groups = SharedSemantics.caseInsensitivePrefixRanges(prefix) else { return exact }
        // One group per scalar a match can start with (caseInsensitivePrefixStarts).
        let codes = groups.map { bindRaw(.integer(Int64($0.start.value))) }
        let first = SQLNode.inList(.call(.firstScalar, [l.node]), codes)
        let folded = SQLNode.parenthesized(.chain([first, exact.node], .and))
        let single = SharedSemantics.caseInsensitiveASCIIFold(prefix)?.unicodeScalars.count == 1
        let ranges = single ? groups.flatMap(\.certain) : []
        if ranges.isEmpty { return SQLCondition(node: folded, nullable: true) }
        var last = folded
        if let known = prefixIndexes, let column = l.column, !known.ordered.contains(column) || !known.caseFolded.contains(column) {
            // The fold's index alone serves the fold's form; without it, a scan's.
            guard !known.caseFolded.contains(column), case .like(_, let pattern) = exact.node else { return SQLCondition(node: folded, nullable: true) }
            last = .parenthesized(.chain([first, .call(.caseFoldLike, [l.node, pattern])], .and))
        }
        let certain = ranges.map { r -> SQLNode in
            let atLeast = SQLNode.binary(collatedIfText(l), .greaterThanOrEqual, bindRaw(.text(r.lower)))
            guard let upper = r.upper else { return atLeast }
            let below = SQLNode.binary(collatedIfText(l), .lessThan, bindRaw(.text(upper)))
            let lowercase = r.lower.unicodeScalars.first.map { ("a"..."z").contains($0) } ?? false
            return .parenthesized(.chain(lowercase ? [atLeast, below] : [below, atLeast], .and))
        }
        return SQLCondition(node: .parenthesized(.chain(certain + [last], .or)), nullable: true)
    }

    /// The same test for a column no index serves, where every row pays for every term: one
    /// call of `pql_prefix_ci`, which decides ASCII text on its first bytes (as cheap as
    /// SQLite's LIKE) and hands the rest to the shared search. nil when an index may serve
    /// the column, or the needle's fold is not ASCII.
    mutating func scannedPrefix(_ l: SQLExpression, needle: String) -> SQLCondition? {
        guard let column = l.column, let indexed = indexedColumns, !indexed.contains(column),
              let folded = SharedSemantics.caseInsensitiveASCIIFold(needle) else { return nil }
        let f = bindRaw(.text(folded)), n = bindRaw(.text(needle))
        return SQLCondition(node: .call(.prefixCaseInsensitive, [l.node, f, n, sourceNode]), nullable: false)
    }

    /// `lower <= l < upper`, with both bounds bound.
    mutating func scalarRange(_ l: SQLExpression, _ range: ScalarOrderRange) -> SQLNode {
        let lo = bindRaw(.text(range.lower))
        guard let upper = range.upper else { return .binary(l.node, .greaterThanOrEqual, lo) }
        let hi = bindRaw(.text(upper))
        return .chain([.binary(l.node, .greaterThanOrEqual, lo), .binary(l.node, .lessThan, hi)], .and)
    }

    func optionsRaw(_ options: SharedSemantics.Options) -> Int { options.rawValue }

    /// `x BETWEEN {lo, hi}`.
    mutating func between(_ x: SQLExpression, _ bounds: [SQLExpression], options: SharedSemantics.Options) throws(StoreError) -> SQLCondition {
        guard bounds.count == 2 else {
            throw fail(.typeMismatch, "BETWEEN needs exactly two bounds, not \(bounds.count)", hint: "write x BETWEEN {low, high}")
        }
        if let object = ([x] + bounds).first(where: \.isObject) {
            throw fail(.typeMismatch, "\(describe(object)) cannot be compared with BETWEEN: objects have no order",
                       hint: "compare with == or !=, test membership with IN, or compare one of its attributes")
        }
        var x = x, lo = bounds[0], hi = bounds[1]
        if nativeOnly {
            let numbers = numbersForBooleans([x, lo, hi])
            (x, lo, hi) = (numbers[0], numbers[1], numbers[2])
            // PostgreSQL's BETWEEN makes an integer a double beside a double: digits beyond 2^53 lost.
            let wide = [x, lo, hi].filter { e in
                switch e.constant {
                case .int(let n)?: return n.magnitude > 1 << 53
                case .double(let d)?: return d.magnitude >= 9_007_199_254_740_992 && !d.isNaN
                case nil: return e.kind == .integer || e.kind == .real
                default: return false
                }
            }
            if wide.contains(where: { $0.kind == .integer }) && wide.contains(where: { $0.kind == .real }) {
                throw fail(.unsupported, "BETWEEN of integers and doubles computed per row has no PostgreSQL form in PQL",
                           hint: "write x >= low AND x <= high, which compare integers and doubles exactly")
            }
        }
        if x.isNullConstant { return decided(false, evaluating: [lo, hi]) }
        if let a = lo.constant, let b = hi.constant {
            if a.isNull { return decided(false, evaluating: [x]) }
            if b.isNull {
                // Nothing lies below nil, but the evaluator first tests x >= lo, which raises for
                // kinds that have no order against lo: decided by the shared function then.
                if x.kind.comparesNatively(with: lo.kind), x.kind.domain != .data { return decided(false, evaluating: [x]) }
                return SQLCondition(node: .call(.decided, [.boolean(false), shared(.greaterThanOrEqual, options, x, lo).node]), nullable: false)
            }
            // Bounds in reverse order are swapped, as the evaluator does.
            if (try? SharedSemantics.apply(.greaterThan, a, b, options)) == true { swap(&lo, &hi) }
            if x.kind.comparesNatively(with: lo.kind), x.kind.comparesNatively(with: hi.kind),
               x.kind.domain != .data, options.isLiteral || x.kind.domain != .string {
                if nativeOnly {
                    if let refused = nativeRefusal(.between, options, x, lo) ?? nativeRefusal(.between, options, x, hi) { throw refused }
                    let c = SQLNode.between(collatedIfText(x), collatedIfText(lo), collatedIfText(hi))
                    return SQLCondition(node: x.kind == .real ? .parenthesized(.chain([c, notNaN(x)], .and)) : c, nullable: true)
                }
                return SQLCondition(node: .between(x.node, lo.node, hi.node), nullable: true)
            }
        }
        if nativeOnly, x.kind.comparesNatively(with: lo.kind), x.kind.comparesNatively(with: hi.kind), x.kind.domain != .data,
           options.isLiteral || x.kind.domain != .string {
            if let refused = nativeRefusal(.between, options, x, lo) ?? nativeRefusal(.between, options, x, hi) { throw refused }
            // Bounds computed per row: swapped when in reverse order, as the evaluator swaps
            // them; a nil bound makes it NULL (false), as nothing lies beside nil.
            let (cx, cl, ch) = (collatedIfText(x), collatedIfText(lo), collatedIfText(hi))
            let node = SQLNode.parenthesized(.caseWhen(.binary(cl, .greaterThan, ch), then: .between(cx, ch, cl), else: .between(cx, cl, ch)))
            let terms = [node] + [x, lo, hi].filter { $0.kind == .real && $0.constant == nil }.map { notNaN($0) }
            return SQLCondition(node: terms.count == 1 ? node : .parenthesized(.chain(terms, .and)), nullable: true)
        }
        if nativeOnly {
            refuse("BETWEEN with bounds that are not constants of the value's kind",
                   hint: "write x >= low AND x <= high, or use constant bounds of x's kind")
        }
        let f = bindRaw(.integer(Int64(optionsRaw(options))))
        let xt = bindRaw(.integer(x.tag)), lt = bindRaw(.integer(lo.tag)), ht = bindRaw(.integer(hi.tag))
        return SQLCondition(node: .call(.between, [f, x.node, xt, lo.node, lt, hi.node, ht, sourceNode]), nullable: false)
    }
}

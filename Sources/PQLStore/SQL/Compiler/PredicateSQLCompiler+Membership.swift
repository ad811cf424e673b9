import PQL

/// `IN` and `CONTAINS` against a collection: some element equals the value, under the
/// comparison's `[c]`/`[d]`/`[l]` options where both are strings (decision D20: Apple
/// ignores the options here; PQL applies them, in memory and in the store alike). nil is never
/// a member.
extension PredicateSQLCompiler {
    /// The most members a `[c]` membership narrows by index ranges (two or more ranges each).
    static let maxRangedMembers = 8

    /// `x IN {a, b, …}` (also `ANY rel.attr IN {…}` and `{…} CONTAINS x`).
    mutating func membership(_ x: SQLExpression, inValues items: [SQLExpression],
                             options: SharedSemantics.Options) throws(StoreError) -> SQLCondition {
        if x.isNullConstant { return decided(false, evaluating: items) }
        var x = x, items = items
        // Objects go to the comparisons one by one below, which tell them apart (and refuse
        // what can never be a key) where the constant fast paths would not.
        let objects = x.isObject || items.contains(where: \.isObject)
        if nativeOnly && !objects {
            for item in items { if let refused = nativeRefusal(.equal, options, x, item) { throw refused } }
            let numbers = numbersForBooleans([x] + items)
            (x, items) = (numbers[0], Array(numbers.dropFirst()))
        }
        if !objects, items.allSatisfy({ $0.constant != nil }), x.kind.domain != .unknown {
            // Members of another kind can never be equal: leave them out.
            let members = items.filter { !$0.isNullConstant && x.kind.comparesNatively(with: $0.kind) }
            if members.isEmpty { return decided(false, evaluating: [x]) }
            if x.kind.domain == .string, !options.isLiteral, !options.isLocalized {
                return foldedMembership(x, members, options)
            }
            if options.isLiteral || x.kind.domain != .string {
                // An integer against a double beyond 2^53 (or the reverse) compares exactly, as
                // `==` does: PostgreSQL's IN would make the integer a double first.
                let exactly = members.filter { needsExactMixedComparison(x, $0) }
                let natively = members.filter { !needsExactMixedComparison(x, $0) }
                let list = natively.isEmpty ? [] : [SQLNode.inList(x.node, natively.map(\.node))]
                if exactly.isEmpty { return SQLCondition(node: list[0], nullable: true) }
                var parts = list
                for m in exactly { parts.append(try compare(.equal, options: options, x, m).node) }
                return SQLCondition(node: parts.count == 1 ? parts[0] : .parenthesized(Self.chain(parts, .or)), nullable: true)
            }
        }
        if items.isEmpty { return decided(false, evaluating: [x]) }
        var parts: [SQLNode] = []
        for item in items where !item.isNullConstant {
            parts.append(try compare(.equal, options: options, x, item).node)
        }
        if parts.isEmpty { return decided(false, evaluating: [x]) }
        // Grouped as `chain` groups: a long list must not nest deeper than SQLite parses.
        let any = parts.count == 1 ? .parenthesized(parts[0]) : Self.chain(parts, .or)
        let guarded = x.nullable ? SQLNode.chain([.isNull(x.node, negated: true), any], .and) : any
        return SQLCondition(node: .parenthesized(guarded), nullable: true)
    }

    /// `x IN[cd] {…}` on strings: the members folded once, here, and `x` folded per row by
    /// `pql_fold`, so the test is one SQLite IN lookup (equality under `[c]`/`[d]` is equality
    /// of the folds). With `[c]` on a column an index may serve, the ranges of strings that can
    /// fold to a member come first, so the index narrows the rows `pql_fold` sees.
    mutating func foldedMembership(_ x: SQLExpression, _ constants: [SQLExpression], _ options: SharedSemantics.Options) -> SQLCondition {
        let members = constants.compactMap { m -> String? in if case .string(let s)? = m.constant { return s } else { return nil } }
        var ranges: [SQLNode] = []
        if nativeOnly {
            guard let bits = foldFunctionOptions(options) else {
                refuse("IN with the [l] option", hint: "drop [l], or fetch and filter in memory")
                return .alwaysFalse
            }
            let list = constants.compactMap { m -> SQLNode? in
                guard case .string(let s)? = m.constant else { return nil }
                return bindRaw(.text(options.fold(s)))
            }
            return SQLCondition(node: .inList(.call(.fold, [.integer(Int64(bits)), x.node]), list), nullable: true)
        }
        if options.rawValue == ComparisonOptions.caseInsensitive.rawValue, members.count <= Self.maxRangedMembers,
           let column = x.column, indexedColumns?.contains(column) ?? true {
            var envelopes: [ScalarOrderRange] = []
            for m in members {
                // A member folding to "" has no first scalar to range on (`[c]` folds nothing
                // away, but stay safe): no narrowing then.
                guard let groups = SharedSemantics.caseInsensitivePrefixRanges(m) else { envelopes = []; break }
                for g in groups where !envelopes.contains(g.envelope) { envelopes.append(g.envelope) }
            }
            ranges = envelopes.map { .parenthesized(scalarRange(x, $0)) }
        }
        let f = bindRaw(.integer(Int64(optionsRaw(options))))
        // Each member's own parameter takes its fold: a long `IN[c] %@` list binds no more
        // values than `IN %@` does.
        var list: [SQLNode] = []
        for m in constants {
            guard case .string(let s)? = m.constant else { continue }
            if let slot = m.node.parameterSlot {
                bindings.replace(slot, with: .text(options.fold(s)))
                list.append(m.node)
            } else {
                list.append(bindRaw(.text(options.fold(s))))
            }
        }
        let lookup = SQLNode.inList(.call(.fold, [f, x.node]), list)
        if ranges.isEmpty { return SQLCondition(node: lookup, nullable: true) }
        return SQLCondition(node: .parenthesized(.chain([.parenthesized(.chain(ranges, .or)), lookup], .and)), nullable: true)
    }

    /// `x IN rel.attr` / `rel.attr CONTAINS x`: some element equals x.
    mutating func membership(_ x: SQLExpression, in src: CollectionSource, options: SharedSemantics.Options,
                             scope: SQLScope) throws(StoreError) -> SQLCondition {
        if x.isNullConstant { return .alwaysFalse }
        if src.hasOperator || src.filter != nil {
            throw fail(.unsupported, "IN needs the elements of a to-many key path, not an aggregate")
        }
        let (from, conditions) = try elements(of: src, correlated: false, skipNullKeys: false) { compiler, inner, element throws(StoreError) in
            // No key after the relationship: the elements are its objects (`%@ IN tags`).
            let element = element ?? compiler.object(inner, entity: src.destination, nullable: false)
            if !element.isObject, element.kind == .string, case .string(let s)? = x.constant, !options.isLiteral, !options.isLocalized {
                // A constant folded once; each element folded by pql_fold.
                let f: SQLNode = compiler.nativeOnly ? .integer(Int64(options.rawValue & 3)) : compiler.bindRaw(.integer(Int64(compiler.optionsRaw(options))))
                return .binary(.call(.fold, [f, element.node]), .equal, compiler.bindRaw(.text(options.fold(s))))
            }
            return try compiler.compare(.equal, options: options, element, x).node
        }
        let member = SQLNode.inSubquery(src.outerKey.node, keyList(src, from: from, conditions: conditions), negated: false)
        let guarded = x.nullable ? SQLNode.chain([.isNull(x.node, negated: true), member], .and) : member
        return SQLCondition(node: .parenthesized(guarded), nullable: true)
    }
}

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
        if items.allSatisfy({ $0.constant != nil }), x.kind.domain != .unknown {
            // Members of another kind can never be equal: leave them out.
            let members = items.filter { !$0.isNullConstant && x.kind.comparesNatively(with: $0.kind) }
            if members.isEmpty { return decided(false, evaluating: [x]) }
            if x.kind.domain == .string, !options.isLiteral, !options.isLocalized {
                return foldedMembership(x, members, options)
            }
            if options.isLiteral || x.kind.domain != .string {
                return SQLCondition(sql: "\(x.sql) IN (\(members.map(\.sql).joined(separator: ", ")))", nullable: true)
            }
        }
        if items.isEmpty { return decided(false, evaluating: [x]) }
        var parts: [String] = []
        for item in items where !item.isNullConstant {
            parts.append(try compare(.equal, options: options, x, item).sql)
        }
        if parts.isEmpty { return decided(false, evaluating: [x]) }
        let guardNil = x.nullable ? "\(x.sql) IS NOT NULL AND " : ""
        // Grouped as `chain` groups: a long list must not nest deeper than SQLite parses.
        let any = parts.count == 1 ? "(\(parts[0]))" : Self.chain(parts, " OR ")
        return SQLCondition(sql: "(\(guardNil)\(any))", nullable: true)
    }

    /// `x IN[cd] {…}` on strings: the members folded once, here, and `x` folded per row by
    /// `pql_fold`, so the test is one SQLite IN lookup (equality under `[c]`/`[d]` is equality
    /// of the folds). With `[c]` on a column an index may serve, the ranges of strings that can
    /// fold to a member come first, so the index narrows the rows `pql_fold` sees.
    mutating func foldedMembership(_ x: SQLExpression, _ constants: [SQLExpression], _ options: SharedSemantics.Options) -> SQLCondition {
        let members = constants.compactMap { m -> String? in if case .string(let s)? = m.constant { return s } else { return nil } }
        var ranges: [String] = []
        if options.rawValue == ComparisonOptions.caseInsensitive.rawValue, members.count <= Self.maxRangedMembers,
           let column = x.column, indexedColumns?.contains(column) ?? true {
            var envelopes: [ScalarOrderRange] = []
            for m in members {
                // A member folding to "" has no first scalar to range on (`[c]` folds nothing
                // away, but stay safe): no narrowing then.
                guard let groups = SharedSemantics.caseInsensitivePrefixRanges(m) else { envelopes = []; break }
                for g in groups where !envelopes.contains(g.envelope) { envelopes.append(g.envelope) }
            }
            ranges = envelopes.map { "(\(scalarRange(x, $0)))" }
        }
        let f = bindRaw(.integer(Int64(optionsRaw(options))))
        // Each member's own parameter takes its fold: a long `IN[c] %@` list binds no more
        // values than `IN %@` does.
        var list: [String] = []
        for m in constants {
            guard case .string(let s)? = m.constant else { continue }
            list.append(bindings.replace(m.sql, with: .text(options.fold(s))) ? m.sql : bindRaw(.text(options.fold(s))))
        }
        let lookup = "pql_fold(\(f), \(x.sql)) IN (\(list.joined(separator: ", ")))"
        if ranges.isEmpty { return SQLCondition(sql: lookup, nullable: true) }
        return SQLCondition(sql: "((\(ranges.joined(separator: " OR "))) AND \(lookup))", nullable: true)
    }

    /// `x IN rel.attr` / `rel.attr CONTAINS x`: some element equals x.
    mutating func membership(_ x: SQLExpression, in src: CollectionSource, options: SharedSemantics.Options,
                             scope: SQLScope) throws(StoreError) -> SQLCondition {
        if x.isNullConstant { return .alwaysFalse }
        if src.rest.contains(where: { $0.hasPrefix("@") }) || src.filter != nil {
            throw fail(.unsupported, "IN needs the elements of a to-many key path, not an aggregate")
        }
        if src.rest.isEmpty {
            throw fail(.unsupported, "membership in \(src.name) compares related objects, which has no SQL form",
                       hint: "test an attribute: value IN \(src.name).attribute")
        }
        let (from, conditions) = try elements(of: src, correlated: false, skipNullKeys: false) { compiler, _, element throws(StoreError) in
            guard let element else { return nil }
            if element.kind == .string, case .string(let s)? = x.constant, !options.isLiteral, !options.isLocalized {
                // A constant folded once; each element folded by pql_fold.
                let f = compiler.bindRaw(.integer(Int64(compiler.optionsRaw(options))))
                return "pql_fold(\(f), \(element.sql)) = \(compiler.bindRaw(.text(options.fold(s))))"
            }
            return try compiler.compare(.equal, options: options, element, x).sql
        }
        let remote = SQLIdentifier.column(src.remoteColumn, of: from.alias)
        let guardNil = x.nullable ? "\(x.sql) IS NOT NULL AND " : ""
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return SQLCondition(sql: "(\(guardNil)\(src.outerKey.sql) IN (SELECT \(remote) FROM \(from.fromClause)\(filter)))",
                            nullable: true)
    }
}

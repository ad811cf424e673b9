import PQL

/// How a SQLite store decides whether a range over an indexed column is searched through its
/// index (README, "Indexes and plans").
package enum IndexRangePolicy: Sendable {
    /// Each statement measures its ranges (the default; see `IndexUse.choose`).
    case measured
    /// SQLite's planner alone decides, as before the store measured (for comparisons).
    case plannerOnly
    /// Every range the store would measure is kept off its index, whatever it matches (for
    /// tests: the rows must not change).
    case neverSearch
}

/// The indexes of the file a statement runs on and the connection it runs on: what the
/// statement's builder needs to choose between an index search and a scan.
struct IndexUse {
    let indexes: SQLiteIndexes?
    let connection: SQLiteConnection
    var policy: IndexRangePolicy = .measured

    /// The columns leading an index, for the compiler's index-aware forms.
    var leadingColumns: Set<IndexedColumn>? { indexes?.leading }

    /// An index search pays while it reads fewer than a sixteenth of the table's rows through
    /// the index. Measured on 300,000 and 1,000,000 people (SQLite 3.40, default page cache):
    /// reading a row through a non-covering index costs 14–16 times reading it in a scan, so
    /// the two meet at 6–7% of the rows. A covering index never loses (its entries are
    /// smaller than the rows and it is read in order), and is never measured.
    static let scanFraction: Int64 = 16

    /// Below this many rows (the span of the table's keys) SQLite's plan is kept: reading all
    /// of them through an index costs about a millisecond and a half at worst, and the count
    /// would add its statements (microseconds) to every small query.
    static let minimumRows: Int64 = 1_024

    /// `condition` (the WHERE of a statement on `scope`'s table) with each range the store
    /// finds cheaper to scan written on `+column`, which keeps SQLite from searching an index
    /// for it and changes nothing else (the same rows: PQL compares natively only values of
    /// one kind, for which the column's affinity, which `+` drops, converts nothing).
    ///
    /// SQLite 3.40 as Debian builds it has no range statistics (no STAT4): its planner guesses
    /// that a range keeps a quarter of the rows (a sixty-fourth for two bounds) and prices a
    /// row read through an index at about what a scan pays for it, so it searches the index
    /// for ranges that match half the table and then reads every row through it, 7–8x slower
    /// than a scan (`age BETWEEN {18, 65}`: 53% of the rows). A top-level term of the WHERE
    /// is measured when it is a range, a BETWEEN, an IN list or case-sensitive BEGINSWITH on
    /// one column with bound values, the same column's terms together (`age >= 18 AND age <=
    /// 65`), or an OR of such terms and of equalities, each over a column that leads an index,
    /// and when:
    ///
    /// - no index led by the column covers the statement: the statement reads no column of
    ///   the table outside one such index (a covering search reads no row: always cheaper);
    /// - the column is not the first sort key (the index then serves the order, and a scan
    ///   would sort; `limit` stops the ordered search early);
    /// - it is not beside an equality on the same column (SQLite searches the equality, which
    ///   `ANALYZE`'s statistics estimate).
    ///
    /// - the table holds at least `minimumRows` rows.
    ///
    /// A range that keeps a quarter or more of 64 rows spread over the table's keys is scanned
    /// at once (``sampleIsBroad(_:in:keys:bindings:dialect:)``). Any other is measured by
    /// counting its index entries up to the limit, a sixteenth of the
    /// table's rows (the span of its keys): `SELECT count(*) FROM (SELECT 1 … WHERE term
    /// LIMIT n)` walks only the index, and stops there. A term that reaches the limit is
    /// scanned. A selective term costs the walk of its own entries, which its search reads
    /// anyway; a broad one at most a sixteenth of the index, a few percent of the scan.
    func choose(_ condition: SQLNode, in scope: SQLScope, reads: Set<String>?, sortedBy: String?,
                bindings: [SQLValue], dialect: any SQLDialect) throws(StoreError) -> SQLNode {
        guard policy != .plannerOnly, let indexes else { return condition }
        let alias = scope.alias
        var terms: [SQLNode] = []
        Self.conjuncts(condition, into: &terms)
        var equalities: Set<String> = []
        var ranges: [String: [Int]] = [:]
        var groups: [(columns: Set<String>, terms: [Int], leaves: [SQLNode])] = []
        for (i, term) in terms.enumerated() {
            if let s = Self.searchable(term, alias) {
                if s.isEquality { equalities.insert(s.column) } else { ranges[s.column, default: []].append(i) }
            } else if let arms = Self.disjuncts(term, alias) {
                groups.append((Set(arms.map(\.column)), [i], arms.map(\.node)))
            }
        }
        for (column, at) in ranges where !equalities.contains(column) {
            let leaf = at.count == 1 ? terms[at[0]] : .chain(at.map { terms[$0] }, .and)
            groups.append(([column], at, [leaf]))
        }
        if groups.isEmpty { return condition }
        // What the statement reads of the table besides its key, which every index holds.
        let read = reads.map { r -> Set<String> in
            var all = r.union(condition.columns(of: alias))
            for j in scope.joins { j.on.collectColumns(of: alias, into: &all) }
            return Set(all.map { $0.lowercased() }).subtracting([scope.primaryKey.lowercased()])
        }
        // The table's least and greatest keys: their span bounds its rows. Read once per statement.
        var tableKeys: ClosedRange<Int64>?? = nil
        var unindexed: [Int: Set<String>] = [:]
        for g in groups.sorted(by: { $0.terms[0] < $1.terms[0] }) {
            let keys = g.columns.map { IndexedColumn(table: scope.table, column: $0) }
            guard keys.allSatisfy({ indexes.searchable[$0] != nil }), sortedBy.map({ !g.columns.contains($0) }) ?? true else { continue }
            if policy == .measured {
                if let read, keys.allSatisfy({ k in indexes.searchable[k]!.contains { read.isSubset(of: $0) } }) { continue }
                if tableKeys == nil { tableKeys = .some(try keyRange(scope, dialect)) }
                guard let span = tableKeys ?? nil else { continue }
                let n = span.upperBound - span.lowerBound + 1
                guard n >= Self.minimumRows else { continue }
                let limit = max(1, n / Self.scanFraction)
                var found: Int64 = 0
                // A range that keeps many of a few rows spread over the table: scanned uncounted.
                if try sampleIsBroad(g.leaves, in: scope, keys: span, bindings: bindings, dialect: dialect) {
                    found = limit
                }
                for leaf in g.leaves where found < limit {
                    found += try count(leaf, in: scope, upTo: limit - found, bindings: bindings, dialect: dialect)
                }
                if found < limit { continue }
            }
            for i in g.terms { unindexed[i] = g.columns }
        }
        if unindexed.isEmpty { return condition }
        var next = 0
        return Self.mapConjuncts(condition) { term in
            defer { next += 1 }
            return unindexed[next].map { term.unindexing($0, of: alias) } ?? term
        }
    }

    /// The table's least and greatest keys, found in two steps of its B-tree; nil for an empty table.
    func keyRange(_ scope: SQLScope, _ dialect: any SQLDialect) throws(StoreError) -> ClosedRange<Int64>? {
        let t = dialect.table(scope.table), k = dialect.quote(scope.primaryKey)
        let s = try connection.prepare("SELECT (SELECT min(\(k)) FROM \(t)), (SELECT max(\(k)) FROM \(t))", cached: true)
        defer { s.reset() }
        guard try s.step(), !s.isNull(0), !s.isNull(1) else { return nil }
        let first = s.int64(0), last = s.int64(1)
        return first <= last ? first...last : nil
    }

    /// How many rows `term` matches, counted up to `limit` through the index on its column.
    private func count(_ term: SQLNode, in scope: SQLScope, upTo limit: Int64, bindings: [SQLValue],
                       dialect: any SQLDialect) throws(StoreError) -> Int64 {
        if bindings.count + 1 > connection.variableLimit { return 0 }
        let sql = "SELECT count(*) FROM (SELECT 1 FROM \(dialect.table(scope.table)) \(scope.alias) WHERE \(dialect.render(term))"
            + " LIMIT \(dialect.parameter(bindings.count)))"
        let s = try connection.prepare(sql, cached: true)
        defer { s.reset() }
        try s.bind(bindings + [.integer(limit)], foldedAllowed: true)
        guard try s.step() else { return 0 }
        return s.int64(0)
    }

    /// The terms of a top-level AND, however the compiler grouped them.
    static func conjuncts(_ node: SQLNode, into out: inout [SQLNode]) {
        switch node {
        case .chain(let terms, .and), .parenthesized(.chain(let terms, .and)): for t in terms { conjuncts(t, into: &out) }
        default: out.append(node)
        }
    }

    /// `node` with each of its top-level AND's terms replaced by `f(term)`, in the order
    /// ``conjuncts(_:into:)`` lists them, keeping the grouping.
    static func mapConjuncts(_ node: SQLNode, _ f: (SQLNode) -> SQLNode) -> SQLNode {
        switch node {
        case .chain(let terms, .and): return .chain(terms.map { mapConjuncts($0, f) }, .and)
        case .parenthesized(.chain(let terms, .and)): return .parenthesized(.chain(terms.map { mapConjuncts($0, f) }, .and))
        default: return f(node)
        }
    }

    /// The column a term compares with bound values in a way an index on it can search:
    /// `<`, `<=`, `>`, `>=`, BETWEEN, IN, `=`, and ANDs of them on one column (BEGINSWITH's
    /// range). Nothing that calls a function.
    static func searchable(_ node: SQLNode, _ alias: String) -> (column: String, isEquality: Bool)? {
        func column(_ x: SQLNode) -> String? {
            if case .column(let a, let name) = x, a == alias { return name }
            return nil
        }
        switch node {
        case .parenthesized(let x): return searchable(x, alias)
        case .binary(let l, let op, let r):
            guard [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal].contains(op) else { return nil }
            if let c = column(l), r.parameterSlot != nil { return (c, op == .equal) }
            if let c = column(r), l.parameterSlot != nil { return (c, op == .equal) }
            return nil
        case .between(let x, let lo, let hi):
            guard let c = column(x), lo.parameterSlot != nil, hi.parameterSlot != nil else { return nil }
            return (c, false)
        case .inList(let x, let items):
            guard let c = column(x), !items.isEmpty, items.allSatisfy({ $0.parameterSlot != nil }) else { return nil }
            return (c, false)
        case .chain(let terms, .and):
            let parts = terms.map { searchable($0, alias) }
            guard let first = parts.first??.column, parts.allSatisfy({ $0?.column == first }) else { return nil }
            return (first, parts.contains { $0?.isEquality == true })
        default:
            return nil
        }
    }

    /// The arms of an OR whose every arm is ``searchable(_:_:)`` (on one column each).
    static func disjuncts(_ node: SQLNode, _ alias: String) -> [(node: SQLNode, column: String)]? {
        var arms: [SQLNode] = []
        func flatten(_ n: SQLNode) {
            switch n {
            case .chain(let terms, .or), .parenthesized(.chain(let terms, .or)): for t in terms { flatten(t) }
            default: arms.append(n)
            }
        }
        switch node {
        case .chain(_, .or), .parenthesized(.chain(_, .or)): flatten(node)
        default: return nil
        }
        var out: [(node: SQLNode, column: String)] = []
        for arm in arms {
            guard let s = searchable(arm, alias) else { return nil }
            out.append((arm, s.column))
        }
        return out
    }
}

extension SQLNode {
    /// The columns of the table under `alias` it reads, subqueries included (aliases are unique
    /// in a statement, so a correlated subquery's reference to the outer row counts).
    func columns(of alias: String) -> Set<String> {
        var out: Set<String> = []
        collectColumns(of: alias, into: &out)
        return out
    }

    func collectColumns(of alias: String, into out: inout Set<String>) {
        switch self {
        case .column(let a, let name): if a == alias { out.insert(name) }
        case .parameter, .integer, .boolean, .countAll: break
        case .call(_, let args): for x in args { x.collectColumns(of: alias, into: &out) }
        case .binary(let l, _, let r):
            l.collectColumns(of: alias, into: &out)
            r.collectColumns(of: alias, into: &out)
        case .chain(let terms, _): for x in terms { x.collectColumns(of: alias, into: &out) }
        case .not(let x), .isNull(let x, _), .unaryPlus(let x), .parenthesized(let x), .collated(let x):
            x.collectColumns(of: alias, into: &out)
        case .caseWhen(let c, let a, let b): for x in [c, a, b] { x.collectColumns(of: alias, into: &out) }
        case .inList(let x, let items): for y in [x] + items { y.collectColumns(of: alias, into: &out) }
        case .inSubquery(let x, let s, _):
            x.collectColumns(of: alias, into: &out)
            s.collectColumns(of: alias, into: &out)
        case .subquery(let s): s.collectColumns(of: alias, into: &out)
        case .between(let x, let lo, let hi): for y in [x, lo, hi] { y.collectColumns(of: alias, into: &out) }
        case .like(let x, let p):
            x.collectColumns(of: alias, into: &out)
            p.collectColumns(of: alias, into: &out)
        }
    }

    /// The same expression with each of `names` (columns of the table under `alias`) written
    /// `+column`: the same value, which SQLite no longer searches an index for. Only for the
    /// plain comparisons `IndexRangeChoice` picks (no subqueries).
    func unindexing(_ names: Set<String>, of alias: String) -> SQLNode {
        switch self {
        case .column(let a, let name) where a == alias && names.contains(name): return .unaryPlus(self)
        case .column, .parameter, .integer, .boolean, .countAll, .unaryPlus, .inSubquery, .subquery: return self
        case .call(let f, let args): return .call(f, args.map { $0.unindexing(names, of: alias) })
        case .binary(let l, let op, let r): return .binary(l.unindexing(names, of: alias), op, r.unindexing(names, of: alias))
        case .chain(let terms, let op): return .chain(terms.map { $0.unindexing(names, of: alias) }, op)
        case .not(let x): return .not(x.unindexing(names, of: alias))
        case .isNull(let x, let negated): return .isNull(x.unindexing(names, of: alias), negated: negated)
        case .parenthesized(let x): return .parenthesized(x.unindexing(names, of: alias))
        case .collated(let x): return .collated(x.unindexing(names, of: alias))
        case .caseWhen(let c, let a, let b):
            return .caseWhen(c.unindexing(names, of: alias), then: a.unindexing(names, of: alias), else: b.unindexing(names, of: alias))
        case .inList(let x, let items): return .inList(x.unindexing(names, of: alias), items.map { $0.unindexing(names, of: alias) })
        case .between(let x, let lo, let hi):
            return .between(x.unindexing(names, of: alias), lo.unindexing(names, of: alias), hi.unindexing(names, of: alias))
        case .like(let x, let p): return .like(x.unindexing(names, of: alias), p.unindexing(names, of: alias))
        }
    }
}

extension SQLSelect {
    func collectColumns(of alias: String, into out: inout Set<String>) {
        for n in columns + conditions + from.joins.map(\.on) { n.collectColumns(of: alias, into: &out) }
    }
}

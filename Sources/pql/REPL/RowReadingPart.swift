import PQL

/// The part of an expression that reads the evaluated row: a key path (`name`), `SELF`,
/// `ANYKEY`, or a `SUBQUERY` over one. `.let` refuses such a value: without a row it is nil,
/// and `$x` bound to nil silently made the next predicate match nothing.
enum RowReadingPart {
    /// The first such part, in the order the text has them, or nil when the value reads no row.
    static func first(in e: ExpressionNode) -> ExpressionNode? {
        switch e {
        case .constant, .variable: return nil
        case .evaluatedObject, .keyPath, .anyKey: return e
        case .keyPathOn(let base, _): return first(in: base)
        case .aggregate(let es), .function(_, let es): return es.lazy.compactMap(first(in:)).first
        case .index(let base, let sub):
            if let p = first(in: base) { return p }
            if case .expression(let i) = sub { return first(in: i) }
            return nil
        case .customFunction(let target, _, let args): return first(in: target) ?? args.lazy.compactMap(first(in:)).first
        case .cast(let v, let t): return first(in: v) ?? first(in: t)
        case .ternary(let p, let a, let b): return first(in: p) ?? first(in: a) ?? first(in: b)
        // The iteration variable is its own; the collection, or a key path inside, reads the row.
        case .subquery(let collection, _, let p): return first(in: collection) != nil ? e : first(in: p).map { _ in e }
        case .assignment(_, let v): return first(in: v)
        case .setOperation(_, let a, let b): return first(in: a) ?? first(in: b)
        }
    }

    static func first(in p: PredicateNode) -> ExpressionNode? {
        switch p {
        case .constant: return nil
        case .comparison(let c): return first(in: c.lhs) ?? first(in: c.rhs)
        case .and(let ps), .or(let ps): return ps.lazy.compactMap(first(in:)).first
        case .not(let q): return first(in: q)
        }
    }
}

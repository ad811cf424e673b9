/// How deep a tree nests, measured without recursion, so that trees built in code (which no
/// parser limit checked) are refused before a recursive compiler could overflow the stack.
extension PredicateNode {
    /// The deepest nesting the compilers accept: twice the parser's tree limit (64), so every
    /// parsed tree fits with room for the levels the parser does not count.
    public static let maxCompileDepth = 128

    /// The nesting up to which the compilers work on the caller's thread; deeper trees are
    /// compiled on a large stack (``LargeStack``). The SQL compiler spends up to 21 KiB of
    /// stack per level in a debug build, so ten levels stay well inside a 512 KiB thread.
    package static let inlineCompileDepth = 10

    /// The nesting up to which printing, substituting and evaluating run on the caller's thread.
    /// Every parsed tree fits (a debug build spends under 2.5 KiB per level on them; the
    /// address sanitizer about three times that); only trees built in code go deeper, and
    /// those run on a large stack.
    package static let inlineWalkDepth = 64

    /// Whether the tree nests deeper than `limit` nodes (predicates and expressions counted
    /// alike), checked with an explicit stack: safe on any tree, however deep.
    ///
    /// ```swift
    /// var p = PredicateNode.constant(true)
    /// for _ in 0..<1_000 { p = .not(p) }
    /// p.nestsDeeper(than: PredicateNode.maxCompileDepth)   // true
    /// ```
    public func nestsDeeper(than limit: Int) -> Bool {
        nestingDepth(cappedAt: limit) > limit
    }

    /// How deep the tree nests, or `cap + 1` as soon as it is known to nest deeper than `cap`:
    /// one walk with an explicit stack answers both "too deep to compile?" and "deep enough
    /// for a large stack?".
    package func nestingDepth(cappedAt cap: Int) -> Int {
        enum Item { case predicate(PredicateNode), expression(ExpressionNode) }
        var stack: [(Item, Int)] = [(.predicate(self), 1)]
        var deepest = 0
        while let (item, depth) = stack.popLast() {
            if depth > cap { return cap + 1 }
            deepest = max(deepest, depth)
            let next = depth + 1
            switch item {
            case .predicate(let p):
                switch p {
                case .constant: break
                case .comparison(let c): stack.append((.expression(c.lhs), next)); stack.append((.expression(c.rhs), next))
                case .and(let ps), .or(let ps): for q in ps { stack.append((.predicate(q), next)) }
                case .not(let q): stack.append((.predicate(q), next))
                }
            case .expression(let e):
                switch e {
                case .constant, .evaluatedObject, .variable, .keyPath, .anyKey: break
                case .keyPathOn(let base, _): stack.append((.expression(base), next))
                case .aggregate(let items): for i in items { stack.append((.expression(i), next)) }
                case .function(_, let args): for a in args { stack.append((.expression(a), next)) }
                case .index(let base, let sub):
                    stack.append((.expression(base), next))
                    if case .expression(let i) = sub { stack.append((.expression(i), next)) }
                case .customFunction(let target, _, let args):
                    stack.append((.expression(target), next))
                    for a in args { stack.append((.expression(a), next)) }
                case .cast(let v, let t): stack.append((.expression(v), next)); stack.append((.expression(t), next))
                case .ternary(let p, let a, let b):
                    stack.append((.predicate(p), next)); stack.append((.expression(a), next)); stack.append((.expression(b), next))
                case .subquery(let c, _, let p): stack.append((.expression(c), next)); stack.append((.predicate(p), next))
                case .assignment(_, let v): stack.append((.expression(v), next))
                case .setOperation(_, let a, let b): stack.append((.expression(a), next)); stack.append((.expression(b), next))
                }
            }
        }
        return deepest
    }
}

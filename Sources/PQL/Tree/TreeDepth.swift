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
    /// for a large stack?". The stack holds one frame per level (a node and the next child to
    /// visit), never a node's whole list of children, so an OR of a million terms costs no
    /// more memory than a single comparison.
    package func nestingDepth(cappedAt cap: Int) -> Int {
        var stack: [(node: TreeItem, next: Int)] = [(.predicate(self), 0)]
        var deepest = 1
        while !stack.isEmpty {
            let top = stack.count - 1
            let (node, next) = stack[top]
            guard let child = node.child(next) else {
                stack.removeLast()
                continue
            }
            stack[top].next = next + 1
            if stack.count + 1 > cap { return cap + 1 }
            stack.append((child, 0))
            deepest = max(deepest, stack.count)
        }
        return deepest
    }
}

extension PredicateNode {
    /// The number of nodes, predicates and expressions alike (a constant list is one node):
    /// the steps one evaluation of the tree counts (see ``EvaluationLimits``). Counted without
    /// recursion.
    package var nodeCount: Int {
        var stack: [(node: TreeItem, next: Int)] = [(.predicate(self), 0)]
        var count = 1
        while !stack.isEmpty {
            let top = stack.count - 1
            guard let child = stack[top].node.child(stack[top].next) else {
                stack.removeLast()
                continue
            }
            stack[top].next += 1
            count += 1
            stack.append((child, 0))
        }
        return count
    }
}

/// A node of either half of the tree, for walks that treat predicates and expressions alike.
enum TreeItem {
    case predicate(PredicateNode)
    case expression(ExpressionNode)

    /// The `i`th child, in any fixed order; nil past the last.
    func child(_ i: Int) -> TreeItem? {
        switch self {
        case .predicate(let p):
            switch p {
            case .constant: return nil
            case .comparison(let c): return i == 0 ? .expression(c.lhs) : i == 1 ? .expression(c.rhs) : nil
            case .and(let ps), .or(let ps): return i < ps.count ? .predicate(ps[i]) : nil
            case .not(let q): return i == 0 ? .predicate(q) : nil
            }
        case .expression(let e):
            switch e {
            case .constant, .evaluatedObject, .variable, .keyPath, .anyKey: return nil
            case .keyPathOn(let base, _): return i == 0 ? .expression(base) : nil
            case .aggregate(let items), .function(_, let items): return i < items.count ? .expression(items[i]) : nil
            case .index(let base, let sub):
                if i == 0 { return .expression(base) }
                if i == 1, case .expression(let x) = sub { return .expression(x) }
                return nil
            case .customFunction(let target, _, let args):
                return i == 0 ? .expression(target) : i <= args.count ? .expression(args[i - 1]) : nil
            case .cast(let a, let b), .setOperation(_, let a, let b):
                return i == 0 ? .expression(a) : i == 1 ? .expression(b) : nil
            case .ternary(let p, let a, let b):
                return i == 0 ? .predicate(p) : i == 1 ? .expression(a) : i == 2 ? .expression(b) : nil
            case .subquery(let c, _, let p): return i == 0 ? .expression(c) : i == 1 ? .predicate(p) : nil
            case .assignment(_, let v): return i == 0 ? .expression(v) : nil
            }
        }
    }
}

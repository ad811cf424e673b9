/// The hint of a step-limit error: what in the predicate multiplies the work, found in the
/// tree, rather than one cause for every predicate (a chain of 2,000 ANDs that has no
/// SUBQUERY was told that nested SUBQUERYs multiply the work).
package enum WorkLimitHint {
    /// Comparisons beyond this many are named as the cost themselves.
    static let manyComparisons = 64

    /// The hint for `predicate` (nil: not known), ending with how to raise the limit,
    /// `setting` (`EvaluationLimits.maxSteps; pql: --max-steps, …`).
    ///
    /// ```swift
    /// WorkLimitHint.text(for: try PredicateNode(format: "a == 1"), setting: "--max-steps")
    /// // the predicate is tested on every row; narrow the rows it runs on, or raise the limit (--max-steps)
    /// ```
    package static func text(for predicate: PredicateNode?, setting: String) -> String {
        let shape = predicate.map(Shape.init) ?? Shape()
        let cause = if shape.subqueryDepth >= 2 {
            "a SUBQUERY inside a SUBQUERY multiplies the work by each collection's size; simplify the predicate"
        } else if shape.comparisons > manyComparisons {
            "the predicate makes \(shape.comparisons) comparisons on every row; write a list of values as one IN {…}, or split the predicate"
        } else if shape.collectionWalks > 0 {
            "each SUBQUERY, ANY/ALL and collection operator (@count, @sum…) goes through a collection on every row; add a test on the row's own values first"
        } else {
            "the predicate is tested on every row; narrow the rows it runs on"
        }
        return cause + ", or raise the limit (\(setting))"
    }

    /// What the tree holds, counted without recursion (any tree, however deep).
    struct Shape {
        var comparisons = 0
        var collectionWalks = 0
        var subqueryDepth = 0

        init() {}

        init(_ predicate: PredicateNode) {
            var comparisons = 0, walks = 0, depth = 0
            // Counts `item`; returns the SUBQUERYs around its children.
            func visit(_ item: TreeItem, inside subqueries: Int) -> Int {
                switch item {
                case .predicate(.comparison(let c)):
                    comparisons += 1
                    if c.quantifier != .direct { walks += 1 }
                case .expression(.subquery):
                    walks += 1
                    depth = max(depth, subqueries + 1)
                    return subqueries + 1
                case .expression(.keyPathOn(_, let path)), .expression(.keyPath(let path)):
                    if path.contains(where: { $0.hasPrefix("@") }) { walks += 1 }
                default: break
                }
                return subqueries
            }
            // A frame per level: the node, its next child, and the SUBQUERYs around its children.
            var stack: [(node: TreeItem, next: Int, subqueries: Int)] = [(.predicate(predicate), 0, visit(.predicate(predicate), inside: 0))]
            while !stack.isEmpty {
                let top = stack.count - 1
                guard let child = stack[top].node.child(stack[top].next) else {
                    stack.removeLast()
                    continue
                }
                stack[top].next += 1
                stack.append((child, 0, visit(child, inside: stack[top].subqueries)))
            }
            self.comparisons = comparisons
            collectionWalks = walks
            subqueryDepth = depth
        }
    }
}

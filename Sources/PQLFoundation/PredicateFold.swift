#if !canImport(Darwin)
import Foundation

/// A walk over a predicate and its compounds' subpredicates, bottom up, without recursion:
/// code that folds thousands of predicates into nested two-element compounds (a `reduce`)
/// builds a tree thousands deep, which a recursive walk overflowed the stack on.
enum PredicateFold {
    private enum Step { case visit(NSPredicate), combine(NSCompoundPredicate) }

    /// `leaf` for each predicate that is not a compound; `combine` for each compound with its
    /// subpredicates' results, in order. Nil as soon as either gives nil.
    static func fold<T>(_ predicate: NSPredicate, leaf: (NSPredicate) -> T?,
                        combine: (NSCompoundPredicate, [T]) -> T?) -> T? {
        var steps: [Step] = [.visit(predicate)]
        var results: [T] = []
        while let step = steps.popLast() {
            switch step {
            case .visit(let p):
                if let compound = p as? NSCompoundPredicate {
                    steps.append(.combine(compound))
                    steps.append(contentsOf: compound.subpredicates.reversed().map(Step.visit))
                } else {
                    guard let r = leaf(p) else { return nil }
                    results.append(r)
                }
            case .combine(let compound):
                let count = compound.subpredicates.count
                let parts = Array(results.suffix(count))
                results.removeLast(count)
                guard let r = combine(compound, parts) else { return nil }
                results.append(r)
            }
        }
        return results.last
    }
}
#endif

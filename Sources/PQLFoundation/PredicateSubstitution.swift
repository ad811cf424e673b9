#if !canImport(Darwin)
import Foundation
import PQL

/// `withSubstitutionVariables(_:)`, which swift-corelibs-foundation declares unavailable.
enum PredicateSubstitution {
    static func substituting(_ variables: [String: Any], in predicate: NSPredicate) -> NSPredicate {
        let result = PredicateFold.fold(predicate, leaf: { p -> NSPredicate? in
            (p as? FormatPredicate).map { FormatPredicate(substituting(variables, in: $0.node)) } ?? p
        }, combine: { compound, subpredicates -> NSPredicate? in
            CompoundPredicate(type: compound.compoundPredicateType, subpredicates: subpredicates)
        })
        return result ?? predicate
    }

    /// All the values at once when they all convert; otherwise the ones that do.
    private static func substituting(_ variables: [String: Any], in node: PredicateNode) -> PredicateNode {
        if let all = try? node.substitutingValues(variables.mapValues { $0 }) { return all }
        return node.substituting(variables.compactMapValues { PredicateValue(any: $0) })
    }
}
#endif

#if !canImport(Darwin)
import Foundation
import PQL

/// `withSubstitutionVariables(_:)`, which swift-corelibs-foundation declares unavailable.
enum PredicateSubstitution {
    static func substituting(_ variables: [String: Any], in predicate: NSPredicate) -> NSPredicate {
        if let format = predicate as? FormatPredicate {
            return FormatPredicate(substituting(variables, in: format.node))
        }
        if let compound = predicate as? NSCompoundPredicate {
            return CompoundPredicate(type: compound.compoundPredicateType,
                                     subpredicates: compound.subpredicates.map { substituting(variables, in: $0) })
        }
        return predicate
    }

    /// All the values at once when they all convert; otherwise the ones that do.
    private static func substituting(_ variables: [String: Any], in node: PredicateNode) -> PredicateNode {
        if let all = try? node.substitutingValues(variables.mapValues { $0 }) { return all }
        return node.substituting(variables.compactMapValues { PredicateValue(any: $0) })
    }
}
#endif

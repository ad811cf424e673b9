#if !canImport(Darwin)
import Foundation
import PQL

/// The PQL tree behind any NSPredicate, and the format text of a compound.
enum PredicateText {
    /// The tree of a predicate made by PQLFoundation, of a compound of such predicates, or of
    /// `NSPredicate(value:)`; nil for a block predicate (which has no text).
    static func node(of predicate: NSPredicate) -> PredicateNode? {
        PredicateFold.fold(predicate, leaf: leafNode) { compound, nodes in combined(compound.compoundPredicateType, nodes) }
    }

    private static func leafNode(_ predicate: NSPredicate) -> PredicateNode? {
        if let format = predicate as? FormatPredicate { return format.node }
        // NSPredicate(value:): Foundation's isEqual compares the Boolean (and never calls a
        // block, which could run user code on an object it does not expect).
        if type(of: predicate) == NSPredicate.self {
            if predicate.isEqual(NSPredicate(value: true)) { return .constant(true) }
            if predicate.isEqual(NSPredicate(value: false)) { return .constant(false) }
        }
        return nil
    }

    private static func combined(_ type: NSCompoundPredicate.LogicalType, _ nodes: [PredicateNode]) -> PredicateNode? {
        switch type {
        case .and: return nodes.isEmpty ? .constant(true) : nodes.count == 1 ? nodes[0] : .and(nodes)
        case .or: return nodes.isEmpty ? .constant(false) : nodes.count == 1 ? nodes[0] : .or(nodes)
        case .not: return nodes.first.map { .not($0) }
        @unknown default: return nil
        }
    }

    /// A compound's text: the canonical print of its tree, or, when a subpredicate is a block,
    /// the subpredicates' texts joined (`BLOCKPREDICATE` for a block, as Foundation prints it),
    /// each in parentheses when it is itself an AND, OR or NOT, so that the text keeps the
    /// compound's grouping.
    static func format(of compound: NSCompoundPredicate) -> String {
        if let node = node(of: compound) { return node.description }
        let text = PredicateFold.fold(compound, leaf: { sub -> (text: String, grouped: Bool) in
            guard let node = leafNode(sub) else { return ("BLOCKPREDICATE", false) }
            switch node {
            case .and, .or, .not: return (node.description, true)
            default: return (node.description, false)
            }
        }, combine: { compound, parts -> (text: String, grouped: Bool) in
            let texts = parts.map { $0.grouped ? "(\($0.text))" : $0.text }
            switch compound.compoundPredicateType {
            case .and: return (texts.joined(separator: " AND "), true)
            case .or: return (texts.joined(separator: " OR "), true)
            default: return ("NOT " + (texts.first ?? ""), true)
            }
        })
        return text?.text ?? "BLOCKPREDICATE"
    }
}
#endif

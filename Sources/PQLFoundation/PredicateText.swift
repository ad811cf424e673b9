#if !canImport(Darwin)
import Foundation
import PQL

/// The PQL tree behind any NSPredicate, and the format text of a compound.
enum PredicateText {
    /// The tree of a predicate made by PQLFoundation, of a compound of such predicates, or of
    /// `NSPredicate(value:)`; nil for a block predicate (which has no text).
    static func node(of predicate: NSPredicate) -> PredicateNode? {
        if let format = predicate as? FormatPredicate { return format.node }
        if let compound = predicate as? NSCompoundPredicate {
            var nodes: [PredicateNode] = []
            for sub in compound.subpredicates {
                guard let node = node(of: sub) else { return nil }
                nodes.append(node)
            }
            switch compound.compoundPredicateType {
            case .and: return nodes.isEmpty ? .constant(true) : nodes.count == 1 ? nodes[0] : .and(nodes)
            case .or: return nodes.isEmpty ? .constant(false) : nodes.count == 1 ? nodes[0] : .or(nodes)
            case .not: return nodes.first.map { .not($0) }
            @unknown default: return nil
            }
        }
        // NSPredicate(value:): Foundation's isEqual compares the Boolean (and never calls a
        // block, which could run user code on an object it does not expect).
        if type(of: predicate) == NSPredicate.self {
            if predicate.isEqual(NSPredicate(value: true)) { return .constant(true) }
            if predicate.isEqual(NSPredicate(value: false)) { return .constant(false) }
        }
        return nil
    }

    /// A compound's text: the canonical print of its tree, or, when a subpredicate is a block,
    /// the subpredicates' texts joined with parentheses (`BLOCKPREDICATE` for a block, as
    /// Foundation prints it).
    static func format(of compound: NSCompoundPredicate) -> String {
        if let node = node(of: compound) { return node.description }
        let parts = compound.subpredicates.map { sub -> String in
            let text = node(of: sub)?.description
                ?? (sub as? NSCompoundPredicate).map(format(of:))
                ?? "BLOCKPREDICATE"
            return sub is NSCompoundPredicate ? "(\(text))" : text
        }
        switch compound.compoundPredicateType {
        case .and: return parts.joined(separator: " AND ")
        case .or: return parts.joined(separator: " OR ")
        default: return "NOT " + (parts.first ?? "")
        }
    }
}
#endif

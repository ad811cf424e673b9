#if !canImport(Darwin)
import Foundation
import PQL

/// The NSPredicate that `NSPredicate(format:)` returns: a parsed PQL tree inside Foundation's
/// class.
///
/// swift-corelibs-foundation's NSPredicate keeps its state in a private enum (a Boolean or a
/// block) that nothing outside can extend, and its `predicateFormat` and `copy` read that
/// enum. A subclass carries the tree as a stored property and overrides what reads it, so
/// `predicateFormat`, `evaluate(with:)`, `copy()` and `isEqual(_:)` answer by dynamic dispatch
/// even through a plain `NSPredicate` reference — no side table keyed by object identity, and
/// nothing to clean up when the predicate is released.
///
/// Immutable after `init`, as Foundation's format predicates are: `copy()` returns `self`, and
/// evaluating from several threads is safe (``ObjectEvaluation`` caches under a lock).
final class FormatPredicate: NSPredicate {
    /// The bound tree: `%@` arguments are constants, `$variables` remain.
    let node: PredicateNode
    private let evaluation: ObjectEvaluation
    /// Why the format did not parse, when it did not (see ``MalformedFormat``): `node` is then
    /// `FALSEPREDICATE`, and ``evaluateOrThrow(with:variables:)`` throws.
    let formatError: PredicateFormatError?

    init(_ node: PredicateNode, formatError: PredicateFormatError? = nil) {
        self.node = node
        self.formatError = formatError
        evaluation = ObjectEvaluation(node)
        // The Boolean is never read: every member that would read it is overridden.
        super.init(value: false)
    }

    override var predicateFormat: String { node.description }

    override var description: String { node.description }

    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        evaluation.evaluate(object, bindings: bindings)
    }

    /// The throwing evaluation behind ``Foundation/NSPredicate/evaluateOrThrow(with:substitutionVariables:)``.
    func evaluateOrThrow(with object: Any?, variables: [String: PredicateValue]) throws(PredicateEvaluationError) -> Bool {
        if let formatError { throw MalformedFormat.evaluationError(formatError) }
        return try evaluation.evaluateOrThrow(object, variables: variables)
    }

    override func copy(with zone: NSZone? = nil) -> Any { self }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? FormatPredicate)?.node == node
    }

    override var hash: Int { node.hashValue }
}
#endif

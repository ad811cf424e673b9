#if !canImport(Darwin)
import Foundation
import PQL
import Synchronization

/// Evaluates one parsed predicate on whatever `evaluate(with:)` receives: an `Any?`.
///
/// NSPredicate reads objects through key-value coding, which Swift values on Linux do not
/// have. The object is read by what it is, in this order: `[String: Any]` (and NSDictionary,
/// which bridges to it), a `PredicateEvaluable` type (`PredicateReadable` types, strings,
/// numbers, `PredicateValue`), any other `Encodable` type through its encoded form, and
/// finally anything `PredicateValue/init(any:)` converts (arrays, NSNumber, NSNull, nil).
///
/// Compiled predicates are cached per type under a lock, so one NSPredicate may be evaluated
/// from several threads, as Foundation's can.
final class ObjectEvaluation: Sendable {
    let node: PredicateNode
    /// Compiled on first use for each root type (`ObjectIdentifier` of the type): a
    /// `Result<CompiledPredicate<T>, PredicateEvaluationError>`.
    private let compiled = Mutex<[ObjectIdentifier: any Sendable]>([:])

    init(_ node: PredicateNode) { self.node = node }

    /// Apple raises an exception where PQL reports an evaluation error (an unknown key, a
    /// comparison of a number with a string); here the object does not match.
    func evaluate(_ object: Any?, bindings: [String: Any]?) -> Bool {
        let variables = Self.variables(bindings)
        do {
            return try evaluateOrThrow(object, variables: variables)
        } catch {
            return false
        }
    }

    func evaluateOrThrow(_ object: Any?, variables: [String: PredicateValue]) throws(PredicateEvaluationError) -> Bool {
        guard let object = Self.unwrapped(object) else { return try evaluate(PredicateValue.null, variables) }
        switch object {
        case let dictionary as [String: Any]:
            return try evaluate(dictionary, variables)
        case let value as any PredicateEvaluable:
            return try evaluate(value, variables)
        case let value as any Encodable:
            return try evaluate(EncodableValues.value(of: value), variables)
        default:
            guard let value = PredicateValue(any: object) else {
                throw PredicateEvaluationError(kind: .typeMismatch, message: "a value of type \(type(of: object)) has no predicate value",
                                               hint: "evaluate [String: Any], NSDictionary, a PredicateReadable or a Codable value")
            }
            return try evaluate(value, variables)
        }
    }

    private func evaluate<Root: PredicateEvaluable>(_ root: Root, _ variables: [String: PredicateValue]) throws(PredicateEvaluationError) -> Bool {
        try compiledPredicate(for: Root.self).get().evaluate(root, variables: variables)
    }

    private func compiledPredicate<Root: PredicateEvaluable>(for type: Root.Type) -> Result<CompiledPredicate<Root>, PredicateEvaluationError> {
        let key = ObjectIdentifier(type)
        if let done = compiled.withLock({ $0[key] }) as? Result<CompiledPredicate<Root>, PredicateEvaluationError> { return done }
        // Compiled outside the lock: two threads may both compile the first time; either result is right.
        let result = Result { () throws(PredicateEvaluationError) in try node.compiled(for: Root.self) }
        compiled.withLock { $0[key] = result }
        return result
    }

    /// `Optional<Any>` inside an `Any`: look through it, as Foundation's bridging does.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalProtocol { return unwrapped(optional.wrappedAny) }
        return value
    }

    /// The bindings as PQL's variables. A binding with no predicate value (an arbitrary
    /// object) is left out, as Apple ignores bindings the predicate never reads: only a
    /// predicate that reads it fails, its variable unbound.
    static func variables(_ bindings: [String: Any]?) -> [String: PredicateValue] {
        (bindings ?? [:]).compactMapValues { PredicateValue(any: $0) }
    }
}

/// Lets ``ObjectEvaluation/unwrapped(_:)`` see an optional stored in an `Any`.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? { self.map { $0 as Any } }
}
#endif

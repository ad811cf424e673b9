#if !canImport(Darwin)
import Foundation
import PQL

/// The hook through which `NSPredicate(format:)` returns PQLFoundation's subclass.
///
/// swift-corelibs-foundation declares `NSPredicate.init(format:…)` unavailable, and Swift
/// prefers an available initializer to it. An initializer in an extension of NSPredicate
/// itself would have to delegate to `init(value:)` or `init(block:)` and produce a plain
/// NSPredicate, whose `predicateFormat` prints `BLOCKPREDICATE`; an initializer in a protocol
/// extension may assign `self`, and so return the subclass that carries the tree. You never
/// use this protocol yourself.
public protocol PredicateFormatInitializable {}

/// NSPredicate takes `init(format:)` and its siblings from ``PredicateFormatInitializable``.
extension NSPredicate: PredicateFormatInitializable {}

extension PredicateFormatInitializable where Self == NSPredicate {
    /// Parses a predicate format string with `%@`, `%K`, `%d`… arguments, as Foundation's
    /// initializer does on Apple platforms.
    ///
    /// Surplus arguments are ignored, as Apple ignores them. A malformed format string stops
    /// the program, as Apple's uncaught `NSInvalidArgumentException` does, with PQL's message
    /// and a caret under the error; use ``init(validatingFormat:_:)`` for text you do not
    /// control.
    ///
    /// ```swift
    /// let adults = NSPredicate(format: "name BEGINSWITH[cd] %@ AND age >= %d", "a", 18)
    /// adults.evaluate(with: ["name": "Ángela", "age": 30])   // true
    /// ```
    public init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// Parses a predicate format string with its arguments in an array.
    ///
    /// As ``init(format:_:)``: surplus arguments are ignored; a malformed format is reported on
    /// standard error and gives a predicate that matches nothing.
    ///
    /// ```swift
    /// let cities = NSPredicate(format: "city IN %@", argumentArray: [["Oslo", "Lima"]])
    /// ```
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            self = FormatPredicate(try FormatParsing.predicate(predicateFormat, (arguments ?? []).map { $0 }))
        } catch {
            MalformedFormat.report(error, in: "NSPredicate(format:)", result: "the predicate matches nothing (FALSEPREDICATE)")
            self = FormatPredicate(.constant(false), formatError: error)
        }
    }

    /// Parses a predicate format string, throwing a `PredicateFormatError` (message,
    /// position, hint) where ``init(format:_:)`` would report it and match nothing.
    ///
    /// ```swift
    /// do {
    ///     let p = try NSPredicate(validatingFormat: userText, "a")
    /// } catch {
    ///     print(error.rendered)   // the message, the text and a caret under the mistake
    /// }
    /// ```
    public init(validatingFormat predicateFormat: String, _ args: Any...) throws(PredicateFormatError) {
        try self.init(validatingFormat: predicateFormat, argumentArray: args)
    }

    /// Parses a predicate format string with its arguments in an array, throwing a
    /// `PredicateFormatError` where ``init(format:argumentArray:)`` would report it and match nothing.
    ///
    /// ```swift
    /// let p = try NSPredicate(validatingFormat: "age > %@", argumentArray: [18])
    /// ```
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws(PredicateFormatError) {
        self = FormatPredicate(try FormatParsing.predicate(predicateFormat, (arguments ?? []).map { $0 }))
    }

    /// Wraps a PQL tree built or parsed elsewhere as an NSPredicate.
    ///
    /// ```swift
    /// let p = NSPredicate(PredicateNode.comparison(ComparisonNode(.keyPath("age"), .greaterThan, .constant(18))))
    /// p.predicateFormat   // age > 18
    /// ```
    public init(_ node: PredicateNode) {
        self = FormatPredicate(node)
    }
}

/// What swift-corelibs-foundation leaves unavailable on NSPredicate, and PQL's ways in and out:
/// the tree, and an evaluation that throws.
extension NSPredicate {
    /// A copy with `$variables` replaced by values, as Foundation's method does.
    ///
    /// Substitutes through compounds. A predicate PQLFoundation did not make (a block or
    /// `NSPredicate(value:)`) is returned as it is. A value with no predicate value (neither a
    /// string, number, date, data, collection, NSNull nor a PQL expression) leaves its variable
    /// in place.
    ///
    /// ```swift
    /// let template = NSPredicate(format: "score > $MIN")
    /// template.withSubstitutionVariables(["MIN": 10]).predicateFormat   // score > 10
    /// ```
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        PredicateSubstitution.substituting(variables, in: self) as? Self ?? self
    }

    /// The PQL tree of a predicate made by `NSPredicate(format:)` (or of a compound of such),
    /// to hand to PQL's own API — a `PredicateQuery`, or a store's fetch; nil for a block
    /// predicate.
    ///
    /// ```swift
    /// let tree = NSPredicate(format: "age > 18").predicateNode   // PredicateNode
    /// ```
    public var predicateNode: PredicateNode? { PredicateText.node(of: self) }

    /// Evaluates, throwing PQL's `PredicateEvaluationError` where `evaluate(with:)` answers
    /// false (Apple raises an exception there: an unknown key, a number compared with a string).
    ///
    /// ```swift
    /// let p = NSPredicate(format: "age + 1 > 3")
    /// try p.evaluateOrThrow(with: ["age": "x"])   // throws: arithmetic on a string
    /// ```
    public func evaluateOrThrow(with object: Any?, substitutionVariables: [String: Any]? = nil) throws(PredicateEvaluationError) -> Bool {
        guard let node = predicateNode else { return evaluate(with: object, substitutionVariables: substitutionVariables) }
        let variables = ObjectEvaluation.variables(substitutionVariables)
        if let format = self as? FormatPredicate { return try format.evaluateOrThrow(with: object, variables: variables) }
        return try ObjectEvaluation(node).evaluateOrThrow(object, variables: variables)
    }
}
#endif

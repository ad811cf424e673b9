#if !canImport(Darwin)
import Foundation
import PQL

/// What `NSExpression(format:)` returns on Linux: a parsed PQL expression that evaluates with
/// ``expressionValue(with:context:)`` as NSExpression does.
///
/// swift-corelibs-foundation's NSExpression has no initializer that can be called (each one is
/// unavailable and traps), so no NSExpression instance can exist on Linux, not even a
/// subclass's. `NSExpression(format:)` is therefore a function returning this class: code that
/// writes `let e = NSExpression(format: …)` and calls `e.expressionValue(with:context:)` ports
/// unchanged; code that names the type (`let e: NSExpression`) must name this one.
///
/// Immutable and safe to evaluate from several threads.
public final class FormatExpression: NSObject, NSCopying, @unchecked Sendable {
    /// The parsed expression: `%@` arguments are constants, `$variables` remain.
    ///
    /// ```swift
    /// NSExpression(format: "price * %@", 2).expression   // ExpressionNode
    /// ```
    public let expression: ExpressionNode

    /// Wraps a parsed PQL expression.
    ///
    /// ```swift
    /// let e = FormatExpression(try ExpressionNode(format: "1 + 2"))
    /// ```
    public init(_ expression: ExpressionNode) {
        self.expression = expression
        super.init()
    }

    /// Parses an expression format string, throwing a `PredicateFormatError` where
    /// `NSExpression(format:)` would report it on standard error. Surplus arguments are ignored.
    ///
    /// ```swift
    /// let total = try FormatExpression(validatingFormat: "price * %@", 3)
    /// ```
    public convenience init(validatingFormat expressionFormat: String, _ args: Any...) throws(PredicateFormatError) {
        try self.init(validatingFormat: expressionFormat, argumentArray: args)
    }

    /// Parses an expression format string with its arguments in an array, throwing a
    /// `PredicateFormatError` where `NSExpression(format:argumentArray:)` would report it on standard error.
    ///
    /// ```swift
    /// let total = try FormatExpression(validatingFormat: "price * %@", argumentArray: [3])
    /// ```
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any]) throws(PredicateFormatError) {
        self.init(try FormatParsing.expression(expressionFormat, arguments.map { $0 }))
    }

    /// The expression's value for `object`, as NSExpression computes it: key paths read
    /// `object` (`[String: Any]`, NSDictionary, a `PredicateReadable` or `Codable` value),
    /// `$variables` read `context`.
    ///
    /// Numbers come back as `Int`, `Double` or `Decimal`, text as `String`, collections as
    /// Swift arrays, sets and dictionaries, nil as nil. Where Apple raises an exception (an
    /// unknown key, arithmetic on a string) this returns nil; ``value(with:variables:)`` throws
    /// the reason.
    ///
    /// ```swift
    /// NSExpression(format: "price * 2").expressionValue(with: ["price": 5], context: nil)   // 10
    /// ```
    public func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var variables: [String: PredicateValue] = [:]
        for (key, raw) in context ?? [:] {
            guard let name = key as? String ?? (key as? NSString).map({ String(describing: $0) }),
                  let value = PredicateValue(any: raw) else { continue }
            variables[name] = value
        }
        return try? value(with: object, variables: variables).foundationValue
    }

    /// The expression's value as a `PredicateValue`, throwing PQL's error where
    /// ``expressionValue(with:context:)`` returns nil.
    ///
    /// ```swift
    /// try NSExpression(format: "prices.@sum").value(with: ["prices": [1, 2, 3]])   // .int(6)
    /// ```
    public func value(with object: Any?, variables: [String: PredicateValue] = [:]) throws(PredicateEvaluationError) -> PredicateValue {
        guard let object = ObjectEvaluation.unwrapped(object) else { return try expression.value(on: PredicateValue.null, variables: variables) }
        switch object {
        case let dictionary as [String: Any]:
            return try expression.value(on: dictionary, variables: variables)
        case let value as any PredicateEvaluable:
            return try expression.value(on: value, variables: variables)
        case let value as any Encodable:
            return try expression.value(on: EncodableValues.value(of: value), variables: variables)
        default:
            guard let value = PredicateValue(any: object) else {
                throw PredicateEvaluationError(kind: .typeMismatch, message: "a value of type \(type(of: object)) has no predicate value",
                                               hint: "evaluate [String: Any], NSDictionary, a PredicateReadable or a Codable value")
            }
            return try expression.value(on: value, variables: variables)
        }
    }

    /// The canonical format string, as NSExpression's `description` prints it.
    ///
    /// ```swift
    /// NSExpression(format: "price*2").description   // price * 2
    /// ```
    public override var description: String { expression.description }

    /// The expression itself: it is immutable.
    ///
    /// ```swift
    /// let same = NSExpression(format: "1 + 2").copy() as! FormatExpression
    /// ```
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Equal when the trees are equal.
    ///
    /// ```swift
    /// NSExpression(format: "a+1").isEqual(NSExpression(format: "a + 1"))   // true
    /// ```
    public override func isEqual(_ object: Any?) -> Bool { (object as? FormatExpression)?.expression == expression }

    /// The tree's hash, consistent with ``isEqual(_:)``.
    ///
    /// ```swift
    /// let set: Set = [NSExpression(format: "a+1"), NSExpression(format: "a + 1")]   // one element
    /// ```
    public override var hash: Int { expression.hashValue }
}

/// Parses an expression format string, as Foundation's `NSExpression(format:)` does on Apple
/// platforms, returning a ``FormatExpression`` (see there why not an NSExpression).
///
/// Surplus arguments are ignored. A malformed format, where Apple raises an exception that
/// ends the program, is written on standard error with PQL's message and a caret, and the
/// expression's value is nil; ``FormatExpression/init(validatingFormat:_:)`` throws instead.
///
/// ```swift
/// let total = NSExpression(format: "price * %@", 3)
/// total.expressionValue(with: ["price": 5], context: nil)   // 15
/// ```
public func NSExpression(format expressionFormat: String, _ args: Any...) -> FormatExpression {
    NSExpression(format: expressionFormat, argumentArray: args)
}

/// Parses an expression format string with its arguments in an array; see
/// ``NSExpression(format:_:)``.
///
/// ```swift
/// let total = NSExpression(format: "price * %@", argumentArray: [3])
/// ```
public func NSExpression(format expressionFormat: String, argumentArray arguments: [Any]) -> FormatExpression {
    do {
        return try FormatExpression(validatingFormat: expressionFormat, argumentArray: arguments)
    } catch {
        MalformedFormat.report(error, in: "NSExpression(format:)", result: "its value is nil")
        return FormatExpression(.constant(.null))
    }
}

extension PredicateValue {
    /// The Swift value Foundation code expects from `expressionValue(with:context:)`.
    var foundationValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let b): return b
        case .int(let i): return Int(exactly: i) ?? i
        case .double(let d): return d
        case .decimal(let d): return d
        case .string(let s): return s
        case .date(let d): return d
        case .data(let d): return d
        case .array(let a): return a.map { $0.foundationValue ?? NSNull() }
        case .set(let s): return s.map { $0.foundationValue ?? NSNull() }
        case .dictionary(let d): return d.mapValues { $0.foundationValue ?? NSNull() }
        }
    }
}
#endif

/// A parsed expression: the value-valued half of the syntax tree (reference §4).
///
/// ```swift
/// let e = try ExpressionNode(format: "SUBQUERY(items, $i, $i.price > 10).@count")
/// if case .keyPathOn(.subquery, let path) = e { print(path) }   // ["@count"]
/// ```
public indirect enum ExpressionNode: Hashable, Sendable {
    /// A value: a literal, a bound `%@` argument, or a substituted variable.
    case constant(PredicateValue)
    /// `SELF`, the object being evaluated.
    case evaluatedObject
    /// `$name`.
    case variable(String)
    /// A key path on `SELF`: `address.city`, `kids.@count`, `#first`. `@` components are
    /// collection operators.
    case keyPath([String])
    /// A key path on another expression: `$x.name`, `SELF.name`, `SUBQUERY(…).@count`.
    case keyPathOn(ExpressionNode, [String])
    /// `{a, b, …}` with at least one non-constant element (all-constant aggregates are folded
    /// to an array constant).
    case aggregate([ExpressionNode])
    /// A built-in function or an arithmetic/bitwise operator applied to its arguments.
    case function(BuiltinFunction, [ExpressionNode])
    /// `collection[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
    case index(ExpressionNode, IndexSubscript)
    /// `FUNCTION(target, "selector", args…)`, resolved through a registry at evaluation.
    case customFunction(target: ExpressionNode, selector: String, arguments: [ExpressionNode])
    /// `CAST(value, type)`. Casts of literals to `NSDate`, `NSSet`, `NSDictionary`,
    /// `NSDecimalNumber` and `NSData` are folded into constants by the parser.
    case cast(ExpressionNode, type: ExpressionNode)
    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    case ternary(PredicateNode, ExpressionNode, ExpressionNode)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: ExpressionNode, variable: String, predicate: PredicateNode)
    /// `$variable := value`.
    case assignment(variable: String, value: ExpressionNode)
    /// `a UNION b`, `a INTERSECT b`, `a MINUS b`.
    case setOperation(SetOperator, ExpressionNode, ExpressionNode)
    /// `ANYKEY` (Spotlight's "any attribute").
    case anyKey
}

/// What goes between the brackets of an index expression.
///
/// ```swift
/// let last = ExpressionNode.index(.keyPath(["tags"]), .last)   // tags[LAST]
/// ```
public enum IndexSubscript: Hashable, Sendable {
    /// `[FIRST]`: the first element.
    case first
    /// `[LAST]`: the last element.
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[i]`: an element by position, a dictionary value by key.
    case expression(ExpressionNode)
}

/// The set operators of reference §4.8.
///
/// ```swift
/// let both = ExpressionNode.setOperation(.intersect, .keyPath(["a"]), .keyPath(["b"]))   // a INTERSECT b
/// ```
public enum SetOperator: String, Hashable, Sendable, CaseIterable {
    /// `a UNION b`: the elements of either.
    case union = "UNION"
    /// `a INTERSECT b`: the elements of both.
    case intersect = "INTERSECT"
    /// `a MINUS b`: the elements of `a` that are not in `b`.
    case minus = "MINUS"
}

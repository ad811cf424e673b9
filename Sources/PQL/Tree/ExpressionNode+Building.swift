/// Building trees in code with the spellings the format strings use.
extension ExpressionNode {
    /// A key path on `SELF` written as it is in a format string: the components between dots,
    /// collection operators included. There is no escaping: a key with a dot in its name needs
    /// the array form, `.keyPath(["a.b"])`.
    ///
    /// ```swift
    /// let c = ComparisonNode(.keyPath("address.city"), .equal, .constant("Paris"))
    /// print(PredicateNode.comparison(c))   // address.city == "Paris"
    /// ```
    public static func keyPath(_ path: String) -> ExpressionNode {
        .keyPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}

extension PredicateNode {
    /// A comparison predicate, without spelling out ``ComparisonNode``.
    ///
    /// ```swift
    /// let p = PredicateNode.comparison(.keyPath("age"), .greaterThan, .constant(30))
    /// print(p)   // age > 30
    /// ```
    public static func comparison(_ lhs: ExpressionNode, _ op: ComparisonOperator, _ rhs: ExpressionNode,
                                  quantifier: Quantifier = .direct, options: ComparisonOptions = []) -> PredicateNode {
        .comparison(ComparisonNode(lhs, op, rhs, quantifier: quantifier, options: options))
    }
}

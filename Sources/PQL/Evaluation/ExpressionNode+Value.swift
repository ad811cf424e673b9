/// Evaluating an expression on its own, for its value rather than a truth: what NSExpression's
/// `expressionValue(with:context:)` does (the `PQLFoundation` module builds on it).
extension ExpressionNode {
    /// The expression's value for one root value: key paths read `root`, `$variables` come from
    /// `variables`.
    ///
    /// ```swift
    /// try ExpressionNode(format: "price * 2").value(on: PredicateValue.dictionary(["price": 5]))   // 10
    /// ```
    public func value<Root: PredicateEvaluable>(on root: Root, variables: [String: PredicateValue] = [:],
                                                functions: PredicateFunctions = .none,
                                                limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> PredicateValue {
        // The depth rules of CompiledPredicate, applied to the expression inside a comparison:
        // trees built in code skipped the parser's nesting limit, and compiling recurses.
        let depth = PredicateNode.comparison(ComparisonNode(self, .equal, .constant(.null)))
            .nestingDepth(cappedAt: PredicateNode.maxCompileDepth)
        if depth > PredicateNode.maxCompileDepth {
            throw PredicateEvaluationError(kind: .unsupported, message: "the expression nests deeper than \(PredicateNode.maxCompileDepth) levels",
                                           hint: "split it into smaller expressions")
        }
        let expression = self
        return try LargeStack.run(if: depth > PredicateNode.inlineCompileDepth) { () throws(PredicateEvaluationError) -> PredicateValue in
            let f = try EvaluatorCompiler(reader: Root.predicateReader, functions: functions).compile(expression)
            var state = EvaluationState(variables: variables, limits: limits)
            return try EvaluationBudget.run(limits) { () throws(EvalError) -> PredicateValue in try f(root, &state) }
        }
    }
}

/// The parts of a predicate that depend on no row are computed once, when compiling, by the
/// evaluator and by the store alike (reference §8.2, decision D3): an error in them — an overflow in
/// `9223372036854775807 + 1`, BETWEEN bounds that are not a pair — is raised then, whatever the
/// rows, even none, and even where short-circuiting would never reach them. Errors that depend
/// on a row's values are raised by the row that causes them.
extension ExpressionNode {
    /// Whether the value is the same for every row and every evaluation: constants, and
    /// aggregates, functions, casts, indexes and set operations of them (not `random()`,
    /// `now()` — a compiled predicate may be reused for hours —, variables, key paths, SELF,
    /// SUBQUERY, TERNARY, `:=` or FUNCTION).
    ///
    /// ```swift
    /// try ExpressionNode(format: "abs:(-2) + 1").isRowIndependent   // true
    /// try ExpressionNode(format: "age + 1").isRowIndependent        // false
    /// ```
    package var isRowIndependent: Bool {
        switch self {
        case .constant: return true
        case .evaluatedObject, .variable, .keyPath, .subquery, .assignment, .anyKey, .customFunction, .ternary:
            return false
        case .keyPathOn(let base, _): return base.isRowIndependent   // {1, 2}.@sum
        case .aggregate(let items): return items.allSatisfy(\.isRowIndependent)
        case .function(let f, let args):
            return f.isDeterministic && args.allSatisfy(\.isRowIndependent)
        case .index(let e, let sub):
            if case .expression(let i) = sub { return e.isRowIndependent && i.isRowIndependent }
            return e.isRowIndependent
        case .cast(let a, let b): return a.isRowIndependent && b.isRowIndependent
        case .setOperation(_, let a, let b): return a.isRowIndependent && b.isRowIndependent
        }
    }

    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }
}

extension SharedSemantics {
    /// The value of a comparison both of whose sides depend on no row (see
    /// ``ExpressionNode/isRowIndependent``), or its error.
    package static func evaluateConstant(_ c: ComparisonNode) throws(PredicateEvaluationError) -> Bool {
        let compiler = EvaluatorCompiler(reader: PredicateValue.predicateReader, functions: .none, folds: false)
        let f = try compiler.compile(c)
        var state = EvaluationState(variables: [:])
        do throws(PredicateEvaluationError) {
            return try f(PredicateValue.null, &state)
        } catch {
            throw error.located(c.description)
        }
    }

    /// The error for a right side of BETWEEN that cannot be a pair of bounds whatever the row:
    /// a constant that is not an array of two values, or `{…}` without exactly two elements.
    /// The parser rejects such literals; trees built in code meet this when compiled.
    package static func betweenShapeError(_ rhs: ExpressionNode) -> PredicateEvaluationError? {
        switch rhs {
        case .constant(.array(let a)) where a.count == 2: return nil
        case .constant(let v): return ComparisonEvaluation.badBounds(v.description)
        case .aggregate(let items) where items.count != 2: return ComparisonEvaluation.badBounds(rhs.description)
        default: return nil
        }
    }
}

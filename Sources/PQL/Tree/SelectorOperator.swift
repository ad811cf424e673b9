/// Apple's custom selector operator, `lhs selector: rhs` (`SELF isKindOfClass: %@`): send the
/// one-argument message `selector:` to the left value with the right one, and take the answer
/// as the truth of the comparison (operator type 11 in Apple's numbering).
///
/// PQL holds it as the comparison that means exactly that, `FUNCTION(lhs, "selector:", rhs) == YES`,
/// and prints that comparison (with `YES`, not `1`) in the operator form, so the two spellings
/// are one tree. Every
/// part of PQL that knows `FUNCTION` knows the operator: evaluation looks the selector up in
/// the caller's ``PredicateFunctions`` and then among the few selectors that have a meaning
/// without the Objective-C runtime (`isKindOfClass:`, reference §3.1); the SQL compilers refuse it.
enum SelectorOperator {
    /// The comparison `lhs selector rhs` stands for.
    static func comparison(_ lhs: ExpressionNode, selector: String, _ rhs: ExpressionNode) -> ComparisonNode {
        ComparisonNode(.customFunction(target: lhs, selector: selector, arguments: [rhs]), .equal, .constant(.bool(true)))
    }

    /// The operands and selector of a comparison that prints in the operator form.
    static func parts(of c: ComparisonNode) -> (lhs: ExpressionNode, selector: String, rhs: ExpressionNode)? {
        guard c.quantifier == .direct, c.op == .equal, c.options.isEmpty,
              case .customFunction(let target, let selector, let args) = c.lhs, args.count == 1,
              isOperatorSelector(selector) else { return nil }
        // Only YES itself, the constant the operator makes: `FUNCTION(…) == 1` prints as Apple
        // prints it (the trees are equal all the same, as YES equals 1).
        guard case .constant(.bool(true)) = c.rhs else { return nil }
        return (target, selector, args[0])
    }

    /// A selector that can stand between two operands: one identifier and one colon
    /// (`isKindOfClass:`), not a keyword.
    static func isOperatorSelector(_ s: String) -> Bool {
        guard s.hasSuffix(":") else { return false }
        let name = s.dropLast()
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isXIDStart,
              name.unicodeScalars.allSatisfy({ $0.properties.isXIDContinue }) else { return false }
        return !Keyword.reservedSpellings.contains(name.uppercased())
    }
}

import PQL

/// A `$variable` the predicate reads and nothing binds, found before any row is read: the
/// evaluator would raise it at the first row, naming that row and the Swift API's fix
/// (`variables: ["min": …]`), and a store at compile time with its own hint. One error, with a
/// caret under the variable and the fix of the place it was typed in.
enum UnboundVariables {
    /// Throws for the first variable of `predicate` (in the text's order) that `bound` lacks
    /// and the predicate does not assign itself (`$x := …`).
    ///
    /// - Parameter fix: the hint for a variable's name: `.let $min = …` in the REPL,
    ///   `--var min=JSON` on the command line.
    static func check(_ predicate: PredicateNode, text: String, sourceMap: SourceMap?, bound: Set<String>,
                      fix: (String) -> String) throws(ReplError) {
        let missing = predicate.variableNames.subtracting(bound).subtracting(predicate.assignedVariableNames)
        guard !missing.isEmpty else { return }
        var name = missing.sorted()[0]
        let range = sourceMap?.range(ofFirstWhere: { item in
            guard case .expression(.variable(let v)) = item, missing.contains(v) else { return false }
            name = v
            return true
        }, in: predicate)
        throw ReplError("$\(name) has no value", hint: fix(name), place: range.map { (text, $0) })
    }
}

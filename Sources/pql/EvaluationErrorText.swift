import PQL

extension PredicateEvaluationError {
    /// What `pql` prints for an evaluation error: with a caret under the failing
    /// sub-expression when the predicate's positions are known, then the part of the predicate
    /// (`in:`) and the element or row it failed on (`at:`), and the hint.
    func userText(at place: String?) -> String {
        var notes: [String] = []
        if let context { notes.append("in: \(context)") }
        if let place { notes.append("at: \(place)") }
        if let source, let range {
            return CaretRenderer.render(message: message, source: source, range: range, notes: notes, hint: hint)
        }
        return "error: \(message)" + notes.map { "\n  \($0)" }.joined() + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}

import PQL

// Text that does not parse throws a PredicateFormatError: where, what, and how to fix it.
do {
    _ = try PredicateNode(format: "age > 18 AND name NOT LIKE 'a*'")
} catch {
    print(error.kind)               // negatedOperator
    print(error.range.column)       // 19, where NOT starts
    print(error.hint ?? "")         // write NOT (name LIKE 'a*')
    print(error.rendered)           // the line, a caret under NOT, and the hint
}

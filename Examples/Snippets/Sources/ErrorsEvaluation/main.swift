import PQL

let values = try JSONReader.value(from: #"[{"x": 1}, {"x": null}]"#).collectionElements!
let predicate = try PredicateNode(format: "x + 1 > 1")

// Arithmetic on nil is an error, not a silent false: a PredicateEvaluationError.
do {
    _ = try values.filter(predicate)
} catch {
    print(error.kind)               // arithmetic
    print(error.context ?? "")      // x + 1 > 1, the comparison that failed
    print(error.elementIndex ?? -1) // 1, the element it failed on
    print(error.hint ?? "")         // test for nil first: x != nil AND …
}

// Untrusted predicates get a work budget; past it, the call stops with an error.
let small = EvaluationLimits(maxSteps: 1_000, maxRegexSteps: 10_000)
let many = [PredicateValue](repeating: ["x": 1], count: 10_000)
let one = try PredicateNode(format: "x == 1")
do {
    _ = try many.filter(one, limits: small)
} catch {
    print(error.kind)               // workLimit
}

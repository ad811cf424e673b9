import PQL
// --- shown from here ---
let functions = PredicateFunctions(["double:": { target, args in
    guard case .int(let i) = target else { return .null }
    return .int(i * 2)
}])
let p = try PredicateNode(format: "FUNCTION(age, 'double:') > 60").compiled(for: PredicateValue.self, functions: functions)

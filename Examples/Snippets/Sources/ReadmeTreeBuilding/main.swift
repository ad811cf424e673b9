import PQL
// --- shown from here ---
let adult = ComparisonNode(.keyPath("age"), .greaterThanOrEqual, .constant(18))
let p = PredicateNode.and([.comparison(adult),
                           .comparison(.keyPath("kids.name"), .beginsWith, .constant("a"), quantifier: .any, options: .caseInsensitive)])
print(p)   // age >= 18 AND ANY kids.name BEGINSWITH[c] "a"

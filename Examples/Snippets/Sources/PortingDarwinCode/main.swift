import Foundation
import PQLFoundation   // on Apple platforms an empty module: Foundation has all of this

let people: [[String: Any]] = [["name": "Ángela", "age": 30, "tags": ["vip"], "score": 12],
                               ["name": "Bo", "age": 12, "tags": [String](), "score": 3]]
let p = NSPredicate(format: "name BEGINSWITH[cd] %@ AND age >= %d", "a", 18)
let c = NSCompoundPredicate(andPredicateWithSubpredicates: [p, NSPredicate(format: "ANY tags == %@", "vip")])
let adults = (people as NSArray).filtered(using: c)                              // Ángela
let t = NSPredicate(format: "score > $MIN").withSubstitutionVariables(["MIN": 10])
print(adults.count, people.filter { t.evaluate(with: $0) }.count)               // 1 1
print(c)   // (name BEGINSWITH[cd] "a" AND age >= 18) AND ANY tags == "vip", as c.predicateFormat prints

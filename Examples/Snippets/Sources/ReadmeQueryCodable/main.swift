import Foundation
import PQL
// --- shown from here ---
let q = try PredicateQuery(where: "age >= %@", [18], sort: [SortRule("name")], offset: 0, limit: 20)
let json = try JSONEncoder().encode(q)   // {"predicate":"age >= 18","sort":[{"keyPath":"name",…}],"offset":0,"limit":20,…}
let back = try JSONDecoder().decode(PredicateQuery.self, from: json)

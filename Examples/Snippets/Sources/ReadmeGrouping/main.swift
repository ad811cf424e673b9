import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string, isOptional: false, isUnique: true),
                                        ModelAttribute("name", .string)],
                relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
    ModelEntity("Flight", attributes: [ModelAttribute("dep_delay", .integer64)],
                relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights")]),
])
let store = try PredicateStore(path: ":memory:", model: model)
let ua = try store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
let dl = try store.insert("Airline", ["carrier": "DL", "name": "Delta Air Lines Inc."])
try store.insert("Flight", [["dep_delay": 95, "airline": .int(ua)], ["dep_delay": 15, "airline": .int(ua)],
                            ["dep_delay": -3, "airline": .int(dl)], ["dep_delay": nil, "airline": .int(dl)]])
// --- shown from here ---
let perAirline = try GroupQuery("Flight", where: "dep_delay != nil", groupBy: ["airline.name"],
                                select: ["avg": "average:(dep_delay)", "n": "count:(dep_delay)"],
                                having: "n >= 1", sort: [SortRule("avg", ascending: false)])
let rows = try store.fetch(perAirline)      // one GROUP BY statement
// [["airline.name": "United Air Lines Inc.", "avg": 55.0, "n": 2], ["airline.name": "Delta Air Lines Inc.", "avg": -3.0, "n": 1]]
print(try store.sql(for: perAirline))       // the SQL and its bindings

// The same query on an array, by the evaluator: the same rows.
let flights: [PredicateValue] = [["dep_delay": 95, "airline": ["name": "United Air Lines Inc."]],
                                 ["dep_delay": 15, "airline": ["name": "United Air Lines Inc."]],
                                 ["dep_delay": -3, "airline": ["name": "Delta Air Lines Inc."]]]
let inMemory = try perAirline.run(on: flights)
precondition(inMemory == rows)

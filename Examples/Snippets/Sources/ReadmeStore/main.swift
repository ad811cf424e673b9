import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string, isOptional: false, isUnique: true),
                                        ModelAttribute("name", .string)],
                relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline", deleteRule: .cascade)]),
    ModelEntity("Flight", attributes: [ModelAttribute("dep_delay", .integer64, isIndexed: true),
                                       ModelAttribute("dest", .string)],
                relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights")]),
])
let store = try PredicateStore(path: "flights.sqlite", model: model)      // WAL; ":memory:" works too
let ua = try store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
try store.insert("Flight", [["dep_delay": 95, "dest": "SFO", "airline": .int(ua)], ["dep_delay": -3, "dest": "LAX", "airline": .int(ua)]])

let late = try EntityQuery("Flight", where: "airline.name BEGINSWITH[c] %@ AND dep_delay > $minutes", ["united"],
                           sort: [SortRule("dep_delay", ascending: false)], limit: 10, variables: ["minutes": 60])
let flights = try store.fetch(late)                     // [StoreRecord]; fetch(_:as:) decodes Codable types
let n = try store.count(try EntityQuery("Airline", where: "ANY flights.dest == 'SFO'"))
print(try store.sql(for: late))                         // the SQL and its bindings
try store.batchDelete(try EntityQuery("Airline", where: "flights.@count == 0"))

import Foundation
import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Flight", attributes: [ModelAttribute("dep_delay", .integer64, isIndexed: true),
                                       ModelAttribute("dest", .string)]),
])
let store = try PredicateStore(path: "flights.sqlite", model: model)
try store.insert("Flight", [["dep_delay": 95, "dest": "SFO"], ["dep_delay": -3, "dest": "LAX"]])
// --- shown from here ---
let server = AsyncPredicateStore(store)          // Sendable: share one between tasks
let late = try EntityQuery("Flight", where: "dep_delay > 60")
async let flights = server.fetch(late)           // reads run side by side on pooled connections
async let total = server.count(EntityQuery("Flight"))
try await server.insert("Flight", ["dep_delay": 12, "dest": "SEA"])   // writes one at a time
print(try await flights.count, try await total)

// Rows one at a time, in bounded memory; leaving the loop or cancelling the task stops the statement.
var delay = 0
for try await flight in store.records(matching: EntityQuery("Flight")) {
    delay += flight["dep_delay"].intValue ?? 0
}
print(delay)

import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string, isOptional: false, isUnique: true),
                                        ModelAttribute("name", .string)],
                relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
    ModelEntity("Flight", attributes: [ModelAttribute("dep_delay", .integer64), ModelAttribute("dest", .string)],
                relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights")]),
])
let store = try PredicateStore.inMemory(model)
// --- shown from here ---
// Insert or update by a unique attribute: the object's key either way.
let ua = try store.upsert("Airline", ["carrier": "UA", "name": "United"], onConflict: "carrier")
try store.upsert("Airline", ["carrier": "UA", "name": "United Airlines"], onConflict: "carrier")   // same object
try store.insert("Flight", [["dep_delay": 95, "dest": "SFO", "airline": .int(ua)]])

// Values computed from each object, as NSBatchUpdateRequest's expressions.
let n = try store.batchUpdate(try EntityQuery("Flight", where: "dest == 'SFO'"),
                              computing: ["dep_delay": try ExpressionNode(format: "dep_delay - 5"),
                                          "dest": try ExpressionNode(format: "lowercase:(dest)")])

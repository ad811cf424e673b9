import PQL
import PQLStore

// --- shown from here ---
let model = try StoreModel([
    ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes")]),
    ModelEntity("Tag", attributes: [ModelAttribute("name", .string)],
                relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags", deleteRule: .nullify)]),
])
let store = try PredicateStore.inMemory(model)     // creates the tables Note, Tag and Note_tags
let urgent = try store.insert("Tag", ["name": "urgent"]), later = try store.insert("Tag", ["name": "later"])
let note = try store.insert("Note", ["title": "a", "tags": [.int(urgent)]])   // an array of keys
try store.link("Note", id: note, "tags", to: [later])                          // adds join rows
try store.unlink("Note", id: note, "tags", from: [urgent])
let n = try store.count(try EntityQuery("Note", where: "ANY tags.name == 'later' AND tags.@count < 3"))

import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Folder", attributes: [ModelAttribute("name", .string)],
                relationships: [ModelRelationship("notes", toMany: "Note", inverse: "folder")], primaryKey: "id"),
    ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                relationships: [ModelRelationship("folder", to: "Folder", inverse: "notes"),
                                ModelRelationship("tags", toMany: "Tag", inverse: "note")]),
    ModelEntity("Tag", attributes: [ModelAttribute("name", .string)], relationships: [ModelRelationship("note", to: "Note", inverse: "tags")]),
])
let store = try PredicateStore.inMemory(model)
let notes = try store.insert("Note", [["title": "a"], ["title": "b"], ["title": "c"]])
let urgent = try store.insert("Tag", ["name": "urgent", "note": .int(notes[0])])
let later = try store.insert("Tag", ["name": "later", "note": .int(notes[1])])
// --- shown from here ---
let work = try store.insert("Folder", ["name": "Work"])                    // the new object's key
let home = ObjectID("Folder", key: try store.insert("Folder", ["name": "Home"]))   // entity and key
let linked = try store.insert("Note", ["title": "n", "folder": home.predicateValue])  // links take IDs
let inWork = try store.fetch(EntityQuery("Note", where: "folder == %@", [work]))
let picked = try store.fetch(EntityQuery("Note", where: "SELF IN %@", [[3, 7, 9]]))
let tagged = try store.count(EntityQuery("Note", where: "ANY tags == %@ OR %@ IN tags", [urgent, later]))
let either = try store.fetch(EntityQuery("Note", where: "folder IN %@", [[work, home]]))   // keys and IDs
let note = try store.fetch(EntityQuery("Note", where: "SELF == %@", [linked]))[0]          // a record
let same = try store.count(EntityQuery("Note", where: "folder == %@ AND SELF == %@", [home, note]))   // 1

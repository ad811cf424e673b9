import Foundation
import PQLStore

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pql-snippet-records-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
_ = FileManager.default.changeCurrentDirectoryPath(directory.path)
// --- shown from here ---
enum Priority: String, Codable, CaseIterable { case low, high }

struct Folder: EntityRecord {
    var id: Int64?                 // the key: nil until inserted
    var name: String
    static let relationships = [ModelRelationship("notes", toMany: "Note", inverse: "folder")]
}

struct Note: EntityRecord {
    var id: Int64?
    var title: String
    var priority: Priority
    var due: Date?
    var folder: Int64?             // a to-one: the folder's key
    var tags: [Int64]              // a many-to-many: the tags' keys
    static let relationships = [ModelRelationship("folder", to: Folder.self, inverse: "notes"),
                                ModelRelationship("tags", toMany: Tag.self, inverse: "notes")]
}

struct Tag: EntityRecord {
    var id: Int64?
    var label: String
    static let relationships = [ModelRelationship("notes", toMany: "Note", inverse: "tags")]
    static let uniqueAttributes = ["label"]
}

let store = try PredicateStore(path: "notes.sqlite", records: [Folder.self, Note.self, Tag.self])
let inbox = try store.insert(Folder(name: "Inbox"))
let urgent = try store.upsert(Tag(label: "urgent"), onConflict: "label")
let milk = try store.insert(Note(title: "Milk", priority: .high, folder: inbox, tags: [urgent]))
var note = try store.fetch(Note.self, id: milk)!
note.due = Date(timeIntervalSinceNow: 86_400)
try store.update(note)
let today = try store.fetch(Note.self, where: "folder == %@ AND priority == %@ AND ANY tags.label == %@",
                            inbox, Priority.high, "urgent", sort: [SortRule("title")])
print(today.map(\.title))                                  // ["Milk"]
try store.delete(note)
print(try store.count(Note.self))                          // 0

import Foundation
import PQL
@testable import PQLStore
import PQLTestSupport
import Testing

/// Objects in predicates as Core Data apps write them (`folder == %@`, `SELF IN %@`,
/// `ANY tags == %@`, `%@ IN tags`), with an object's key as the argument, and a declared key
/// (`primaryKey: "id"`) read and sorted like any attribute.
@Suite("objects in predicates")
struct ObjectPredicateTests {
    /// The notes of `NotesSchema`: folders Work and Home, notes a, b (Work), c (Home), d, four tags.
    static func notes() throws -> (store: PredicateStore, folders: [Int64], notes: [Int64]) {
        let model = try StoreModel(NotesSchema.entities)
        let store = try PredicateStore.inMemory(model)
        let folders = try store.insert("Folder", [["name": "Work"], ["name": "Home"]])
        let notes = try store.insert("Note", [["title": "a", "folder": .int(folders[0])], ["title": "b", "folder": .int(folders[0])],
                                              ["title": "c", "folder": .int(folders[1])], ["title": "d"]])
        try store.insert("Tag", [["name": "urgent", "note": .int(notes[0])], ["name": "urgent", "note": .int(notes[1])],
                                 ["name": "later", "note": .int(notes[1])], ["name": "later", "note": .int(notes[2])]])
        return (store, folders, notes)
    }

    static func titles(_ store: PredicateStore, _ predicate: String, _ arguments: [PredicateValue] = []) throws -> [String] {
        try store.fetch(EntityQuery("Note", where: predicate, arguments, sort: [SortRule("title")])).compactMap { if case .string(let s) = $0["title"] { s } else { nil } }
    }

    @Test func aDeclaredKeyIsAnAttribute() throws {
        let (store, folders, _) = try Self.notes()
        #expect(try store.count(EntityQuery("Folder", where: "id == %@", [PredicateValue.int(folders[1])])) == 1)
        let sorted = try store.fetch(EntityQuery("Folder", sort: [SortRule("id", ascending: false)]))
        #expect(sorted.map { $0["id"] } == folders.reversed().map { PredicateValue.int($0) })
        #expect(sorted.map { $0["name"] } == ["Home", "Work"])
        // A key given on insert is the key; none given, the store assigns one.
        let given = try store.insert("Folder", ["id": 100, "name": "Given"])
        #expect(given == 100)
        #expect(try store.count(EntityQuery("Folder", where: "id > 99 AND name == 'Given'")) == 1)
    }

    @Test func aToOneEqualsItsObjectsKey() throws {
        let (store, folders, notes) = try Self.notes()
        let work = PredicateValue.int(folders[0]), home = PredicateValue.int(folders[1])
        #expect(try Self.titles(store, "folder == %@", [work]) == ["a", "b"])
        // A nil link is != every object (NSPredicate's nil rules).
        #expect(try Self.titles(store, "folder != %@", [work]) == ["c", "d"])
        #expect(try Self.titles(store, "folder IN %@", [.array([work, home])]) == ["a", "b", "c"])
        #expect(try Self.titles(store, "NOT (folder IN %@)", [.array([home])]) == ["a", "b", "d"])
        #expect(try Self.titles(store, "%@ == folder", [home]) == ["c"])
        #expect(try Self.titles(store, "folder == nil") == ["d"])
        #expect(try Self.titles(store, "SELF == %@", [.int(notes[2])]) == ["c"])
        #expect(try Self.titles(store, "SELF IN %@", [.array([.int(notes[0]), .int(notes[2])])]) == ["a", "c"])
        #expect(try Self.titles(store, "SELF != %@", [.int(notes[0])]) == ["b", "c", "d"])
        #expect(try Self.titles(store, "folder IN {}") == [])
    }

    @Test func aToManyHoldsItsObjects() throws {
        let (store, _, notes) = try Self.notes()
        let tags = try store.fetchIDs(EntityQuery("Tag", sort: [SortRule("name")]))   // later, later, urgent, urgent
        let later = PredicateValue.int(tags[0])
        #expect(try Self.titles(store, "ANY tags == %@", [later]) == ["b"])
        #expect(try Self.titles(store, "tags CONTAINS %@", [later]) == ["b"])
        #expect(try Self.titles(store, "%@ IN tags", [later]) == ["b"])
        #expect(try Self.titles(store, "NONE tags == %@", [later]) == ["a", "c", "d"])
        #expect(try Self.titles(store, "ANY tags IN %@", [.array([later, .int(tags[1])])]) == ["b", "c"])
        #expect(try Self.titles(store, "ALL tags != %@", [later]) == ["a", "c", "d"])
        // The inverse way: tags whose note is an object, and SUBQUERY's variable as an object.
        #expect(try store.count(EntityQuery("Tag", where: "note == %@", [PredicateValue.int(notes[1])])) == 2)
        #expect(try Self.titles(store, "SUBQUERY(tags, $t, $t == %@).@count == 1", [later]) == ["b"])
        #expect(try Self.titles(store, "ANY tags.note == SELF") == ["a", "b", "c"])
    }

    @Test func objectsThatCanNeverBeEqualAreTypedErrors() throws {
        let (store, _, _) = try Self.notes()
        func refused(_ predicate: String, _ arguments: [PredicateValue] = [], _ fragment: String) {
            #expect { _ = try store.fetch(EntityQuery("Note", where: predicate, arguments)) } throws: { error in
                guard let e = error as? StoreError else { return false }
                return e.kind == .typeMismatch && e.message.contains(fragment) && e.hint != nil && e.range != nil
            }
        }
        refused("folder == 'Work'", [], "compared with a string")
        refused("folder == %@", [.date(Date(timeIntervalSince1970: 0))], "compared with a date")
        refused("SELF IN {'a'}", [], "compared with a string")
        refused("folder < 2", [], "objects have no order")
        refused("folder == SELF", [], "unrelated entities")
        refused("ANY tags == 'urgent'", [], "compared with a string")
        // Nothing was written by a refused fetch, and the right forms still work.
        #expect(try Self.titles(store, "folder.name == 'Work'") == ["a", "b"])
    }
}

import Foundation
import PQL
@testable import PQLStore
import PQLTestSupport
import Testing

/// Object IDs (entity + key) and fetched records as arguments, as constants and as links, in
/// the store and in memory; the errors bad objects get (issue 27, items 1 and 5).
@Suite struct ObjectIDTests {
    typealias Notes = ObjectPredicateTests

    static func titles(_ store: PredicateStore, _ predicate: String, _ arguments: [Any?]) throws -> [String] {
        try store.fetch(EntityQuery("Note", where: predicate, arguments, sort: [SortRule("title")])).compactMap { if case .string(let s) = $0["title"] { s } else { nil } }
    }

    @Test func idsAndRecordsAreObjectsInEveryForm() throws {
        let (store, folders, notes) = try Notes.notes()
        let work = ObjectID("Folder", key: folders[0]), home = ObjectID("Folder", key: folders[1])
        let later = try store.fetch(EntityQuery("Tag", where: "name == 'later'", sort: [SortRule("note.title")]))
        #expect(try Self.titles(store, "folder == %@", [work]) == ["a", "b"])
        #expect(try Self.titles(store, "folder != %@", [work]) == ["c", "d"])
        #expect(try Self.titles(store, "folder IN %@", [[work, home]]) == ["a", "b", "c"])
        // A key, an ID and a record mixed in one collection.
        let homeRecord = try #require(try store.fetch(EntityQuery("Folder", where: "name == 'Home'")).first)
        #expect(try Self.titles(store, "folder IN %@", [[PredicateValue.int(folders[0]), homeRecord.predicateValue]]) == ["a", "b", "c"])
        #expect(try Self.titles(store, "folder == %@", [homeRecord]) == ["c"])
        #expect(try Self.titles(store, "SELF == %@", [ObjectID("Note", key: notes[3])]) == ["d"])
        #expect(try Self.titles(store, "SELF IN %@", [[ObjectID("Note", key: notes[0]), ObjectID("Note", key: notes[2])]]) == ["a", "c"])
        #expect(try Self.titles(store, "ANY tags == %@", [later[0]]) == ["b"])
        #expect(try Self.titles(store, "tags CONTAINS %@", [later[1].objectID]) == ["c"])
        #expect(try Self.titles(store, "%@ IN tags", [later[0].objectID]) == ["b"])
        #expect(try Self.titles(store, "NONE tags == %@", [later[0].objectID]) == ["a", "c", "d"])
        // As a $variable's value and as a constant in the text.
        let query = try EntityQuery("Note", where: "folder == $f", variables: ["f": work.predicateValue])
        #expect(try store.count(query) == 2)
        #expect(try store.count(EntityQuery("Note", where: #"folder == CAST({{"$entity", "Folder"}, {"$key", \#(folders[1])}}, "NSDictionary")"#)) == 1)
        // An ID whose object does not exist matches nothing.
        #expect(try Self.titles(store, "folder == %@", [ObjectID("Folder", key: 999)]) == [])
    }

    /// The same predicates over the fetched records in memory give the same notes.
    @Test func memoryAgreesOverFetchedRecords() throws {
        let (store, folders, notes) = try Notes.notes()
        let records = try store.fetch(EntityQuery("Note", sort: [SortRule("title")]))
        let work = ObjectID("Folder", key: folders[0])
        for (format, arguments) in [("folder == %@", [work.predicateValue]), ("folder != %@", [work.predicateValue]),
                                    ("SELF IN %@", [.array([ObjectID("Note", key: notes[1]).predicateValue, .int(notes[3])])]),
                                    ("SELF == %@", [records[2].predicateValue])] as [(String, [PredicateValue])] {
            let predicate = try PredicateNode(format: format, argumentArray: arguments)
            let inMemory = try records.filter(predicate).map(\.id)
            let stored = try store.fetch(EntityQuery("Note", predicate: predicate, sort: [SortRule("title")])).map(\.id)
            #expect(inMemory == stored, "\(format)")
        }
        #expect(try records.filter(PredicateNode(format: "SELF == %@", records[1])).map(\.id) == [records[1].id])
        // A record's links are objects in memory: an ID of another entity never equals one,
        // and what the store refuses, memory refuses too.
        #expect(records[0].predicateValue.dictionaryValue?["folder"]?.objectID == ObjectID("Folder", key: folders[0]))
        #expect(try records.filter(PredicateNode(format: "folder == %@", ObjectID("Tag", key: folders[0]))).isEmpty)
        #expect(throws: PredicateEvaluationError.self) { try records.filter(PredicateNode(format: "folder < 2")) }
        #expect(throws: PredicateEvaluationError.self) { try records.filter(PredicateNode(format: "folder == 'Work'")) }
    }

    /// Each bad object is a typed error with a caret (a range in the predicate) and a hint.
    @Test func badObjectsAreTypedErrors() throws {
        let (store, _, _) = try Notes.notes()
        func refused(_ predicate: String, _ arguments: [Any?], _ kind: StoreError.Kind, _ fragment: String) {
            #expect { _ = try store.fetch(EntityQuery("Note", where: predicate, arguments)) } throws: { error in
                guard let e = error as? StoreError else { return false }
                return e.kind == kind && e.message.contains(fragment) && e.hint != nil && e.range != nil
            }
        }
        refused("folder == %@", [ObjectID("Shelf", key: 1)], .unknownEntity, "names no entity")
        refused("folder == %@", [ObjectID("Folder", key: "one")], .typeMismatch, "keys are integers")
        refused("folder == %@", [ObjectID("Tag", key: 1)], .typeMismatch, "unrelated entities")
        refused("title == %@", [ObjectID("Folder", key: 1)], .typeMismatch, "compared with")
        refused("folder == %@", [Date(timeIntervalSinceReferenceDate: 0)], .typeMismatch, "compared with a date")
        refused("SELF IN %@", [ObjectID("Note", key: 1)], .typeMismatch, "one object")
        refused("folder < %@", [ObjectID("Folder", key: 1)], .typeMismatch, "no order")
        refused("folder == %@", [PredicateValue.dictionary(["$entity": "Folder"])], .typeMismatch, "no $key")
        refused("folder BETWEEN %@", [[ObjectID("Folder", key: 1), 2]], .typeMismatch, "no order")
        refused("SELF BETWEEN {1, 2}", [], .typeMismatch, "no order")
        refused("ANY tags BETWEEN {1, 1}", [], .typeMismatch, "no order")
        refused("CAST(folder, 'NSNumber') == 1", [], .typeMismatch, "CAST cannot convert")
        refused("title LIKE %@", [ObjectID("Folder", key: 1)], .typeMismatch, "no strings")
        // The caret is on the argument.
        do {
            _ = try store.fetch(EntityQuery("Note", where: "title == 'a' AND folder == %@", [ObjectID("Shelf", key: 1)]))
            Issue.record("no error")
        } catch {
            #expect(error.range?.offset == 27)
        }
    }

    @Test func badObjectsAreTypedErrorsInMemoryToo() throws {
        let notes: [PredicateValue] = [.dictionary(["$entity": "Note", "$key": 1, "title": "a", "folder": 1,
                                                    "made": .date(Date(timeIntervalSinceReferenceDate: 0))])]
        func refused(_ format: String, _ argument: PredicateValue, _ kind: PredicateEvaluationError.Kind, _ fragment: String) {
            #expect { _ = try notes.filter(PredicateNode(format: format, argument)) } throws: { error in
                guard let e = error as? PredicateEvaluationError else { return false }
                return e.kind == kind && e.message.contains(fragment) && e.hint != nil
            }
        }
        refused("title == %@", ObjectID("Folder", key: 1).predicateValue, .typeMismatch, "its key is an integer")
        refused("made == %@", ObjectID("Folder", key: 1).predicateValue, .typeMismatch, "compared with a date")
        refused("folder == %@", ObjectID("Folder", key: "x").predicateValue, .typeMismatch, "its key is a string")
        refused("folder == %@", .dictionary(["$key": 1]), .typeMismatch, "no $entity")
        refused("SELF IN %@", ObjectID("Note", key: 1).predicateValue, .notACollection, "one object")
        refused("SELF > %@", ObjectID("Note", key: 1).predicateValue, .incomparable, "no order")
        #expect(try notes.filter(PredicateNode(format: "folder == %@", ObjectID("Folder", key: 1))).count == 1)
        #expect(try notes.filter(PredicateNode(format: "SELF == %@", ObjectID("Tag", key: 1))).isEmpty)
    }

    /// Links given as IDs and records; an ID of the wrong entity or of no object writes nothing.
    @Test func writesTakeIDsAndRecords() throws {
        let (store, folders, _) = try Notes.notes()
        let home = try #require(try store.fetch(EntityQuery("Folder", where: "name == 'Home'")).first)
        let e = try store.insert("Note", ["title": "e", "folder": ObjectID("Folder", key: folders[0]).predicateValue])
        let f = try store.insert("Note", ["title": "f", "folder": home.predicateValue])
        #expect(try Self.titles(store, "folder == %@", [home]) == ["c", "f"])
        #expect(try store.count(EntityQuery("Note", where: "SELF IN %@", [[e, f]])) == 2)
        let before = try store.count(EntityQuery("Note"))
        #expect { try store.insert("Note", ["title": "g", "folder": ObjectID("Tag", key: 1).predicateValue]) } throws: {
            ($0 as? StoreError)?.kind == .typeMismatch
        }
        #expect { try store.insert("Note", ["title": "h", "folder": ObjectID("Shelf", key: 1).predicateValue]) } throws: {
            ($0 as? StoreError)?.kind == .unknownEntity
        }
        #expect { try store.insert("Note", ["title": "i", "folder": ObjectID("Folder", key: 999).predicateValue]) } throws: {
            ($0 as? StoreError)?.kind == .constraint
        }
        #expect { try store.insert("Note", [["title": "j"], ["title": "k", "folder": 999]]) } throws: { ($0 as? StoreError)?.kind == .constraint }
        #expect(try store.count(EntityQuery("Note")) == before)
        // The declared key is unique: an upsert can use it.
        #expect(try store.upsert("Folder", ["id": .int(folders[1]), "name": "House"], onConflict: "id") == folders[1])
        #expect(try store.count(EntityQuery("Folder", where: "name == 'House'")) == 1)
    }

    @Test func manyToManyLinksTakeIDs() throws {
        let store = try PredicateStore.inMemory(ObjectWorld.model)
        let tags = try store.insert("Tag", [["name": "urgent"], ["name": "later"]])
        let note = try store.insert("Note", ["title": "a", "tags": [ObjectID("Tag", key: tags[0]).predicateValue, .int(tags[1])]])
        #expect(try store.count(EntityQuery("Note", where: "ANY tags == %@ AND %@ IN tags", [ObjectID("Tag", key: tags[1]), tags[0]])) == 1)
        #expect(try store.fetch(EntityQuery("Note"))[0]["tags"] == [.int(tags[0]), .int(tags[1])])
        #expect { try store.insert("Note", ["title": "b", "tags": [ObjectID("Note", key: note).predicateValue]]) } throws: {
            ($0 as? StoreError)?.kind == .typeMismatch
        }
        #expect { try store.insert("Note", ["title": "c", "tags": [ObjectID("Tag", key: 77).predicateValue]]) } throws: {
            ($0 as? StoreError)?.kind == .constraint
        }
        #expect(try store.count(EntityQuery("Note")) == 1)
    }

    @Test func theIDsPredicateValueRoundTrips() throws {
        let id = ObjectID("Folder", key: 7)
        #expect(ObjectID(id.predicateValue) == id)
        #expect(id.predicateValue.objectID == id)
        #expect(PredicateValue.dictionary(["a": 1]).objectID == nil && PredicateValue.dictionary(["a": 1]).objectProblem == nil)
        #expect(PredicateValue.dictionary(["$entity": "A", "$key": 1.5]).objectProblem != nil)
        let printed = try PredicateNode(format: "folder == %@", id).description
        #expect(try PredicateNode(format: printed).description == printed)
        #expect(try PredicateNode(format: printed) == PredicateNode(format: "folder == %@", id))
    }

    /// An ID of a sub-entity names an object of that sub-entity only; an ID of the parent
    /// names any object of the tree with that key.
    @Test func idsOfSubEntities() throws {
        let store = try PredicateStore.inMemory(ZooModel.model)
        let keeper = try store.insert("Keeper", ["name": "Kim"])
        let rex = try store.insert("Dog", ["name": "Rex", "dogKeeper": .int(keeper)])
        let tom = try store.insert("Cat", ["name": "Tom"])
        func names(_ predicate: String, _ arguments: [Any?]) throws -> [String] {
            try store.fetch(EntityQuery("Animal", where: predicate, arguments, sort: [SortRule("name")])).compactMap { if case .string(let s) = $0["name"] { s } else { nil } }
        }
        #expect(try names("SELF == %@", [ObjectID("Dog", key: rex)]) == ["Rex"])
        #expect(try names("SELF == %@", [ObjectID("Cat", key: rex)]) == [])
        #expect(try names("SELF == %@", [ObjectID("Animal", key: tom)]) == ["Tom"])
        #expect(try names("SELF != %@", [ObjectID("Cat", key: rex)]) == ["Rex", "Tom"])
        #expect(try names("SELF IN %@", [[ObjectID("Cat", key: rex), ObjectID("Cat", key: tom)]]) == ["Tom"])
        #expect(try store.count(EntityQuery("Keeper", where: "ANY dogs == %@", [ObjectID("Dog", key: rex)])) == 1)
        #expect(try store.count(EntityQuery("Dog", where: "SELF == %@", [ObjectID("Puppy", key: rex)])) == 0)
    }
}

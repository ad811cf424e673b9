import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Objects in predicates on PostgreSQL (`folder == %@`, `SELF IN %@`, `ANY tags == %@`,
/// `%@ IN tags`) give the rows they give on SQLite and in the SQLite suite's expectations, and
/// a declared key (`primaryKey: "id"`) is an attribute.
@Suite struct PostgresObjectPredicateTests {
    static let model = try! StoreModel(NotesSchema.entities, names: .postgreSQL)

    /// The same objects in both stores, inserted in the same order (so with the same keys).
    static func fill(_ insert: (String, [[String: PredicateValue]]) async throws -> [Int64]) async throws {
        let folders = try await insert("Folder", [["name": "Work"], ["name": "Home"]])
        let notes = try await insert("Note", [["title": "a", "folder": .int(folders[0])], ["title": "b", "folder": .int(folders[0])],
                                              ["title": "c", "folder": .int(folders[1])], ["title": "d"]])
        _ = try await insert("Tag", [["name": "urgent", "note": .int(notes[0])], ["name": "urgent", "note": .int(notes[1])],
                                     ["name": "later", "note": .int(notes[1])], ["name": "later", "note": .int(notes[2])]])
    }

    static let cases: [(String, [PredicateValue])] = [
        ("folder == %@", [1]), ("folder != %@", [1]), ("folder IN %@", [[1, 2]]), ("NOT (folder IN %@)", [[2]]),
        ("%@ == folder", [2]), ("folder == nil", []), ("SELF == %@", [3]), ("SELF IN %@", [[1, 3]]), ("SELF != %@", [1]),
        ("ANY tags == %@", [3]), ("tags CONTAINS %@", [3]), ("%@ IN tags", [4]), ("NONE tags == %@", [3]),
        ("ALL tags != %@", [3]), ("ANY tags IN %@", [[3, 4]]), ("SUBQUERY(tags, $t, $t == %@).@count == 1", [1]),
        ("ANY tags.note == SELF", []), ("folder IN {}", []),
    ]

    @Test func objectsGiveTheRowsTheyGiveOnSQLite() async throws {
        let sqlite = try PredicateStore.inMemory(try StoreModel(NotesSchema.entities))
        try await Self.fill { entity, objects in try sqlite.insert(entity, objects) }
        try await TestServer.withStore(model: Self.model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            try await Self.fill { entity, objects in try await store.insert(entity, objects) }
            for (format, arguments) in Self.cases {
                let query = try EntityQuery("Note", where: format, arguments.map { $0 as Any? }, sort: [SortRule("title")])
                let want = try sqlite.fetch(query).map { $0["title"] }
                let got = try await store.fetch(query).map { $0["title"] }
                #expect(got == want, "\(format) \(arguments)")
                if format == "folder != %@" { #expect(got == ["c", "d"], "a nil link is != every object") }
                if format == "%@ IN tags" { #expect(got == ["c"]) }
            }
            // The declared key reads and sorts as an attribute.
            let folders = try await store.fetch(EntityQuery("Folder", where: "id == 2 OR id == 1", sort: [SortRule("id", ascending: false)]))
            #expect(folders.map { $0["name"] } == ["Home", "Work"])
            #expect(folders.map { $0["id"] } == [2, 1])
            // A value that can never be the key is a typed error before anything runs.
            await #expect { _ = try await store.fetch(EntityQuery("Note", where: "folder == 'Work'")) } throws: { error in
                (error as? StoreError)?.kind == .typeMismatch
            }
        }
    }

    /// Object IDs and records as arguments and as links on PostgreSQL; a key the caller gives
    /// moves the key sequence past it, so that the server's next key is a new one.
    @Test func objectIDsRecordsAndGivenKeys() async throws {
        try await TestServer.withStore(model: Self.model) { store, _ in
            _ = try await store.createTables()
            try await Self.fill { entity, objects in try await store.insert(entity, objects) }
            let work = ObjectID("Folder", key: 1)
            #expect(try await store.count(EntityQuery("Note", where: "folder == %@", [work])) == 2)
            let home = try #require(try await store.fetch(EntityQuery("Folder", where: "name == 'Home'")).first)
            #expect(try await store.count(EntityQuery("Note", where: "folder IN %@", [[work, home.objectID]])) == 3)
            #expect(try await store.count(EntityQuery("Note", where: "folder != %@", [home])) == 3)
            #expect(try await store.count(EntityQuery("Note", where: "ANY tags == %@", [ObjectID("Tag", key: 3)])) == 1)
            await #expect { _ = try await store.count(EntityQuery("Note", where: "folder == %@", [ObjectID("Tag", key: 1)])) } throws: {
                ($0 as? StoreError)?.kind == .typeMismatch
            }
            await #expect { _ = try await store.count(EntityQuery("Note", where: "folder == %@", [ObjectID("Shelf", key: 1)])) } throws: {
                ($0 as? StoreError)?.kind == .unknownEntity
            }
            // Links given as IDs; an ID of another entity or of no object writes nothing.
            let note = try await store.insert("Note", ["title": "e", "folder": work.predicateValue])
            #expect(try await store.count(EntityQuery("Note", where: "folder == 1 AND SELF == %@", [note])) == 1)
            await #expect { try await store.insert("Note", ["title": "f", "folder": ObjectID("Note", key: 1).predicateValue]) } throws: {
                ($0 as? StoreError)?.kind == .typeMismatch
            }
            await #expect { try await store.insert("Note", ["title": "g", "folder": ObjectID("Folder", key: 99).predicateValue]) } throws: {
                ($0 as? StoreError)?.kind == .constraint
            }
            #expect(try await store.count(EntityQuery("Note", where: "title IN {'f', 'g'}")) == 0)
            // A given key, then one the server assigns: no collision.
            #expect(try await store.insert("Folder", ["id": 50, "name": "Given"]) == 50)
            #expect(try await store.insert("Folder", ["name": "Next"]) == 51)
            #expect(try await store.upsert("Folder", ["id": 60, "name": "Upserted"], onConflict: "id") == 60)
            #expect(try await store.insert("Folder", ["name": "After"]) == 61)
        }
    }
}

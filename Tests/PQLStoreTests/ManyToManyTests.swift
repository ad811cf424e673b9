import Foundation
import PQL
@testable import PQLStore
import Testing

/// Many-to-many relationships (issue 27, part 3): join tables of files PQL did not create read
/// as relationship pairs; declared pairs get a join table the store creates; every predicate
/// form over a to-many reads them; writes link, unlink and apply the delete rules.
@Suite("many-to-many relationships")
struct ManyToManyTests {
    /// The issue's acceptance file: notes in folders, tags on notes through `note_tag`.
    static let acceptanceSQL = [
        "CREATE TABLE folder(id INTEGER PRIMARY KEY, name)",
        "INSERT INTO folder VALUES (1, 'Work'), (2, 'Home')",
        "CREATE TABLE note(id INTEGER PRIMARY KEY, title, folder_id REFERENCES folder(id))",
        "INSERT INTO note VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', NULL)",
        "CREATE TABLE tag(id INTEGER PRIMARY KEY, name)",
        "INSERT INTO tag VALUES (1, 'urgent'), (2, 'later')",
        "CREATE TABLE note_tag(note_id NOT NULL REFERENCES note(id), tag_id NOT NULL REFERENCES tag(id), PRIMARY KEY (note_id, tag_id))",
        "INSERT INTO note_tag VALUES (1, 1), (2, 1), (2, 2), (3, 2)",
    ]

    static func file(_ statements: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-m2m-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("notes.sqlite").path
        let db = try SQLiteConnection(path: path)
        for sql in statements { try db.execute(sql) }
        db.close()
        return path
    }

    static func ids(_ store: PredicateStore, _ entity: String, _ predicate: String) throws -> [Int64] {
        try store.fetchIDs(EntityQuery(entity, where: predicate)).sorted()
    }

    @Test func joinTableOfAFileIsAManyToManyPair() throws {
        let store = try PredicateStore(path: try Self.file(Self.acceptanceSQL))
        #expect(store.model.entities.map(\.name) == ["folder", "note", "tag"])
        let note = try store.model.entity(named: "note"), tag = try store.model.entity(named: "tag")
        let tags = try #require(note.relationships.first { $0.name == "tag" })
        #expect(tags.isManyToMany && tags.destination == "tag" && tags.inverse == "note")
        #expect(tags.joinTable == "note_tag" && tags.joinColumn == "note_id" && tags.inverseJoinColumn == "tag_id")
        let notes = try #require(tag.relationships.first { $0.name == "note" })
        #expect(notes.joinColumn == "tag_id" && notes.inverseJoinColumn == "note_id")
        // NOT NULL REFERENCES without ON DELETE: SQLite would refuse the delete, so deny.
        #expect(tags.deleteRule == .deny)
        #expect(try store.count(EntityQuery("note", where: "ANY tag.name == 'urgent'")) == 2)
        #expect(try store.count(EntityQuery("note", where: "tag.@count == 0")) == 1)
        #expect(try store.count(EntityQuery("tag", where: "ANY note.title == 'b'")) == 2)
        #expect(store.skippedTables.isEmpty)
    }

    @Test func joinTablesOfOtherShapes() throws {
        // Its own key, WITHOUT ROWID, ON DELETE CASCADE; a name taken; rows of one table.
        let store = try PredicateStore(path: try Self.file([
            "CREATE TABLE a(id INTEGER PRIMARY KEY, b TEXT)",
            "CREATE TABLE b(id INTEGER PRIMARY KEY)",
            "CREATE TABLE ab(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id) ON DELETE CASCADE, b_id INTEGER REFERENCES b(id))",
            "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)",
            "CREATE TABLE person_friend(person_id INTEGER NOT NULL REFERENCES person(id), friend_id INTEGER NOT NULL REFERENCES person(id), PRIMARY KEY (person_id, friend_id)) WITHOUT ROWID",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id), b_id INTEGER REFERENCES b(id), at TEXT)",
            "INSERT INTO person VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy')",
            "INSERT INTO person_friend VALUES (1, 2), (1, 3), (3, 1)",
        ]))
        #expect(store.model.entities.map(\.name) == ["a", "b", "log", "person"])
        let a = try store.model.entity(named: "a")
        // `b` is a's column already: the fallback name.
        let ab = try #require(a.relationships.first { $0.joinTable == "ab" })
        #expect(ab.name == "b_by_ab" && ab.deleteRule == .nullify)
        #expect(try store.model.entity(named: "b").relationships.contains { $0.name == "a" && $0.joinTable == "ab" })
        // A table with a third column is an entity with two to-ones.
        #expect(try store.model.entity(named: "log").relationships.map(\.name).sorted() == ["a", "b"])
        // Rows of one table: the sides are named after the columns.
        let person = try store.model.entity(named: "person")
        #expect(person.relationships.filter(\.isManyToMany).map(\.name).sorted() == ["friend", "person"])
        #expect(try Self.ids(store, "person", "ANY friend.name == 'Cy'") == [1])
        #expect(try Self.ids(store, "person", "ANY person.name == 'Ann'") == [2, 3])
        #expect(try Self.ids(store, "person", "friend.@count == 0") == [2])
    }

    /// Notes and tags declared in Swift: the store makes `Note_tags`, and the forms of
    /// predicates over a to-many read it.
    static func notes() throws -> (PredicateStore, [Int64], [Int64]) {
        let model = try StoreModel([
            ModelEntity("Folder", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("notes", toMany: "Note", inverse: "folder")]),
            ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                        relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes"),
                                        ModelRelationship("folder", to: "Folder", inverse: "notes")]),
            ModelEntity("Tag", attributes: [ModelAttribute("name", .string), ModelAttribute("weight", .integer64)],
                        relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags")]),
        ])
        let store = try PredicateStore.inMemory(model)
        let work = try store.insert("Folder", ["name": "Work"])
        let tags = try store.insert("Tag", [["name": "urgent", "weight": 5], ["name": "later", "weight": 1], ["name": "idle", "weight": 9]])
        let notes = try store.insert("Note", [
            ["title": "a", "tags": [.int(tags[0])], "folder": .int(work)],
            ["title": "b", "tags": [.int(tags[0]), .int(tags[1])], "folder": .int(work)],
            ["title": "c", "tags": [.int(tags[1])]],
            ["title": "d"],
        ])
        return (store, notes, tags)
    }

    @Test func declaredPairGetsAJoinTable() throws {
        let (store, _, _) = try Self.notes()
        let tags = try #require(try store.model.entity(named: "Note").relationships.first { $0.name == "tags" })
        #expect(tags.joinTable == "Note_tags" && tags.joinColumn == "notes" && tags.inverseJoinColumn == "tags")
        let inverse = try #require(try store.model.entity(named: "Tag").relationships.first { $0.name == "notes" })
        #expect(inverse.joinTable == "Note_tags" && inverse.joinColumn == "tags" && inverse.inverseJoinColumn == "notes")
        // The model saved in JSON keeps them; read back, it is the same model.
        #expect(try StoreModel(json: store.model.jsonData()) == store.model)
    }

    @Test("every form over a to-many reads a many-to-many", arguments: [
        ("ANY tags.name == 'urgent'", [0, 1]),
        ("ALL tags.name == 'urgent'", [0, 3]),
        ("NONE tags.name == 'urgent'", [2, 3]),
        ("tags.@count == 2", [1]),
        ("tags.@count == 0", [3]),
        ("tags.@sum.weight == 6", [1]),
        ("tags.@avg.weight == 3", [1]),
        ("tags.@min.weight == 1", [1, 2]),
        ("tags.@max.weight == 5", [0, 1]),
        ("sum:(tags.weight) > 4", [0, 1]),
        ("SUBQUERY(tags, $t, $t.weight > 2).@count == 1", [0, 1]),
        ("SUBQUERY(tags, $t, $t.name BEGINSWITH 'l' AND title == 'c').@count > 0", [2]),
        ("'later' IN tags.name", [1, 2]),
        ("tags.name CONTAINS 'urgent'", [0, 1]),
        ("ANY tags.name IN {'later', 'idle'}", [1, 2]),
        ("ANY tags.weight > 4", [0, 1]),
        ("SUBQUERY(tags, $t, ANY $t.notes.title == 'c').@count > 0", [1, 2]),
        ("ANY tags.name ==[c] title", []),
    ])
    func everyForm(_ predicate: String, _ expected: [Int]) throws {
        let (store, notes, _) = try Self.notes()
        #expect(try Self.ids(store, "Note", predicate) == expected.map { notes[$0] }, "\(predicate)")
    }

    @Test func fromTheOtherSideAndThroughToOnes() throws {
        let (store, _, tags) = try Self.notes()
        #expect(try Self.ids(store, "Tag", "ANY notes.title == 'b'") == [tags[0], tags[1]])
        #expect(try Self.ids(store, "Tag", "ANY notes.folder.name == 'Work'") == [tags[0], tags[1]])
        #expect(try Self.ids(store, "Tag", "notes.@count == 0") == [tags[2]])
        #expect(try Self.ids(store, "Folder", "ANY notes.title == 'a'").count == 1)
        // Two to-manys in one path read as nested collections in memory (no flattening): the
        // store refuses it, and the SUBQUERY says what is meant.
        #expect { try store.count(EntityQuery("Note", where: "ANY tags.notes.title == 'c'")) } throws: {
            ($0 as? StoreError)?.kind == .unsupported && ($0 as? StoreError)?.hint?.contains("SUBQUERY") == true
        }
        // fetchProperties and grouping take @count over it too.
        let rows = try store.fetchProperties(["title", "tags.@count"], EntityQuery("Note", sort: [SortRule("title")]))
        #expect(rows.map { $0["tags.@count"] } == [1, 2, 1, 0])
        let groups = try store.fetch(GroupQuery("Note", groupBy: ["folder.name"], select: ["n": "sum:(tags.@sum.weight)"]))
        #expect(groups.count == 2)
    }

    @Test func linkUnlinkAndUpdate() throws {
        let (store, notes, tags) = try Self.notes()
        #expect(try store.link("Note", id: notes[3], "tags", to: [tags[2], tags[2], tags[0]]) == 2)
        #expect(try store.link("Note", id: notes[3], "tags", to: [tags[0]]) == 0)
        #expect(try Self.ids(store, "Note", "tags.@count == 2") == [notes[1], notes[3]])
        #expect(try store.unlink("Note", id: notes[3], "tags", from: [tags[0], tags[1]]) == 1)
        // From the other side: the same join rows.
        #expect(try store.link("Tag", id: tags[1], "notes", to: [notes[0]]) == 1)
        #expect(try Self.ids(store, "Tag", "ANY notes.title == 'a'") == [tags[0], tags[1]])
        // An update's array is the whole set of links.
        try store.update("Note", id: notes[0], ["tags": [.int(tags[2])], "title": "a2"])
        #expect(try Self.ids(store, "Note", "ANY tags.name == 'idle'") == [notes[0], notes[3]])
        try store.update("Note", id: notes[0], ["tags": .null])
        #expect(try Self.ids(store, "Note", "tags.@count == 0") == [notes[0]])
    }

    @Test func asyncLinks() async throws {
        let (store, notes, tags) = try Self.notes()
        let server = AsyncPredicateStore(store)
        #expect(try await server.link("Note", id: notes[3], "tags", to: [tags[2]]) == 1)
        #expect(try await server.unlink("Note", id: notes[0], "tags", from: [tags[0]]) == 1)
        #expect(try await server.count(EntityQuery("Note", where: "tags.@count == 0")) == 1)
    }

    @Test func linksToNothingAreRefusedAndWriteNothing() throws {
        let (store, notes, tags) = try Self.notes()
        let before = try store.count(EntityQuery("Note"))
        let isLinkError = { (e: any Error) in
            guard let e = e as? StoreError else { return false }
            return e.kind == .constraint && e.message.contains("Note.tags would link to no Tag: none has key 99") && e.hint != nil
        }
        #expect { try store.insert("Note", ["title": "x", "tags": [.int(tags[0]), .int(99)]]) } throws: { isLinkError($0) }
        #expect(try store.count(EntityQuery("Note")) == before)
        #expect { try store.link("Note", id: notes[2], "tags", to: [tags[0], 99]) } throws: { isLinkError($0) }
        #expect { try store.update("Note", id: notes[2], ["tags": [.int(99)]]) } throws: { isLinkError($0) }
        #expect(try Self.ids(store, "Note", "ANY tags.name == 'urgent'") == [notes[0], notes[1]])
        #expect(try Self.ids(store, "Note", "tags.@count == 1").contains(notes[2]))
        #expect { try store.link("Note", id: 99, "tags", to: [tags[0]]) } throws: { ($0 as? StoreError)?.kind == .invalidValue }
        #expect { try store.link("Note", id: notes[0], "folder", to: [1]) } throws: { ($0 as? StoreError)?.message.contains("not a many-to-many") == true }
        #expect { try store.insert("Note", ["tags": "urgent"]) } throws: { ($0 as? StoreError)?.kind == .invalidValue }
        #expect { _ = try store.batchUpdate(EntityQuery("Note"), set: ["tags": [1]]) } throws: { ($0 as? StoreError)?.kind == .invalidValue }
    }

    @Test("delete rules over a join table", arguments: [ModelRelationship.DeleteRule.nullify, .cascade, .deny])
    func deleteRules(_ rule: ModelRelationship.DeleteRule) throws {
        let model = try StoreModel([
            ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                        relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes", deleteRule: rule)]),
            ModelEntity("Tag", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags")]),
        ])
        let store = try PredicateStore.inMemory(model)
        let tags = try store.insert("Tag", [["name": "urgent"], ["name": "later"]])
        let notes = try store.insert("Note", [["title": "a", "tags": [.int(tags[0])]], ["title": "b", "tags": [.int(tags[0]), .int(tags[1])]], ["title": "c"]])
        switch rule {
        case .deny:
            #expect { try store.delete("Note", id: notes[1]) } throws: { ($0 as? StoreError)?.kind == .constraint }
            #expect(try store.count(EntityQuery("Note")) == 3)
            #expect(try store.batchDelete(EntityQuery("Note", where: "tags.@count == 0")) == 1)
        case .cascade:
            try store.delete("Note", id: notes[1])
            #expect(try store.count(EntityQuery("Tag")) == 0)
            // The tags' other links went with them: note a has none left.
            #expect(try Self.ids(store, "Note", "tags.@count == 0") == [notes[0], notes[2]])
        default:
            #expect(try store.batchDelete(EntityQuery("Note", where: "title IN {'a', 'b'}")) == 2)
            #expect(try store.count(EntityQuery("Tag")) == 2)
            #expect(try store.count(EntityQuery("Tag", where: "notes.@count > 0")) == 0)
            // No join row names a deleted note: a new note does not inherit its links.
            let fresh = try store.insert("Note", ["title": "new"])
            #expect(try Self.ids(store, "Note", "tags.@count > 0").contains(fresh) == false)
        }
        // Deleting a tag (nullify from its side) removes only its links.
        if rule != .cascade {
            try store.delete("Tag", id: tags[1])
            #expect(try store.count(EntityQuery("Tag", where: "ANY notes.title == 'b'")) == (rule == .deny ? 1 : 0))
        }
    }

    /// ANY probes the join table by the element's key, @count by the owner's: from Note the
    /// index on (tags, notes) and the primary key (notes, tags), from Tag the other way round.
    /// No side scans the join table.
    @Test func indexesServeAnyAndCountFromBothSides() throws {
        let (store, _, _) = try Self.notes()
        for (entity, predicate) in [("Note", "ANY tags.name == 'urgent' OR tags.@count > 1"), ("Tag", "ANY notes.title == 'a' OR notes.@count > 1")] {
            let plan = try store.queryPlan(for: EntityQuery(entity, where: predicate)).joined(separator: "\n")
            #expect(plan.contains("USING PRIMARY KEY (notes=?)"), "\(plan)")
            #expect(plan.contains("USING COVERING INDEX Note_tags_tags_notes_index (tags=?)"), "\(plan)")
            // The only scans are of the outer table and of the elements' table (no index on name or title).
            #expect(plan.split(separator: "\n").filter { $0.contains("SCAN") }.count == 2, "\(plan)")
        }
    }

    /// A pair added to a store's model gets its join table when the store opens; a join table
    /// renamed would lose the links, so it is refused without a migration step.
    @Test func migrations() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-m2m-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("notes.sqlite").path
        let plain = [ModelEntity("Note", attributes: [ModelAttribute("title", .string)]), ModelEntity("Tag", attributes: [ModelAttribute("name", .string)])]
        func paired(_ joinTable: String? = nil) throws -> StoreModel {
            var entities = plain
            entities[0].relationships = [ModelRelationship("tags", toMany: "Tag", inverse: "notes", joinTable: joinTable)]
            entities[1].relationships = [ModelRelationship("notes", toMany: "Note", inverse: "tags")]
            return try StoreModel(entities)
        }
        do {
            let store = try PredicateStore(path: path, model: try StoreModel(plain))
            try store.insert("Note", ["title": "a"])
            try store.insert("Tag", ["name": "urgent"])
        }
        do {
            let store = try PredicateStore(path: path, model: try paired())
            #expect(try store.link("Note", id: 1, "tags", to: [1]) == 1)
        }
        #expect { try PredicateStore(path: path, model: try paired("links")) } throws: {
            ($0 as? StoreError)?.hint?.contains("joinTable 'Note_tags'") == true || ($0 as? StoreError)?.message.contains("Note_tags") == true
        }
        let store = try PredicateStore(path: path, model: try paired("Note_tags"))
        #expect(try store.count(EntityQuery("Tag", where: "ANY notes.title == 'a'")) == 1)
    }

    /// As Xcode writes a many-to-many: both sides `toMany="YES"`, each the other's inverse.
    @Test func xcodeAndJSONModels() throws {
        let xcode = try ModelLoaderTests.xcode(ModelLoaderTests.document("""
            <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/>
            </entity>
            """)).get()
        let json = try StoreModel(json: Data(#"""
            {"entities": [
              {"name": "Note", "attributes": [{"name": "title", "type": "string"}],
               "relationships": [{"name": "tags", "destination": "Tag", "toMany": true, "inverse": "notes",
                                  "joinTable": "note_tag", "joinColumn": "note_id", "inverseJoinColumn": "tag_id"}]},
              {"name": "Tag", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "notes", "destination": "Note", "toMany": true, "inverse": "tags"}]}]}
            """#.utf8))
        let fromXcode = try #require(try xcode.entity(named: "Tag").relationships.first)
        #expect(fromXcode.isManyToMany && fromXcode.joinTable == "Note_tags" && fromXcode.joinColumn == "tags")
        // Names given on one side are the other side's, swapped.
        let fromJSON = try #require(try json.entity(named: "Tag").relationships.first)
        #expect(fromJSON.joinTable == "note_tag" && fromJSON.joinColumn == "tag_id" && fromJSON.inverseJoinColumn == "note_id")
        for model in [xcode, json] {
            let store = try PredicateStore.inMemory(model)
            let t = try store.insert("Tag", ["name": "urgent"])
            try store.insert("Note", [["title": "a", "tags": [.int(t)]], ["title": "b"]])
            #expect(try store.count(EntityQuery("Tag", where: "ANY notes.title == 'a'")) == 1)
            #expect(try store.count(EntityQuery("Note", where: "tags.@count == 0")) == 1)
        }
    }

    @Test func recordsCarryLinksAsArraysOfKeys() throws {
        struct Note: Codable, Equatable {
            var title: String
            var tags: [Int64]
        }
        let (store, _, tags) = try Self.notes()
        let b = try store.fetch(EntityQuery("Note", where: "title IN {'b', 'd'}", sort: [SortRule("title")]), as: Note.self)
        #expect(b == [Note(title: "b", tags: [tags[0], tags[1]]), Note(title: "d", tags: [])])
        let id = try store.insert("Note", encoding: Note(title: "e", tags: [tags[2], tags[0]]))
        #expect(try store.fetch(EntityQuery("Note", where: "title == 'e'"), as: Note.self) == [Note(title: "e", tags: [tags[0], tags[2]])])
        #expect(try Self.ids(store, "Tag", "ANY notes.title == 'e'") == [tags[0], tags[2]])
        _ = id
    }

    @Test func modelsThatCannotBeManyToMany() throws {
        let tag = ModelEntity("Tag", relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags")])
        // Its own inverse: both keys would share one column.
        #expect { try StoreModel([ModelEntity("P", relationships: [ModelRelationship("friends", toMany: "P", inverse: "friends")])]) } throws: {
            ($0 as? StoreError)?.hint?.contains("cannot be its own inverse") == true
        }
        // The two sides disagree on the join table.
        #expect(throws: StoreError.self) {
            try StoreModel([ModelEntity("Note", relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes", joinTable: "x")]),
                            ModelEntity("Tag", relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags", joinTable: "y")])])
        }
        // A join table named like an entity's table.
        #expect(throws: StoreError.self) {
            try StoreModel([ModelEntity("Note", relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes", joinTable: "tag")]), tag])
        }
        // A join table on a to-many whose inverse is a to-one.
        #expect(throws: StoreError.self) {
            try StoreModel([ModelEntity("Note", relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "note", joinTable: "j")]),
                            ModelEntity("Tag", relationships: [ModelRelationship("note", to: "Note", inverse: "tags")])])
        }
    }
}

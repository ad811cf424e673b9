import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Many-to-many relationships on PostgreSQL, as on SQLite (`ManyToManyTests`): join tables of
/// a schema PQL did not create read as pairs; declared pairs get a join table with both
/// indexes; predicates, links, unlinks, delete rules and records work alike.
@Suite struct PostgresManyToManyTests {
    static let acceptance = [
        "CREATE TABLE $SCHEMA.folder(id integer PRIMARY KEY, name text)",
        "INSERT INTO $SCHEMA.folder VALUES (1, 'Work'), (2, 'Home')",
        "CREATE TABLE $SCHEMA.note(id integer PRIMARY KEY, title text, folder_id integer REFERENCES $SCHEMA.folder(id))",
        "INSERT INTO $SCHEMA.note VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', NULL)",
        "CREATE TABLE $SCHEMA.tag(id integer PRIMARY KEY, name text)",
        "INSERT INTO $SCHEMA.tag VALUES (1, 'urgent'), (2, 'later')",
        "CREATE TABLE $SCHEMA.note_tag(note_id integer NOT NULL REFERENCES $SCHEMA.note(id), tag_id integer NOT NULL REFERENCES $SCHEMA.tag(id), PRIMARY KEY (note_id, tag_id))",
        "INSERT INTO $SCHEMA.note_tag VALUES (1, 1), (2, 1), (2, 2), (3, 2)",
    ]

    @Test func joinTableOfASchemaIsAManyToManyPair() async throws {
        try await TestServer.withStore(setup: Self.acceptance) { store, _ in
            #expect(store.model.entities.map(\.name).sorted() == ["folder", "note", "tag"])
            let tags = try #require(try store.model.entity(named: "note").relationships.first { $0.name == "tag" })
            #expect(tags.joinTable == "note_tag" && tags.joinColumn == "note_id" && tags.inverseJoinColumn == "tag_id" && tags.deleteRule == .deny)
            #expect(try await store.count(EntityQuery("note", where: "ANY tag.name == 'urgent'")) == 2)
            #expect(try await store.count(EntityQuery("note", where: "tag.@count == 0")) == 1)
            #expect(try await store.count(EntityQuery("tag", where: "ANY note.title == 'b'")) == 2)
            #expect(store.skippedTables["note_tag"] == nil)
            // Links through the inferred table, checked; the deny rule of NO ACTION.
            #expect(try await store.link("note", id: 4, "tag", to: [1]) == 1)
            await #expect { try await store.link("note", id: 4, "tag", to: [9]) } throws: { ($0 as? StoreError)?.kind == .constraint }
            await #expect { try await store.delete("note", id: 4) } throws: { ($0 as? StoreError)?.kind == .constraint }
            #expect(try await store.unlink("note", id: 4, "tag", from: [1]) == 1)
            try await store.delete("note", id: 4)
        }
    }

    /// A join table with a key of its own but no default for it: PQL reads its links, and a new
    /// link is refused with the reason and the fix (the server would not say which value to give).
    @Test func aJoinTableWhoseOwnKeyHasNoDefault() async throws {
        try await TestServer.withStore(setup: [
            "CREATE TABLE $SCHEMA.a(id integer PRIMARY KEY, n text)", "CREATE TABLE $SCHEMA.b(id integer PRIMARY KEY, m text)",
            "CREATE TABLE $SCHEMA.ab(id integer PRIMARY KEY, a_id integer NOT NULL REFERENCES $SCHEMA.a(id), b_id integer NOT NULL REFERENCES $SCHEMA.b(id))",
            "INSERT INTO $SCHEMA.a VALUES (1, 'x'), (2, 'y')", "INSERT INTO $SCHEMA.b VALUES (1, 'p')", "INSERT INTO $SCHEMA.ab VALUES (1, 1, 1)",
        ]) { (store: PostgresPredicateStore, _: String) async throws -> Void in
            #expect(try await store.count(EntityQuery("a", where: "ANY b.m == 'p'")) == 1)
            await #expect { try await store.link("a", id: 2, "b", to: [1]) } throws: { error in
                guard let e = error as? StoreError else { return false }
                return e.kind == .constraint && e.message.contains("ab") && e.hint?.contains("IDENTITY") == true
            }
            #expect(try await store.count(EntityQuery("a", where: "b.@count == 1")) == 1)
        }
    }

    /// The acceptance through the `pql` binary on a database of its own (schema `public`).
    @Test func commandLineCounts() async throws {
        try await ScratchDatabase.with { url in
            let admin = try await PostgresPredicateStore(url: url, model: try StoreModel([]))
            for sql in Self.acceptance { try await admin.execute(sql.replacingOccurrences(of: "$SCHEMA.", with: "public.")) }
            await admin.close()
            for (entity, predicate, count) in [("note", "folder == 1", "2"), ("note", "folder IN {1, 2}", "3"), ("note", "folder != 1", "2"),
                                               ("note", "SELF IN {1, 3}", "2"), ("note", "ANY tag.name == 'urgent'", "2"),
                                               ("note", "tag.@count == 0", "1"), ("tag", "ANY note.title == 'b'", "2"),
                                               ("note", "ANY tag == 1", "2"), ("note", "2 IN tag", "2"), ("note", "NONE tag == 1", "2")] {
                let r = try CommandLineProcess.run(["query", url, "--entity", entity, "--where", predicate, "--count"])
                #expect(r.status == 0, "\(predicate): \(r.stderr)")
                #expect(r.stdout == count + "\n", "\(predicate)")
            }
        }
    }

    static let model = try! StoreModel([
        ModelEntity("Folder", attributes: [ModelAttribute("name", .string)],
                    relationships: [ModelRelationship("notes", toMany: "Note", inverse: "folder")]),
        ModelEntity("Note", attributes: [ModelAttribute("title", .string)],
                    relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "notes", deleteRule: .cascade),
                                    ModelRelationship("folder", to: "Folder", inverse: "notes")]),
        ModelEntity("Tag", attributes: [ModelAttribute("name", .string), ModelAttribute("weight", .integer64)],
                    relationships: [ModelRelationship("notes", toMany: "Note", inverse: "tags")]),
    ], names: .postgreSQL)

    /// The SQLite suite's notes: a [urgent], b [urgent, later], c [later], d []; a and b in Work.
    static func withNotes(_ body: (PostgresPredicateStore, String, [Int64], [Int64]) async throws -> Void) async throws {
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            let work = try await store.insert("Folder", ["name": "Work"])
            let tags = try await store.insert("Tag", [["name": "urgent", "weight": 5], ["name": "later", "weight": 1], ["name": "idle", "weight": 9]])
            let notes = try await store.insert("Note", [
                ["title": "a", "tags": [.int(tags[0])], "folder": .int(work)],
                ["title": "b", "tags": [.int(tags[0]), .int(tags[1])], "folder": .int(work)],
                ["title": "c", "tags": [.int(tags[1])]],
                ["title": "d"],
            ])
            try await body(store, schema, notes, tags)
        }
    }

    @Test func everyFormReadsTheJoinTable() async throws {
        let cases: [(String, [Int])] = [
            ("ANY tags.name == 'urgent'", [0, 1]), ("ALL tags.name == 'urgent'", [0, 3]), ("NONE tags.name == 'urgent'", [2, 3]),
            ("tags.@count == 2", [1]), ("tags.@count == 0", [3]), ("tags.@sum.weight == 6", [1]), ("tags.@avg.weight == 3", [1]),
            ("tags.@min.weight == 1", [1, 2]), ("tags.@max.weight == 5", [0, 1]),
            ("SUBQUERY(tags, $t, $t.weight > 2).@count == 1", [0, 1]),
            ("SUBQUERY(tags, $t, ANY $t.notes.title == 'c').@count > 0", [1, 2]),
            ("'later' IN tags.name", [1, 2]), ("ANY tags.name IN {'later', 'idle'}", [1, 2]),
        ]
        try await Self.withNotes { store, _, notes, tags in
            for (format, expected) in cases {
                #expect(try await store.fetchIDs(EntityQuery("Note", where: format)).sorted() == expected.map { notes[$0] }, "\(format)")
            }
            #expect(try await store.fetchIDs(EntityQuery("Tag", where: "ANY notes.folder.name == 'Work'")).sorted() == [tags[0], tags[1]])
            // Properties and grouped aggregates go through the same compiler.
            let rows = try await store.fetchProperties(["title", "tags.@count"], EntityQuery("Note", sort: [SortRule("title")]))
            #expect(rows.map { $0["tags.@count"] } == [1, 2, 1, 0])
            let groups = try await store.fetch(GroupQuery("Note", groupBy: ["folder.name"], select: ["n": "sum:(tags.@count)"],
                                                          sort: [SortRule("n")]))
            #expect(groups.map { $0["n"] } == [1, 3])
            // Records carry the links as arrays of keys, as inserts take them.
            let b = try #require(try await store.fetch(EntityQuery("Note", where: "title == 'b'"), as: NoteRecord.self).first)
            #expect(b.tags == [tags[0], tags[1]])
            let d = try #require(try await store.fetch(EntityQuery("Note", where: "title == 'd'"), as: NoteRecord.self).first)
            #expect(d.tags == [])
        }
    }

    struct NoteRecord: Codable, Equatable {
        var title: String
        var tags: [Int64]
    }

    @Test func linksUpdatesAndDeleteRules() async throws {
        try await Self.withNotes { store, _, notes, tags in
            #expect(try await store.link("Note", id: notes[3], "tags", to: [tags[2], tags[0]]) == 2)
            #expect(try await store.link("Tag", id: tags[1], "notes", to: [notes[3]]) == 1)
            #expect(try await store.unlink("Note", id: notes[3], "tags", from: [tags[0]]) == 1)
            #expect(try await store.fetchIDs(EntityQuery("Note", where: "tags.@count == 2")).sorted() == [notes[1], notes[3]])
            await #expect { try await store.insert("Note", ["title": "x", "tags": [.int(99)]]) } throws: {
                ($0 as? StoreError)?.message.contains("Note.tags would link to no Tag: none has key 99") == true
            }
            #expect(try await store.count(EntityQuery("Note")) == 4)
            try await store.update("Note", id: notes[2], ["tags": [.int(tags[2])]])
            #expect(try await store.fetchIDs(EntityQuery("Note", where: "ANY tags.name == 'idle'")).sorted() == [notes[2], notes[3]])
            // Note.tags cascades: deleting b deletes urgent and later, and their links with a and d.
            try await store.delete("Note", id: notes[1])
            #expect(try await store.fetchIDs(EntityQuery("Tag")).sorted() == [tags[2]])
            #expect(try await store.fetchIDs(EntityQuery("Note", where: "tags.@count == 0")).sorted() == [notes[0]])
            // Tag.notes nullifies: deleting idle leaves c and d without tags.
            #expect(try await store.batchDelete(EntityQuery("Tag")) == 1)
            #expect(try await store.count(EntityQuery("Note", where: "tags.@count == 0")) == 3)
        }
    }

    /// The join table's primary key serves ANY and @count from the first side, the index on the
    /// pair reversed from the other.
    @Test func indexesServeBothSides() async throws {
        try await Self.withNotes { store, schema, _, _ in
            let s = quote(schema)
            try await store.execute("INSERT INTO \(s).\"Tag\" (\"name\", \"weight\") SELECT 't' || g, g FROM generate_series(1, 2000) g")
            try await store.execute("INSERT INTO \(s).\"Note\" (\"title\") SELECT 'n' || g FROM generate_series(1, 2000) g")
            try await store.execute("INSERT INTO \(s).\"Note_tags\" SELECT n.\"Z_PK\", t.\"Z_PK\" FROM \(s).\"Note\" n JOIN \(s).\"Tag\" t ON t.\"Z_PK\" % 50 = n.\"Z_PK\" % 50 WHERE n.\"Z_PK\" % 7 = 0")
            for t in ["Note", "Tag", "Note_tags"] { try await store.execute("ANALYZE \(s).\"\(t)\"") }
            let fromNote = try await store.explain(try EntityQuery("Note", where: "tags.@count > 1")).joined(separator: "\n")
            #expect(fromNote.contains("Note_tags_pkey"), "\(fromNote)")
            let fromTag = try await store.explain(try EntityQuery("Tag", where: "notes.@count > 1")).joined(separator: "\n")
            #expect(fromTag.contains("Note_tags_tags_notes_index"), "\(fromTag)")
        }
    }
}

import Foundation
import PQL
@testable import PQLStore
import Testing

/// Opening a store with another version of its model: lightweight changes migrate in one
/// transaction with the data intact, the others are refused naming each difference (unless a
/// migration step moves the data), a read-only store never migrates.
@Suite("schema migration")
struct SchemaMigrationTests {
    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("app.sqlite").path)
    }

    static let v1: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Person", attributes: [
                    ModelAttribute("name", .string, isOptional: false),
                    ModelAttribute("age", .integer64),
                    ModelAttribute("nick", .string, isIndexed: true),
                ]),
                ModelEntity("Note", attributes: [ModelAttribute("text", .string)]),
            ])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    /// A v1 store at `path` holding Ann (40, "annie") and Bob (no age, no nick), and no notes.
    static func makeV1(_ path: String) throws {
        let store = try PredicateStore(path: path, model: v1)
        #expect(store.modelVersion == 1)
        try store.insert("Person", [["name": "Ann", "age": 40, "nick": "annie"], ["name": "Bob"]])
    }

    static func names(_ store: PredicateStore, _ entity: String = "Person") throws -> [String] {
        try store.fetch(EntityQuery(entity, sort: [SortRule("name")])).map { if case .string(let s) = $0["name"] { s } else { "?" } }
    }

    static func person(_ v1: StoreModel, _ change: (inout ModelEntity) -> Void) throws -> StoreModel {
        var p = try v1.entity(named: "Person")
        change(&p)
        return try StoreModel(v1.entities.map { $0.name == "Person" ? p : $0 })
    }

    @Test func lightweightAdditionsKeepTheData() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        var person = try Self.v1.entity(named: "Person")
        person.attributes += [
            ModelAttribute("email", .string),
            ModelAttribute("score", .integer64, isOptional: false, defaultValue: .int(7)),
            ModelAttribute("joined", .date, isIndexed: true),
        ]
        person.relationships = [ModelRelationship("pets", toMany: "Pet", inverse: "owner")]
        person.uniqueness = [["name"]]
        let v2 = try StoreModel([
            person, try Self.v1.entity(named: "Note"),
            ModelEntity("Pet", attributes: [ModelAttribute("name", .string)], relationships: [ModelRelationship("owner", to: "Person", inverse: "pets")]),
        ])
        let store = try PredicateStore(path: path, model: v2)
        #expect(store.modelVersion == 2)
        #expect(try Self.names(store) == ["Ann", "Bob"])
        let ann = try #require(try store.fetch(EntityQuery("Person", where: "name == 'Ann'")).first)
        #expect(ann["age"] == .int(40) && ann["nick"] == .string("annie"))
        #expect(ann["score"] == .int(7) && ann["email"] == .null)
        try store.insert("Pet", ["name": "Rex", "owner": .int(ann.id)])
        #expect(try store.count(EntityQuery("Person", where: "ANY pets.name == 'Rex'")) == 1)
        #expect(try store.count(EntityQuery("Person", where: "email == nil AND score == 7")) == 2)
        // The uniqueness constraint added is enforced.
        #expect(throws: StoreError.self) { try store.insert("Person", ["name": "Ann"]) }
        // Reopening with the same model is not a migration.
        let again = try PredicateStore(path: path, model: v2)
        #expect(again.modelVersion == 2)
        let reopened = try PredicateStore(path: path)
        #expect(reopened.model == v2 && reopened.modelVersion == 2)
    }

    @Test func renamingByIdentifierKeepsTheValues() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let v2 = try StoreModel([
            ModelEntity("Member", attributes: [
                ModelAttribute("name", .string, isOptional: false),
                ModelAttribute("years", .integer64, renamingIdentifier: "age"),
                ModelAttribute("nickname", .string, isIndexed: true, renamingIdentifier: "nick"),
            ], renamingIdentifier: "Person"),
            ModelEntity("Note", attributes: [ModelAttribute("text", .string)]),
        ])
        #expect(ModelDiff(from: Self.v1, to: v2).changes.map(\.description) == [
            "entity Member: renamed Person → Member",
            "attribute Member.years: renamed age → years",
            "attribute Member.nickname: renamed nick → nickname",
        ])
        let store = try PredicateStore(path: path, model: v2)
        #expect(try store.count(EntityQuery("Member", where: "years == 40 AND nickname == 'annie'")) == 1)
        #expect(try Self.names(store, "Member") == ["Ann", "Bob"])
        #expect(try store.queryPlan(for: EntityQuery("Member", where: "nickname == 'x'")).joined().contains("INDEX"))
        // The same model again (its renaming identifiers now naming nothing) changes nothing.
        #expect(try PredicateStore(path: path, model: v2).modelVersion == 2)
    }

    @Test func aRenamedRelationshipKeepsItsLinks() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        func model(_ link: ModelRelationship) throws -> StoreModel {
            try StoreModel([
                ModelEntity("Author", attributes: [ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("books", toMany: "Book", inverse: link.name)]),
                ModelEntity("Book", attributes: [ModelAttribute("title", .string)], relationships: [link]),
            ])
        }
        do {
            let store = try PredicateStore(path: path, model: try model(ModelRelationship("author", to: "Author", inverse: "books")))
            let austen = try store.insert("Author", ["name": "Austen"])
            try store.insert("Book", ["title": "Emma", "author": .int(austen)])
        }
        var writer = ModelRelationship("writer", to: "Author", inverse: "books")
        writer.renamingIdentifier = "author"
        let store = try PredicateStore(path: path, model: try model(writer))
        #expect(try store.count(EntityQuery("Book", where: "writer.name == 'Austen'")) == 1)
        #expect(try store.count(EntityQuery("Author", where: "ANY books.title == 'Emma'")) == 1)
        let indexes = try SQLiteConnection(path: path).prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Book'")
        var names: [String] = []
        while try indexes.step() { names.append(indexes.text(0)) }
        #expect(names == ["Book_writer_fk"])
    }

    @Test func indexesComeAndGoWithTheModel() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let v2 = try Self.person(Self.v1) {
            $0.attributes[2].isIndexed = false
            $0.attributes[1].isIndexed = true
            $0.indexes = [["name", "age"]]
        }
        let store = try PredicateStore(path: path, model: v2)
        #expect(ModelDiff(from: Self.v1, to: v2).changes.allSatisfy { $0.migration == .lightweight })
        let s = try SQLiteConnection(path: path).prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Person' ORDER BY name")
        var names: [String] = []
        while try s.step() { names.append(s.text(0)) }
        #expect(names == ["Person_age_index", "Person_name_age_index"])
        #expect(try store.count(EntityQuery("Person", where: "nick == 'annie' AND age == 40")) == 1)
    }

    @Test func droppingWhatHoldsNoDataAndIndexes() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store1 = try PredicateStore(path: path, model: Self.v1)
        try store1.insert("Person", ["name": "Ann", "age": 40])
        // nick holds no value, Note no object, and nick's index goes with it.
        let v2 = try StoreModel([ModelEntity("Person", attributes: [
            ModelAttribute("name", .string, isOptional: false), ModelAttribute("age", .integer64, isIndexed: true),
        ])])
        let store = try PredicateStore(path: path, model: v2)
        #expect(try Self.names(store) == ["Ann"])
        #expect(try store.count(EntityQuery("Person", where: "age == 40")) == 1)
        #expect(try store.queryPlan(for: EntityQuery("Person", where: "age == 40")).joined().contains("Person_age_index"))
        let raw = try PredicateStore(path: path, readOnly: true).inferModel()
        #expect(raw.entities.map(\.name).sorted() == ["Person"])
        let columns = try raw.entity(named: "Person").attributes.map(\.name).sorted()
        #expect(columns == ["Z_PK", "age", "name"])
    }

    @Test func changesThatNeedAStepAreRefusedEachNamed() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store1 = try PredicateStore(path: path, model: Self.v1)
        try store1.insert("Person", ["name": "Ann", "age": 40, "nick": "annie"])
        try store1.insert("Note", ["text": "hello"])
        let v2 = try StoreModel([ModelEntity("Person", attributes: [
            ModelAttribute("name", .string, isOptional: false),
            ModelAttribute("age", .string),
            ModelAttribute("city", .string, isOptional: false),
        ])])
        let error = try #require(throws: StoreError.self) { try PredicateStore(path: path, model: v2) }
        #expect(error.kind == .modelMismatch)
        #expect(error.modelChanges.map(\.description) == [
            "attribute Person.age: type integer64 → string",
            "attribute Person.city: added (string, required; 1 object holds no value for it)",
            "attribute Person.nick: removed (string; 1 object holds a value)",
            "entity Note: removed (1 object holds data)",
        ])
        for c in error.modelChanges { #expect(error.message.contains(c.description)) }
        #expect(error.hint?.contains("migration step") == true)
        // Nothing changed: the v1 store opens as it was.
        let again = try PredicateStore(path: path, model: Self.v1)
        #expect(again.modelVersion == 1)
        #expect(try again.count(EntityQuery("Note")) == 1)
        #expect(try again.count(EntityQuery("Person", where: "nick == 'annie' AND age == 40")) == 1)
    }

    @Test func makingAnAttributeRequiredWithoutADefaultIsRefused() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let v2 = try Self.person(Self.v1) { $0.attributes[1].isOptional = false }
        let error = try #require(throws: StoreError.self) { try PredicateStore(path: path, model: v2) }
        #expect(error.modelChanges.map(\.description) == ["attribute Person.age: made required without a default"])
        // With a default, nil values take it.
        var withDefault = try Self.v1.entity(named: "Person")
        withDefault.attributes[1] = ModelAttribute("age", .integer64, isOptional: false, defaultValue: .int(18))
        let store = try PredicateStore(path: path, model: try StoreModel([withDefault, try Self.v1.entity(named: "Note")]))
        #expect(try store.count(EntityQuery("Person", where: "age == 18")) == 1)
        #expect(try store.count(EntityQuery("Person", where: "age == 40")) == 1)
    }

    @Test func makingARequiredAttributeOptionalRebuildsItsTable() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let v2 = try Self.person(Self.v1) { $0.attributes[0].isOptional = true }
        let store = try PredicateStore(path: path, model: v2)
        try store.insert("Person", ["age": 3])
        #expect(try store.count(EntityQuery("Person", where: "name == nil")) == 1)
        #expect(try Self.names(try PredicateStore(path: path)).sorted() == ["?", "Ann", "Bob"])
        #expect(try store.queryPlan(for: EntityQuery("Person", where: "nick == 'x'")).joined().contains("Person_nick_index"))
    }

    @Test func aMigrationStepMovesTheData() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        // age becomes text, nick goes (its values moving into name), Note goes with its data.
        let v2 = try StoreModel([ModelEntity("Person", attributes: [
            ModelAttribute("name", .string, isOptional: false), ModelAttribute("age", .string),
        ])])
        var seen: [String] = []
        let store = try PredicateStore(path: path, model: v2) { (migration) throws(StoreError) in
            seen = migration.diff.changes.map(\.description)
            #expect(migration.fromVersion == 1)
            try migration.execute("UPDATE Person SET name = name || ' (' || nick || ')' WHERE nick IS NOT NULL")
            try migration.execute("UPDATE Person SET age = ?1 || CAST(age AS TEXT) WHERE age IS NOT NULL", [.text("age ")])
            #expect(try migration.rows("SELECT count(*) FROM Person") == [[.integer(2)]])
        }
        #expect(seen.contains("attribute Person.age: type integer64 → string"))
        #expect(store.modelVersion == 2)
        #expect(try Self.names(store) == ["Ann (annie)", "Bob"])
        #expect(try store.count(EntityQuery("Person", where: "age == 'age 40'")) == 1)
        // The rebuilt column has the new type's affinity: text stays text.
        try store.insert("Person", ["name": "Cy", "age": "7"])
        #expect(try store.count(EntityQuery("Person", where: "age == '7'")) == 1)
    }

    @Test func aFailingMigrationStepLeavesTheStoreAsItWas() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let v2 = try Self.person(Self.v1) { $0.attributes[1].type = .string }
        let error = try #require(throws: StoreError.self) {
            try PredicateStore(path: path, model: v2) { (_) throws(StoreError) in throw StoreError(.invalidValue, "cannot convert") }
        }
        #expect(error.message == "cannot convert")
        let again = try PredicateStore(path: path)
        #expect(again.model == Self.v1 && again.modelVersion == 1)
    }

    @Test func aReadOnlyStoreNeverMigrates() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let v2 = try Self.person(Self.v1) { $0.attributes.append(ModelAttribute("email", .string)) }
        let error = try #require(throws: StoreError.self) { try PredicateStore(path: path, model: v2, readOnly: true) }
        #expect(error.kind == .modelMismatch)
        #expect(error.message.contains("read-only"))
        #expect(error.modelChanges.map(\.description) == ["attribute Person.email: added (string)"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        // The saved model itself opens read-only.
        #expect(try PredicateStore(path: path, model: Self.v1, readOnly: true).modelVersion == 1)
    }

    @Test func entityNumbersFollowTheirEntitiesWhenTheModelGrows() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let animal = ModelEntity("Animal", attributes: [ModelAttribute("name", .string)])
        let dog = ModelEntity("Dog", attributes: [ModelAttribute("barks", .boolean)], parent: "Animal")
        do {
            let store = try PredicateStore(path: path, model: try StoreModel([animal]))
            try store.insert("Animal", ["name": "Generic"])
        }
        // A sub-entity gives the table an entity column; old rows stay Animals.
        do {
            let store = try PredicateStore(path: path, model: try StoreModel([animal, dog]))
            try store.insert("Dog", ["name": "Rex", "barks": true])
            #expect(try store.fetch(EntityQuery("Animal", sort: [SortRule("name")])).map(\.entity) == ["Animal", "Dog"])
        }
        // An entity declared first moves every entity number; the rows keep their entities.
        let store = try PredicateStore(path: path, model: try StoreModel([ModelEntity("Zoo"), animal, dog]))
        #expect(try store.fetch(EntityQuery("Animal", sort: [SortRule("name")])).map(\.entity) == ["Animal", "Dog"])
        #expect(try store.count(EntityQuery("Dog", where: "barks == YES")) == 1)
        #expect(store.modelVersion == 3)
    }

    @Test func aRemovedSubEntitysObjectsAreNeverReadAsAnother() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let animal = ModelEntity("Animal", attributes: [ModelAttribute("name", .string)])
        let dog = ModelEntity("Dog", parent: "Animal"), cat = ModelEntity("Cat", parent: "Animal")
        do {
            let store = try PredicateStore(path: path, model: try StoreModel([animal, dog, cat]))
            try store.insert("Dog", ["name": "Rex"])
            try store.insert("Cat", ["name": "Tom"])
        }
        let v2 = try StoreModel([animal, cat])
        let error = try #require(throws: StoreError.self) { try PredicateStore(path: path, model: v2) }
        #expect(error.modelChanges.map(\.description) == ["entity Dog: removed (1 object holds data)"])
        // Cat's number moves to where Dog's was; with a step, Dog's objects go and Tom stays a Cat.
        let store = try PredicateStore(path: path, model: v2) { (_) throws(StoreError) in }
        #expect(try store.fetch(EntityQuery("Animal")).map(\.entity) == ["Cat"])
        #expect(try store.count(EntityQuery("Cat", where: "name == 'Tom'")) == 1)
    }

    @Test func addEntitiesMigratesAnEntityGivenAgain() throws {
        let store = try PredicateStore.inMemory(Self.v1)
        try store.insert("Note", ["text": "hello"])
        try store.addEntities([ModelEntity("Note", attributes: [ModelAttribute("text", .string), ModelAttribute("pinned", .boolean, defaultValue: .bool(false))])])
        #expect(try store.count(EntityQuery("Note", where: "pinned == NO AND text == 'hello'")) == 1)
        #expect(store.modelVersion == 2)
        let error = try #require(throws: StoreError.self) {
            try store.addEntities([ModelEntity("Note", attributes: [ModelAttribute("text", .binary)])])
        }
        #expect(error.kind == .modelMismatch)
        #expect(error.modelChanges.map(\.description) == [
            "attribute Note.text: type string → binary", "attribute Note.pinned: removed (boolean; 1 object holds a value)",
        ])
        #expect(store.modelVersion == 2)
        #expect(try store.count(EntityQuery("Note", where: "pinned == NO")) == 1)
    }

    @Test func renamingIdentifiersReadFromModelFiles() throws {
        let json = try StoreModel(json: Data(#"""
            {"entities": [{"name": "Member", "previousName": "Person", "attributes": [
                {"name": "years", "type": "integer64", "renamingIdentifier": "age"}]}]}
            """#.utf8))
        let member = try json.entity(named: "Member")
        #expect(member.renamingIdentifier == "Person" && member.attributes[0].renamingIdentifier == "age")
        #expect(try StoreModel(json: json.jsonData()) == json)
        let both = try #require(throws: StoreError.self) {
            try StoreModel(json: Data(#"{"entities": [{"name": "M", "renamingIdentifier": "A", "previousName": "B"}]}"#.utf8))
        }
        #expect(both.kind == .modelFile && both.message.contains("renamingIdentifier") && both.message.contains("previousName"), "\(both)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-migrate-\(UUID().uuidString)/M.xcdatamodel")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        try Data(#"""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Member" renamingIdentifier="Person" syncable="YES">
                    <attribute name="years" optional="YES" attributeType="Integer 64" renamingIdentifier="age" usesScalarValueType="YES"/>
                </entity>
            </model>
            """#.utf8).write(to: dir.appendingPathComponent("contents"))
        #expect(try StoreModel(xcdatamodel: dir) == json)
    }

    /// The README's example ("Using PQLStore as your app's database"), as written there.
    @Test func theReadmeExampleMigrates() throws {
        struct Person: Codable, Equatable {
            var name: String
            var nickname: String?
            var age: Int
            var employer: Int64?
        }
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let v1 = try StoreModel([
                ModelEntity("Person", attributes: [ModelAttribute("name", .string, isOptional: false), ModelAttribute("nick", .string), ModelAttribute("age", .string)]),
                ModelEntity("Company", attributes: [ModelAttribute("name", .string)]),
            ])
            let store = try PredicateStore(path: path, model: v1)
            try store.insert("Person", [["name": "Bob", "nick": "bobby", "age": "33"], ["name": "Cy"]])
        }
        let v2 = try StoreModel([
            ModelEntity("Company", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("staff", toMany: "Person", inverse: "employer")]),
            ModelEntity("Person", attributes: [
                ModelAttribute("name", .string, isOptional: false),
                ModelAttribute("nickname", .string, renamingIdentifier: "nick"),
                ModelAttribute("age", .integer64, isOptional: false, defaultValue: .int(0)),
            ], relationships: [ModelRelationship("employer", to: "Company", inverse: "staff")]),
        ])
        let store = try PredicateStore(path: path, model: v2) { (migration) throws(StoreError) in
            try migration.execute("UPDATE Person SET age = CAST(age AS INTEGER) WHERE age IS NOT NULL")
        }
        #expect(store.modelVersion == 2)
        let acme = try store.insert("Company", ["name": "Acme"])
        try store.insert("Person", encoding: Person(name: "Ann", nickname: nil, age: 40, employer: acme))
        #expect(try store.fetch(EntityQuery("Person", where: "employer.name == 'Acme'"), as: Person.self)
                == [Person(name: "Ann", nickname: nil, age: 40, employer: acme)])
        #expect(try store.fetch(EntityQuery("Person", where: "employer == nil", sort: [SortRule("name")]), as: Person.self) == [
            Person(name: "Bob", nickname: "bobby", age: 33, employer: nil), Person(name: "Cy", nickname: nil, age: 0, employer: nil),
        ])
        #expect(try store.count(EntityQuery("Person", where: "age > 30")) == 2)
    }

    @Test func importIntoAnExistingEntityAddsItsNewKeys() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeV1(path)
        let store = try PredicateStore(path: path)
        let n = try store.importFile(ImportSource(json: Data(#"[{"name": "Cy", "age": 30, "city": "Oslo", "height": 1.8}]"#.utf8)), into: "Person")
        #expect(n == 1)
        #expect(store.modelVersion == 2)
        #expect(try store.model.entity(named: "Person").attributes.map(\.name) == ["name", "age", "nick", "city", "height"])
        #expect(try store.count(EntityQuery("Person", where: "city == 'Oslo' AND height > 1.5")) == 1)
        #expect(try Self.names(store) == ["Ann", "Bob", "Cy"])
        #expect(try PredicateStore(path: path).model == store.model)
        // A key that differs from an attribute only in case is refused, naming both.
        let error = try #require(throws: StoreError.self) {
            try store.importFile(ImportSource(json: Data(#"[{"name": "Di", "City": "Rome"}]"#.utf8)), into: "Person")
        }
        #expect(error.message.contains("'City'") && error.message.contains("Person.city"))
        #expect(store.modelVersion == 2)
    }
}

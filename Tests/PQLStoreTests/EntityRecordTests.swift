import Foundation
import PQL
import PQLStore
import Testing

/// Record types declared once (issue 28): a Codable type gives its entity, and the store's
/// calls take the type.
@Suite struct EntityRecordTests {
    enum Priority: String, Codable, CaseIterable { case low, high }

    struct Folder: EntityRecord, Equatable {
        var id: Int64?
        var name: String
        static let relationships = [ModelRelationship("notes", toMany: "Note", inverse: "folder")]
    }

    struct Note: EntityRecord, Equatable {
        var id: Int64?
        var title: String
        var priority: Priority
        var due: Date?
        var stars: Int?
        var folder: Int64?
        var tags: [Int64]
        static let relationships = [ModelRelationship("folder", to: Folder.self, inverse: "notes"),
                                    ModelRelationship("tags", toMany: Tag.self, inverse: "notes")]
        static let indexedAttributes = ["title"]
    }

    struct Tag: EntityRecord, Equatable {
        var id: Int64?
        var label: String
        static let relationships = [ModelRelationship("notes", toMany: "Note", inverse: "tags")]
        static let uniqueAttributes = ["label"]
    }

    /// Keyed by the store alone: no id property.
    struct LogLine: EntityRecord { var text: String }

    func failure(_ body: () throws -> Void) -> StoreError? {
        do { try body() } catch let e as StoreError { return e } catch { Issue.record("\(error)") }
        return nil
    }

    @Test func theTypesGiveTheirEntities() throws {
        let note = try Note.modelEntity()
        #expect(note.name == "Note" && note.primaryKey == "id")
        #expect(note.attributes.map(\.name) == ["id", "title", "priority", "due", "stars"])
        #expect(note.attributes.map(\.type) == [.integer64, .string, .string, .date, .integer64])
        #expect(note.attributes.map(\.isOptional) == [true, false, false, true, true])
        #expect(note.attributes.first { $0.name == "title" }?.isIndexed == true)
        #expect(note.relationships.map(\.name) == ["folder", "tags"])
        #expect(try LogLine.modelEntity().primaryKey == "Z_PK")
        let model = try StoreModel(records: [Folder.self, Note.self, Tag.self, LogLine.self])
        #expect(model.entities.count == 4)
        #expect(try model.entity(named: "Note").relationships.first { $0.name == "tags" }?.isManyToMany == true)
        // A property no attribute can hold is named.
        struct Bad: EntityRecord { var id: Int64?; var where_: [String: Int] }
        #expect(failure { _ = try Bad.modelEntity() }?.message.contains("Bad.where_ is of type Dictionary<String, Int>") == true)
        struct TextKey: EntityRecord { var id: String }
        #expect(failure { _ = try TextKey.modelEntity() }?.hint?.contains("Int64?") == true)
    }

    @Test func fetchInsertUpdateUpsertAndDeleteTakeTheType() throws {
        let store = try PredicateStore(path: ":memory:", records: [Folder.self, Note.self, Tag.self, LogLine.self])
        let inbox = try store.insert(Folder(name: "Inbox"))
        let work = try store.insert(Folder(id: 40, name: "Work"))
        #expect(work == 40, "a key the caller gives is kept")
        let urgent = try store.insert(Tag(label: "urgent"))
        let milk = try store.insert(Note(title: "Milk", priority: .high, due: Date(timeIntervalSinceReferenceDate: 1000), stars: 3, folder: inbox, tags: [urgent]))
        try store.insert(Note(title: "Report", priority: .low, folder: work, tags: []))
        try store.insert(LogLine(text: "started"))
        #expect(try store.fetch(Note.self, where: "folder == %@", inbox).map(\.title) == ["Milk"])
        #expect(try store.fetch(Note.self, where: "priority == %@", Priority.low).map(\.title) == ["Report"])
        #expect(try store.fetch(Note.self, where: "ANY tags.label == %@", "urgent").map(\.id) == [milk])
        #expect(try store.count(Note.self) == 2)
        #expect(try store.count(LogLine.self) == 1)
        var note = try #require(try store.fetch(Note.self, id: milk))
        #expect(note == Note(id: milk, title: "Milk", priority: .high, due: Date(timeIntervalSinceReferenceDate: 1000), stars: 3, folder: inbox, tags: [urgent]))
        // An update writes every property: nil clears.
        note.stars = nil
        note.folder = work
        try store.update(note)
        #expect(try store.fetch(Note.self, id: milk)?.stars == nil)
        #expect(try store.fetch(Note.self, where: "folder.name == 'Work'", sort: [SortRule("title")]).map(\.title) == ["Milk", "Report"])
        // Upsert by a unique attribute.
        let again = try store.upsert(Tag(label: "urgent"), onConflict: "label")
        #expect(again == urgent)
        #expect(try store.count(Tag.self) == 1)
        try store.delete(note)
        #expect(try store.fetch(Note.self, id: milk) == nil)
        try store.delete(Folder.self, id: inbox)
        #expect(try store.count(Folder.self) == 1)
        // A record never inserted has no key to update by; a type without a key property has none at all.
        #expect(failure { try store.update(Note(title: "x", priority: .low, tags: [])) }?.message.contains("never inserted") == true)
        #expect(failure { try store.delete(LogLine(text: "started")) }?.hint?.contains("add var id: Int64?") == true)
    }

    @Test func aModelDeclaredBothWaysIsCheckedWhenTheStoreOpens() throws {
        let json = """
        {"entities": [
          {"name": "Folder", "primaryKey": "id", "attributes": [{"name": "id", "type": "integer64"}, {"name": "name", "type": "integer64"}],
           "relationships": [{"name": "notes", "destination": "Note", "toMany": true, "inverse": "folder"}]},
          {"name": "Note", "primaryKey": "id", "attributes": [{"name": "id", "type": "integer64"}, {"name": "title", "type": "string"},
             {"name": "body", "type": "string", "optional": false}],
           "relationships": [{"name": "folder", "destination": "Folder", "inverse": "notes"}]}
        ]}
        """
        let model = try StoreModel(json: Data(json.utf8))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let e = failure { _ = try PredicateStore(path: path, model: model, records: [Folder.self, Note.self]) }
        #expect(e?.kind == .modelMismatch)
        let message = e?.message ?? ""
        for difference in ["Folder.name is an integer64 attribute, Folder.name a string", "Note has no attribute priority",
                           "Note.body is required, and Note has no property for it", "Note has no relationship tags"] {
            #expect(message.contains(difference), "\(difference): \(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing written")
        #expect(try StoreModel(records: [Folder.self, Note.self, Tag.self]).differences(from: [Folder.self, Note.self, Tag.self]).isEmpty)
    }

    /// Records of a model with a sub-entity, as `pql codegen` writes them (a sub-entity's type
    /// carries its parent's properties too): they open the store of that model, and each
    /// type reads and writes its own entity, a fetch of the parent type returning the
    /// sub-entity's objects as well.
    /// As `pql codegen` writes them: the model keys them by Z_PK, so no `id`.
    struct Vehicle: EntityRecord, Equatable { var make: String?; var wheels: Int64? }
    struct Car: EntityRecord, Equatable { var make: String?; var wheels: Int64?; var doors: Int16? }

    @Test func flattenedSubEntityRecordsOpenTheirModelsStore() throws {
        let json = """
        {"entities": [
          {"name": "Vehicle", "attributes": [{"name": "make", "type": "string"}, {"name": "wheels", "type": "integer64"}]},
          {"name": "Car", "parent": "Vehicle", "attributes": [{"name": "doors", "type": "integer16"}]}
        ]}
        """
        let model = try StoreModel(json: Data(json.utf8))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PredicateStore(path: dir.appendingPathComponent("s.sqlite").path, model: model, records: [Vehicle.self, Car.self])
        let bike = try store.insert(Vehicle(make: "Bianchi", wheels: 2))
        let car = try store.insert(Car(make: "Fiat", wheels: 4, doors: 3))
        #expect(try store.fetch(Car.self, where: "doors == 3").map(\.make) == ["Fiat"])
        #expect(try store.fetch(Vehicle.self, where: "wheels >= 2", sort: [SortRule("wheels")]).map(\.make) == ["Bianchi", "Fiat"])
        #expect(try store.count(Car.self) == 1 && store.count(Vehicle.self) == 2)
        #expect(try store.fetch(Car.self, id: car) == Car(make: "Fiat", wheels: 4, doors: 3))
        #expect(try store.fetch(Vehicle.self, id: bike) == Vehicle(make: "Bianchi", wheels: 2))
        #expect(car != bike)
    }
}

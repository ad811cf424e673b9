import Foundation
import PQL
@testable import PQLStore
import Testing

/// Two stores on one file, as two processes are: each read the model when it opened, and the
/// other changed it since. An import (or `addEntities`) writes the model again; written from
/// the older reading, it dropped what the other store added (adversarial run, F16: an entity of
/// 300,000 rows vanished from the model; into one entity, SQLite's "table Big has no column
/// named extra"). They now start from the model the file holds, read under the write lock.
@Suite("one store file, two stores writing its model")
struct SharedFileImportTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func rows(_ n: Int, extra: Bool = false) -> ImportSource {
        let lines = (0..<n).map { extra ? #"{"id": \#($0), "extra": \#($0 * 2)}"# : #"{"id": \#($0)}"# }
        return ImportSource(json: Data(lines.joined(separator: "\n").utf8))
    }

    @Test("imports of two new entities keep both in the model")
    func twoNewEntities() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        try PredicateStore(path: path, model: StoreModel([])).importFile(Self.rows(1), into: "C")
        let first = try PredicateStore(path: path), second = try PredicateStore(path: path)
        #expect(try first.importFile(Self.rows(3), into: "A1") == 3)
        #expect(try second.importFile(Self.rows(2), into: "B1") == 2)
        // The second store now knows the first's entity too, and so does the file.
        #expect(second.model.entities.map(\.name) == ["C", "A1", "B1"])
        let reopened = try PredicateStore(path: path)
        #expect(reopened.model.entities.map(\.name) == ["C", "A1", "B1"])
        #expect(try reopened.count(EntityQuery("A1")) == 3)
        #expect(try reopened.count(EntityQuery("B1")) == 2)
    }

    @Test("imports that add one new key to one entity add it once")
    func oneNewKeyTwice() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        try PredicateStore(path: path, model: StoreModel([])).importFile(Self.rows(2), into: "Big")
        let first = try PredicateStore(path: path), second = try PredicateStore(path: path)
        #expect(try first.importFile(Self.rows(2, extra: true), into: "Big") == 2)
        #expect(try second.importFile(Self.rows(3, extra: true), into: "Big") == 3)
        let reopened = try PredicateStore(path: path)
        #expect(try reopened.model.entity(named: "Big").attributes.map(\.name) == ["id", "extra"])
        #expect(try reopened.count(EntityQuery("Big", where: "extra != nil")) == 5)
    }

    @Test("addEntities keeps the entities another store added")
    func addEntitiesAfterAnImport() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        let first = try PredicateStore(path: path, model: StoreModel([])), second = try PredicateStore(path: path)
        try first.importFile(Self.rows(1), into: "Imported")
        try second.addEntities([ModelEntity("Added", attributes: [ModelAttribute("x", .string)])])
        #expect(try PredicateStore(path: path).model.entities.map(\.name) == ["Imported", "Added"])
    }
}

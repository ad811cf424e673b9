import CSQLite
import Foundation
import PQL
@testable import PQLStore
import Testing

/// `PredicateStore(path:readOnly: true)`: reads a file and leaves it, its journal mode and its
/// directory as they were, without disturbing another store writing the same file.
@Suite("read-only stores")
struct ReadOnlyStoreTests {
    static func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-ro-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func listing(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// A WAL store with three people, closed (so only the database file is left).
    static func closedStore(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("people.sqlite").path
        let store = try PredicateStore(path: path, model: PeopleModel.model)
        try store.insert("Person", [["name": "Ann", "age": 40], ["name": "Bob", "age": 20], ["name": "Cy", "age": 30]])
        return path
    }

    @Test func readingLeavesNoFilesBehind() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.closedStore(in: dir)
        #expect(try Self.listing(dir) == ["people.sqlite"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let store = try PredicateStore(path: path, readOnly: true)
            #expect(try store.count(EntityQuery("Person", where: "age >= 30")) == 2)
            // Parallel reads open more connections; all are closed with the store.
            DispatchQueue.concurrentPerform(iterations: 4) { _ in _ = try? store.fetch(EntityQuery("Person")) }
            #expect {
                try store.insert("Person", ["name": "Dee"])
            } throws: { e in
                let e = e as? StoreError
                return e?.kind == .fileAccess && e?.message.contains("open read-only") == true
            }
        }
        #expect(try Self.listing(dir) == ["people.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func closingAReaderKeepsAnotherStoresWriteAheadLog() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.closedStore(in: dir)
        let writer: PredicateStore
        do {
            let reader = try PredicateStore(path: path, readOnly: true)
            #expect(try reader.count(EntityQuery("Person")) == 3)
            // The writer opens after the reader made the -wal and -shm files, and writes.
            writer = try PredicateStore(path: path)
            try writer.insert("Person", ["name": "Dee", "age": 50])
            #expect(try reader.count(EntityQuery("Person")) == 4)
        }
        // The reader is gone; the writer still uses the files, which stay, and its rows with them.
        #expect(try Self.listing(dir) == ["people.sqlite", "people.sqlite-shm", "people.sqlite-wal"])
        try writer.insert("Person", ["name": "Eve", "age": 60])
        #expect(try writer.count(EntityQuery("Person")) == 5)
        #expect(try PredicateStore(path: path, readOnly: true).count(EntityQuery("Person")) == 5)
        #expect(try writer.integrityCheck() == ["ok"])
    }

    @Test func errorsForFilesThatAreNotDatabases() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for readOnly in [true, false] {
            #expect { _ = try PredicateStore(path: empty, readOnly: readOnly) } throws: { ($0 as? StoreError)?.kind == .notADatabase }
            #expect { _ = try PredicateStore(path: dir.path, readOnly: readOnly) } throws: {
                ($0 as? StoreError)?.kind == .fileAccess && ($0 as? StoreError)?.message.contains("is a directory") == true
            }
        }
        #expect(try Self.listing(dir) == ["empty.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)
    }
}

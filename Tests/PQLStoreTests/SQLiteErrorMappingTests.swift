import CSQLite
import Foundation
import PQL
@testable import PQLStore
import Testing

/// SQLite's result codes become StoreError kinds with plain messages and hints.
@Suite("SQLite errors in plain words")
struct SQLiteErrorMappingTests {
    @Test func aFullDiskIsDiskFullAndWritesNothing() throws {
        let dir = try ReadOnlyStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PredicateStore(path: try ReadOnlyStoreTests.closedStore(in: dir))
        // The same result code as a full disk: the file may not grow past its pages now.
        try store.locked { () throws(StoreError) in
            let s = try store.connection.prepare("PRAGMA page_count")
            _ = try s.step()
            try store.connection.execute("PRAGMA max_page_count = \(s.int64(0) + 1)")
        }
        let rows: [[String: PredicateValue]] = (0..<200).map { ["name": .string(String(repeating: "x", count: 4_000)), "age": .int(Int64($0))] }
        #expect { try store.insert("Person", rows) } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .diskFull && e.message.contains("is full") && e.hint?.contains("nothing of the change was written") == true
        }
        #expect(try store.count(EntityQuery("Person")) == 3)
    }

    @Test func uniqueAndRequiredValues() throws {
        let store = try LibraryModel.make()
        #expect { try store.insert("Author", ["code": "A1"]) } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .constraint && e.message.contains("two Author objects the same code") && !e.message.contains("UNIQUE constraint failed")
        }
    }

    @Test func columnsDifferingOnlyInCase() throws {
        #expect {
            let model = try StoreModel([ModelEntity("Person", attributes: [ModelAttribute("name", .string), ModelAttribute("Name", .string)])])
            _ = try PredicateStore.inMemory(model)
        } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .invalidModel && !e.message.contains("duplicate column name:")
        }
    }

    @Test func codesMapToKinds() {
        func kind(_ code: Int32, _ message: String = "x") -> StoreError.Kind {
            SQLiteErrors.storeError(code: code, message: message, path: "f.db", what: "the query").kind
        }
        #expect(kind(SQLITE_BUSY) == .busy)
        #expect(kind(SQLITE_LOCKED) == .busy)
        #expect(kind(SQLITE_FULL) == .diskFull)
        #expect(SQLiteErrors.storeError(code: SQLITE_IOERR, message: "disk I/O error", systemError: ENOSPC, path: "f", what: "w").kind == .diskFull)
        #expect(kind(SQLITE_IOERR) == .fileAccess)
        #expect(kind(SQLITE_CANTOPEN) == .fileAccess)
        #expect(kind(SQLITE_READONLY) == .fileAccess)
        #expect(kind(SQLiteErrors.Extended.readOnlyDirectory) == .fileAccess)
        #expect(kind(SQLITE_NOTADB) == .notADatabase)
        #expect(kind(SQLITE_CORRUPT) == .corrupt)
        #expect(kind(SQLITE_INTERRUPT) == .cancelled)
        #expect(kind(SQLiteErrors.Extended.constraintUnique, "UNIQUE constraint failed: T.c") == .constraint)
        #expect(kind(SQLITE_ERROR, "no such column: t0.\"x\"") == .invalidModel)
        #expect(kind(SQLITE_ERROR, "no such table: T") == .invalidModel)
        #expect(kind(SQLITE_ERROR, SQLiteFunctions.errorPrefix + "bad regex") == .evaluation)
        #expect(kind(SQLITE_ERROR, "something new") == .sqlite)
        let busy = SQLiteErrors.storeError(code: SQLITE_BUSY, message: "database is locked", path: "f.db", what: "the change")
        #expect(busy.message == "another process holds the write lock on 'f.db' (PQL waited 5 s for it); the change did not run")
    }
}

import CSQLite
import Foundation
import Testing

/// What SQLite reports reaches the user in plain words with a hint, never SQLite's or
/// Foundation's own text ("database is locked", "cannot prepare SQL: no such column", "file is
/// not a database", "NSCocoaErrorDomain error 256").
@Suite("store errors in plain words")
struct StoreErrorMessageTests {
    static let rawTexts = ["database is locked", "cannot prepare", "SQL failed", "file is not a database", "NSCocoaErrorDomain",
                           "not a usable SQLite database", "no such column:"]

    static func expectPlain(_ r: PQLProcess, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)", sourceLocation: sourceLocation)
        for f in fragments { #expect(r.stderr.contains(f), "\(r.stderr)", sourceLocation: sourceLocation) }
        for raw in rawTexts { #expect(!r.stderr.contains(raw), "\(r.stderr)", sourceLocation: sourceLocation) }
    }

    /// Another process holds the write lock (here this test, through SQLite): a write waits
    /// for it, then says who holds what and how long it waited; so does a read of a
    /// rollback-journal file while the writer holds its exclusive lock.
    @Test("a lock held by another process", arguments: ["WAL", "DELETE"])
    func locked(journalMode: String) throws {
        let store = try RelationshipCommandLineTests.store()
        try ReadingCommandTests.sqlite(store, "PRAGMA journal_mode=\(journalMode)")
        var db: OpaquePointer?
        guard sqlite3_open(store, &db) == SQLITE_OK, let db else { throw CocoaError(.fileReadUnknown) }
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, journalMode == "WAL" ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
        // An exclusive lock in rollback-journal mode is taken by the first write.
        if journalMode == "DELETE" { #expect(sqlite3_exec(db, "UPDATE airline SET name = name", nil, nil, nil) == SQLITE_OK) }
        let update = try PQLProcess.run(["update", store, "--entity", "airline", "--set", "name=X"])
        Self.expectPlain(update, ["another process holds the write lock on", "PQL waited 5 s", "try again when the other program has finished"])
        if journalMode == "DELETE" {
            let query = try PQLProcess.run(["query", store, "--entity", "airline", "--count"])
            Self.expectPlain(query, ["another process holds the write lock on", "PQL waited 5 s"])
        } else {
            // WAL: readers never wait for the writer.
            #expect(try PQLProcess.run(["query", store, "--entity", "airline", "--count"]).stdout == "3\n")
        }
        sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
        #expect(try PQLProcess.run(["update", store, "--entity", "airline", "--set", "name=X"]).stdout == "3\n")
    }

    /// A store whose saved model names a column another program dropped.
    @Test func aColumnTheModelNamesIsMissing() throws {
        let dir = try StoreCommandLineTests.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"]).status == 0)
        try ReadingCommandTests.sqlite(store, "ALTER TABLE Person DROP COLUMN city")
        let r = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "city == 'Paris'"])
        Self.expectPlain(r, ["the database has no column 'city', which its model names", "changed by another program"])
    }

    @Test func damagedAndForeignFiles() throws {
        let dir = try StoreCommandLineTests.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"]).status == 0)
        // A header that claims a database and pages of garbage behind it.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        for i in 100..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        let damaged = dir.appendingPathComponent("damaged.sqlite").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let r = try PQLProcess.run(["query", damaged, "--entity", "Person", "--count"])
        #expect(r.status == 1)
        for raw in Self.rawTexts { #expect(!r.stderr.contains(raw), "\(r.stderr)") }
        #expect(r.stderr.contains("is damaged") || r.stderr.contains("is not an SQLite database"), "\(r.stderr)")
    }
}

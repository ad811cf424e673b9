import CSQLite
import Foundation
import PQLTestSupport
import Testing

/// `pql query` (rows, `--count`, `--sql`), `pql FILE` and `.open` only read: the file's bytes,
/// its modification time, its journal mode and the directory's listing are the same after
/// them; a missing, empty or foreign file is an error and never becomes a database.
@Suite("reading commands change nothing on disk")
struct ReadingCommandTests {
    /// A directory with an SQLite file in rollback-journal mode and one in WAL mode, as
    /// another program leaves them (closed, so no -wal or -shm beside them).
    static func foreignFiles() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, mode) in [("rollback.db", "DELETE"), ("wal.db", "WAL")] {
            try sqlite(dir.appendingPathComponent(name).path, """
                PRAGMA journal_mode=\(mode);
                CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, population INTEGER);
                INSERT INTO city (name, population) VALUES ('Lima', 10000000), ('Cusco', 430000), ('Puno', 150000);
                """)
            // An old modification time, so that any write would show.
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
                                                  ofItemAtPath: dir.appendingPathComponent(name).path)
        }
        return dir
    }

    static func sqlite(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw CocoaError(.fileWriteUnknown) }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Each file's name, size, bytes' hash, modification time and journal mode (header bytes 18–19).
    static func snapshot(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted().map { name in
            let path = dir.appendingPathComponent(name).path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let mode = data.count > 19 ? "format \(data[18])/\(data[19])" : "-"
            return "\(name) \(data.count) \(data.hashValue) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) \(mode)"
        }
    }

    @Test("pql query, --count, --sql and the REPL leave a rollback-journal and a WAL file as they were",
          arguments: ["rollback.db", "wal.db"])
    func readingChangesNothing(file: String) throws {
        let dir = try Self.foreignFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(file).path
        let other = dir.appendingPathComponent(file == "wal.db" ? "rollback.db" : "wal.db").path
        let before = try Self.snapshot(dir)
        #expect(before.contains { $0.hasPrefix(file) && $0.hasSuffix(file == "wal.db" ? "format 2/2" : "format 1/1") })

        let runs: [(arguments: [String], stdin: String?, expected: String)] = [
            (["query", path, "--entity", "city", "--count"], nil, "3\n"),
            (["query", path, "--entity", "city", "--where", "population > %@", "--arg", "200000", "--sort", "name"], nil,
             #"{"id":2,"name":"Cusco","population":430000}"# + "\n" + #"{"id":1,"name":"Lima","population":10000000}"# + "\n"),
            (["query", path, "--entity", "city", "--where", "name == 'Puno'", "--sql"], nil, "?1 = 'Puno'"),
            (["query", path, "--entity", "city", "--count", "--sql"], nil, "count("),
            ([path], "name BEGINSWITH 'P'\n.count\n.open \(other)\n.count\n", "1 row"),
        ]
        for run in runs {
            let r = try PQLProcess.run(run.arguments, stdin: run.stdin.map { Data($0.utf8) })
            #expect(r.status == 0, "\(run.arguments): \(r.stderr)")
            #expect(r.stdout.contains(run.expected), "\(run.arguments): \(r.stdout)")
            #expect(try Self.snapshot(dir) == before, "\(run.arguments) changed the directory")
        }
    }

    @Test("a missing, empty, foreign or non-regular file is an error and stays as it was")
    func notADatabaseIsAnError() throws {
        let dir = try Self.foreignFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("empty.db").path, contents: Data()))
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("notes.db").path, contents: Data("just some text\n".utf8)))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder.db"), withIntermediateDirectories: false)
        let fifo = dir.appendingPathComponent("pipe.db").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let cases: [(String, String)] = [
            ("missing.db", "no database at"), ("empty.db", "is empty: it holds no SQLite database"),
            ("notes.db", "is not an SQLite database"), ("folder.db", "is a directory"), ("pipe.db", "is not a regular file (a pipe)"),
        ]
        for (name, message) in cases {
            let path = dir.appendingPathComponent(name).path
            for arguments in [["query", path, "--entity", "city", "--count"], ["update", path, "--entity", "city", "--set", "name=x"],
                              ["delete", path, "--entity", "city"]] {
                let r = try PQLProcess.run(arguments)
                #expect(r.status == 1, "\(arguments)")
                #expect(r.stderr.hasPrefix("error: ") && r.stderr.contains(message), "\(arguments): \(r.stderr)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == listing)
        #expect(try Data(contentsOf: dir.appendingPathComponent("empty.db")).isEmpty)
    }

    @Test("pql update on a file another program made keeps its journal mode")
    func writingKeepsAForeignJournalMode() throws {
        let dir = try Self.foreignFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rollback.db").path
        let r = try PQLProcess.run(["update", path, "--entity", "city", "--where", "name == 'Puno'", "--set", "population=160000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "1\n")
        let header = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(header[18] == 1 && header[19] == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["rollback.db", "wal.db"])
    }

    /// As `sqlite3` does: a read-only file in a directory the user cannot write. (Root may write
    /// anywhere, so as root the command runs as `nobody` through setpriv.)
    @Test("a read-only database in a read-only directory is readable, in either journal mode")
    func readOnlyDirectory() throws {
        let dir = try Self.foreignFiles()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
            try? FileManager.default.removeItem(at: dir)
        }
        for name in ["rollback.db", "wal.db"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: dir.appendingPathComponent(name).path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        let before = try Self.snapshot(dir)
        for name in ["rollback.db", "wal.db"] {
            let path = dir.appendingPathComponent(name).path
            let count = try Self.runWithoutPrivileges(["query", path, "--entity", "city", "--where", "population < 1000000", "--count"])
            #expect(count.status == 0, "\(name): \(count.stderr)")
            #expect(count.stdout == "2\n", "\(name)")
            let repl = try Self.runWithoutPrivileges([path], stdin: "name == 'Lima'\n")
            #expect(repl.status == 0, "\(name): \(repl.stderr)")
            #expect(repl.stdout.contains("Lima"))
        }
        #expect(try Self.snapshot(dir) == before)
    }

    /// Runs `pql` as an unprivileged user when the tests run as root.
    static func runWithoutPrivileges(_ arguments: [String], stdin: String? = nil) throws -> PQLProcess {
        guard getuid() == 0 else { return try PQLProcess.run(arguments, stdin: stdin.map { Data($0.utf8) }) }
        return PQLProcess(try ChildProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", PQLProcess.binary.path] + arguments,
                                        stdin: Data((stdin ?? "").utf8)))
    }

    /// One table PQL cannot key (FTS5's internal tables, a WITHOUT ROWID table) made the whole
    /// file unreadable (adversarial run, F15): it is left out and listed, and the rest reads.
    @Test("tables PQL cannot key are left out and listed; the others read")
    func unkeyableTablesAreLeftOut() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("mixed.sqlite").path
        try Self.sqlite(path, """
            CREATE VIRTUAL TABLE docs USING fts5(body);
            INSERT INTO docs VALUES ('hello world');
            CREATE TABLE kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
            CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO people VALUES (1, 'Ann');
            """)
        #expect(try PQLProcess.run(["query", path, "--entity", "people"]).stdout == "{\"id\":1,\"name\":\"Ann\"}\n")
        #expect(try PQLProcess.run(["query", path, "--entity", "docs", "--where", "body CONTAINS 'world'", "--count"]).stdout == "1\n")
        let kv = try PQLProcess.run(["query", path, "--entity", "kv"])
        #expect(kv.status == 1)
        #expect(kv.stderr.hasPrefix("error: the table 'kv' is left out of \(path)'s model: table 'kv' has no integer key PQL can use"), "\(kv.stderr)")
        let entities = try PQLProcess.run([path, "-c", ".entities"])
        #expect(entities.stdout.contains("left out: docs_idx: it is an internal table of a virtual table"), "\(entities.stdout)")
        #expect(entities.stdout.contains("left out: kv: "), "\(entities.stdout)")
    }
}

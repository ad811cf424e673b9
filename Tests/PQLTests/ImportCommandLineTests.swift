import Foundation
import PQLTestSupport
import Testing

/// `pql import` as a user meets issue 13's items 1, 2, 5, 10 and 11: names SQLite would alias,
/// imports that fail leaving nothing behind, numbers kept exactly, ZIP bombs, and memory that
/// does not grow with the file.
@Suite("pql import: names, atomicity, precision, limits, memory")
struct ImportCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-import-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The store and SQLite's companion files that exist.
    private static func storeFiles(_ path: String) -> [String] {
        ["", "-wal", "-shm", "-journal"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// A directory given as the file is named as a directory, whatever its name looks like, and
    /// no store is left behind.
    @Test func aDirectoryIsNamedAsOne() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        for name in ["plain", "looks.json"] {
            let sub = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            let r = try PQLProcess.run(["import", store, sub.path, "--entity", "X"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("it is a directory"), "\(r.stderr)")
            #expect(Self.storeFiles(store).isEmpty)
        }
    }

    // MARK: Item 1: names that differ only in case

    @Test func entitiesDifferingOnlyInCaseNeverShareATable() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let a = try Self.write(#"[{"name": "Ann", "age": 30}]"#, "a.json", in: dir)
        let b = try Self.write(#"[{"name": "Bob", "age": 40}]"#, "b.json", in: dir)
        #expect(try PQLProcess.run(["import", store, a, "--entity", "Person"]).status == 0)
        let second = try PQLProcess.run(["import", store, b, "--entity", "person"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("the store has an entity 'Person', and SQLite does not tell 'person' apart from it"), "\(second.stderr)")
        #expect(second.stderr.contains("import into the entity 'Person'"))
        let delete = try PQLProcess.run(["delete", store, "--entity", "person"])
        #expect(delete.status == 1)
        #expect(delete.stderr.contains("no entity named 'person'"), "\(delete.stderr)")
        #expect(delete.stderr.contains("did you mean 'Person'?"))
        #expect(try PQLProcess.run(["query", store, "--entity", "Person"]).stdout == #"{"name":"Ann","age":30}"# + "\n")
        // A name that differs in more than ASCII case is another table.
        #expect(try PQLProcess.run(["import", store, b, "--entity", "Persön"]).status == 0)
        #expect(try PQLProcess.run(["query", store, "--entity", "Person", "--count"]).stdout == "1\n")
    }

    @Test func columnsAndReservedNamesAreRefused() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("new.sqlite").path
        let keys = try Self.write("{\"id\": 1, \"name\": \"a\"}\n{\"ID\": 2}\n", "keys.jsonl", in: dir)
        let r = try PQLProcess.run(["import", store, keys, "--entity", "Thing"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("columns 'id' and 'ID' differ only in case; SQLite takes them for one column"), "\(r.stderr)")
        let header = try Self.write("Name,name\nx,y\n", "header.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, header, "--entity", "Thing"]).stderr.contains("columns 'Name' and 'name' differ only in case"))
        let key = try Self.write("z_pk,v\n1,2\n", "key.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, key, "--entity", "Thing"]).stderr.contains("column 1 is named 'z_pk', which the store keeps for its own column"))
        let ent = try Self.write("v,Z_Ent\n1,2\n", "ent.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, ent, "--entity", "Thing"]).stderr.contains("column 2 is named 'Z_Ent'"))
        let fine = try Self.write("v\n1\n", "fine.csv", in: dir)
        for name in ["z_pqlmetadata", "Z_PRIMARYKEY", "SQLITE_stat1"] {
            let e = try PQLProcess.run(["import", store, fine, "--entity", name])
            #expect(e.status == 1)
            #expect(e.stderr.contains("'\(name)' cannot name an entity"), "\(e.stderr)")
        }
        // None of these imports created the store.
        #expect(Self.storeFiles(store).isEmpty)
    }

    // MARK: Item 2: a failed import changes nothing

    /// Text that is not UTF-8 is found while rows are inserted, after the entity was made: the
    /// entity, its table and the saved model go with the rows.
    @Test func failedImportLeavesTheModelAsItWas() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let good = try Self.write("name\nkept\n", "good.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, good, "--entity", "Keep"]).status == 0)
        let bad = dir.appendingPathComponent("bad.csv")
        try Data(Array("name,n\nann,1\n".utf8) + [0xFF, 0xFE] + Array(",2\n".utf8)).write(to: bad)
        let r = try PQLProcess.run(["import", store, bad.path, "--entity", "Broken"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.csv: CSV line 3, column 'name': the text is not valid UTF-8"), "\(r.stderr)")
        let query = try PQLProcess.run(["query", store, "--entity", "Broken", "--count"])
        #expect(query.status == 1)
        #expect(query.stderr.contains("no entity named 'Broken'"), "\(query.stderr)")
        #expect(!query.stderr.contains("no such"))
        #expect(try PQLProcess.run(["query", store, "--entity", "Keep"]).stdout == #"{"name":"kept"}"# + "\n")
        // The same entity imports once the file is fixed.
        let fixed = try Self.write("name,n\nann,1\nbo,2\n", "fixed.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, fixed, "--entity", "Broken"]).status == 0)
        #expect(try PQLProcess.run(["query", store, "--entity", "Broken", "--count"]).stdout == "2\n")
    }

    /// `--link carrier=Airline.carrier`: the codes become a to-one `carrier` to the airline; a
    /// code no airline has fails the import naming the line and the code, and nothing is written.
    @Test func linkColumnsBecomeRelationships() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let airlines = try Self.write("carrier,name\nUA,United Air Lines Inc.\nAA,American Airlines Inc.\n", "airlines.csv", in: dir)
        let flights = try Self.write("flight,carrier\n1,UA\n2,UA\n3,AA\n", "flights.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, airlines, "--entity", "Airline"]).status == 0)
        let r = try PQLProcess.run(["import", store, flights, "--entity", "Flight", "--link", "carrier=Airline.carrier"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("imported 3 rows into Flight (1 attribute, 1 link)"), "\(r.stderr)")
        let united = try PQLProcess.run(["query", store, "--entity", "Flight", "--where", "carrier.name BEGINSWITH 'United'", "--count"])
        #expect(united.stdout == "2\n", "\(united.stderr)")
        let inverse = try PQLProcess.run(["query", store, "--entity", "Airline", "--where", "flights.@count == 1", "--count"])
        #expect(inverse.stdout == "1\n", "\(inverse.stderr)")
        let bad = try Self.write("flight,carrier\n4,AA\n5,XX\n", "bad.csv", in: dir)
        let refused = try PQLProcess.run(["import", store, bad, "--entity", "Flight", "--link", "carrier=Airline.carrier"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad.csv: CSV line 3: carrier 'XX' finds no Airline"), "\(refused.stderr)")
        #expect(try PQLProcess.run(["query", store, "--entity", "Flight", "--count"]).stdout == "3\n")
        let unreadable = try PQLProcess.run(["import", store, bad, "--entity", "Flight", "--link", "carrier"])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("--link: the link 'carrier' has no '='"), "\(unreadable.stderr)")
    }

    /// A store the failed import would have created does not exist afterwards, nor do its
    /// -wal, -shm or -journal files.
    @Test func failedImportRemovesTheStoreItCreated() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("fresh.sqlite").path
        let bad = dir.appendingPathComponent("bad.csv")
        try Data(Array("name\nok\n".utf8) + [0xC3] + Array("\n".utf8)).write(to: bad)
        let r = try PQLProcess.run(["import", store, bad.path, "--entity", "T"])
        #expect(r.status == 1)
        #expect(Self.storeFiles(store).isEmpty, "\(Self.storeFiles(store))")
        let syntax = try Self.write("[{\"a\": 1},", "cut.json", in: dir)
        #expect(try PQLProcess.run(["import", store, syntax, "--entity", "T"]).status == 1)
        #expect(Self.storeFiles(store).isEmpty)
    }

    // MARK: Item 5: no number is rounded

    @Test func numbersArriveExactly() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        func imported(_ text: String, _ file: String, _ entity: String) throws -> String {
            let path = try Self.write(text, file, in: dir)
            let r = try PQLProcess.run(["import", store, path, "--entity", entity])
            #expect(r.status == 0, "\(r.stderr)")
            return try PQLProcess.run(["query", store, "--entity", entity]).stdout
        }
        #expect(try imported("{\"x\": 9223372036854775807}\n{\"x\": 2.0}\n", "whole.jsonl", "Whole") == "{\"x\":9223372036854775807}\n{\"x\":2}\n")
        #expect(try imported("{\"x\": 9223372036854775807}\n{\"x\": 2.5}\n", "mixed.jsonl", "Mixed") == "{\"x\":\"9223372036854775807\"}\n{\"x\":\"2.5\"}\n")
        #expect(try imported("[{\"x\": 1}, {\"x\": 2.5}]", "small.json", "Small") == "{\"x\":1.0}\n{\"x\":2.5}\n")
        #expect(try imported("{\"id\": 123456789012345678901234567890}\n", "big.jsonl", "Big") == "{\"id\":\"123456789012345678901234567890\"}\n")
        #expect(try imported("x\n9223372036854775807\n2e0\n", "whole.csv", "WholeCSV") == "{\"x\":9223372036854775807}\n{\"x\":2}\n")
        #expect(try imported("x\n9223372036854775807\n2.5\n", "mixed.csv", "MixedCSV") == "{\"x\":\"9223372036854775807\"}\n{\"x\":\"2.5\"}\n")
        let inf = try Self.write("{\"x\": 1}\n{\"x\": 1e400}\n", "inf.jsonl", in: dir)
        let r = try PQLProcess.run(["import", store, inf, "--entity", "Inf"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("inf.jsonl: JSON line 2, column 7: the number 1e400 is beyond the range of a double"), "\(r.stderr)")
        // Queried in memory, the same file is the same error (it was infinity, printed as null, matching n > 1).
        let q = try PQLProcess.run(["query", inf, "--where", "x > 1"])
        #expect(q.status == 1 && q.stdout.isEmpty)
        #expect(q.stderr.contains("inf.jsonl holds a value PQL cannot read: line 2, column 7: the number 1e400 is beyond the range of a double")
                && q.stderr.contains("hint: fix the file there: write the number as a string (in quotes) to keep it as text"), "\(q.stderr)")
        let neg = try Self.write("x\n1.5\n-1e400\n", "inf.csv", in: dir)
        #expect(try PQLProcess.run(["import", store, neg, "--entity", "InfCSV"]).status == 0)
        #expect(try PQLProcess.run(["query", store, "--entity", "InfCSV"]).stdout == "{\"x\":\"1.5\"}\n{\"x\":\"-1e400\"}\n")
    }

    // MARK: Item 10: ZIP bombs

    @Test func zipBombIsRefused() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bomb = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PQLStoreTests/Fixtures/zip/bomb.zip").path
        let store = dir.appendingPathComponent("s.sqlite").path
        let r = try PQLProcess.run(["import", store, bomb, "--entity", "Bomb"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bomb.zip: bomb.csv: 'bomb.csv' would grow 1,027-fold when unzipped (16,777,220 bytes from 16,322), beyond the 100-fold an import allows"), "\(r.stderr)")
        #expect(r.stderr.contains("ZIP bomb"))
        #expect(Self.storeFiles(store).isEmpty)
    }

    // MARK: Item 11: memory does not grow with the file

    /// Runs `pql` and returns its exit status, standard error and peak resident memory (KiB):
    /// the VmHWM of its own address space, read from /proc while it runs (the mark only rises,
    /// so the last reading holds the peak up to a few milliseconds before exit). (wait4's
    /// ru_maxrss would not do: a child started by posix_spawn shares the test runner's memory
    /// until it execs, and Linux counts that high-water mark as the child's.)
    private static func runMeasuringMemory(_ arguments: [String], in dir: URL) throws -> (status: Int32, stderr: String, maxRSSKiB: Int) {
        let r = try ChildProcess.run(PQLProcess.binary.path, arguments, stdout: .null, measuringMemory: true)
        return (r.status, r.stderrText, r.peakMemoryKiB)
    }

    /// A 20 MB JSON Lines file once took about eight times its size (the whole text, its
    /// values and every row at once); streamed, memory stays near the program's own.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "peak memory is read from Linux's /proc"))
    func importMemoryDoesNotGrowWithTheFile() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = ""
        text.reserveCapacity(21_000_000)
        let rows = 140_000
        for i in 0..<rows {
            text += #"{"id": \#(i), "name": "person \#(i)", "score": \#(Double(i % 1000) / 8), "note": "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor"}"#
            text += "\n"
        }
        let file = try Self.write(text, "big.jsonl", in: dir)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        #expect(size > 18_000_000)
        let store = dir.appendingPathComponent("s.sqlite").path
        // The program's own peak (its code and libraries, larger under a sanitizer), importing
        // one row of the same shape.
        let one = try Self.write(String(text.prefix { $0 != "\n" }) + "\n", "one.jsonl", in: dir)
        let baseline = try Self.runMeasuringMemory(["import", dir.appendingPathComponent("one.sqlite").path, one, "--entity", "P"], in: dir)
        #expect(baseline.status == 0 && baseline.maxRSSKiB > 0, "\(baseline.stderr)")
        let r = try Self.runMeasuringMemory(["import", store, file, "--entity", "P"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("imported \(rows) rows into P"), "\(r.stderr)")
        // Streamed, the 20 MB file adds well under its size; read whole it added about 160 MB.
        #expect(r.maxRSSKiB > 0 && r.maxRSSKiB - baseline.maxRSSKiB < 40_000,
                "peak \(r.maxRSSKiB) KiB for a \(size)-byte file, \(baseline.maxRSSKiB) KiB for one row")
        #expect(try PQLProcess.run(["query", store, "--entity", "P", "--where", "id == 139999"]).stdout.contains("\"name\":\"person 139999\""))
    }

    /// A 2,000-column CSV passed the documented 2,000-column check, then failed inside SQLite:
    /// the store's key column counts (adversarial run, F27).
    @Test func theKeyColumnCountsAgainstTheColumnLimit() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        func wide(_ n: Int) throws -> String {
            try Self.write((0..<n).map { "c\($0)" }.joined(separator: ",") + "\n" + (0..<n).map(String.init).joined(separator: ",") + "\n", "w\(n).csv", in: dir)
        }
        let store = dir.appendingPathComponent("w.sqlite").path
        let r = try PQLProcess.run(["import", store, try wide(2000), "--entity", "W"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the CSV header has 2000 columns; a table can have at most 2000, the store's key column among them, so a file at most 1999"), "\(r.stderr)")
        #expect(Self.storeFiles(store).isEmpty)
        let fits = try PQLProcess.run(["import", store, try wide(1999), "--entity", "W"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(try PQLProcess.run(["query", store, "--entity", "W", "--count"]).stdout == "1\n")
    }

    /// Creating a store in a directory the user cannot write said "no such file or directory"
    /// (adversarial run, F28). As root the command runs as `nobody`, who cannot write there.
    @Test func aReadOnlyDirectoryIsNamed() throws {
        let dir = try Self.scratch()
        let locked = dir.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
            try? FileManager.default.removeItem(at: dir)
        }
        let file = try Self.write("a\n1\n", "x.csv", in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let store = locked.appendingPathComponent("n.sqlite").path
        let r = try ReadingCommandTests.runWithoutPrivileges(["import", store, file, "--entity", "T"])
        #expect(r.status == 1)
        #expect(r.stderr == "error: cannot create \(store) in '\(locked.path)': permission denied\nhint: choose a directory you can write to, or ask its owner for write permission\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
    }
}

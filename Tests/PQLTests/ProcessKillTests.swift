import CSQLite
import Foundation
import PQLTestSupport
import PQLStore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `pql import`, `pql update` and `pql delete` killed with SIGKILL in the middle of their
/// transaction: the store must open, pass `PRAGMA integrity_check`, and hold all or none of
/// what the killed command was writing.
///
/// The kill is placed by watching the store's write-ahead log: these transactions write far
/// more pages than SQLite's page cache holds, so SQLite spills pages into `STORE-wal` while
/// the transaction runs, long before the commit frame. A WAL that has grown to some fraction
/// of the size a complete run reaches (measured on an identical run) means the command is
/// mid-transaction; the child is killed at that moment. Each command is killed at three
/// moments (10%, 50% and 90% of the full WAL; the last usually lands in the commit's own
/// write, and may leave all or none). The outcome of every kill is printed ("none" or "all").
/// A test fails if any outcome is neither, if the integrity check says anything but "ok", or
/// if no kill left "none" (then no kill landed before the commit and the test proved
/// nothing; before failing it retries at smaller fractions of the WAL).
@Suite("pql killed mid-transaction", .serialized)
struct ProcessKillTests {
    @Test("an import killed mid-transaction leaves none or all of its rows")
    func killedImport() throws {
        let f = try KillFixture.shared.get()
        try KillRun.killRepeatedly(label: "import", base: f.smallStore, fullWAL: f.importWAL, in: f.dir, arguments: { store in
            ["import", store, f.bigFile, "--entity", KillFixture.entity]
        }, outcome: { store in
            let s = try PredicateStore(path: store)
            let total = try s.count(EntityQuery(KillFixture.entity))
            // The committed small batch is intact whatever happened to the big one.
            let small = try s.count(EntityQuery(KillFixture.entity, where: "id < %@", [KillFixture.smallRows]))
            guard small == KillFixture.smallRows else { return (nil, "\(small) rows of the committed batch left") }
            switch total {
            case KillFixture.smallRows: return (.nothing, "\(total) rows")
            case KillFixture.smallRows + KillFixture.bigRows: return (.everything, "\(total) rows")
            default: return (nil, "\(total) rows: neither \(KillFixture.smallRows) nor \(KillFixture.smallRows + KillFixture.bigRows)")
            }
        })
    }

    @Test("a batch update killed mid-transaction leaves every row as it was or every row changed")
    func killedUpdate() throws {
        let f = try KillFixture.shared.get()
        let n = KillFixture.smallRows + KillFixture.bigRows
        let arguments = { (store: String) in ["update", store, "--entity", KillFixture.entity, "--set", "flag=1"] }
        let outcome = { (store: String) throws -> (KillOutcome?, String) in
            let s = try PredicateStore(path: store)
            let total = try s.count(EntityQuery(KillFixture.entity))
            let ones = try s.count(EntityQuery(KillFixture.entity, where: "flag == 1"))
            let zeros = try s.count(EntityQuery(KillFixture.entity, where: "flag == 0"))
            let description = "\(total) rows, \(ones) with flag 1, \(zeros) with flag 0"
            guard total == n, ones + zeros == n else { return (nil, description) }
            return (ones == 0 ? .nothing : ones == n ? .everything : nil, description)
        }
        let full = try KillRun.calibrate(label: "update", base: f.fullStore, in: f.dir, arguments: arguments, expectedOutput: "\(n)\n", outcome: outcome)
        try KillRun.killRepeatedly(label: "update", base: f.fullStore, fullWAL: full, in: f.dir, arguments: arguments, outcome: outcome)
    }

    @Test("a batch delete killed mid-transaction leaves every matching row or none")
    func killedDelete() throws {
        let f = try KillFixture.shared.get()
        let n = KillFixture.smallRows + KillFixture.bigRows
        let odd = n / 2   // ids run from 0 to n - 1, n even
        let arguments = { (store: String) in ["delete", store, "--entity", KillFixture.entity, "--where", "odd == %@", "--arg", "1"] }
        let outcome = { (store: String) throws -> (KillOutcome?, String) in
            let s = try PredicateStore(path: store)
            let total = try s.count(EntityQuery(KillFixture.entity))
            let odds = try s.count(EntityQuery(KillFixture.entity, where: "odd == 1"))
            let description = "\(total) rows, \(odds) odd"
            if total == n && odds == odd { return (.nothing, description) }
            if total == n - odd && odds == 0 { return (.everything, description) }
            return (nil, description)
        }
        let full = try KillRun.calibrate(label: "delete", base: f.fullStore, in: f.dir, arguments: arguments, expectedOutput: "\(odd)\n", outcome: outcome)
        try KillRun.killRepeatedly(label: "delete", base: f.fullStore, fullWAL: full, in: f.dir, arguments: arguments, outcome: outcome)
    }
}

/// What a killed command left in the store.
enum KillOutcome: String {
    /// None of the killed transaction: the store as it was before the command.
    case nothing = "none"
    /// All of it: the kill came after the commit.
    case everything = "all"
}

/// Built once for the suite: a JSON Lines file of `bigRows` rows, a store holding a committed
/// batch of `smallRows` rows of the same entity, and a store holding both (imported with
/// `pql import`, which gives the size of a complete import's WAL).
struct KillFixture: Sendable {
    static let entity = "Row"
    static let smallRows = 10
    static let bigRows = 300_000

    let dir: URL
    let bigFile: String
    /// The small batch only.
    let smallStore: String
    /// The small batch and the big file.
    let fullStore: String
    /// The largest `-wal` size seen while the big file was imported in full.
    let importWAL: Int

    static let shared: Result<KillFixture, any Error> = Result { try KillFixture() }
    /// Where the fixture lives; removed when the test process exits.
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pql-kill-\(UUID().uuidString)")

    private init() throws {
        dir = Self.directory
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: KillFixture.directory) }
        // ids 0..<smallRows in the small batch, then smallRows..<smallRows + bigRows.
        func lines(_ ids: Range<Int>) -> String {
            var text = ""
            text.reserveCapacity(ids.count * 56)
            for i in ids { text += #"{"id": \#(i), "name": "row \#(i)", "flag": 0, "odd": \#(i % 2)}"# + "\n" }
            return text
        }
        let smallFile = dir.appendingPathComponent("small.jsonl").path
        bigFile = dir.appendingPathComponent("big.jsonl").path
        try lines(0..<Self.smallRows).write(toFile: smallFile, atomically: false, encoding: .utf8)
        try lines(Self.smallRows..<(Self.smallRows + Self.bigRows)).write(toFile: bigFile, atomically: false, encoding: .utf8)

        smallStore = dir.appendingPathComponent("small.sqlite").path
        let small = try PQLProcess.run(["import", smallStore, smallFile, "--entity", Self.entity])
        guard small.status == 0 else { throw KillRunError("the small import failed: \(small.stderr)") }

        fullStore = dir.appendingPathComponent("full.sqlite").path
        try KillRun.copyStore(smallStore, to: fullStore)
        let full = try KillRun.run(["import", fullStore, bigFile, "--entity", Self.entity], store: fullStore, killAtWAL: nil, in: dir)
        guard !full.killed, full.status == 0 else { throw KillRunError("the full import failed: \(full.stderr)") }
        importWAL = full.maxWAL
        let s = try PredicateStore(path: fullStore)
        let n = try s.count(EntityQuery(Self.entity))
        guard n == Self.smallRows + Self.bigRows else { throw KillRunError("the full import left \(n) rows") }
        guard importWAL > 1 << 20 else {
            throw KillRunError("the full import's WAL reached only \(importWAL) bytes: too small to kill it mid-transaction by its size")
        }
    }
}

struct KillRunError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A `pql` child process, killed with SIGKILL when the store's WAL reaches a size.
struct KillRun {
    /// Whether the child died of the SIGKILL the test sent.
    var killed: Bool
    /// The exit status when it was not killed.
    var status: Int32
    /// The WAL size the kill was sent at (0 when none was sent).
    var walAtKill: Int
    /// The largest WAL size seen while the child ran.
    var maxWAL: Int
    var stdout: String
    var stderr: String

    /// The size of the file at `path`, 0 when there is none.
    static func fileSize(_ path: String) -> Int {
        var s = stat()
        return stat(path, &s) == 0 ? Int(s.st_size) : 0
    }

    /// Copies a store's files (its WAL too, if there is one; not its shared-memory index).
    static func copyStore(_ from: String, to: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }
        try FileManager.default.copyItem(atPath: from, toPath: to)
        if FileManager.default.fileExists(atPath: from + "-wal") {
            try FileManager.default.copyItem(atPath: from + "-wal", toPath: to + "-wal")
        }
    }

    /// Copies a store that failed its checks to a directory of its own.
    static func keepStore(_ path: String) {
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("pql-kill-kept-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: path).lastPathComponent
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.copyItem(atPath: path + suffix, toPath: kept.appendingPathComponent(name + suffix).path)
        }
        print("ProcessKillTests: kept \(kept.appendingPathComponent(name).path)")
    }

    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Runs `pql arguments`, polling `store-wal`; sends SIGKILL as soon as it holds
    /// `killAtWAL` bytes or more (never, for nil).
    static func run(_ arguments: [String], store: String, killAtWAL: Int?, in dir: URL) throws -> KillRun {
        // Files, not pipes: nothing has to be read for the child to go on writing.
        let out = dir.appendingPathComponent("child-\(UUID().uuidString).out").path
        let err = dir.appendingPathComponent("child-\(UUID().uuidString).err").path
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        let wal = store + "-wal"
        var maxWAL = 0, walAtKill = 0
        let r: ChildProcess.Result
        do {
            r = try ChildProcess.run(PQLProcess.binary.path, arguments, stdout: .file(out), stderr: .file(err), timeout: .seconds(300),
                                     interval: .microseconds(200)) { pid in
                guard walAtKill == 0 else { return }
                let size = fileSize(wal)
                maxWAL = max(maxWAL, size)
                if let killAtWAL, size >= killAtWAL {
                    kill(pid, SIGKILL)
                    walAtKill = size
                }
            }
        } catch {
            throw KillRunError("pql \(arguments.joined(separator: " ")): \(error) \((try? String(contentsOfFile: err, encoding: .utf8)) ?? "")")
        }
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        return KillRun(killed: r.signal == SIGKILL,
                       status: r.signal ?? r.status, walAtKill: walAtKill, maxWAL: maxWAL,
                       stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", stderr: stderr)
    }

    /// `PRAGMA integrity_check` through SQLite's own API: its rows, "ok" alone when the file is sound.
    static func integrityCheck(_ path: String) -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            return ["cannot open \(path)"]
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            return ["cannot prepare: " + String(cString: sqlite3_errmsg(db))]
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        var rc = sqlite3_step(statement)
        while rc == SQLITE_ROW {
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
            rc = sqlite3_step(statement)
        }
        if rc != SQLITE_DONE { rows.append("step failed: " + String(cString: sqlite3_errmsg(db))) }
        return rows
    }

    /// Opens the store as `pql` would, checks its integrity, and returns what `outcome` finds
    /// in it (nil: neither all nor none), recording an issue for anything wrong.
    static func check(_ store: String, context: String,
                      outcome: (String) throws -> (KillOutcome?, String)) -> KillOutcome? {
        let found: (KillOutcome?, String)
        do {
            found = try outcome(store)   // opens it with PredicateStore(path:)
        } catch {
            Issue.record("\(context): the store does not open or cannot be counted: \(error)")
            return nil
        }
        let integrity = integrityCheck(store)
        #expect(integrity == ["ok"], "\(context): PRAGMA integrity_check: \(integrity.prefix(5))")
        guard let result = found.0 else {
            Issue.record("\(context): the store holds part of the killed transaction: \(found.1)")
            return nil
        }
        // The command line opens it too.
        let count = try? PQLProcess.run(["query", store, "--entity", KillFixture.entity, "--count"])
        #expect(count?.status == 0, "\(context): pql query --count on the killed store: \(count?.stderr ?? "")")
        print("ProcessKillTests: \(context): \(result.rawValue) (\(found.1))")
        return integrity == ["ok"] ? result : nil
    }

    /// Runs the command to completion on a copy of `base` (it must print `expectedOutput` and
    /// leave "all") and returns the largest WAL size seen.
    static func calibrate(label: String, base: String, in dir: URL, arguments: (String) -> [String],
                          expectedOutput: String, outcome: (String) throws -> (KillOutcome?, String)) throws -> Int {
        let store = dir.appendingPathComponent("\(label)-complete.sqlite").path
        try copyStore(base, to: store)
        defer { removeStore(store) }
        let r = try run(arguments(store), store: store, killAtWAL: nil, in: dir)
        #expect(!r.killed && r.status == 0, "\(label): \(r.stderr)")
        #expect(r.stdout == expectedOutput)
        #expect(check(store, context: "\(label) run to completion", outcome: outcome) == .everything)
        guard r.maxWAL > 1 << 20 else {
            throw KillRunError("\(label): the WAL reached only \(r.maxWAL) bytes: too small to kill the command mid-transaction by its size")
        }
        return r.maxWAL
    }

    /// Kills the command at 10%, 50% and 90% of `fullWAL` (each time on a fresh copy of `base`)
    /// and checks each store; then, while no kill has left "none", at smaller fractions, up to
    /// three more times.
    static func killRepeatedly(label: String, base: String, fullWAL: Int, in dir: URL, arguments: (String) -> [String],
                               outcome: (String) throws -> (KillOutcome?, String)) throws {
        var fractions = [0.1, 0.5, 0.9]
        var nones = 0, retries = 0, i = 0
        while i < fractions.count {
            let fraction = fractions[i]
            i += 1
            let store = dir.appendingPathComponent("\(label)-\(i).sqlite").path
            try copyStore(base, to: store)
            // At least one page frame past the WAL header: that much is written only inside the transaction.
            let threshold = max(Int(Double(fullWAL) * fraction), 32 + 24 + 4096)
            let r = try run(arguments(store), store: store, killAtWAL: threshold, in: dir)
            let context = r.killed
                ? "\(label) killed at \(r.walAtKill) WAL bytes (\(Int(fraction * 100))% of \(fullWAL))"
                : "\(label) finished before the WAL reached \(threshold) bytes (status \(r.status))"
            if !r.killed { #expect(r.status == 0, "\(context): \(r.stderr)") }
            // The files as the kill left them (opening the store replays or drops its WAL).
            let snapshot = store + ".killed"
            try copyStore(store, to: snapshot)
            let result = check(store, context: context, outcome: outcome)
            if result == .nothing && r.killed { nones += 1 }
            // A store that failed its checks is kept for a look (outside the fixture, which goes at exit).
            if result == nil { keepStore(snapshot) }
            removeStore(store)
            removeStore(snapshot)
            if i == fractions.count && nones == 0 && retries < 3 {
                retries += 1
                fractions.append(fractions.min()! / 4)
            }
        }
        #expect(nones > 0, "\(label): no kill landed before the commit, so nothing was shown about an interrupted transaction")
    }
}

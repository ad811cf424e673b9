import Foundation
import Testing

/// `pql import`s started together on one store (adversarial run): two that both create a new
/// store (F35: one failed with "entity A: removed" and deleted the file, with the rows the
/// other had committed), and two into one existing store (F16: both succeeded and one entity
/// vanished from the model). Each import's first pass reads the whole file before it touches
/// the store, so the two are both past their "is there a store?" check when either writes.
@Suite("pql import: imports started together")
struct ImportRaceCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-import-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A JSON Lines file of `n` records, long enough to read that both imports overlap.
    private static func records(_ n: Int, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent("big.jsonl")
        var text = ""
        text.reserveCapacity(n * 40)
        for i in 0..<n { text += #"{"id": \#(i), "name": "n\#(i)", "v": \#(Double(i) / 2)}"# + "\n" }
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Runs the `pql` commands at once and waits for all.
    private static func together(_ commands: [[String]]) -> [PQLProcess] {
        let results = LockedResults(count: commands.count)
        DispatchQueue.concurrentPerform(iterations: commands.count) { i in
            results.set(i, Result { try PQLProcess.run(commands[i]) })
        }
        return results.all.map { (try? $0.get()) ?? PQLProcess(status: -1, stdout: "", stderr: "\($0)") }
    }

    @Test("two imports creating one store both land, and neither removes it")
    func twoImportsCreateOneStore() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.records(60_000, in: dir)
        for run in 1...2 {
            let store = dir.appendingPathComponent("n\(run).sqlite").path
            let r = Self.together([["import", store, file, "--entity", "A"], ["import", store, file, "--entity", "B"]])
            for p in r { #expect(p.status == 0, "run \(run): \(p.stderr)") }
            let a = try PQLProcess.run(["query", store, "--entity", "A", "--count"])
            let b = try PQLProcess.run(["query", store, "--entity", "B", "--count"])
            #expect(a.stdout == "60000\n" && b.stdout == "60000\n", "run \(run): \(a.stdout)\(a.stderr) \(b.stdout)\(b.stderr)")
            // Nothing is left of the files each import built its store in.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("pql-import") } == [])
        }
    }

    @Test("two imports of new entities into one store keep both in its model")
    func twoImportsIntoOneStore() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.records(60_000, in: dir)
        let seed = dir.appendingPathComponent("one.jsonl")
        try #"{"id": 1}"#.write(to: seed, atomically: true, encoding: .utf8)
        for run in 1...2 {
            let store = dir.appendingPathComponent("e\(run).sqlite").path
            #expect(try PQLProcess.run(["import", store, seed.path, "--entity", "C"]).status == 0)
            let r = Self.together([["import", store, file, "--entity", "A1"], ["import", store, file, "--entity", "B1"]])
            // An import that waited SQLite's 5 s for the other's write lock in vain (a loaded
            // machine writes 60,000 rows slower than that) fails cleanly, as documented; every
            // import that said it succeeded keeps its entity and rows in the model.
            for (p, entity) in zip(r, ["A1", "B1"]) {
                if p.status != 0 {
                    #expect(p.stderr.contains("another process holds the write lock"), "run \(run): \(p.stderr)")
                    continue
                }
                let n = try PQLProcess.run(["query", store, "--entity", entity, "--count"])
                #expect(n.stdout == "60000\n", "run \(run), \(entity): \(n.stderr)")
            }
            #expect(r.contains { $0.status == 0 }, "run \(run): neither import landed")
        }
    }
}

/// The results of processes run on several threads.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<PQLProcess, Error>]
    init(count: Int) { results = Array(repeating: .failure(CancellationError()), count: count) }
    func set(_ i: Int, _ r: Result<PQLProcess, Error>) { lock.withLock { results[i] = r } }
    var all: [Result<PQLProcess, Error>] { lock.withLock { results } }
}

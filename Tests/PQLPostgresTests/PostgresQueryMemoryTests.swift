import Foundation
import PQLTestSupport
@testable import PQLPostgres
import PQLStore
import Testing

/// `pql query URL` prints rows as the server sends them: a large result costs the process
/// about what a one-row result costs.
@Suite("pql query on PostgreSQL in bounded memory")
struct PostgresQueryMemoryTests {
    /// Runs `pql`, its output to `output`, and returns its exit status, standard error and peak
    /// resident memory (KiB): its VmHWM read from /proc while it runs (as PQLTests' import
    /// memory test reads it, and for the same reasons).
    static func runMeasuringMemory(_ arguments: [String], output: URL) throws -> (status: Int32, stderr: String, maxRSSKiB: Int) {
        let r = try ChildProcess.run(CommandLineProcess.binary.path, arguments, environment: CommandLineProcess.environment,
                                     stdout: .file(output.path), measuringMemory: true)
        return (r.status, r.stderrText, r.peakMemoryKiB)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "peak memory is read from Linux's /proc"),
          arguments: ["jsonl", "csv"])
    func largeResultInBoundedMemory(_ format: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pg-mem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await ScratchDatabase.with { url in
            let admin = try await PostgresPredicateStore(url: url, model: try StoreModel([]))
            try await admin.execute("CREATE TABLE big (id bigserial PRIMARY KEY, name text NOT NULL, score double precision, note text)")
            try await admin.execute("""
                INSERT INTO big (name, score, note) SELECT 'person ' || g, (g % 1000) / 8.0,
                'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor' FROM generate_series(1, 200000) g
                """)
            await admin.close()
            let output = dir.appendingPathComponent("out.txt")
            let baseline = try Self.runMeasuringMemory(["query", url, "--entity", "big", "--limit", "1", "--format", format], output: output)
            #expect(baseline.status == 0 && baseline.maxRSSKiB > 0, "\(baseline.stderr)")
            let r = try Self.runMeasuringMemory(["query", url, "--entity", "big", "--format", format], output: output)
            #expect(r.status == 0, "\(r.stderr)")
            let text = try Data(contentsOf: output)
            #expect(text.count > 20_000_000)
            // Every row printed, the last whole: the stream ended where the result did.
            #expect(text.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } == (format == "csv" ? 200_001 : 200_000))
            #expect(String(decoding: text.suffix(300), as: UTF8.self).contains("person 200000"))
            // Gathered before printing, 200,000 records took well over 100 MB more than one.
            #expect(r.maxRSSKiB > 0 && r.maxRSSKiB - baseline.maxRSSKiB < 40_000,
                    "peak \(r.maxRSSKiB) KiB for \(text.count) bytes of output, \(baseline.maxRSSKiB) KiB for one row")
        }
    }
}

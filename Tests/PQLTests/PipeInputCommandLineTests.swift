import Foundation
import PQLTestSupport
import Testing

/// Pipes, FIFOs and devices given where a file is expected (adversarial run): `pql import` of
/// a FIFO blocked forever, opening it again for its second pass, and `<(cat x.csv)` was "cannot
/// tell the format of '63'" (F13); `pql query` on a FIFO or a device named `*.json` said it
/// "cannot hold an SQLite database" (F14).
@Suite("pql import and pql query on pipes and devices")
struct PipeInputCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pipes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs a shell command line (for FIFOs and process substitution) with a bound on its time,
    /// so that a hang fails the test rather than the run.
    private static func shell(_ script: String, in dir: URL) throws -> PQLProcess {
        PQLProcess(try ChildProcess.run("/bin/bash", ["-c", script], environment: ProcessInfo.processInfo.environment.merging(["PQL": PQLProcess.binary.path]) { $1 },
                                        directory: dir.path))
    }

    @Test("import refuses a FIFO and process substitution up front, naming the pipe")
    func importRefusesPipes() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = try Self.shell(#"mkfifo f.csv && timeout -s KILL 20 "$PQL" import s.sqlite f.csv --entity T; echo "status $?""#, in: dir)
        #expect(fifo.stdout == "status 1\n", "\(fifo.stderr)")
        #expect(fifo.stderr.contains("f.csv': it is a pipe, and an import reads its file twice (the types, then the rows)"), "\(fifo.stderr)")
        let substituted = try Self.shell(#"timeout -s KILL 20 "$PQL" import s.sqlite <(printf 'a,b\n1,2\n') --entity T; echo "status $?""#, in: dir)
        #expect(substituted.stdout == "status 1\n", "\(substituted.stderr)")
        #expect(substituted.stderr.contains("it is a pipe"), "\(substituted.stderr)")
        #expect(!substituted.stderr.contains("cannot tell the format"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.sqlite").path))
    }

    @Test("query reads JSON from a FIFO and refuses a device, whatever their names")
    func queryReadsPipesRefusesDevices() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The writer gives up after 20 s and holds none of the test's pipes, so that a pql that
        // does not read the FIFO fails the test instead of hanging it.
        let fifo = try Self.shell(#"mkfifo f.json && { timeout -s KILL 20 bash -c "printf '[{\"a\": 1}, {\"a\": 2}]' > f.json" >/dev/null 2>&1 & } && timeout -s KILL 20 "$PQL" query f.json --where 'a == 2'"#, in: dir)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(fifo.stdout == "{\"a\":2}\n")
        let substituted = try Self.shell(#"timeout -s KILL 20 "$PQL" query <(printf '{"a": 1}\n{"a": 3}\n') --where 'a > 2'"#, in: dir)
        #expect(substituted.stdout == "{\"a\":3}\n", "\(substituted.stderr)")
        let csv = try Self.shell(#"mkfifo f.csv && timeout -s KILL 20 "$PQL" query f.csv; echo "status $?""#, in: dir)
        #expect(csv.stdout == "status 1\n")
        #expect(csv.stderr == "error: 'f.csv' is a pipe, and pql query reads only JSON arrays and JSON Lines from a pipe\nhint: save CSV, ZIP and property-list data to a file and query that\n")
        let device = try Self.shell(#"ln -s /dev/zero z.json && timeout -s KILL 20 "$PQL" query z.json; echo "status $?""#, in: dir)
        #expect(device.stdout == "status 1\n")
        #expect(device.stderr == "error: 'z.json' is a character device, not a data file or a database\nhint: give a file, or pipe JSON in: pql query <(command)\n")
    }
}

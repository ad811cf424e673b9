import Foundation
import PQLTestSupport
import Testing

/// Files that are streams (pipes, FIFOs, process substitution) are read like files; a
/// directory is named as such; option values may start with a minus.
@Suite("command line inputs")
struct CommandLineInputTests {
    static let people = #"[{"name": "Ann", "age": 40}, {"name": "Bo", "age": -3}]"#

    /// Runs a bash command line with `$PQL` set to the binary (for process substitution).
    static func bash(_ script: String) throws -> PQLProcess {
        PQLProcess(try ChildProcess.run("/bin/bash", ["-c", script], environment: ProcessInfo.processInfo.environment.merging(["PQL": PQLProcess.binary.path]) { $1 }))
    }

    @Test func filterReadsProcessSubstitutionAndFIFOs() throws {
        let substituted = try Self.bash(#""$PQL" filter --indices 'age > 0' <(printf '%s' '\#(Self.people)')"#)
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(substituted.stdout == "[0]\n")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("people.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer blocks until pql opens the FIFO to read.
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: fifo) { h.write(Data(Self.people.utf8)); try? h.close() }
        }
        writer.start()
        let r = try PQLProcess.run(["filter", "--indices", "age < 0", fifo])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "[1]\n")

        let folder = try PQLProcess.run(["filter", "age > 0", dir.path])
        #expect(folder.status == 1)
        #expect(folder.stderr == "error: '\(dir.path)' is a directory (name a file in it)\n")
    }

    @Test func theREPLReadsJSONFromAPipe() throws {
        let r = try Self.bash(#"echo 'age > 0' | "$PQL" <(printf '%s' '\#(Self.people)')"#)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Ann") && !r.stdout.contains("Bo"), "\(r.stdout)")
        let csv = try Self.bash(#"echo '.count' | "$PQL" <(printf 'a,b\n1,2\n')"#)
        #expect(csv.status == 1)
        #expect(csv.stderr.contains("pql reads only JSON arrays and JSON Lines from a pipe"), "\(csv.stderr)")
    }

    @Test func optionValuesMayStartWithAMinus() throws {
        let format = try PQLProcess.run(["format", "--arg", "-5", "--arg", "-2.5", "--var", "M=-1", "%@ < %@ AND x > $M"])
        #expect(format.stdout == "-5 < -2.5 AND x > -1\n", "\(format.stderr)")
        let dir = try StoreCommandLineTests.workspace()
        let file = dir.appendingPathComponent("people.json").path
        try Self.people.write(toFile: file, atomically: true, encoding: .utf8)
        let filter = try PQLProcess.run(["filter", "--indices", "--arg", "-1", "age < %@", file])
        #expect(filter.stdout == "[1]\n", "\(filter.stderr)")

        let store = try BatchCommandLineTests.store()
        let query = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "-1 < age", "--count"])
        #expect(query.stdout == "2\n", "\(query.stderr)")
        let arg = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "age > %@", "--arg", "-1", "--count"])
        #expect(arg.stdout == "2\n", "\(arg.stderr)")
        let update = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "-1 < age", "--set", "age=-7"])
        #expect(update.stdout == "2\n", "\(update.stderr)")
        // A surplus --arg is ignored with a warning on standard error, as everywhere (D15).
        let deleted = try PQLProcess.run(["delete", store, "--entity", "Person", "--where", "%@ == age", "--arg", "-7", "--arg", "-8"])
        #expect(deleted.status == 0)
        #expect(deleted.stdout == "2\n", "\(deleted.stderr)")
        #expect(deleted.stderr.contains("warning: 2 arguments were given"), "\(deleted.stderr)")
    }
}

import Foundation
import Testing

/// What the REPL reads scripts and files from: `~` from `$HOME` in `.read`, `.output`, `.once`
/// and `.open`; `.read` of a device or a binary file refused with one error; the line of piped
/// input an error came from.
@Suite(.serialized) struct ReplScriptInputTests {
    /// A scratch home, unlike the password file's (as under sudo, or a test's HOME).
    func home() throws -> URL { try scratchDirectory("pql-script-input") }

    func run(_ arguments: [String], home: URL, stdin: String? = nil) throws -> PQLProcess {
        try PQLProcess.run(arguments, home: home, stdin: stdin)
    }

    @Test func tildeIsTheHomeVariable() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        try #"[{"name": "Ann", "age": 40}, {"name": "Bo", "age": 17}]"#.write(to: h.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        try ".format csv\n.output ~/all.csv\nage > 0\n.output\n.once ~/adults.csv\nage > 20\n".write(to: h.appendingPathComponent("x.pql"), atomically: true, encoding: .utf8)
        let r = try run(["--no-rc", "-c", ".open ~/people.json", "-c", ".read ~/x.pql", "-c", ".open '~/people.json'", "-c", ".count"], home: h)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("opened people.json: 2 rows in memory\nusing people\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("2\n"), "\(r.stdout)")
        #expect(try String(contentsOf: h.appendingPathComponent("all.csv"), encoding: .utf8) == "name,age\nAnn,40\nBo,17\n")
        #expect(try String(contentsOf: h.appendingPathComponent("adults.csv"), encoding: .utf8) == "name,age\nAnn,40\n")
    }

    @Test func readRefusesDevicesAndBinaryFilesWithOneError() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let binary = h.appendingPathComponent("data.bin")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 0x0A, 0x2E, 0x63, 0x6F, 0x0A, 0, 0xFF, 0x0A]).write(to: binary)
        let r = try run(["-c", ".read /dev/zero", "-c", ".read /dev/urandom", "-c", ".read \(binary.path)", "-c", ".count dest == 'HNL'"], home: h)
        #expect(r.status == 1)
        #expect(r.stdout == "707\n", "the commands after still run: \(r.stdout)")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errors == ["error: '/dev/zero' is a character device, not a script", "error: '/dev/urandom' is a character device, not a script",
                           "error: '\(binary.path)' is a binary file, not a script (it holds NUL bytes)"], "\(r.stderr)")
        // A pipe is still a script (process substitution, a FIFO).
        let piped = try CommandLineInputTests.bash(#"HOME=\#(h.path) XDG_CACHE_HOME=\#(DemoCache.directory) "$PQL" --no-rc :demo: -c ".read "<(printf '.count dest == "HNL"\n')"#)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == "707\n", "\(piped.stdout)")
    }

    @Test func pipedScriptErrorsNameTheirLine() throws {
        let h = try home()
        defer { try? FileManager.default.removeItem(at: h) }
        let r = try run([], home: h, stdin: ".count dest == 'HNL'\n\n-- a comment\norgin == 'JFK'\n(dest == 'HNL'\n AND nosuch > 1)\n.count dest == 'HNL'\n")
        #expect(r.status == 1)
        #expect(r.stdout == "707\n707\n", "\(r.stdout)")
        #expect(r.stderr.contains("did you mean 'origin'?\nnote: in standard input, line 4\n"), "\(r.stderr)")
        // An entry on several lines is named by its first.
        #expect(r.stderr.contains("note: in standard input, line 5\n"), "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "note:").count == 3, "\(r.stderr)")
    }
}

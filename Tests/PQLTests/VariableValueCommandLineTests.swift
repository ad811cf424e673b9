import Foundation
import Testing

/// `$variables` on the command line and in the REPL. An unbound one on a data file was
/// raised at row 1 with the Swift API's hint (`variables: ["min": …]`); now it is one error
/// before any row, with the fix of the place it was typed in. `.let $x = name` (or a
/// SUBQUERY) bound nil, and the next predicate silently found nothing; now it is refused.
@Suite struct VariableValueCommandLineTests {
    func withPeople(_ body: (String) throws -> Void) throws {
        let dir = try scratchDirectory("pql-variables")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("people.json")
        try #"[{"name": "Ann", "age": 40, "tags": ["a"]}, {"name": "Bo", "age": 12, "tags": []}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        try body(file.path)
    }

    @Test func anUnboundVariableIsOneErrorBeforeAnyRow() throws {
        try withPeople { path in
            for arguments in [["query", path, "--where", "age > $min"], ["filter", "age > $min", path]] {
                let r = try PQLProcess.run(arguments)
                #expect(r.status == 1)
                #expect(r.stderr.contains("$min has no value"), "\(r.stderr)")
                #expect(r.stderr.contains("--var min="), "\(r.stderr)")
                #expect(!r.stderr.contains("variables: ["), "the Swift API's hint: \(r.stderr)")
                #expect(!r.stderr.contains("record 1") && !r.stderr.contains("element 0"), "\(r.stderr)")
                #expect(r.stderr.contains("^~~~"), "a caret under $min: \(r.stderr)")
            }
            let repl = try PQLProcess.run([path, "-c", "age > $min", "-c", ".let $min = 18", "-c", ".format csv", "-c", "age > $min"])
            #expect(repl.stderr.contains(".let $min = "), "\(repl.stderr)")
            #expect(!repl.stderr.contains("row 1"), "\(repl.stderr)")
            #expect(repl.stdout.contains("Ann,40"), "\(repl.stdout)")
            // A variable the predicate assigns itself needs no value beforehand.
            let assigned = try PQLProcess.run(["query", path, "--where", "($x := age) > 20 AND $x < 50", "--count"])
            #expect(assigned.stdout == "1\n", "\(assigned.stdout)\(assigned.stderr)")
        }
    }

    @Test func letRefusesAValueThatReadsARow() throws {
        try withPeople { path in
            let r = try PQLProcess.run([path, "-c", ".let $x = name", "-c", ".let $y = SUBQUERY(tags, $t, $t == 'a')",
                                        "-c", ".let $z = uppercase:('a')", "-c", ".let"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("the value of $x reads a row (name)"), "\(r.stderr)")
            #expect(r.stderr.contains("the value of $y reads a row (SUBQUERY("), "\(r.stderr)")
            // Only the constant was bound.
            #expect(r.stdout == "$z = \"A\"\n$z = \"A\"\n", "\(r.stdout)")
        }
    }
}

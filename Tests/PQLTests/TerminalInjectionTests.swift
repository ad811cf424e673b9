import Foundation
import Testing

/// Nothing a file or a predicate holds reaches the terminal as a control character. Table
/// and column names of a foreign SQLite file came out raw, ESC and BEL included (`.entities`,
/// `.schema`, table headers), and so did strings the input wrote only as `\u001b`, in the
/// canonical text, `.explain`, `.sql`, `.let` and `--sql` (a raw NUL for `%K "a\u0000b"`).
@Suite struct TerminalInjectionTests {
    /// The control characters of `text` other than newlines and tabs (which are layout).
    func rawControls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || (0x7F...0x9F).contains($0) }
    }

    @Test func namesFromAForeignFileAreShownAsSymbols() throws {
        let dir = try scratchDirectory("pql-injection")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("evil.sqlite").path
        try ReadingCommandTests.sqlite(store, """
            CREATE TABLE "E\u{1B}[31mvil\u{07}" (id INTEGER PRIMARY KEY, "c\u{1B}]0;pwn\u{07}" TEXT);
            INSERT INTO "E\u{1B}[31mvil\u{07}" VALUES (1, 'x');
            """)
        let repl = try PQLProcess.run([store, "-c", ".entities", "-c", ".schema", "-c", "TRUEPREDICATE", "-c", ".format box",
                                       "-c", "TRUEPREDICATE", "-c", ".sql id > 0", "-c", ".explain id > 0", "-c", ".columns"])
        #expect(repl.status == 0, "\(repl.stderr)")
        #expect(rawControls(repl.stdout).isEmpty, "\(repl.stdout)")
        #expect(repl.stdout.contains("E␛[31mvil␇"), "\(repl.stdout)")
        #expect(repl.stdout.contains("c␛]0;pwn␇"), "\(repl.stdout)")
        let table = try PQLProcess.run(["query", store, "--format", "table"])
        #expect(rawControls(table.stdout).isEmpty && table.stdout.contains("c␛]0;pwn␇"), "\(table.stdout)")
        let sql = try PQLProcess.run(["query", store, "--where", "id > 0", "--sql"])
        #expect(rawControls(sql.stdout).isEmpty, "\(sql.stdout)")
    }

    @Test func escapesTheInputWroteStayEscapes() throws {
        let format = try PQLProcess.run(["format", #"name == "a\u001b[31mb" AND note == "\u009b""#])
        #expect(format.stdout == #"name == "a\u001B[31mb" AND note == "\u009B""# + "\n", "\(format.stdout)")
        let key = try PQLProcess.run(["format", "--arg", #""a\u0000b""#, "%K == 1"])
        #expect(key.stdout == #"#"a\u0000b" == 1"# + "\n", "\(key.stdout)")
        let dir = try scratchDirectory("pql-injection")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("plain.sqlite").path
        try ReadingCommandTests.sqlite(store, "CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO T VALUES (1, 'x');")
        let p = #"name == "x\u001b[2J""#
        let repl = try PQLProcess.run([store, "-c", ".sql \(p)", "-c", ".explain \(p)", "-c", #".let $v = "q\u001b]0;t\u0007""#, "-c", ".let"])
        #expect(repl.status == 0, "\(repl.stderr)")
        #expect(rawControls(repl.stdout).isEmpty, "\(repl.stdout)")
        #expect(repl.stdout.contains(#"$v = "q\u001B]0;t\u0007""#), "\(repl.stdout)")
        let sql = try PQLProcess.run(["query", store, "--where", p, "--sql"])
        #expect(rawControls(sql.stdout).isEmpty, "\(sql.stdout)")
        // The canonical text reads back as the same predicate.
        let again = try PQLProcess.run(["format", String(format.stdout.dropLast())])
        #expect(again.stdout == format.stdout)
    }
}

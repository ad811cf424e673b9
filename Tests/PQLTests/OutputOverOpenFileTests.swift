import Foundation
import Testing

/// `.output` and `.once` refuse the file that is open: `pql out1.sqlite -c '.output out1.sqlite'
/// -c 'id < 3'` emptied a 22 MB store to 0 bytes. By any name (a symbolic or a hard link), a
/// data file too; nothing is emptied before the check.
@Suite struct OutputOverOpenFileTests {
    @Test func theOpenDatabaseAndDataFileAreNeverEmptied() throws {
        let dir = try scratchDirectory("pql-output-open")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("out1.sqlite").path
        try ReadingCommandTests.sqlite(store, """
            PRAGMA journal_mode=WAL;
            CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO T VALUES (1, 'a'), (2, 'b'), (3, 'c');
            """)
        let json = dir.appendingPathComponent("people.json").path
        try #"[{"id": 1}, {"id": 2}]"#.write(toFile: json, atomically: true, encoding: .utf8)
        let symbolic = dir.appendingPathComponent("alias.sqlite").path, hard = dir.appendingPathComponent("hard.json").path
        #expect(symlink(store, symbolic) == 0)
        #expect(link(json, hard) == 0)
        let before = try [store, json].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for (file, target) in [(store, store), (store, symbolic), (json, json), (json, hard)] {
            for command in [".output", ".once"] {
                let r = try PQLProcess.run([file, "-c", "\(command) \(target)", "-c", "id < 3"])
                #expect(r.status == 1, "\(command) \(target)")
                #expect(r.stderr.contains("results would overwrite it"), "\(r.stderr)")
            }
        }
        #expect(try [store, json].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // Another file takes the results, emptied first as before.
        let out = dir.appendingPathComponent("out.csv").path
        try "old text that is longer than the result\n".write(toFile: out, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run([store, "-c", ".format csv", "-c", ".output \(out)", "-c", "id < 3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "id,name\n1,a\n2,b\n")
    }
}

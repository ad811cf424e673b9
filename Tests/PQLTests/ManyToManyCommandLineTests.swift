import CSQLite
import Foundation
import Testing

/// `pql query` on a file whose `note_tag` table links notes and tags (issue 27's acceptance):
/// the join table reads as the many-to-many pair `note.tag` / `tag.note`.
@Suite("pql query over a join table")
struct ManyToManyCommandLineTests {
    static let acceptance = """
        CREATE TABLE folder(id INTEGER PRIMARY KEY, name);
        INSERT INTO folder VALUES (1, 'Work'), (2, 'Home');
        CREATE TABLE note(id INTEGER PRIMARY KEY, title, folder_id REFERENCES folder(id));
        INSERT INTO note VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2), (4, 'd', NULL);
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name);
        INSERT INTO tag VALUES (1, 'urgent'), (2, 'later');
        CREATE TABLE note_tag(note_id NOT NULL REFERENCES note(id), tag_id NOT NULL REFERENCES tag(id), PRIMARY KEY (note_id, tag_id));
        INSERT INTO note_tag VALUES (1, 1), (2, 1), (2, 2), (3, 2);
        """

    @Test func acceptanceCounts() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-m2m-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("f.db").path
        try ReadingCommandTests.sqlite(path, Self.acceptance)
        for (entity, predicate, count) in [("note", "folder == 1", "2"), ("note", "folder IN {1, 2}", "3"), ("note", "folder != 1", "2"),
                                           ("note", "SELF IN {1, 3}", "2"), ("note", "ANY tag.name == 'urgent'", "2"),
                                           ("note", "tag.@count == 0", "1"), ("tag", "ANY note.title == 'b'", "2"),
                                           ("note", "ANY tag == 1", "2"), ("note", "2 IN tag", "2"), ("note", "NONE tag == 1", "2")] {
            let r = try PQLProcess.run(["query", path, "--entity", entity, "--where", predicate, "--count"])
            #expect(r.status == 0, "\(predicate): \(r.stderr)")
            #expect(r.stdout == count + "\n", "\(predicate)")
        }
        // The join table is no entity; the pair shows among the relationships.
        let missing = try PQLProcess.run(["query", path, "--entity", "note_tag", "--count"])
        #expect(missing.status != 0)
        let schema = try PQLProcess.run([path], stdin: Data(".schema note\n.schema tag\n".utf8))
        #expect(schema.stdout.contains("tag        many-to-many tag (through note_tag)"), "\(schema.stdout)")
        #expect(schema.stdout.contains("note  many-to-many note (through note_tag)"), "\(schema.stdout)")
        // A note with links is denied (the foreign keys' NO ACTION), one without deleted.
        let denied = try PQLProcess.run(["delete", path, "--entity", "note", "--where", "title == 'b'"])
        #expect(denied.status == 1 && denied.stderr.contains("deny"), "\(denied.stderr)")
        #expect(try PQLProcess.run(["delete", path, "--entity", "note", "--where", "title == 'd'"]).stdout == "1\n")
    }
}

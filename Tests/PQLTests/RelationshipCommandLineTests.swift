import CSQLite
import Foundation
import Testing

/// `pql update` and `pql delete` keep relationships intact: a link (or the attribute holding
/// its key) set to a key no object has, a key attribute changed under objects linking to it,
/// and a delete that would strand linking objects all fail with nothing changed; a to-one
/// relationship can be set by its target's key, as the help says.
@Suite("pql update and delete keep links intact")
struct RelationshipCommandLineTests {
    /// Flights link to airlines by their code (`carrier` → `airline.code`, the demo's shape);
    /// crews cascade with their flight, notes are unlinked from it; an airline with flights
    /// may not be deleted (the foreign key's NO ACTION).
    static func store() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("flights.db").path
        try ReadingCommandTests.sqlite(path, """
            CREATE TABLE airline (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT);
            CREATE TABLE flight (id INTEGER PRIMARY KEY, carrier TEXT REFERENCES airline(code), number INTEGER);
            CREATE TABLE crew (id INTEGER PRIMARY KEY, name TEXT, flight_id INTEGER REFERENCES flight(id) ON DELETE CASCADE);
            CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT, flight_id INTEGER REFERENCES flight(id) ON DELETE SET NULL);
            INSERT INTO airline (code, name) VALUES ('UA', 'United'), ('HA', 'Hawaiian'), ('ZZ', 'Idle');
            INSERT INTO flight (carrier, number) VALUES ('UA', 1), ('UA', 2), ('HA', 51);
            INSERT INTO crew (name, flight_id) VALUES ('Ann', 1), ('Bob', 3);
            INSERT INTO note (text, flight_id) VALUES ('late', 3);
            """)
        return path
    }

    static func rows(_ store: String, _ entity: String) throws -> String {
        try PQLProcess.run(["query", store, "--entity", entity, "--sort", "id"]).stdout
    }

    @Test func linksMustNameAnExistingObject() throws {
        let store = try Self.store()
        let before = try Self.rows(store, "flight")
        for set in ["carrier=XX", "airline=XX"] {
            let r = try PQLProcess.run(["update", store, "--entity", "flight", "--where", "number == 51", "--set", set])
            #expect(r.status == 1, "\(set)")
            #expect(r.stderr.contains("error: flight.airline would link to no airline: none has code 'XX'"), "\(set): \(r.stderr)")
            #expect(r.stderr.contains("insert that airline first"))
        }
        let both = try PQLProcess.run(["update", store, "--entity", "flight", "--set", "carrier=UA", "--set", "airline=HA"])
        #expect(both.status == 1)
        #expect(both.stderr.contains("are stored in one column"))
        #expect(try Self.rows(store, "flight") == before)

        // The help's promise: a to-one is set by the key of the object it links to.
        let moved = try PQLProcess.run(["update", store, "--entity", "flight", "--where", "number == 51", "--set", "airline=UA"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "1\n")
        let united = try PQLProcess.run(["query", store, "--entity", "flight", "--where", "airline.name == 'United'", "--count"])
        #expect(united.stdout == "3\n")
        let unlinked = try PQLProcess.run(["update", store, "--entity", "flight", "--where", "number == 2", "--set", "airline=null"])
        #expect(unlinked.stdout == "1\n", "\(unlinked.stderr)")
        #expect(try PQLProcess.run(["query", store, "--entity", "flight", "--where", "airline == nil", "--count"]).stdout == "1\n")
    }

    @Test func keysOthersLinkToStay() throws {
        let store = try Self.store()
        let before = try Self.rows(store, "airline")
        let renamed = try PQLProcess.run(["update", store, "--entity", "airline", "--where", "code == 'UA'", "--set", "code=UX"])
        #expect(renamed.status == 1)
        #expect(renamed.stderr.contains("changing airline.code would leave flight objects linking to no airline through flight.airline"), "\(renamed.stderr)")
        let flightKey = try PQLProcess.run(["update", store, "--entity", "flight", "--where", "number == 1", "--set", "id=70"])
        #expect(flightKey.status == 1)
        #expect(flightKey.stderr.contains("crew objects"), "\(flightKey.stderr)")
        #expect(try Self.rows(store, "airline") == before)
        // An airline no flight uses may change its code; setting a code to itself changes nothing.
        #expect(try PQLProcess.run(["update", store, "--entity", "airline", "--where", "code == 'ZZ'", "--set", "code=ZY"]).stdout == "1\n")
        #expect(try PQLProcess.run(["update", store, "--entity", "airline", "--where", "code == 'UA'", "--set", "code=UA", "--set", "name=United Airlines"]).stdout == "1\n")
    }

    @Test func deleteRulesHold() throws {
        let store = try Self.store()
        // deny (the foreign key's NO ACTION): an airline with flights stays.
        let deny = try PQLProcess.run(["delete", store, "--entity", "airline", "--where", "code == 'HA'"])
        #expect(deny.status == 1)
        #expect(deny.stderr.contains("cannot delete airline") && deny.stderr.contains("deny"), "\(deny.stderr)")
        #expect(try PQLProcess.run(["query", store, "--entity", "airline", "--count"]).stdout == "3\n")
        // cascade (crew) and nullify (note) when a flight goes.
        let gone = try PQLProcess.run(["delete", store, "--entity", "flight", "--where", "number == 51"])
        #expect(gone.stdout == "1\n", "\(gone.stderr)")
        #expect(try Self.rows(store, "crew") == #"{"id":1,"name":"Ann","flight_id":1}"# + "\n")
        #expect(try Self.rows(store, "note") == #"{"id":1,"text":"late","flight_id":null}"# + "\n")
        // With its flights gone, the airline may go.
        #expect(try PQLProcess.run(["delete", store, "--entity", "airline", "--where", "code == 'HA'"]).stdout == "1\n")
    }
}

import Foundation
import PQL
import PQLPostgres
import Testing

/// Imports with link columns on PostgreSQL (issue 28), as on SQLite (ImportLinkTests): the
/// column becomes a to-one with a foreign key to the destination's (now unique) key, and a code
/// that names no object fails the COPY, naming the line and the code, with nothing written.
@Suite struct PostgresImportLinkTests {
    func failure(_ body: () async throws -> Void) async -> StoreError? {
        do { try await body() } catch let e as StoreError { return e } catch { Issue.record("\(error)") }
        return nil
    }

    @Test func aColumnOfCodesBecomesAToOneAndABadCodeWritesNothing() async throws {
        try await TestServer.withStore { store, schema in
            try await store.importFile(ImportSource(csv: Data(ImportLinkData.airlines.utf8)), into: "Airline")
            let link = ImportLink("carrier", to: "Airline", by: "carrier")
            #expect(try await store.importFile(ImportSource(csv: Data(ImportLinkData.flights.utf8)), into: "Flight", links: [link]) == 4)
            #expect(try await store.count(EntityQuery("Flight", where: "carrier.name BEGINSWITH 'United'")) == 2)
            #expect(try await store.count(EntityQuery("Flight", where: "carrier == nil")) == 1)
            #expect(try await store.count(EntityQuery("Airline", where: "flights.@count == 0")) == 1)
            #expect(try store.model.entity(named: "Flight").relationships.first { $0.name == "carrier" }?.inverse == "flights")
            // The server keeps the link too: a foreign key to the airline's code.
            let constraints = try await store.rows("SELECT count(*)::text FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = '\(schema)' AND c.contype = 'f'")
            #expect(constraints == [["1"]])
            let model = store.model
            let bad = "flight,carrier,dest\n5,UA,SEA\n6,ZZ,DEN\n"
            let e = await failure { try await store.importFile(ImportSource(csv: Data(bad.utf8)), into: "Flight", links: [link]) }
            #expect(e?.kind == .importFailed)
            #expect(e?.message.contains("CSV line 3") == true && e?.message.contains("'ZZ'") == true && e?.message.contains("finds no Airline") == true, "\(String(describing: e))")
            #expect(try await store.count(EntityQuery("Flight")) == 4)
            #expect(store.model == model)
            // An existing entity gains a link (a column and its foreign key).
            try await store.importFile(ImportSource(csv: Data("code,city\nSFO,San Francisco\n".utf8)), into: "Airport")
            try await store.importFile(ImportSource(csv: Data("flight,carrier,dest,hub\n7,AA,MIA,SFO\n".utf8)), into: "Flight",
                                       links: [link, ImportLink("hub", to: "Airport", by: "code")])
            #expect(try await store.count(EntityQuery("Flight", where: "hub.city == 'San Francisco' AND carrier.carrier == 'AA'")) == 1)
            #expect(try await store.count(EntityQuery("Airport", where: "flights.@count == 1")) == 1)
        }
    }
}

/// The small airlines and flights both stores' link tests import.
enum ImportLinkData {
    static let airlines = "carrier,name\nUA,United Air Lines Inc.\nAA,American Airlines Inc.\nB6,JetBlue Airways\n"
    static let flights = "flight,carrier,dest\n1,UA,SFO\n2,UA,LAX\n3,AA,MIA\n4,,BOS\n"
}

import Foundation
import PQL
import PQLStore
import Testing

/// Imports with link columns (issue 28): a column of codes becomes a to-one relationship to the
/// objects those codes name, with an inverse; a code that names no object fails the import,
/// naming the line and the code, and nothing is written.
@Suite struct ImportLinkTests {
    static let airlines = "carrier,name\nUA,United Air Lines Inc.\nAA,American Airlines Inc.\nB6,JetBlue Airways\n"
    static let flights = "flight,carrier,dest\n1,UA,SFO\n2,UA,LAX\n3,AA,MIA\n4,,BOS\n"

    func store() throws -> PredicateStore {
        let s = try PredicateStore(path: ":memory:", model: try StoreModel([]))
        try s.importFile(ImportSource(csv: Data(Self.airlines.utf8)), into: "Airline")
        return s
    }

    func failure(_ body: () throws -> Void) -> StoreError? {
        do { try body() } catch let e as StoreError { return e } catch { Issue.record("\(error)") }
        return nil
    }

    @Test func aColumnOfCodesBecomesAToOneWithAnInverse() throws {
        let s = try store()
        let n = try s.importFile(ImportSource(csv: Data(Self.flights.utf8)), into: "Flight", links: [ImportLink("carrier", to: "Airline", by: "carrier")])
        #expect(n == 4)
        let flight = try s.model.entity(named: "Flight")
        #expect(!flight.attributes.contains { $0.name == "carrier" })
        let link = try #require(flight.relationships.first { $0.name == "carrier" })
        #expect(link.destination == "Airline" && !link.isToMany && link.inverse == "flights" && link.referencedColumn == "carrier")
        #expect(try s.model.entity(named: "Airline").attributes.first { $0.name == "carrier" }?.isUnique == true)
        #expect(try s.count(EntityQuery("Flight", where: "carrier.name BEGINSWITH 'United'")) == 2)
        #expect(try s.count(EntityQuery("Flight", where: "carrier == nil")) == 1)
        #expect(try s.count(EntityQuery("Airline", where: "flights.@count == 0")) == 1)
        #expect(try s.fetchProperties(["name"], EntityQuery("Airline", where: "ANY flights.dest == 'MIA'")).map { $0["name"] } == [.string("American Airlines Inc.")])
        // Through the inverse in a SUBQUERY too.
        #expect(try s.count(EntityQuery("Airline", where: "SUBQUERY(flights, $f, $f.dest BEGINSWITH 'L').@count > 0")) == 1)
    }

    @Test func aCodeNoObjectHasFailsTheImportNamingTheLineAndWritesNothing() throws {
        let s = try store()
        try s.importFile(ImportSource(csv: Data(Self.flights.utf8)), into: "Flight", links: [ImportLink("carrier", to: "Airline", by: "carrier")])
        let model = s.model
        let bad = "flight,carrier,dest\n5,UA,SEA\n6,ZZ,DEN\n"
        let e = failure { try s.importFile(ImportSource(csv: Data(bad.utf8)), into: "Flight", links: [ImportLink("carrier", to: "Airline", by: "carrier")]) }
        #expect(e?.kind == .importFailed)
        #expect(e?.message.contains("CSV line 3") == true && e?.message.contains("'ZZ'") == true && e?.message.contains("finds no Airline") == true, "\(String(describing: e))")
        #expect(try s.count(EntityQuery("Flight")) == 4)
        #expect(s.model == model)
        // Into a new entity: neither the entity nor its inverse is left behind.
        let e2 = failure { try s.importFile(ImportSource(csv: Data(bad.utf8)), into: "Trip", links: [ImportLink("carrier", to: "Airline", by: "carrier")]) }
        #expect(e2?.message.contains("'ZZ'") == true)
        #expect(s.model == model)
        #expect(!s.model.entities.contains { $0.name == "Trip" })
    }

    @Test func linksThatCannotBeMadeAreRefusedWithAHint() throws {
        let s = try store()
        let data = Data(Self.flights.utf8)
        let cases: [(ImportLink, String)] = [
            (ImportLink("carier", to: "Airline", by: "carrier"), "did you mean 'carrier'?"),
            (ImportLink("carrier", to: "Airlne", by: "carrier"), "did you mean 'Airline'?"),
            (ImportLink("carrier", to: "Airline", by: "code"), "Airline's attributes are: carrier, name"),
            (ImportLink("carrier", to: "Airline", by: "carrier", inverse: "name"), "name the inverse otherwise"),
        ]
        for (link, hint) in cases {
            let e = failure { try s.importFile(ImportSource(csv: data), into: "Flight", links: [link]) }
            #expect(e?.hint?.contains(hint) == true, "\(link): \(String(describing: e))")
        }
        // A key several objects hold cannot tell them apart.
        try s.importFile(ImportSource(csv: Data("carrier,name\nUA,Again\n".utf8)), into: "Carrier")
        try s.importFile(ImportSource(csv: Data("carrier,name\nUA,Twice\n".utf8)), into: "Carrier")
        let e = failure { try s.importFile(ImportSource(csv: data), into: "Flight", links: [ImportLink("carrier", to: "Carrier", by: "carrier")]) }
        #expect(e?.message.contains("'UA' names more than one") == true, "\(String(describing: e))")
        #expect(!s.model.entities.contains { $0.name == "Flight" })
        // The command line's form.
        #expect(try ImportLink(parsing: "carrier=Airline.carrier:departures") == ImportLink("carrier", to: "Airline", by: "carrier", inverse: "departures"))
        for text in ["carrier", "carrier=Airline", "=Airline.carrier", "carrier=Airline.carrier:", "carrier=.x"] {
            #expect(failure { _ = try ImportLink(parsing: text) }?.hint?.contains("COLUMN=ENTITY.KEY") == true, "\(text)")
        }
    }

    @Test func anExistingEntityGainsTheLinkAndASecondLinkToTheSameEntityNamesItsInverseApart() throws {
        let s = try store()
        try s.importFile(ImportSource(csv: Data("flight,dest\n9,SFO\n".utf8)), into: "Flight")
        let more = "flight,carrier,dest,partner\n10,AA,MIA,B6\n11,B6,JFK,\n"
        try s.importFile(ImportSource(csv: Data(more.utf8)), into: "Flight", links: [
            ImportLink("carrier", to: "Airline", by: "carrier"), ImportLink("partner", to: "Airline", by: "carrier"),
        ])
        let airline = try s.model.entity(named: "Airline")
        #expect(Set(airline.relationships.map(\.name)) == ["flights", "flights_partner"])
        #expect(try s.count(EntityQuery("Flight")) == 3)
        #expect(try s.count(EntityQuery("Flight", where: "carrier.carrier == 'AA' AND partner.name BEGINSWITH 'Jet'")) == 1)
        #expect(try s.count(EntityQuery("Airline", where: "flights_partner.@count > 0")) == 1)
    }
}

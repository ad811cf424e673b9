import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Codable records and fetch request templates on a real server, beside the SQLite store.
@Suite struct PostgresRecordTests {
    struct Person: Codable, Equatable, Sendable {
        var id: Int64
        var name: String?
        var age: Int?
        var score: Double?
        var active: Bool?
        var born: Date?
        var balance: Decimal?
        var photo: Data?
        var employer: Int64?
    }

    @Test func recordsDecodeAsFromTheSQLiteStore() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let query = EntityQuery("Person", sort: [SortRule("name")])
            let want = try lite.fetch(query, as: Person.self)
            let got = try await pg.fetch(query, as: Person.self)
            #expect(got == want && got.count == PostgresBatchTests.people.count)
            let ada = try #require(got.first)
            #expect(ada.name == "Ada" && ada.employer == 1 && ada.balance == Decimal(string: "10.25") && ada.photo == Data([0, 1, 255]))
            #expect(ada.born == Date(timeIntervalSinceReferenceDate: -6000 * PostgresBatchTests.day))
            // A type the records do not fit is an error worded as SQLite's.
            struct Wrong: Decodable, Sendable { var name: Int }
            let sqliteError = PostgresBatchTests.error { () throws(StoreError) in try lite.fetch(query, as: Wrong.self) }
            let error = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.fetch(query, as: Wrong.self) }
            #expect(error?.kind == .invalidValue && error?.kind == sqliteError?.kind)
        }
    }

    @Test func templatesRunWithTheirVariables() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            for minimum in [0, 30, 60, 100] {
                let want = try lite.fetch(template: "OlderThan", variables: ["minimum": .int(Int64(minimum))]).map(\.id)
                let got = try await pg.fetch(template: "OlderThan", variables: ["minimum": .int(Int64(minimum))]).map(\.id)
                #expect(got == want, "\(minimum)")
            }
            #expect(try await pg.fetch(template: "OlderThan", variables: ["minimum": 50]).map { $0["name"] } == ["Linus", "Grace"])
            for (name, variables) in [("OlderThan", [:]), ("Nope", ["minimum": 1])] as [(String, [String: PredicateValue])] {
                let want = PostgresBatchTests.error { () throws(StoreError) in try lite.fetch(template: name, variables: variables) }
                let got = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.fetch(template: name, variables: variables) }
                #expect(want != nil && got?.kind == want?.kind && got?.message == want?.message, "\(name): \(String(describing: got))")
            }
        }
    }
}

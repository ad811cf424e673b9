import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// `upsert(_:_:onConflict:)` on a real server beside the SQLite store's: the same keys, the
/// same contents afterwards, the same errors, and one object when upserts of one key race.
@Suite struct PostgresUpsertTests {
    static let model = try! StoreModel([
        ModelEntity("Airline", attributes: [
            ModelAttribute("carrier", .string, isUnique: true), ModelAttribute("name", .string),
            ModelAttribute("fleet", .integer64, defaultValue: .int(1)),
        ], relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
        ModelEntity("Flight", attributes: [ModelAttribute("code", .string, isUnique: true), ModelAttribute("dest", .string)],
                    relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights")]),
    ])

    struct Carrier: Encodable { var carrier: String; var name: String }

    @Test func insertsThenUpdatesAsSQLite() async throws {
        try await PostgresBatchTests.withBoth(Self.model) { lite, pg, _ in
            let steps: [(String, [String: PredicateValue], String)] = [
                ("Airline", ["carrier": "UA", "name": "United"], "carrier"),
                ("Airline", ["carrier": "UA", "name": "United Airlines"], "carrier"),   // the same object
                ("Airline", ["carrier": "AA"], "carrier"),                              // name nil, fleet its default
                ("Airline", ["carrier": "AA", "fleet": 900], "carrier"),                // name stays nil
                ("Airline", ["carrier": "UA", "name": .null], "carrier"),               // a named nil is written
                ("Flight", ["code": "UA1", "dest": "SFO", "airline": 1], "code"),
                ("Flight", ["code": "UA1", "dest": "LAX"], "code"),                    // the link stays
            ]
            var ids: [Int64] = []
            for (entity, values, key) in steps {
                let id = try await pg.upsert(entity, values, onConflict: key)
                #expect(try lite.upsert(entity, values, onConflict: key) == id, "\(values)")
                ids.append(id)
            }
            #expect(ids == [1, 1, 2, 2, 1, 1, 1])
            let encoded = try await pg.upsert("Airline", encoding: Carrier(carrier: "AA", name: "American"), onConflict: "carrier")
            #expect(try lite.upsert("Airline", encoding: Carrier(carrier: "AA", name: "American"), onConflict: "carrier") == encoded)
            #expect(encoded == 2)
            let (a, b) = try await PostgresBatchTests.contents(lite, pg, model: Self.model)
            #expect(a == b)
            #expect(try await pg.fetch(try EntityQuery("Airline", where: "carrier == 'AA'")).first?["fleet"] == 900)
            #expect(try await pg.fetch(try EntityQuery("Flight", where: "code == 'UA1'")).first?["dest"] == "LAX")
        }
    }

    @Test("errors as the SQLite store's, nothing written", arguments: [
        ("Airline", ["carrier": "UA", "name": "x"] as [String: PredicateValue], "name"),   // not unique
        ("Airline", ["name": "x"], "carrier"),                                              // no value for the key
        ("Airline", ["carrier": .null, "name": "x"], "carrier"),
        ("Airline", ["carrier": "UA"], "code"),                                             // unknown key
        ("Airline", ["carrier": "UA", "nickname": "x"], "carrier"),
        ("Airline", ["carrier": "UA", "fleet": "many"], "carrier"),
        ("Flight", ["code": "X1", "airline": 999], "code"),                                 // a link to no object
    ])
    func errorsAsSQLite(_ entity: String, _ values: [String: PredicateValue], _ key: String) async throws {
        try await PostgresBatchTests.withBoth(Self.model) { lite, pg, _ in
            let before = try await PostgresBatchTests.contents(lite, pg, model: Self.model)
            let liteError = PostgresBatchTests.error { () throws(StoreError) in try lite.upsert(entity, values, onConflict: key) }
            let pgError = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.upsert(entity, values, onConflict: key) }
            #expect(liteError != nil)
            #expect(pgError?.kind == liteError?.kind, "\(String(describing: pgError)) / \(String(describing: liteError))")
            if liteError?.kind != .constraint { #expect(pgError?.message == liteError?.message) }
            let after = try await PostgresBatchTests.contents(lite, pg, model: Self.model)
            #expect(after.1 == before.1 && after.0 == after.1)
        }
    }

    @Test func racingUpsertsOfOneKeyLeaveOneObject() async throws {
        try await PostgresBatchTests.withBoth(Self.model) { _, pg, _ in
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for i in 0..<12 {
                    group.addTask { try await pg.upsert("Airline", ["carrier": "B6", "name": .string("JetBlue \(i)")], onConflict: "carrier") }
                }
                var out: [Int64] = []
                for try await id in group { out.append(id) }
                return out
            }
            #expect(ids.count == 12 && Set(ids).count == 1)
            #expect(try await pg.count(try EntityQuery("Airline", where: "carrier == 'B6'")) == 1)
        }
    }
}

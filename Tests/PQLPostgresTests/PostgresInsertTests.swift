import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `insert(_:_:)` of many objects and `insert(_:encoding:)` on a real server, beside the
/// SQLite store on the same model: the same keys in order, the same contents, the same errors,
/// and nothing inserted when one object fails.
@Suite struct PostgresInsertTests {
    @Test func manyObjectsInOneTransactionAsSQLite() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let acme = try await pg.fetchIDs(try EntityQuery("Company", where: "name == 'Acme'"))[0]
            let people: [[String: PredicateValue]] = [
                ["name": "Kim", "age": 41, "born": .string("1984-05-06T07:08:09Z"), "balance": .decimal(Decimal(string: "0.1")!), "employer": .int(acme)],
                ["name": "Lee", "active": 1, "score": 3, "photo": .string("AAEC")],
                ["city": .null, "email": "x@example.com"],
            ]
            let ids = try await pg.insert("Person", people)
            #expect(ids == (try lite.insert("Person", people)))
            #expect(ids.count == 3 && ids == ids.sorted())
            #expect(try await pg.insert("Person", [] as [[String: PredicateValue]]) == [])
            let (a, b) = try await PostgresBatchTests.contents(lite, pg)
            #expect(a == b)
        }
    }

    @Test("a failing object inserts nothing, with the SQLite store's error", arguments: [
        ("Person", [["name": "ok"], ["name": "bad", "nickname": "x"]] as [[String: PredicateValue]]),
        ("Person", [["name": "ok"], ["age": "old"]]),
        ("Person", [["name": "ok"], ["active": 2]]),
        ("Person", [["born": "yesterday"]]),
        ("Company", [["name": "ok"], ["size": 10]]),
        ("Company", [["name": "ok", "size": 100_000_000_000]]),
        ("Person", [["name": "ok"], ["name": "orphan", "employer": 999_999]]),
        ("Tag", [["name": "x", "person": "nobody"]]),
    ])
    func failuresAsSQLite(_ entity: String, _ objects: [[String: PredicateValue]]) async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let before = try await PostgresBatchTests.contents(lite, pg)
            let liteError = PostgresBatchTests.error { () throws(StoreError) in try lite.insert(entity, objects) }
            let pgError = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.insert(entity, objects) }
            #expect(liteError != nil)
            #expect(pgError?.kind == liteError?.kind, "\(String(describing: pgError)) / \(String(describing: liteError))")
            if liteError?.kind != .constraint { #expect(pgError?.message == liteError?.message) }
            let after = try await PostgresBatchTests.contents(lite, pg)
            #expect(after.1 == before.1)
            #expect(after.0 == after.1)
        }
    }

    struct Hire: Encodable {
        var name: String
        var age: Int
        var born: Date
        var active: Bool
        var score: Double?
    }

    struct Nested: Encodable {
        var name: String
        var tags: [String]
    }

    @Test func encodableValuesAsSQLite() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let hire = Hire(name: "Nia", age: 29, born: Date(timeIntervalSinceReferenceDate: -400_000_000), active: true, score: nil)
            let id = try await pg.insert("Person", encoding: hire)
            #expect(try lite.insert("Person", encoding: hire) == id)
            let (a, b) = try await PostgresBatchTests.contents(lite, pg)
            #expect(a == b)
            let liteError = PostgresBatchTests.error { () throws(StoreError) in try lite.insert("Person", encoding: Nested(name: "x", tags: ["a"])) }
            let pgError = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.insert("Person", encoding: Nested(name: "x", tags: ["a"])) }
            #expect(liteError != nil && pgError?.kind == liteError?.kind && pgError?.message == liteError?.message)
            let notAnObject = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.insert("Person", encoding: [1, 2]) }
            #expect(notAnObject?.kind == .invalidValue)
        }
    }
}

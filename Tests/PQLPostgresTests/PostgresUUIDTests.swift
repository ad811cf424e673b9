import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// A uuid attribute on PostgreSQL (its own `uuid` type) reads and compares as on SQLite and in
/// memory, where it is Foundation's upper-case `uuidString`: a `UUID` argument, a string of
/// either case, text operators, nil. The server once refused `uuid = text`.
@Suite struct PostgresUUIDTests {
    static let emma = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    struct Case: Sendable, CustomStringConvertible {
        var format: String
        var arguments: [any Sendable] = []
        var description: String { "\(format) \(arguments)" }
    }

    @Test(arguments: [
        Case(format: "uuid == %@", arguments: [Self.emma]),
        Case(format: "uuid != %@", arguments: [Self.emma]),
        Case(format: "uuid IN %@", arguments: [[Self.emma, UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!]]),
        Case(format: "uuid == %@", arguments: ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f"]),
        Case(format: "uuid ==[c] %@", arguments: ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f"]),
        Case(format: "uuid == %@", arguments: ["not a uuid"]),
        Case(format: "uuid BEGINSWITH 'E621'"),
        Case(format: "uuid CONTAINS[c] '-9dad-'"),
        Case(format: "uuid LIKE '0000*'"),
        Case(format: "uuid > '6'"),
        Case(format: "uuid == nil"),
        Case(format: "uuid != nil AND name != 'x'"),
    ])
    func comparesAsOnSQLite(_ c: Case) async throws {
        try await PostgresRecordDecodingTests.withBoth { lite, pg in
            let query = try EntityQuery("Item", where: c.format, c.arguments.map { $0 as Any? }, sort: [SortRule("name")])
            let expected = try lite.fetch(query).map(\.id)
            #expect(try await pg.fetch(query).map(\.id) == expected)
            #expect(try await pg.count(query) == expected.count)
        }
    }

    @Test func readsAsOnSQLite() async throws {
        try await PostgresRecordDecodingTests.withBoth { lite, pg in
            let all = EntityQuery("Item", sort: [SortRule("name")])
            let onServer = try await pg.fetch(all).map { $0["uuid"] }
            #expect(onServer == (try lite.fetch(all).map { $0["uuid"] }))
            // Written lower case, read as Foundation writes it.
            #expect(onServer.contains(.string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")))
            #expect(!onServer.contains(.string("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")))
            // A fetched record's uuid is an argument that finds it again.
            let first = try #require(try await pg.fetch(try EntityQuery("Item", where: "uuid != nil", sort: [SortRule("name")])).first)
            #expect(try await pg.count(try EntityQuery("Item", where: "uuid == %@", [first["uuid"]])) >= 1)
        }
    }
}

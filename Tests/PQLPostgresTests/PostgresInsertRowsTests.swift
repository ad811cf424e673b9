import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `insertRows` on PostgreSQL (through `COPY`) beside the SQLite store's on the same model: the
/// same rows stored, values converted by the same rules, the same errors naming the row, and
/// nothing written when a row fails; given keys move the key sequence past them.
@Suite struct PostgresInsertRowsTests {
    static let columns = ["name", "age", "score", "active", "born", "balance", "photo", "employer", "city"]

    @Test func rowsOfEveryKindAsSQLite() async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let acme = try await pg.fetchIDs(try EntityQuery("Company", where: "name == 'Acme'"))[0]
            let rows: [[PredicateValue]] = [
                ["Kim", 41, 2.5, true, .string("1984-05-06T07:08:09Z"), .decimal(Decimal(string: "0.1")!), .data(Data([0, 1, 2])), .int(acme), "Oslo"],
                // An integer where a double goes, 1 for true, seconds since 2001 for a date.
                ["Lee", .null, 3, 1, 86_400.5, .null, .null, .null, .null],
                // Text that COPY must escape, and nil everywhere it may be.
                ["tab\there\nnew\\line", .null, .null, .null, .null, .null, .null, .null, "O'Brien"],
                ["Zoë", -9_223_372_036_854_775_808, 0.25, false, .date(Date(timeIntervalSinceReferenceDate: -1e9)), .decimal(Decimal(string: "-12.5")!), .data(Data([255])), .null, ""],
            ]
            let n = try await pg.insertRows("Person", columns: Self.columns, rows: rows)
            #expect(n == rows.count)
            #expect(try lite.insertRows("Person", columns: Self.columns, rows: rows) == n)
            let (a, b) = try await PostgresBatchTests.contents(lite, pg)
            #expect(a == b)
            #expect(try await pg.insertRows("Person", columns: Self.columns, rows: []) == 0)
            // A column list without attributes the model defaults or the server fills.
            #expect(try await pg.insertRows("Tag", columns: ["name"], rows: [["x"], ["y"]]) == 2)
            #expect(try await pg.count(EntityQuery("Tag", where: "name IN {'x', 'y'} AND person == nil")) == 2)
        }
    }

    @Test("a failing row inserts nothing, with the SQLite store's error naming it", arguments: [
        ("Person", ["name", "nickname"], [["a", "b"]] as [[PredicateValue]]),
        ("Person", ["name", "age"], [["ok", 1], ["bad", "old"]]),
        ("Person", ["name", "active"], [["ok", true], ["ok", true], ["bad", 2]]),
        ("Person", ["born"], [["yesterday"]]),
        ("Person", ["name", "age"], [["ok", 1], ["short"]]),
        ("Person", ["score"], [[.int(9_007_199_254_740_993)]]),
        ("Company", ["name", "size"], [["ok", 1], ["big", 100_000_000_000]]),
        ("Company", ["size"], [[1]]),
        ("Person", ["name"], [["nul\u{0}inside"]]),
    ])
    func failuresAsSQLite(_ entity: String, _ columns: [String], _ rows: [[PredicateValue]]) async throws {
        try await PostgresBatchTests.withBoth { lite, pg, _ in
            let before = try await PostgresBatchTests.contents(lite, pg)
            let liteError = PostgresBatchTests.error { () throws(StoreError) in try lite.insertRows(entity, columns: columns, rows: rows) }
            let pgError = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.insertRows(entity, columns: columns, rows: rows) }
            #expect(pgError != nil)
            let nul = rows.flatMap { $0 }.contains { $0.stringValue?.contains("\u{0}") == true }
            if !nul {
                // SQLite stores U+0000; PostgreSQL's text cannot, which is the one difference.
                #expect(liteError != nil)
                #expect(pgError?.kind == liteError?.kind, "\(String(describing: pgError)) / \(String(describing: liteError))")
                if liteError?.kind != .constraint && liteError?.kind != .sqlite { #expect(pgError?.message == liteError?.message) }
            }
            if columns != ["name", "nickname"] && columns != ["size"] {
                #expect(pgError?.message.hasPrefix("row \(rows.count)") == true, "\(String(describing: pgError))")
            }
            let after = try await PostgresBatchTests.contents(lite, pg)
            #expect(after.1 == before.1)
        }
    }

    @Test func aLinkToNoObjectIsAConstraintAndWritesNothing() async throws {
        try await PostgresBatchTests.withBoth { _, pg, _ in
            let before = try await pg.count("Person")
            let error = await PostgresBatchTests.error { () async throws(StoreError) in
                try await pg.insertRows("Person", columns: ["name", "employer"], rows: [["a", .null], ["b", 999_999]])
            }
            #expect(error?.kind == .constraint)
            #expect(try await pg.count("Person") == before)
        }
    }

    @Test func givenKeysMoveTheKeySequencePastThem() async throws {
        let model = try StoreModel(NotesSchema.entities, names: .postgreSQL)
        try await TestServer.withStore(model: model) { store, _ in
            _ = try await store.createTables()
            #expect(try await store.insertRows("Folder", columns: ["id", "name"], rows: [[70, "a"], [40, "b"]]) == 2)
            // The next key the server assigns is past the largest given.
            #expect(try await store.insert("Folder", ["name": "next"]) == 71)
            #expect(try await store.insertRows("Folder", columns: ["name"], rows: [["c"]]) == 1)
            let names = try await store.fetch(EntityQuery("Folder", sort: [SortRule("name")])).map { "\($0.id) \($0["name"].stringValue ?? "")" }
            #expect(names == ["70 a", "40 b", "72 c", "71 next"])
            // A key given twice is the server's unique violation, and nothing of the call stays.
            let error = await PostgresBatchTests.error { () async throws(StoreError) in
                try await store.insertRows("Folder", columns: ["id", "name"], rows: [[80, "d"], [70, "again"]])
            }
            #expect(error?.kind == .constraint)
            #expect(try await store.count("Folder") == 4)
            // Links by key to the given keys.
            #expect(try await store.insertRows("Note", columns: ["title", "folder"], rows: [["n1", 70], ["n2", 40], ["n3", .null]]) == 3)
            #expect(try await store.count(EntityQuery("Note", where: "folder.name == 'a'")) == 1)
        }
    }
}

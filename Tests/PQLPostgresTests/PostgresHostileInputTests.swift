import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Values that would be SQL if spliced (quotes, `; DROP TABLE`, backslashes, dollar quotes,
/// control characters) go to the server as bound parameters: each finds exactly its own row,
/// the statement's text never holds them, a `%K` naming an SQL fragment is a typed unknown-key
/// error, and the tables are whole afterwards.
@Suite struct PostgresHostileInputTests {
    static let values = [
        "x'); DROP TABLE \"Item\"; --", "'; DROP TABLE Item; --", "' OR '1'='1", "\\'", "back\\slash\\", "\\",
        "tab\there\u{1}\u{1B}[31m\u{7F}\r\n", "$1", "%@", "E'\\x41'", "$$; DROP SCHEMA public CASCADE; $$", "\"quoted\"",
        "$pql$ SELECT 1 $pql$", "a%b_c*d?", "/* comment */ --", "Robert'); DELETE FROM \"Label\" WHERE ('1' = '1",
    ]

    @Test func valuesAreBoundNeverSpliced() async throws {
        try await PostgresFetchTests.withEmptyTables { store, schema in
            try await store.installFunctions()
            let tablesBefore = try await Self.tables(store, schema)
            #expect(tablesBefore.contains("Item") && tablesBefore.contains("Label"))
            var ids: [Int64] = [], objects: [PredicateValue] = []
            for (i, v) in Self.values.enumerated() {
                let id = try await store.insert("Item", ["name": .string(v), "n": .int(Int64(i))])
                ids.append(id)
                try await store.insert("Label", ["text": .string(v), "item": .int(id)])
                objects.append(.dictionary(["name": .string(v), "n": .int(Int64(i)), "x": .null, "flag": .null, "when": .null, "amount": .null,
                                            "labels": .array([.dictionary(["text": .string(v), "weight": .null])])]))
            }
            for v in Self.values {
                var forms: [(String, [Any?])] = [
                    ("name == %@", [v]), ("name ==[cd] %@", [v]), ("name BEGINSWITH %@", [v]), ("name ENDSWITH[c] %@", [v]),
                    ("name IN %@", [[v, "none"]]), ("ANY labels.text == %@", [v]), ("%K == %@", ["name", v]),
                    ("uppercase:(name) == %@", [v.uppercased()]), ("length:(name) == %@ AND name == %@", [v.utf16.count, v]),
                ]
                if !v.contains("\\E") { forms.append(("name MATCHES %@", ["\\Q" + v + "\\E"])) }
                for (format, args) in forms {
                    let query = try EntityQuery("Item", where: format, args)
                    // The statement is the one a harmless value of the same place gives: the value is a parameter.
                    let harmless = try EntityQuery("Item", where: format, args.map { a -> Any? in
                        if let a = a as? String { return a == "name" ? a : a.hasPrefix("\\Q") ? "\\Qzz\\E" : "zz" }
                        if a is [String] { return ["zz", "none"] }
                        return a
                    })
                    let compiled = try store.sql(for: query), expected = try store.sql(for: harmless)
                    #expect(compiled.sql == expected.sql, "\(format) with \(v.debugDescription): \(compiled.sql)")
                    let want = try PostgresFetchTests.memory(query, ids, objects)
                    let got = try await store.fetchIDs(query)
                    #expect(got == want && got.contains(ids[Self.values.firstIndex(of: v)!]), "\(format) with \(v.debugDescription): \(got), memory \(want)")
                }
            }
            // A key naming an SQL fragment is a key the model lacks: a typed error, nothing run.
            for key in ["name\" = \"name\" OR \"1", "name; DROP TABLE \"Item\"; --", "n) OR (1=1", "name' OR '1'='1", "labels.text\"--"] {
                let query = try EntityQuery("Item", where: "%K == %@", [key, "x"])
                let error = await #expect(throws: StoreError.self, "\(key)") { _ = try await store.fetch(query) }
                #expect(error?.kind == .unknownKey, "\(key): \(String(describing: error))")
            }
            // Every table and row is still there.
            #expect(try await store.count("Item") == Self.values.count)
            #expect(try await store.count("Label") == Self.values.count)
            #expect(try await Self.tables(store, schema) == tablesBefore)
            let names = try await store.fetch(EntityQuery("Item", sort: [SortRule("n")])).map { $0["name"] }
            #expect(names == Self.values.map { .string($0) })
        }
    }

    /// Values PostgreSQL cannot take are typed errors before anything is sent, never a trap in
    /// the client: dates past its timestamps (PostgresNIO's encoder traps beyond ±292,000
    /// years), in a predicate, an insert, an update and an import; more values than one
    /// statement's 65,535 parameters.
    @Test func valuesBeyondPostgreSQLAreTypedErrors() async throws {
        try await PostgresFetchTests.withEmptyTables { store, _ in
            let id = try await store.insert("Item", ["name": "a", "when": .date(Date(timeIntervalSinceReferenceDate: 0))])
            for seconds in [1e13, -1e13, 1e300, -1e20, Double.infinity, Double.nan] {
                let far = Date(timeIntervalSinceReferenceDate: seconds)
                let attempts: [(String, () async throws(StoreError) -> Void)] = [
                    ("fetch", { () async throws(StoreError) in _ = try await store.fetchIDs(try EntityQuery("Item", where: "when > %@", [far])) }),
                    ("count", { () async throws(StoreError) in _ = try await store.count(try EntityQuery("Item", where: "when == $d", variables: ["d": .date(far)])) }),
                    ("insert", { () async throws(StoreError) in _ = try await store.insert("Item", ["name": "b", "when": .date(far)]) }),
                    ("update", { () async throws(StoreError) in try await store.update("Item", id: id, ["when": .date(far)]) }),
                    ("batch", { () async throws(StoreError) in _ = try await store.batchUpdate(EntityQuery("Item"), set: ["when": .date(far)]) }),
                    ("import", { () async throws(StoreError) in
                        _ = try await store.importTable(ImportTable(columns: ["name", "when"], types: [.string, .date], optional: [true, true],
                                                                    rows: [[.string("c"), .date(far)]]), into: "Item") }),
                ]
                for (what, attempt) in attempts {
                    do throws(StoreError) {
                        try await attempt()
                        Issue.record("\(what) with a date \(seconds) s from 2001 went through")
                    } catch {
                        #expect(error.kind == .invalidValue, "\(what) \(seconds): \(error)")
                        #expect(error.message.contains("PostgreSQL's timestamps"), "\(what) \(seconds): \(error)")
                    }
                }
            }
            #expect(try await store.count("Item") == 1)
            let many = (0..<70_000).map { Int64($0) }
            do throws(StoreError) {
                _ = try await store.count(try EntityQuery("Item", where: "n IN %@", [many]))
                Issue.record("70,000 values went through")
            } catch {
                #expect(error.kind == .unsupported && error.message.contains("65,535"), "\(error)")
            }
        }
    }

    static func tables(_ store: PostgresPredicateStore, _ schema: String) async throws -> [String] {
        try await store.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = \(FoldFunctionSQL.quoteLiteral(schema)) ORDER BY 1").compactMap { $0[0] }
    }
}

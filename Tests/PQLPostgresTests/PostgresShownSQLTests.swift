import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// The SQL the PostgreSQL store shows (`sql(for:)`, `countSQL(for:)`, a grouping fetch's
/// `sql(for:)`) is the SQL it sends: only the parameters the text uses, numbered `$1`, `$2`…
/// in the text and in the list alike, so that it runs as shown (`PREPARE … AS`, then
/// `EXECUTE` with the listed values).
@Suite struct PostgresShownSQLTests {
    @Test func aNilTurnedIntoIsNullLeavesNoParameterBehind() throws {
        let shown = UnusedParameters.dropped(from: CompiledSQL(
            sql: #"SELECT "a$1", '$1 ''$2''' FROM "t" WHERE "x" IS NULL AND "y" = $2 AND "z" = $3 OR "y" < $2"#,
            bindings: [.null, .integer(3), .text("it's")]))
        #expect(shown.compiled.sql == #"SELECT "a$1", '$1 ''$2''' FROM "t" WHERE "x" IS NULL AND "y" = $1 AND "z" = $2 OR "y" < $1"#)
        #expect(shown.compiled.bindings == [.integer(3), .text("it's")])
        #expect(shown.kept == [1, 2])
        #expect(shown.compiled.description.hasSuffix("\n-- bindings: $1 = 3, $2 = 'it''s'"), "\(shown.compiled.description)")
        // Every parameter used: the text is unchanged.
        let all = CompiledSQL(sql: "SELECT $1, $2, x$3", bindings: [.integer(1), .integer(2)])
        #expect(UnusedParameters.dropped(from: all).compiled.sql == all.sql)
        #expect(UnusedParameters.dropped(from: all).compiled.bindings == all.bindings)
    }

    @Test func theShownSQLRunsWithTheShownValues() async throws {
        try await PostgresFetchTests.withItems { store, ids, objects in
            let cases: [(String, [Any?])] = [("name == nil AND n > %@", [5]), ("name == %@ OR n < %@ OR x == %@", [nil, 0, nil]),
                                             ("n == %@ AND name == nil", [6])]
            for (i, (format, args)) in cases.enumerated() {
                let query = try EntityQuery("Item", where: format, args)
                for compiled in [try store.sql(for: query), try store.countSQL(for: query)] {
                    let numbers = Set(UnusedParameters.placeholders(in: compiled.sql).map(\.number))
                    #expect(!compiled.bindings.isEmpty && numbers == Set(1...compiled.bindings.count), "\(format): \(compiled)")
                    #expect(!compiled.bindings.contains(.null), "\(format): \(compiled)")
                    #expect(compiled.description.contains("\n-- bindings: $1 = ") && !compiled.description.contains("?1"), "\(compiled)")
                }
                // As a user would run it in psql: PREPARE the text, EXECUTE with the listed values.
                let shown = try store.sql(for: query)
                let values = shown.bindings.map(\.description).joined(separator: ", ")
                let rows = try await store.withConnection("running the shown SQL") { connection in
                    try await connection.run(PostgresQuery(unsafeSQL: "PREPARE shown\(i) AS " + shown.sql), logger: store.logger)
                    var n = 0
                    for try await _ in try await connection.query(PostgresQuery(unsafeSQL: "EXECUTE shown\(i)(\(values))"), logger: store.logger) { n += 1 }
                    return n
                }
                #expect(rows == (try PostgresFetchTests.memory(query, ids, objects)).count, "\(format): \(shown)")
                #expect(try await store.fetch(query).count == rows, "\(format)")
            }
        }
    }

    @Test func aGroupingFetchsSQLNamesItsParametersAsPostgreSQLDoes() async throws {
        try await PostgresFetchTests.withItems { store, _, objects in
            let group = try GroupQuery("Item", where: "name == nil OR n > 2", groupBy: ["flag"],
                                       select: ["n": "count:(n)"], having: "n > 1")
            let compiled = try store.sql(for: group)
            #expect(compiled.description.contains("\n-- bindings: $1 = "), "\(compiled)")
            #expect(!compiled.description.contains("?1") && !compiled.sql.contains("?1"), "\(compiled)")
            #expect(!compiled.bindings.contains(.null), "\(compiled)")
            let memory = try group.rows(in: objects, reader: PredicateValue.predicateReader)
            #expect(try await store.fetch(group).count == memory.count)
        }
    }
}

import Foundation
import Testing

/// `pql query` on data files as on stores (as duckdb queries a CSV file), and `--entity` left out
/// when there is only one entity.
@Suite(.serialized) struct QueryFileSourceTests {
    func scratch() throws -> URL { try scratchDirectory("pql-query-files") }

    @Test func queriesCSVAndJSONLinesFiles() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("cities.csv")
        try "city,country,population\nParis,FR,2100000\nLyon,FR,520000\nBerlin,DE,3600000\nNowhere,NA,\n".write(to: csv, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run(["query", csv.path, "--where", "population > 1000000", "--sort", "population:desc"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            {"city":"Berlin","country":"DE","population":3600000}
            {"city":"Paris","country":"FR","population":2100000}

            """, "\(r.stdout)")
        let count = try PQLProcess.run(["query", csv.path, "--where", "country == %@", "--arg", "\"FR\"", "--count"])
        #expect(count.status == 0 && count.stdout == "2\n", "\(count.stdout)\(count.stderr)")
        let paged = try PQLProcess.run(["query", csv.path, "--sort", "city", "--offset", "1", "--limit", "2"])
        #expect(paged.stdout == #"{"city":"Lyon","country":"FR","population":520000}"# + "\n" + #"{"city":"Nowhere"}"# + "\n", "\(paged.stdout)")
        // --format applies to files as to stores; a key a record lacks is an empty cell.
        let table = try PQLProcess.run(["query", csv.path, "--sort", "city", "--format", "csv"])
        #expect(table.stdout == "city,country,population\nBerlin,DE,3600000\nLyon,FR,520000\nNowhere,,\nParis,FR,2100000\n", "\(table.stdout)\(table.stderr)")
        let group = try PQLProcess.run(["query", csv.path, "--group-by", "country", "--select", "n=count:(city)", "--select", "people=sum:(population)",
                                        "--sort", "people:desc"])
        #expect(group.status == 0, "\(group.stderr)")
        #expect(group.stdout.hasPrefix(#"{"country":"FR","n":2,"people":2620000}"#) || group.stdout.hasPrefix(#"{"country":"DE","n":1,"people":3600000}"#), "\(group.stdout)")
        #expect(group.stdout.split(separator: "\n").first == #"{"country":"DE","n":1,"people":3600000}"#, "\(group.stdout)")

        let jsonl = dir.appendingPathComponent("people.jsonl")
        try """
            {"name": "Ann", "age": 31, "tags": ["vip"], "address": {"city": "Paris"}}
            {"name": "Bo", "age": 17, "tags": []}

            """.write(to: jsonl, atomically: true, encoding: .utf8)
        let j = try PQLProcess.run(["query", jsonl.path, "--entity", "people", "--where", "ANY tags == 'vip' AND address.city == 'Paris'"])
        #expect(j.status == 0, "\(j.stderr)")
        // Keys in the order the REPL's columns take: the file's.
        #expect(j.stdout == #"{"name":"Ann","age":31,"tags":["vip"],"address":{"city":"Paris"}}"# + "\n", "\(j.stdout)")
        // The store's errors, in memory too: an unknown key with a caret, a wrong entity, no SQL.
        let unknown = try PQLProcess.run(["query", jsonl.path, "--where", "agee > 1"])
        #expect(unknown.status == 1 && unknown.stderr.contains("keypath 'agee' not found") && unknown.stderr.contains("did you mean 'age'"), "\(unknown.stderr)")
        let entity = try PQLProcess.run(["query", jsonl.path, "--entity", "Person"])
        #expect(entity.status == 1 && entity.stderr.contains("its one entity is people"), "\(entity.stderr)")
        let sql = try PQLProcess.run(["query", jsonl.path, "--sql"])
        #expect(sql.status == 1 && sql.stderr.contains("evaluated in memory"), "\(sql.stderr)")
    }

    @Test func theEntityMayBeLeftOutWhenThereIsOne() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("airlines.jsonl")
        let saved = try PQLProcess.run(["query", ":demo:", "--entity", "Airline", "--where", "carrier IN {'UA', 'DL'}", "--sort", "carrier"],
                                       environment: DemoCache.environment)
        #expect(saved.status == 0, "\(saved.stderr)")
        try saved.stdout.write(to: json, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("airlines.sqlite").path
        let imported = try PQLProcess.run(["import", store, json.path, "--entity", "Airline"])
        #expect(imported.status == 0, "\(imported.stderr)")
        // A store with one entity.
        let one = try PQLProcess.run(["query", store, "--where", "name BEGINSWITH 'Delta'"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains(#""carrier":"DL""#) && !one.stdout.contains("UA"), "\(one.stdout)")
        // pql update and pql delete too.
        let update = try PQLProcess.run(["update", store, "--where", "carrier == 'DL'", "--set", "name=Delta"])
        #expect(update.status == 0 && update.stdout == "1\n", "\(update.stdout)\(update.stderr)")
        let delete = try PQLProcess.run(["delete", store, "--where", "carrier == 'UA'"])
        #expect(delete.status == 0 && delete.stdout == "1\n", "\(delete.stdout)\(delete.stderr)")
        let left = try PQLProcess.run(["query", store])
        #expect(left.stdout == #"{"carrier":"DL","name":"Delta"}"# + "\n", "\(left.stdout)\(left.stderr)")
        // The demo has four: the error names them.
        let several = try PQLProcess.run(["query", ":demo:", "--count"], environment: DemoCache.environment)
        #expect(several.status == 1, "\(several.stdout)")
        #expect(several.stderr.contains(":demo: has 4 entities: ") && ["Airline", "Airport", "Plane", "Flight"].allSatisfy(several.stderr.contains), "\(several.stderr)")
        #expect(several.stderr.contains("hint: choose one with --entity"), "\(several.stderr)")
    }
}

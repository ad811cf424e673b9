import Foundation
import Testing

/// `pql import` and `pql query`, through the built binary.
@Suite("pql import and query")
struct StoreCommandLineTests {
    /// A fresh directory with a CSV and a JSON Lines file.
    static func workspace() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try """
        name,age,city,joined,vip
        José,40,Paris,2020-01-02T03:04:05Z,true
        Ángel,17,Lima,NA,false
        "Zoë, Jr.",,Paris,2021-06-01T00:00:00Z,
        """.write(to: dir.appendingPathComponent("people.csv"), atomically: true, encoding: .utf8)
        try """
        {"title": "Dune", "pages": 412, "rating": 4.5}
        {"title": "Emma", "pages": 474}
        """.write(to: dir.appendingPathComponent("books.jsonl"), atomically: true, encoding: .utf8)
        return dir
    }

    @Test func importsThenQueries() throws {
        let dir = try Self.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        let imported = try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("imported 3 rows into Person"))
        let books = try PQLProcess.run(["import", store, dir.appendingPathComponent("books.jsonl").path, "--entity", "Book"])
        #expect(books.status == 0, "\(books.stderr)")

        let count = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "city == 'Paris'", "--count"])
        #expect(count.status == 0)
        #expect(count.stdout == "2\n")

        // Records as JSON Lines in model order; dates as {"$date": …}; nil as null.
        let rows = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "name CONTAINS[cd] %@", "--arg", "\"ANG\""])
        #expect(rows.status == 0, "\(rows.stderr)")
        #expect(rows.stdout == #"{"name":"Ángel","age":17,"city":"Lima","joined":null,"vip":false}"# + "\n")

        let dated = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "joined > %@", "--arg", #"{"$date": "2021-01-01T00:00:00Z"}"#])
        #expect(dated.stdout == #"{"name":"Zoë, Jr.","age":null,"city":"Paris","joined":{"$date":"2021-06-01T00:00:00Z"},"vip":null}"# + "\n")

        // Sorting, paging, variables; x != 17 keeps the row whose age is nil (D3).
        let sorted = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "age != $A", "--var", "A=17",
                                         "--sort", "name:desc", "--limit", "1", "--offset", "0"])
        #expect(sorted.stdout.hasPrefix(#"{"name":"Zoë, Jr.""#))

        let json = try PQLProcess.run(["query", store, "--entity", "Book", "--where", "rating == nil"])
        #expect(json.stdout == #"{"title":"Emma","pages":474,"rating":null}"# + "\n")
    }

    @Test func printsTheSQLWithBoundValues() throws {
        let dir = try Self.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        _ = try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"])
        let r = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "name == %@ AND age > 3", "--arg", #""x'; DROP TABLE Person; --""#, "--sql"])
        #expect(r.status == 0)
        #expect(r.stdout.contains(#"WHERE (t0."name" = ?1 AND t0."age" > ?2)"#))
        #expect(r.stdout.contains("?1 = 'x''; DROP TABLE Person; --'"))
        #expect(!r.stdout.contains("DROP TABLE Person; --\""))
        let count = try PQLProcess.run(["query", store, "--entity", "Person", "--count"])
        #expect(count.stdout == "3\n")
    }

    @Test func reportsErrorsWithCaretsAndStatus() throws {
        let dir = try Self.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        _ = try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"])
        let unknownKey = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "citty == 'Paris'"])
        #expect(unknownKey.status == 1)
        #expect(unknownKey.stderr.contains("keypath 'citty' not found in entity Person"))
        #expect(unknownKey.stderr.contains("did you mean 'city'?"))
        #expect(unknownKey.stderr.contains("1 | citty == 'Paris'\n  | ^~~~~\n"), "\(unknownKey.stderr)")
        let entity = try PQLProcess.run(["query", store, "--entity", "Persn", "--count"])
        #expect(entity.status == 1)
        #expect(entity.stderr.contains("did you mean 'Person'?"))
        let syntax = try PQLProcess.run(["query", store, "--entity", "Person", "--where", "age >"])
        #expect(syntax.status == 1)
        let usage = try PQLProcess.run(["query", store, "--entity", "Person", "--limit", "-1"])
        #expect(usage.status == 2)
        let missing = try PQLProcess.run(["query", dir.appendingPathComponent("nope.sqlite").path, "--entity", "Person"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no database at"))
        let badFile = try PQLProcess.run(["import", store, dir.appendingPathComponent("missing.csv").path, "--entity", "X"])
        #expect(badFile.status == 1)
        // A failed import writes nothing: a value that does not fit the existing entity.
        try "name,age\nBo,not-a-number\n".write(to: dir.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
        let bad = try PQLProcess.run(["import", store, dir.appendingPathComponent("bad.csv").path, "--entity", "Person"])
        #expect(bad.status == 1)
        let after = try PQLProcess.run(["query", store, "--entity", "Person", "--count"])
        #expect(after.stdout == "3\n")
    }

    /// The demo store, built from the shipped nycflights13 files into a fresh cache directory;
    /// figures checked independently against the CSV files.
    @Test func queriesTheDemoStore() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("pql-demo-\(UUID().uuidString)").path
        let env = ["XDG_CACHE_HOME": cache]
        func count(_ entity: String, _ predicate: String) throws -> String {
            let r = try PQLProcess.run(["query", ":demo:", "--entity", entity, "--where", predicate, "--count"], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout
        }
        #expect(try count("Flight", "TRUEPREDICATE") == "336776\n")
        #expect(try count("Flight", "airline.name BEGINSWITH 'United' AND dep_delay > 300") == "84\n")
        #expect(try count("Plane", "ANY flights.dest == 'HNL'") == "30\n")
        #expect(try count("Flight", "destAirport == nil") == "7602\n")   // BQN, SJU, STT, PSE are not in airports.csv
        #expect(try count("Flight", "originAirport.name CONTAINS[c] 'kennedy' AND plane.manufacturer == 'BOEING'") == "24802\n")
        #expect(try count("Airport", "departures.@count > 100000") == "3\n")
        let top = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "dep_delay > 1000",
                                      "--sort", "dep_delay:desc", "--limit", "1"], environment: env)
        #expect(top.stdout.hasPrefix(#"{"year":2013,"month":1,"day":9,"dep_time":641,"sched_dep_time":900,"dep_delay":1301,"#))
        #expect(top.stdout.contains(#""time_hour":{"$date":"2013-01-09T14:00:00Z"}"#))
        try? FileManager.default.removeItem(atPath: cache)
    }
}

import Foundation
import Testing

/// The demo store, built once into a cache directory the REPL tests share.
enum DemoCache {
    static let directory: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pql-repl-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()
    /// A home and config directory with no startup file, so that the user's never runs in tests.
    static let home: String = {
        let d = directory + "/home"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()
    static var environment: [String: String] {
        ["XDG_CACHE_HOME": directory, "PQL_HISTORY": directory + "/history", "HOME": home, "XDG_CONFIG_HOME": home + "/.config"]
    }
}

/// `pql` with standard input not a terminal: one predicate or command per line, plain output.
@Suite(.serialized) struct ReplScriptTests {
    /// A new empty directory for a test's files (the caller removes it).
    func run(_ lines: [String], _ arguments: [String] = []) throws -> PQLProcess {
        try PQLProcess.run(arguments, stdin: Data((lines.joined(separator: "\n") + "\n").utf8), environment: DemoCache.environment)
    }

    @Test func queriesTheDemoFlightsAsATable() throws {
        let r = try run([".columns carrier, flight, origin, dest, dep_delay, airline.name", ".sort dep_delay desc",
                         "origin == 'JFK' AND dep_delay > 1000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            carrier  flight  origin  dest  dep_delay  airline.name
            -------  ------  ------  ----  ---------  ----------------------
            HA           51  JFK     HNL        1301  Hawaiian Airlines Inc.
            MQ         3535  JFK     CMH        1137  Envoy Air
            AA          177  JFK     SFO        1014  American Airlines Inc.
            MQ         3075  JFK     CVG        1005  Envoy Air
            4 rows

            """, "\(r.stdout)")
    }

    @Test func broadQueriesArePagedWithACount() throws {
        let r = try run([".columns carrier, dep_delay", ".sort dep_delay desc", ".limit 3", "dep_delay > 60", ".offset 3", "dep_delay > 60",
                         ".limit 0", ".offset 0", "dep_delay > 1120"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("carrier  dep_delay\n-------  ---------\nHA            1301\nMQ            1137\nMQ            1126\nrows 1–3 of 26,581 … 26,578 more (.limit N or .offset 3 to see them)\n"), "\(r.stdout)")
        #expect(r.stdout.contains("AA            1014\nMQ            1005\nDL             960\nrows 4–6 of 26,581 … 26,575 more (.limit N or .offset 6 to see them)\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("HA            1301\nMQ            1137\nMQ            1126\n3 rows\n"), "\(r.stdout)")
    }

    @Test func nullIsShownAndNumbersAlignRight() throws {
        let dir = try scratchDirectory("pql-repl-null")
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("t.csv")
        try "code,score,note\nA,1,x\nB,NA,a very long note that is wider than any table cell should ever be\nC,22.5,\n".write(to: csv, atomically: true, encoding: .utf8)
        let r = try run([".columns code, score, note", "TRUEPREDICATE"], [csv.path])
        #expect(r.stdout == """
            code  score  note
            ----  -----  -------------------------------
            A       1.0  x
            B      NULL  a very long note that is wider…
            C      22.5  NULL
            3 rows

            """, "\(r.stdout)")
    }

    @Test func commands() throws {
        let r = try run([".entities", ".schema Airline", ".use airport", ".count faa BEGINSWITH 'A'", ".format json", ".limit 2", ".sort faa",
                         "tzone == 'America/Chicago'", ".format csv", "faa == 'ORD'", ".let $code = 'LAX'", ".let", ".format table",
                         ".columns faa, name", "faa == $code", ".sql", ".explain", ".timer off", ".help use", ".quit", "this is never read"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = r.stdout
        #expect(out.contains("* Flight  336,776 rows"), "\(out)")
        #expect(out.contains("Airline (16 rows)\n  carrier  string  (unique, required)\n  name     string\n  flights  to-many Flight\n"), "\(out)")
        #expect(out.contains("using Airport\n"))
        #expect(out.contains(#"{"faa":"#) && out.contains(#""tzone":"America/Chicago""#), "\(out)")
        #expect(out.contains("faa,name,lat,lon,alt,tz,dst,tzone\nORD,Chicago Ohare Intl,"), "\(out)")
        #expect(out.contains("$code = \"LAX\"\n"), "\(out)")
        #expect(out.contains("faa  name\n---  ----------------\nLAX  Los Angeles Intl\n1 row\n"), "\(out)")
        #expect(out.contains(#"SELECT t0."faa", t0."name" FROM "Airport" t0 WHERE t0."faa" = ?1"#) || out.contains(#"WHERE t0."faa" = ?1"#), "\(out)")
        #expect(out.contains("?1 = 'LAX'"), "\(out)")
        #expect(out.contains("plan:\n  SEARCH t0 USING INDEX"), "\(out)")
        #expect(out.contains(".use ENTITY\n  query another entity\n"))
        #expect(!out.contains("never"))
    }

    @Test func errorsShowACaretAndASuggestion() throws {
        let r = try run(["orgin == 'JFK'", "origin BEGINSWTH 'J'", ".use Airplane", ".limit many", ".frmat json", "dep_delay > 5000"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("keypath 'orgin' not found in entity Flight\n --> line 1, column 1\n  |\n1 | orgin == 'JFK'\n  | ^~~~~\n  = hint: did you mean 'origin'?"), "\(r.stderr)")
        #expect(r.stderr.contains("1 | origin BEGINSWTH 'J'\n  |        ^~~~~~~~~"), "\(r.stderr)")
        #expect(r.stderr.contains("hint: did you mean BEGINSWITH?"))
        #expect(r.stderr.contains("error: no entity 'Airplane'"))
        #expect(r.stderr.contains("error: .limit needs a number"))
        #expect(r.stderr.contains("error: unknown command '.frmat'\nhint: did you mean .format?"), "\(r.stderr)")
        #expect(r.stdout.hasSuffix("0 rows\n"), "later lines still run: \(r.stdout)")
    }

    @Test func opensJSONCSVAndPropertyLists() throws {
        let people = PQLProcess.fixtures.appendingPathComponent("people.json").path
        let json = try run([".columns name, age", ".sort age", "age >= 60 AND ANY tags == 'vip'", "agee > 3"], [people])
        #expect(json.stdout.contains("name  age\n----  ---\nÅsa    61\n1 row\n"), "\(json.stdout)")
        #expect(json.stderr.contains("keypath 'agee' not found in people"), "\(json.stderr)")
        #expect(json.stderr.contains("did you mean 'age'?"), "\(json.stderr)")
        let dir = try scratchDirectory("pql-repl-files")
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("cities.csv")
        try "city,country,population\nParis,FR,2100000\nLyon,FR,520000\nBerlin,DE,3600000\n".write(to: csv, atomically: true, encoding: .utf8)
        let c = try run([".entities", ".sort population desc", "country == 'FR'"], [csv.path])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stdout.contains("* cities  3 rows"), "\(c.stdout)")
        #expect(c.stdout.contains("city   country  population\n-----  -------  ----------\nParis  FR          2100000\nLyon   FR           520000\n2 rows\n"), "\(c.stdout)")
        let plist = dir.appendingPathComponent("fruit.plist")
        let data = try PropertyListSerialization.data(fromPropertyList: [["name": "apple", "price": 1.5], ["name": "kiwi", "price": 0.25]],
                                                      format: .xml, options: 0)
        try data.write(to: plist)
        let p = try run(["price < 1", ".sql"], [plist.path])
        #expect(p.stdout.contains("kiwi"), "\(p.stdout)")
        #expect(p.stderr.contains("evaluated in memory"), "\(p.stderr)")
    }

    @Test func opensAnySQLiteFile() throws {
        let dir = try scratchDirectory("pql-repl-db")
        defer { try? FileManager.default.removeItem(at: dir) }
        let people = PQLProcess.fixtures.appendingPathComponent("people.json").path
        let csv = dir.appendingPathComponent("people.csv")
        try "name,age\nAna,34\nBo,27\nCy,61\nDee,45\n".write(to: csv, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("people.db").path
        let imported = try PQLProcess.run(["import", store, csv.path, "--entity", "Person"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let r = try run([".count", ".count age > 30", ".open \(csv.path)", ".count age > 30", ".open \(people)", "name == 'Zoë'"], [store])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("error") == false)
        #expect(r.stdout.hasPrefix("4\n3\nopened people.csv: 4 rows in memory\nusing people\n3\nopened people.json"), "\(r.stdout)")
        #expect(r.stdout.contains("Zoë"), "\(r.stdout)")
        let missing = try run([], [dir.appendingPathComponent("nope.db").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no file at"))
    }
}

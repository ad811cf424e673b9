import Foundation
import PQL
import Testing

/// NaN and the infinities in JSON and JSON Lines output are the `$`-tagged form `Codable`
/// defines (`{"$double": "nan"}`), not `null`: a row that matched `a > 0` showed `"a": null`.
/// Negative zero stays `-0.0` (JSON wrote `0.0`, CSV `-0.0`). `pql` reads both back.
@Suite struct JSONSpecialDoubleTests {
    @Test func jsonTextTagsWhatJSONHasNoNumberFor() throws {
        #expect(PredicateValue.double(.nan).jsonText() == #"{"$double":"nan"}"#)
        #expect(PredicateValue.double(.infinity).jsonText() == #"{"$double":"inf"}"#)
        #expect(PredicateValue.double(-.infinity).jsonText() == #"{"$double":"-inf"}"#)
        #expect(PredicateValue.double(-0.0).jsonText() == "-0.0")
        #expect(PredicateValue.double(0.0).jsonText() == "0.0")
        // The same text as Codable's encoding of the value.
        let coded = String(decoding: try JSONEncoder().encode(PredicateValue.double(.infinity)), as: UTF8.self)
        #expect(coded == #"{"$double":"inf"}"#)
    }

    @Test func whatJSONTextWritesReadsBackAsTheSameDouble() throws {
        for d in [Double.nan, .infinity, -.infinity, -0.0, 0.0, 2.5, -1e300] {
            let back = try JSONReader.value(from: PredicateValue.array([.double(d)]).jsonText())
            guard case .array(let a) = back, case .double(let x)? = a.first else {
                Issue.record("\(d) read back as \(back)")
                continue
            }
            #expect(x.bitPattern == d.bitPattern || (x.isNaN && d.isNaN), "\(d) read back as \(x)")
        }
        #expect(throws: JSONReadError.self) { try JSONReader.value(from: #"{"$double": "many"}"#) }
    }

    @Test func queryOutputKeepsInfinitiesAndNegativeZero() throws {
        let dir = try scratchDirectory("pql-doubles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("values.sqlite").path
        try ReadingCommandTests.sqlite(store, """
            CREATE TABLE V (id INTEGER PRIMARY KEY, a REAL);
            INSERT INTO V VALUES (1, 1e999), (2, -1e999), (3, 2.5);
            """)
        let matched = try PQLProcess.run(["query", store, "--where", "a > 0"])
        #expect(matched.stdout == "{\"id\":1,\"a\":{\"$double\":\"inf\"}}\n{\"id\":3,\"a\":2.5}\n", "\(matched.stdout)\(matched.stderr)")
        let json = try PQLProcess.run([store, "-c", ".format json", "-c", "id == 2"])
        #expect(json.stdout.contains(#"{"id":2,"a":{"$double":"-inf"}}"#), "\(json.stdout)")
        // A data file: what pql wrote reads back the same, and -0.0 stays -0.0.
        let file = dir.appendingPathComponent("values.jsonl")
        try "{\"a\":{\"$double\":\"inf\"}}\n{\"a\":-0.0}\n".write(to: file, atomically: true, encoding: .utf8)
        let lines = try PQLProcess.run(["query", file.path])
        #expect(lines.stdout == "{\"a\":{\"$double\":\"inf\"}}\n{\"a\":-0.0}\n", "\(lines.stdout)\(lines.stderr)")
        let csv = try PQLProcess.run(["query", file.path, "--format", "csv"])
        #expect(csv.stdout == "a\ninf\n-0.0\n", "\(csv.stdout)")
    }
}

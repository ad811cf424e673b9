import Foundation
import PQL
import Testing

/// Dates as `pql` prints them, in every output format, read back as the same `Date`: in the
/// proleptic Gregorian calendar before 1582 (Foundation's ISO8601DateFormatter, which table,
/// box, CSV, TSV and Markdown used, switches to the Julian calendar there: 1582-10-04 printed
/// as 1582-09-24, 0001-01-01 as 0001-01-03), with every digit of a fraction of a second (they
/// dropped it, and floored a negative one; JSON Lines kept six digits, which did not read back
/// as the same double, so `t == CAST('<printed>', 'NSDate')` matched nothing).
@Suite struct DateTextRoundTripTests {
    @Test func datesBeforeTheGregorianReformPrintInTheProlepticCalendar() throws {
        for text in ["1582-10-04T00:00:00Z", "1582-10-15T00:00:00Z", "0001-01-01T00:00:00Z", "-0044-03-15T12:00:00Z"] {
            let date = try #require(ISO8601.date(from: text))
            #expect(ISO8601.string(from: date) == text)
        }
    }

    @Test func fractionsPrintInDigitsThatReadBackAsTheSameDate() throws {
        #expect(ISO8601.string(from: Date(timeIntervalSinceReferenceDate: -0.25)) == "2000-12-31T23:59:59.75Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.5Z")
        #expect(ISO8601.string(from: Date(timeIntervalSinceReferenceDate: 1.5)) == "2001-01-01T00:00:01.5Z")
        // Seconds that are not a short decimal: every digit their double needs.
        var generator = SystemRandomNumberGenerator()
        var samples: [Double] = [0.1, -0.1, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e-7, 736_257_600.123_456_789, -63_113_904_000.000_001,
                                 Date().timeIntervalSinceReferenceDate]
        for _ in 0..<2000 {
            samples.append(Double.random(in: -7e10...7e10, using: &generator))
            samples.append(Double.random(in: -2...2, using: &generator))
        }
        for t in samples {
            let date = Date(timeIntervalSinceReferenceDate: t)
            let text = ISO8601.string(from: date)
            #expect(ISO8601.date(from: text)?.timeIntervalSinceReferenceDate == t, "\(t) printed as \(text)")
        }
    }

    @Test func everyOutputFormatPrintsTheSameDateText() throws {
        let dir = try scratchDirectory("pql-dates")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("events.json")
        try #"""
            [{"id": 1, "t": {"$date": "1582-10-04T00:00:00Z"}},
             {"id": 2, "t": {"$date": "0001-01-01T00:00:00Z"}},
             {"id": 3, "t": {"$date": "1969-12-31T23:59:59.5Z"}},
             {"id": 4, "t": {"$date": "2024-05-01T12:00:00.123456789Z"}}]
            """#.write(to: file, atomically: true, encoding: .utf8)
        let jsonl = try PQLProcess.run(["query", file.path])
        let printed = jsonl.stdout.split(separator: "\n").map { line in
            String(line.split(separator: "\"$date\":\"")[1].prefix { $0 != "\"" })
        }
        #expect(printed.prefix(3) == ["1582-10-04T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z"], "\(jsonl.stdout)")
        for format in ["table", "box", "csv", "tsv", "markdown", "json"] {
            let r = try PQLProcess.run(["query", file.path, "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            for text in printed { #expect(r.stdout.contains(text), "\(format): \(r.stdout)") }
        }
        // What was printed reads back as the same date: each row finds itself.
        for (i, text) in printed.enumerated() {
            let r = try PQLProcess.run(["query", file.path, "--where", "t == CAST('\(text)', 'NSDate')", "--count"])
            #expect(r.stdout == "1\n", "row \(i + 1), \(text): \(r.stdout)\(r.stderr)")
        }
    }
}

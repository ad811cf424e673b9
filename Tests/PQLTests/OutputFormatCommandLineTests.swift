import Foundation
import Testing

/// `--format` of `pql query` and `pql filter`, and the REPL's `.format`, `.headers` and
/// `.nullvalue`: each format read back by a parser of its own kind (CSV by an RFC 4180 parser,
/// JSON by JSONSerialization, Markdown by its shape).
@Suite(.serialized) struct OutputFormatCommandLineTests {
    /// A file of awkward values: commas, quotes, line breaks, pipes, tabs, backslashes, a nil.
    static let awkward = #"""
        [
          {"name": "plain", "note": "x", "n": 1},
          {"name": "comma, quote \" and\nline break", "note": "a|b", "n": 2},
          {"name": "tab\there \\ back", "note": null, "n": 3}
        ]
        """#

    static let names = ["plain", "comma, quote \" and\nline break", "tab\there \\ back"]

    func withFile(_ text: String, _ name: String = "awkward.json", _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        try body(file.path)
    }

    @Test func filterCSVParsesBackWithEveryValue() throws {
        try withFile(Self.awkward) { path in
            let r = try PQLProcess.run(["filter", "--format", "csv", "n >= 1", path])
            #expect(r.status == 0, "\(r.stderr)")
            let records = try CSV.parse(r.stdout)
            // The columns in the file's order of keys.
            #expect(records.first == ["name", "note", "n"], "\(r.stdout)")
            #expect(records.dropFirst().map { $0[0] } == Self.names, "\(r.stdout)")
            #expect(records.dropFirst().map { $0[1] } == ["x", "a|b", ""])
            #expect(records.dropFirst().map { $0[2] } == ["1", "2", "3"])
        }
    }

    @Test func filterTSVEscapesTabsAndLineBreaks() throws {
        try withFile(Self.awkward) { path in
            let r = try PQLProcess.run(["filter", "--format", "tsv", "n >= 1", path])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 4, "one line per row and the header: \(r.stdout)")
            let fields = lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            #expect(fields.allSatisfy { $0.count == 3 }, "\(r.stdout)")
            #expect(fields[0] == ["name", "note", "n"])
            #expect(fields[2][0] == #"comma, quote " and\nline break"#)
            #expect(fields[3][0] == #"tab\there \\ back"#)
            #expect(fields[3][1] == "")
        }
    }

    @Test func filterJSONAndJSONLinesKeepEachElementsText() throws {
        try withFile(Self.awkward) { path in
            let array = try PQLProcess.run(["filter", "--format", "json", "n >= 2", path])
            let parsed = try JSONSerialization.jsonObject(with: Data(array.stdout.utf8)) as? [[String: Any]]
            #expect(parsed?.map { $0["name"] as? String } == Array(Self.names.dropFirst()), "\(array.stdout)")
            let lines = try PQLProcess.run(["filter", "--format", "jsonl", "n >= 2", path])
            let objects = try lines.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.map { $0?["n"] as? Int } == [2, 3], "\(lines.stdout)")
            let none = try PQLProcess.run(["filter", "--format", "json", "n > 5", path])
            #expect(none.stdout == "[]\n")
        }
    }

    @Test func filterMarkdownIsATableWithPipesEscaped() throws {
        try withFile(Self.awkward) { path in
            let r = try PQLProcess.run(["filter", "--format", "markdown", "n >= 1", path])
            #expect(r.status == 0, "\(r.stderr)")
            Markdown.check(r.stdout, columns: ["name", "note", "n"], rows: 3)
            #expect(r.stdout.contains(#"| a\|b |"#), "\(r.stdout)")
            #expect(r.stdout.contains("quote \" and<br>line break"), "\(r.stdout)")
        }
    }

    @Test func filterTablesHaveAColumnPerKey() throws {
        try withFile("{\"a\": 1}\n{\"b\": \"x\"}\n5\n", "mixed.jsonl") { path in
            let table = try PQLProcess.run(["filter", "--format", "table", "TRUEPREDICATE", path])
            #expect(table.stdout == "   a  b     value\n----  ----  -----\n   1  NULL   NULL\nNULL  x      NULL\nNULL  NULL      5\n", "\(table.stdout)")
            let box = try PQLProcess.run(["filter", "--format", "box", "TRUEPREDICATE", path])
            #expect(box.stdout.hasPrefix("┌──────┬──────┬───────┐\n│    a │ b    │ value │\n├──────┼──────┼───────┤\n"), "\(box.stdout)")
            #expect(box.stdout.hasSuffix("└──────┴──────┴───────┘\n"), "\(box.stdout)")
            // Without --format, the input's own shape, as before.
            let same = try PQLProcess.run(["filter", "TRUEPREDICATE", path])
            #expect(same.stdout == "{\"a\": 1}\n{\"b\": \"x\"}\n5\n")
            let both = try PQLProcess.run(["filter", "--indices", "--format", "csv", "TRUEPREDICATE", path])
            #expect(both.status == 2)
        }
    }

    @Test func queryFormatsAgree() throws {
        let base = ["query", ":demo:", "--entity", "Airline", "--where", "name BEGINSWITH 'A'", "--sort", "carrier"]
        let env = DemoCache.environment
        let lines = try PQLProcess.run(base, environment: env)
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(lines.stdout == #"{"carrier":"AA","name":"American Airlines Inc."}"# + "\n" + #"{"carrier":"AS","name":"Alaska Airlines Inc."}"# + "\n"
                + #"{"carrier":"FL","name":"AirTran Airways Corporation"}"# + "\n", "the default stays JSON Lines: \(lines.stdout)")
        #expect(try PQLProcess.run(base + ["--format", "jsonl"], environment: env).stdout == lines.stdout)
        let json = try PQLProcess.run(base + ["--format", "json"], environment: env)
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]]
        #expect(array?.map { $0["carrier"] } == ["AA", "AS", "FL"], "\(json.stdout)")
        let csv = try CSV.parse(try PQLProcess.run(base + ["--format", "csv"], environment: env).stdout)
        #expect(csv == [["carrier", "name"], ["AA", "American Airlines Inc."], ["AS", "Alaska Airlines Inc."], ["FL", "AirTran Airways Corporation"]])
        let tsv = try PQLProcess.run(base + ["--format", "tsv"], environment: env)
        #expect(tsv.stdout == "carrier\tname\nAA\tAmerican Airlines Inc.\nAS\tAlaska Airlines Inc.\nFL\tAirTran Airways Corporation\n")
        let table = try PQLProcess.run(base + ["--format", "table"], environment: env)
        #expect(table.stdout == "carrier  name\n-------  ---------------------------\nAA       American Airlines Inc.\nAS       Alaska Airlines Inc.\nFL       AirTran Airways Corporation\n", "\(table.stdout)")
        let markdown = try PQLProcess.run(base + ["--format", "markdown"], environment: env)
        Markdown.check(markdown.stdout, columns: ["carrier", "name"], rows: 3)
        // No match: the header still names the entity's attributes.
        let empty = try PQLProcess.run(["query", ":demo:", "--entity", "Airline", "--where", "name == 'none'", "--format", "csv"], environment: env)
        #expect(empty.stdout == "carrier,name\n", "\(empty.stdout)")
        let bad = try PQLProcess.run(base + ["--format", "xml"], environment: env)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("markdown"), "\(bad.stderr)")
        let counted = try PQLProcess.run(base + ["--count", "--format", "csv"], environment: env)
        #expect(counted.status == 2)
        #expect(counted.stderr.contains("--format applies to records"), "\(counted.stderr)")
    }

    @Test func queryGroupsTakeFormatsToo() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Flight", "--where", "dep_delay != nil", "--group-by", "airline.name",
                                    "--select", "n=count:(dep_delay)", "--sort", "n:desc", "--limit", "2", "--format", "csv"],
                                   environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try CSV.parse(r.stdout) == [["airline.name", "n"], ["United Air Lines Inc.", "57979"], ["JetBlue Airways", "54169"]], "\(r.stdout)")
    }

    @Test func replFormatsHeadersAndNullValue() throws {
        try withFile(Self.awkward) { path in
            func repl(_ commands: [String]) throws -> PQLProcess {
                try PQLProcess.run([path, "--no-rc"] + commands.flatMap { ["-c", $0] }, environment: DemoCache.environment)
            }
            let setup = [".columns n, name, note", ".sort n"]
            let csv = try repl(setup + [".format csv", "n >= 1"])
            #expect(csv.status == 0, "\(csv.stderr)")
            #expect(try CSV.parse(csv.stdout).dropFirst().map { $0[1] } == Self.names, "\(csv.stdout)")
            #expect(csv.stderr == "3 rows\n", "the count goes to standard error: \(csv.stderr)")
            let json = try repl(setup + [".format json", "n >= 1"])
            let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            #expect(array?.map { $0["name"] as? String } == Self.names, "\(json.stdout)")
            #expect(array?[2]["note"] is NSNull)
            let jsonl = try repl(setup + [".format jsonl", "n >= 2"])
            #expect(jsonl.stdout.split(separator: "\n").count == 2)
            let md = try repl(setup + [".format markdown", ".nullvalue (none)", "n >= 1"])
            Markdown.check(md.stdout, columns: ["n", "name", "note"], rows: 3)
            #expect(md.stdout.hasSuffix("| (none) |\n"), "\(md.stdout)")
            let headless = try repl(setup + [".headers off", ".format csv", ".nullvalue NA", "n >= 3", ".format table", "n >= 3", ".headers on", ".nullvalue", "n >= 3"])
            #expect(headless.stdout == "3,tab\there \\ back,NA\n3  tab⇥here \\ back  NA\n1 row\nn  name             note\n-  ---------------  ----\n3  tab⇥here \\ back  NULL\n1 row\n", "\(headless.stdout)")
            let box = try repl(setup + [".format box", "n == 1"])
            #expect(box.stdout == "┌───┬───────┬──────┐\n│ n │ name  │ note │\n├───┼───────┼──────┤\n│ 1 │ plain │ x    │\n└───┴───────┴──────┘\n1 row\n", "\(box.stdout)")
            let bad = try repl([".format xml", ".headers maybe"])
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("unknown format 'xml'\nhint: the formats are table, box, csv, tsv, json, jsonl, markdown"), "\(bad.stderr)")
            #expect(bad.stderr.contains("write .headers on or .headers off"), "\(bad.stderr)")
        }
    }
}

/// RFC 4180: records of fields separated by commas, a field in double quotes may hold commas,
/// line breaks and doubled quotes; lines end with CRLF or LF.
enum CSV {
    struct Malformed: Error { var reason: String }

    static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = [], record: [String] = [], field = ""
        var chars = Array(text.unicodeScalars)[...]
        var quoted = false, fieldStarted = false
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" { chars.removeFirst(); field.unicodeScalars.append("\"") } else { quoted = false }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty && !fieldStarted else { throw Malformed(reason: "a quote inside an unquoted field: \(field)") }
                quoted = true
                fieldStarted = true
            case ",":
                record.append(field); field = ""; fieldStarted = false
            case "\r" where chars.first == "\n":
                continue
            case "\n":
                record.append(field); records.append(record)
                record = []; field = ""; fieldStarted = false
            default:
                // After a quoted field's closing quote, only a comma or a line break may come.
                if fieldStarted { throw Malformed(reason: "text after a closing quote: \(field)") }
                field.unicodeScalars.append(c)
            }
        }
        if quoted { throw Malformed(reason: "an unclosed quote") }
        if !field.isEmpty || !record.isEmpty { record.append(field); records.append(record) }
        return records
    }
}

/// The shape of a GitHub-flavoured Markdown table: a header row, a `|---|` separator, one line
/// per row, every line with as many unescaped pipes.
enum Markdown {
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = [], current = "", escaped = false
        for c in line {
            if escaped { current.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; current.append(c); continue }
            if c == "|" { cells.append(current.trimmingCharacters(in: .whitespaces)); current = "" } else { current.append(c) }
        }
        cells.append(current)
        return Array(cells.dropFirst())   // before the first pipe: nothing; after the last: ""
    }

    static func check(_ text: String, columns: [String], rows: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == rows + 2, "one line per row after the header and separator: \(text)", sourceLocation: sourceLocation)
        #expect(lines.allSatisfy { $0.hasPrefix("| ") || $0.hasPrefix("|---") }, "\(text)", sourceLocation: sourceLocation)
        #expect(lines.allSatisfy { $0.hasSuffix("|") }, "\(text)", sourceLocation: sourceLocation)
        guard lines.count >= 2 else { return }
        #expect(Array(cells(lines[lines.startIndex]).dropLast()) == columns, "\(text)", sourceLocation: sourceLocation)
        #expect(lines[lines.startIndex + 1] == "|" + String(repeating: "---|", count: columns.count), "\(text)", sourceLocation: sourceLocation)
        for line in lines.dropFirst(2) {
            #expect(cells(line).count == columns.count + 1, "a row with its pipes escaped: \(line)", sourceLocation: sourceLocation)
        }
    }
}

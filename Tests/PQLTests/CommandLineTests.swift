import Foundation
import PQLTestSupport
import Testing

/// Drives the built `pql` binary as a user would: arguments, standard input, exit status,
/// standard output and standard error.
struct PQLProcess {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The `pql` built beside this test bundle (`swift build --build-tests` builds both).
    static var binary: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = bundle.deletingLastPathComponent()
        if bundle.pathExtension != "xctest" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("pql").path) {
            dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug")
        }
        return dir.appendingPathComponent("pql")
    }

    static func run(_ arguments: [String], stdin: Data? = nil, rawArguments: [Data] = [],
                    environment: [String: String] = [:]) throws -> PQLProcess {
        let r = try ChildProcess.run(binary.path, arguments,
                                     environment: ProcessInfo.processInfo.environment.merging(noStartupFile) { $1 }.merging(environment) { $1 },
                                     stdin: stdin ?? Data())
        return PQLProcess(r)
    }

    init(status: Int32, stdout: String, stderr: String) {
        (self.status, self.stdout, self.stderr) = (status, stdout, stderr)
    }

    /// A finished child's status and output.
    init(_ r: ChildProcess.Result) {
        self.init(status: r.status, stdout: r.stdoutText, stderr: r.stderrText)
    }

    /// An empty home and config directory, so that the user's startup file (`pqlrc`,
    /// `~/.pqlrc`) never runs in a test; the demo's cache stays where it was.
    static let noStartupFile: [String: String] = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pql-no-rc-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        let env = ProcessInfo.processInfo.environment
        let cache = env["XDG_CACHE_HOME"] ?? (env["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return ["HOME": d, "XDG_CONFIG_HOME": d + "/.config", "XDG_CACHE_HOME": cache]
    }()

    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
}

@Suite("pql format")
struct FormatCommandTests {
    @Test("the binary is built beside the tests")
    func binaryExists() {
        #expect(FileManager.default.isExecutableFile(atPath: PQLProcess.binary.path),
                "build it with `swift build --build-tests` (scripts/test does)")
    }

    @Test("prints the canonical form", arguments: [
        ("name like[cd] 'a*' && age => 18", "name LIKE[cd] \"a*\" AND age >= 18"),
        ("age between {1,5}", "age BETWEEN {1, 5}"),
        ("none kids.age > 5", "NOT ANY kids.age > 5"),
        ("a + b * c > 1", "a + (b * c) > 1"),
        ("x == NULL", "x == nil"),
        ("SUBQUERY(kids, $k, $k.age > 5).@count > 0", "SUBQUERY(kids, $k, $k.age > 5).@count > 0"),
    ])
    func canonical(input: String, expected: String) throws {
        let r = try PQLProcess.run(["format", input])
        #expect(r.status == 0)
        #expect(r.stdout == expected + "\n")
        #expect(r.stderr.isEmpty)
    }

    @Test("binds --arg values in order, as JSON")
    func arguments() throws {
        let r = try PQLProcess.run(["format", "--arg", "\"firstName\"", "--arg", "\"Adam\"", "%K LIKE %@"])
        #expect(r.stdout == "firstName LIKE \"Adam\"\n")
        let d = try PQLProcess.run(["format", "--arg", "{\"$date\": \"2001-01-01T00:01:00Z\"}", "--arg", "[1, 2.5, null]",
                                    "date > %@ AND x IN %@"])
        #expect(d.stdout == "date > CAST(60.000000, \"NSDate\") AND x IN {1, 2.5, nil}\n")
    }

    @Test("--var substitutes and prints the values in place")
    func variables() throws {
        let r = try PQLProcess.run(["format", "--var", "MIN=18", "--var", "$CITY=\"Paris\"", "age > $MIN AND city == $CITY AND z == $OTHER"])
        #expect(r.status == 0)
        #expect(r.stdout == "age > 18 AND city == \"Paris\" AND z == $OTHER\n")
    }

    @Test("reads the predicate from standard input with -")
    func standardInput() throws {
        let r = try PQLProcess.run(["format", "-"], stdin: Data("age between {1,5}\n".utf8))
        #expect(r.stdout == "age BETWEEN {1, 5}\n")
    }

    @Test("a syntax error goes to stderr with a caret, exit 1")
    func syntaxError() throws {
        let r = try PQLProcess.run(["format", "name NOT IN {'a'}"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("1 | name NOT IN {'a'}"))
        #expect(r.stderr.contains("  |      ^~~~~~"))
        #expect(r.stderr.contains("hint: write NOT (name IN {'a'})"))
    }

    @Test("a binding error names the specifier, exit 1")
    func bindingError() throws {
        let missing = try PQLProcess.run(["format", "a == %@ AND b == %@", "--arg", "1"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("%@ has no argument"))
        // A surplus argument is ignored with a warning, as NSPredicate ignores it (D15).
        let surplus = try PQLProcess.run(["format", "--arg", "1", "--arg", "2", "a == %@"])
        #expect(surplus.status == 0)
        #expect(surplus.stdout == "a == 1\n")
        #expect(surplus.stderr.contains("warning: 2 arguments were given but the format string has 1 specifier: argument 2 is ignored"))
        let mistyped = try PQLProcess.run(["format", "--arg", "5", "%K == 1"])
        #expect(mistyped.status == 1)
        #expect(mistyped.stderr.contains("%K needs a key-path string"))
    }

    @Test("a --arg or --var date PQL cannot read: what is wrong with it, a caret under it, a hint, exit 1", arguments: [
        (#"{"$date":"99999-01-01T00:00:00Z"}"#, "the year 99999 is out of range (PQL reads years -9999 through 9999", 11),
        (#"{"$date": "2023-02-29"}"#, "there is no day 29 in 2023-02, which has 28 days", 20),
        (#"{"$date": "2024-13-01T00:00:00Z"}"#, "there is no month 13 (01 to 12)", 17),
        (#"{"$date": "2024-05-01T24:00:00Z"}"#, "there is no hour 24 (00 to 23)", 23),
        (#"{"$date": "2024-05-01 12:00 UTC"}"#, #"unexpected " UTC" after the time"#, 28),
        (#"{"$date": "yesterday"}"#, "it does not start with a year", 12),
        (#"{"$date": 5}"#, #"a {"$date": …} object needs an ISO-8601 date string"#, 1),
    ])
    func unreadableDate(json: String, problem: String, column: Int) throws {
        for (option, value, name) in [("--arg", json, "--arg 1"), ("--var", "D=" + json, "--var D")] {
            let r = try PQLProcess.run(["format", option, value, option == "--arg" ? "a == %@" : "a == $D"])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("error: \(name): "), "\(r.stderr)")
            #expect(r.stderr.contains(problem), "\(r.stderr)")
            #expect(!r.stderr.contains("not valid JSON"), "\(r.stderr)")
            #expect(r.stderr.contains("--> line 1, column \(column)\n"), "\(r.stderr)")
            #expect(r.stderr.contains("1 | \(json)\n"), "\(r.stderr)")
            #expect(r.stderr.contains("hint: write an ISO-8601 date, as in {\"$date\": \"2024-05-01T12:00:00Z\"}"), "\(r.stderr)")
        }
    }

    @Test("usage errors exit 2", arguments: [
        ["format"], ["format", "--arg"], ["format", "--var", "noequals", "a == $x"], ["format", "--arg", "{bad json", "a == %@"],
        ["nosuchcommand"],
    ])
    func usage(arguments: [String]) throws {
        let r = try PQLProcess.run(arguments)
        #expect(r.status == 2, "stderr: \(r.stderr)")
        #expect(!r.stderr.isEmpty)
    }

    @Test("invalid UTF-8 in the predicate is an error, not a replacement character")
    func invalidUTF8() throws {
        let r = try PQLProcess.run(["format", "-"], stdin: Data([0x61, 0x20, 0x3D, 0x3D, 0x20, 0x27, 0xFF, 0x27]))
        #expect(r.status == 1)
        #expect(r.stderr.contains("not valid UTF-8"))
    }
}

@Suite("pql filter")
struct FilterCommandTests {
    let people = PQLProcess.fixtures.appendingPathComponent("people.json").path

    @Test("writes the matching elements of an array as an array, in input order and text")
    func arrayShape() throws {
        let r = try PQLProcess.run(["filter", "age >= 18 AND name BEGINSWITH[cd] 'a' AND ANY tags == 'vip'", people])
        #expect(r.status == 0, "\(r.stderr)")
        let ids = try idsOf(r.stdout)
        #expect(ids == [1, 3, 5, 8])
        #expect(r.stdout.hasPrefix("[\n  {\"id\": 1, \"name\": \"Ángel\""))
    }

    @Test("--indices writes 0-based positions as one JSON array")
    func indices() throws {
        let r = try PQLProcess.run(["filter", "--indices", "city == 'Paris' OR email == nil", people])
        #expect(r.stdout == "[1,4,5,7]\n")
    }

    @Test("--sort, --offset and --limit page the matches")
    func sortAndPage() throws {
        let r = try PQLProcess.run(["filter", "--indices", "--sort", "age:desc", "--offset", "1", "--limit", "3", "age != nil", people])
        #expect(r.stdout == "[6,4,8]\n")
        let ci = try PQLProcess.run(["filter", "--indices", "--sort", "name:ci", "--limit", "3", "TRUEPREDICATE", people])
        #expect(ci.stdout == "[4,7,5]\n")
    }

    @Test("JSON Lines in, JSON Lines out; dates in {\"$date\": …}")
    func jsonLines() throws {
        let input = "{\"a\": 1, \"d\": {\"$date\": \"2020-01-01\"}}\n{\"a\": 2, \"d\": {\"$date\": \"1990-06-30T12:00:00Z\"}}\n\n{\"a\": 3}\n"
        let r = try PQLProcess.run(["filter", "d < CAST('2000-01-01', 'NSDate') OR a == 3"], stdin: Data(input.utf8))
        #expect(r.stdout == "{\"a\": 2, \"d\": {\"$date\": \"1990-06-30T12:00:00Z\"}}\n{\"a\": 3}\n")
    }

    @Test("arguments and variables work as in format")
    func argumentsAndVariables() throws {
        let r = try PQLProcess.run(["filter", "--indices", "--arg", "\"Paris\"", "--var", "MIN=20", "city == %@ AND age > $MIN", people])
        #expect(r.stdout == "[4]\n")
    }

    @Test("an evaluation error goes to stderr, exit 1")
    func evaluationError() throws {
        let r = try PQLProcess.run(["filter", "name < 5", people])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot order a string against a number"))
        #expect(r.stderr.contains("in: name < 5"))
    }

    @Test("bad JSON is reported with its line and column, exit 1")
    func badJSON() throws {
        let r = try PQLProcess.run(["filter", "a == 1"], stdin: Data("[{\"a\": 1},\n {\"a\": }]".utf8))
        #expect(r.status == 1)
        #expect(r.stderr.contains("line 2, column 8"))
    }

    @Test("well-formed JSON with a date PQL cannot read says what is wrong with the date, not 'not valid JSON'")
    func unreadableDateInTheInput() throws {
        let r = try PQLProcess.run(["filter", "a != nil"], stdin: Data("{\"a\": 1}\n{\"a\": {\"$date\": \"2023-02-29\"}}\n".utf8))
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: standard input holds a value PQL cannot read: line 2, column 26: the date \"2023-02-29\" cannot be read: there is no day 29 in 2023-02, which has 28 days"), "\(r.stderr)")
        #expect(r.stderr.contains("hint: fix it there: write dates in ISO-8601"), "\(r.stderr)")
    }

    @Test("an empty result of an array is []")
    func emptyResult() throws {
        let r = try PQLProcess.run(["filter", "FALSEPREDICATE", people])
        #expect(r.stdout == "[]\n")
    }

    private func idsOf(_ json: String) throws -> [Int] {
        let array = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        return array.compactMap { $0["id"] as? Int }
    }
}

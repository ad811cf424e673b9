import Foundation
import PQLTestSupport
@testable import PQLPostgres
import PQLStore
import Testing

/// `pql import`, `pql query`, `pql demo` and the REPL on a PostgreSQL URL, through the built
/// binary against the test server: the same options and the same output as on SQLite (each
/// query is run on both and the outputs compared), PostgreSQL's SQL and plan, its refusals
/// shown as other errors are, passwords never printed, Ctrl-C cancelling on the server.
/// (Named without "Tests" so that `--filter CommandLineTests` selects only the SQLite suites.)
/// Not serialized: each test has databases of its own (``ScratchDatabase``) and watches only
/// their statements; run one after another, the suite was the last to end by five minutes.
@Suite("pql on PostgreSQL")
struct PostgresCommandLine {
    static let people = """
        {"name": "Ann", "age": 31, "city": "Paris", "joined": {"$date": "2021-03-04T05:06:07Z"}}
        {"name": "Bob", "age": 25, "city": "Oslo", "joined": null}
        {"name": "Émile", "age": 40, "city": "paris", "joined": {"$date": "2019-12-31T23:00:00Z"}}
        {"name": "Dee", "age": null, "city": "Rome", "joined": null}
        {"name": "Ann-Marie", "age": 52, "city": "Oslo", "joined": {"$date": "2020-01-01T00:00:00Z"}}

        """

    static func pql(_ arguments: String..., stdin: String? = nil) throws -> CommandLineProcess {
        try CommandLineProcess.run(arguments, stdin: stdin)
    }

    static func withPeople<T>(_ body: (_ url: String, _ sqlite: String) throws -> T) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("people.jsonl").path
        try Self.people.write(toFile: file, atomically: true, encoding: .utf8)
        let sqlite = dir.appendingPathComponent("people.sqlite").path
        return try await ScratchDatabase.with { url in
            let imported = try pql("import", url, file, "--entity", "Person")
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.hasPrefix("imported 5 rows into Person (4 attributes)"))
            #expect(try pql("import", sqlite, file, "--entity", "Person").status == 0)
            return try body(url, sqlite)
        }
    }

    @Test("pql query prints what it prints on SQLite: formats, sort, limit, offset, count, arguments, entity left out", arguments: [
        ["--where", "age > 30", "--sort", "age:desc"],
        ["--where", "city ==[c] %@", "--arg", "\"PARIS\"", "--format", "csv"],
        ["--count", "--where", "age == nil"],
        ["--sort", "name", "--limit", "2", "--offset", "1", "--format", "table"],
        ["--where", "name BEGINSWITH 'Ann' OR age < 30", "--sort", "name", "--format", "json"],
        ["--where", "joined > CAST('2020-01-01T00:00:00Z', 'NSDate')", "--sort", "joined", "--format", "tsv"],
        ["--entity", "Person", "--where", "city IN {'Oslo', 'Rome'} AND NOT name CONTAINS[cd] 'marie'", "--format", "markdown"],
    ])
    func querySameAsSQLite(_ options: [String]) async throws {
        try await Self.withPeople { url, sqlite in
            let server = try CommandLineProcess.run(["query", url] + options)
            let file = try CommandLineProcess.run(["query", sqlite] + options)
            #expect(server.status == 0, "\(server.stderr)")
            #expect(!server.stdout.isEmpty)
            #expect(server.stdout == file.stdout)
            #expect(server.stderr == file.stderr)
        }
    }

    @Test("pql query --group-by prints what it prints on SQLite: keys with nil, aggregates, having, sort, page, formats, errors", arguments: [
        ["--group-by", "city", "--select", "n=count:(name)", "--select", "a=average:(age)", "--select", "lo=min:(name)", "--select", "hi=max:(name)"],
        ["--group-by", "city", "--select", "n=count:(name)", "--select", "s=sum:(age)", "--having", "n > 1 OR s == nil", "--sort", "s:desc", "--format", "table"],
        ["--group-by", "city", "--select", "first=min:(joined)", "--select", "last=max:(joined)", "--sort", "city:ci", "--format", "csv"],
        ["--group-by", "city", "--select", "max:(age)", "--limit", "2", "--offset", "1", "--where", "age != nil"],
        ["--group-by", "joined", "--select", "n=count:(name)", "--sort", "joined:desc", "--format", "json"],
        ["--group-by", "city", "--select", "s=sum:(name)"],
    ])
    func groupSameAsSQLite(_ options: [String]) async throws {
        try await Self.withPeople { url, sqlite in
            let server = try CommandLineProcess.run(["query", url] + options)
            let file = try CommandLineProcess.run(["query", sqlite] + options)
            #expect(server.status == file.status, "\(server.stderr)")
            #expect(server.stdout == file.stdout)
            #expect(server.stderr == file.stderr)
            if options.contains("s=sum:(name)") {
                #expect(server.status == 1 && server.stderr.contains("sum: found a string among the numbers"))
            } else {
                #expect(server.status == 0 && !server.stdout.isEmpty)
            }
        }
    }

    @Test("--sql shows PostgreSQL's SQL with $1 parameters; refusals, unknown keys and bad URLs are errors with hints")
    func sqlAndErrors() async throws {
        try await Self.withPeople { url, _ in
            let sql = try Self.pql("query", url, "--where", "age > %@ AND city ==[cd] 'oslo'", "--arg", "30", "--sql")
            #expect(sql.status == 0, "\(sql.stderr)")
            #expect(sql.stdout.contains("FROM \"public\".\"Person\""))
            #expect(sql.stdout.contains("$1") && sql.stdout.contains("\n$1 = 30\n"))
            #expect(sql.stdout.contains("fold_cd"))
            // With --count, the count's SQL (as on SQLite).
            let countSQL = try Self.pql("query", url, "--where", "age > %@", "--arg", "30", "--sql", "--count")
            #expect(countSQL.status == 0, "\(countSQL.stderr)")
            #expect(countSQL.stdout.hasPrefix("SELECT count(*) FROM \"public\".\"Person\"") && countSQL.stdout.contains("\n$1 = 30\n"), "\(countSQL.stdout)")
            // A nil the compiler wrote as IS NULL is no parameter: the list holds what the SQL
            // uses, numbered as the SQL numbers it.
            let isNull = try Self.pql("query", url, "--where", "city == %@ AND age > %@", "--arg", "null", "--arg", "30", "--sql")
            #expect(isNull.status == 0, "\(isNull.stderr)")
            #expect(isNull.stdout.contains("\"city\" IS NULL AND t0.\"age\" > $1)\n$1 = 30\n") && !isNull.stdout.contains("$2"), "\(isNull.stdout)")

            // MATCHES[c] is refused by the native-only compiler: the typed error, a caret under it and a hint.
            let refused = try Self.pql("query", url, "--where", "age > 1 AND name MATCHES[c] 'a.*'")
            #expect(refused.status == 1)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("MATCHES"))
            #expect(refused.stderr.contains("^"))
            #expect(refused.stderr.contains("hint:"))

            let unknown = try Self.pql("query", url, "--where", "agee > 1")
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("agee") && unknown.stderr.contains("age"))

            // A grouping fetch's SQL: PostgreSQL's aggregates, $n parameters.
            let grouped = try Self.pql("query", url, "--where", "age > %@", "--arg", "30", "--group-by", "city", "--select", "a=average:(age)", "--having", "a > 40", "--sql")
            #expect(grouped.status == 0, "\(grouped.stderr)")
            #expect(grouped.stdout.contains("GROUP BY") && grouped.stdout.contains("int_total_as_double"))
            #expect(grouped.stdout.contains("\n$1 = 30\n"))
        }
    }

    @Test("a password in the URL is never printed: connection errors, the REPL's title (URLs are shown without it)")
    func passwordsRedacted() async throws {
        var wrong = URLComponents(string: try TestServer.url())!
        wrong.password = "s3cr3t-Wrong"
        let refused = try Self.pql("query", wrong.string!, "--entity", "Person")
        #expect(refused.status == 1)
        var shown = wrong
        shown.password = nil
        #expect(refused.stderr.contains(shown.string!), "\(refused.stderr)")
        #expect(!refused.stderr.contains("s3cr3t-Wrong"))
        // The URL as shown, pasted back: the server wants the password, and the error says so.
        let pasted = try Self.pql("query", shown.string!, "--entity", "Person")
        #expect(pasted.status == 1)
        #expect(pasted.stderr.contains("the server asks for a password, and neither the URL, PGPASSWORD nor ~/.pgpass has one")
                && pasted.stderr.contains("user:PASSWORD@"), "\(pasted.stderr)")
        // Where psql finds a password, pql does: PGPASSWORD, else a private ~/.pgpass (or PGPASSFILE).
        let serverPassword = try #require(URLComponents(string: try TestServer.url())?.password)
        let fromEnvironment = try CommandLineProcess.run(["query", shown.string!, "--entity", "Person", "--count"], adding: ["PGPASSWORD": serverPassword])
        #expect(!fromEnvironment.stderr.contains("password"), "\(fromEnvironment.stderr)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent(".pgpass").path
        try "# a comment\nother:*:*:*:nope\n\(shown.host!):*:*:\(shown.user!):\(serverPassword.replacingOccurrences(of: ":", with: "\\:"))\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let fromFile = try CommandLineProcess.run(["query", shown.string!, "--entity", "Person", "--count"], adding: ["HOME": home.path])
        #expect(!fromFile.stderr.contains("password"), "\(fromFile.stderr)")
        // A file others may read is ignored, as psql ignores it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let exposed = try CommandLineProcess.run(["query", shown.string!, "--entity", "Person", "--count"], adding: ["HOME": home.path])
        #expect(exposed.status == 1 && exposed.stderr.contains("asks for a password"), "\(exposed.stderr)")
        #expect(refused.stderr.contains("check the user and password"))

        var malformed = wrong
        malformed.port = 0
        let bad = try Self.pql("query", malformed.string! + "&bogus=1", "--entity", "Person")
        #expect(bad.status == 1)
        #expect(!bad.stderr.contains("s3cr3t-Wrong"))

        let url = try TestServer.url()
        let password = URLComponents(string: url)!.password!
        let opened = try Self.pql(":demo:", "-c", ".open \(url)", "-c", ".entities")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("opened postgres://postgres@"))
        #expect(opened.stdout.contains("(PostgreSQL)"))
        #expect(!opened.stdout.contains(":\(password)@") && !opened.stderr.contains(":\(password)@"))
    }

    @Test("pql demo loads nycflights13 once; queries and the REPL on it answer as on :demo:; Ctrl-C cancels on the server")
    func demo() async throws {
        try await ScratchDatabase.with { url in
            let loaded = try Self.pql("demo", url)
            #expect(loaded.status == 0, "\(loaded.stderr)")
            #expect(loaded.stderr.contains("Flight: 336,776 rows"))
            // The command to copy has the URL without its password (quoted for the shell: it has
            // a '?'), and says where the password went; the password itself never shows.
            var copyable = URLComponents(string: url)!
            let password = copyable.password!
            copyable.password = nil
            #expect(loaded.stderr.contains("loaded the nycflights13 demo into \(copyable.string!) in "), "\(loaded.stderr)")
            #expect(loaded.stderr.contains("query it with: pql '\(copyable.string!)'\nnote: the password is left out"), "\(loaded.stderr)")
            #expect(!loaded.stderr.contains(":\(password)@"))
            let again = try Self.pql("demo", url)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("holds the nycflights13 demo already"))
            #expect(again.stderr.contains("query it with: pql '\(copyable.string!)'"), "\(again.stderr)")

            let queries: [[String]] = [
                ["--entity", "Flight", "--count", "--where", "airline.name BEGINSWITH 'United' AND dep_delay > 300"],
                ["--entity", "Airport", "--count", "--where", "departures.@count > 100000"],
                ["--entity", "Flight", "--sort", "dep_delay:desc", "--limit", "5", "--where", "airline.name BEGINSWITH 'United' AND dep_delay > 300"],
                ["--entity", "Plane", "--where", "ANY flights.dest == %@", "--arg", "\"HNL\"", "--sort", "tailnum", "--format", "csv"],
                ["--entity", "Airline", "--format", "table", "--sort", "carrier"],
                ["--entity", "Flight", "--where", "dep_delay != nil", "--group-by", "airline.name", "--select", "avg=average:(dep_delay)",
                 "--select", "n=count:(dep_delay)", "--having", "n > 1000", "--sort", "avg:desc"],
                ["--entity", "Flight", "--group-by", "origin", "--group-by", "month", "--select", "n=count:(origin)", "--select", "s=sum:(distance)",
                 "--select", "lo=min:(dest)", "--select", "hi=max:(time_hour)", "--select", "worst=max:(arr_delay)", "--limit", "10", "--offset", "5"],
            ]
            for q in queries {
                let server = try CommandLineProcess.run(["query", url] + q)
                let demo = try CommandLineProcess.run(["query", ":demo:"] + q)
                #expect(server.status == 0, "\(q): \(server.stderr)")
                #expect(server.stdout == demo.stdout, "\(q)")
            }

            // The REPL: -c commands and a piped script, as on the demo in SQLite.
            let commands = ["-c", ".count dep_delay > 600", "-c", ".group origin average:(dep_delay) n=count:(origin) where dep_delay != nil", "-c", ".use Airline", "-c", ".sort name desc", "-c", "name CONTAINS[c] 'air'",
                            "-c", ".format csv", "-c", ".use Airport", "-c", "alt > 6000"]
            let repl = try CommandLineProcess.run([url] + commands)
            let sqliteRepl = try CommandLineProcess.run([":demo:"] + commands)
            #expect(repl.status == 0, "\(repl.stderr)")
            #expect(repl.stdout == sqliteRepl.stdout)
            let script = ".use Flight\ndest == 'HNL' AND arr_delay > 200\n.count origin == 'EWR'\n"
            let piped = try CommandLineProcess.run([url, "--entity", "Flight"], stdin: script)
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(piped.stdout == (try CommandLineProcess.run([":demo:", "--entity", "Flight"], stdin: script)).stdout)

            // .sql and .explain: PostgreSQL's SQL, $n parameters, its plan (the index on dep_delay).
            let shown = try Self.pql(url, "-c", ".use Flight", "-c", ".sql dep_delay > 1000", "-c", ".explain dep_delay > 1000")
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("FROM \"public\".\"Flight\""))
            #expect(shown.stdout.contains("\n$1 = 1000\n"))
            #expect(shown.stdout.contains("plan:\n"))
            #expect(shown.stdout.contains("Index") || shown.stdout.contains("Scan"))
            #expect(shown.stdout.contains("dep_delay"))

            // A refusal in the REPL: the typed error, with its caret and hint, and status 1.
            let refused = try Self.pql(url, "-c", ".use Airline", "-c", "name MATCHES[c] '.*air.*'")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("MATCHES") && refused.stderr.contains("^") && refused.stderr.contains("hint:"))

            // The help texts' PostgreSQL examples run as written, on this database.
            let ran = try Self.runHelpExamples(url: url)
            #expect(ran >= 7)

            // A statement that runs for minutes, interrupted: pql cancels it on the server and ends with 130.
            let slow = "SUBQUERY(airline.flights, $f, $f.dep_delay > dep_delay).@count > 1000000"
            let process = try CommandLineProcess.start(["query", url, "--entity", "Flight", "--count", "--where", slow])
            #expect(try await Self.waitForStatement(containing: "dep_delay", running: true, inDatabaseOf: url))
            process.signal(SIGINT)
            let ended = try CommandLineProcess.finish(process)
            #expect(ended.status == 130, "\(ended.stderr)")
            #expect(ended.stderr.contains("interrupted"))
            #expect(try await Self.waitForStatement(containing: "dep_delay", running: false, inDatabaseOf: url))

            // The same in a REPL script: the statement cancelled, the script ended, status 130.
            let repl2 = try CommandLineProcess.start([url, "--entity", "Flight", "-c", ".count " + slow, "-c", ".count"])
            #expect(try await Self.waitForStatement(containing: "dep_delay", running: true, inDatabaseOf: url))
            repl2.signal(SIGINT)
            let ended2 = try CommandLineProcess.finish(repl2)
            #expect(ended2.status == 130, "\(ended2.stderr)")
            #expect(ended2.stderr.contains("Interrupted."))
            #expect(ended2.stdout.isEmpty)
            #expect(try await Self.waitForStatement(containing: "dep_delay", running: false, inDatabaseOf: url))

            // SIGTERM and SIGHUP (a closed terminal) are Ctrl-C, then an exit with 128 + the
            // signal: pql cancels the statement first (killed at once, it left the statement
            // running on the server).
            for (signal, status, said) in [(SIGTERM, Int32(143), "terminated"), (SIGHUP, Int32(129), "hung up")] {
                let killed = try CommandLineProcess.start(["query", url, "--entity", "Flight", "--count", "--where", slow])
                #expect(try await Self.waitForStatement(containing: "dep_delay", running: true, inDatabaseOf: url))
                killed.signal(signal)
                let ended3 = try CommandLineProcess.finish(killed)
                #expect(ended3.status == status && ended3.signal == nil, "\(ended3.stderr)")
                #expect(ended3.stderr.contains("pql: \(said); the statement was cancelled on the server"), "\(ended3.stderr)")
                #expect(try await Self.waitForStatement(containing: "dep_delay", running: false, inDatabaseOf: url))
                let script = try CommandLineProcess.start([url, "--entity", "Flight", "-c", ".count " + slow, "-c", ".count"])
                #expect(try await Self.waitForStatement(containing: "dep_delay", running: true, inDatabaseOf: url))
                script.signal(signal)
                let ended4 = try CommandLineProcess.finish(script)
                #expect(ended4.status == status && ended4.signal == nil, "\(ended4.stderr)")
                #expect(ended4.stderr.contains("Interrupted.") && ended4.stdout.isEmpty, "\(ended4.stderr)")
                #expect(try await Self.waitForStatement(containing: "dep_delay", running: false, inDatabaseOf: url))
            }
        }
    }

    @Test("pql update and pql delete change what they change on SQLite and print the same counts; refusals write nothing")
    func updateAndDeleteSameAsSQLite() async throws {
        try await Self.withPeople { url, sqlite in
            let steps: [[String]] = [
                ["update", "--where", "age > %@", "--arg", "30", "--set", "city=Lima"],
                ["update", "--where", "age == nil", "--set-expr", "age=42", "--set", "joined={\"$date\": \"2024-05-01T12:00:00Z\"}"],
                ["update", "--entity", "Person", "--where", "name BEGINSWITH[c] 'b'", "--set-expr", "city=name"],
                ["update", "--where", "city == 'Nowhere'", "--set", "age=1"],
                ["delete", "--where", "city == 'Lima' AND age < 45"],
                ["delete", "--entity", "Person", "--where", "name == %@", "--arg", "\"Nobody\""],
            ]
            for step in steps {
                let server = try CommandLineProcess.run([step[0], url] + step.dropFirst())
                let file = try CommandLineProcess.run([step[0], sqlite] + step.dropFirst())
                #expect(server.status == 0, "\(step): \(server.stderr)")
                #expect(server.stdout == file.stdout, "\(step)")
            }
            let after = ["--sort", "name", "--format", "csv"]
            #expect(try CommandLineProcess.run(["query", url] + after).stdout == (try CommandLineProcess.run(["query", sqlite] + after)).stdout)
            #expect(try Self.pql("query", url, "--count").stdout == "3\n")

            // Arithmetic on key paths computes as on SQLite.
            #expect(try Self.pql("update", url, "--set-expr", "age=age * 2").stdout
                    == (try CommandLineProcess.run(["update", sqlite, "--set-expr", "age=age * 2"])).stdout)
            #expect(try CommandLineProcess.run(["query", url] + after).stdout == (try CommandLineProcess.run(["query", sqlite] + after)).stdout)
            // What has no PostgreSQL form (a case-insensitive MATCHES) is refused with the store's
            // error and its hint (as SQLite's --set-expr errors, without a position), nothing
            // written; a --set read as an expression is shown with a caret under the value.
            let caseless = "age=TERNARY(name MATCHES[c] 'a.*', 1, 2)"
            let refused = try Self.pql("update", url, "--set-expr", caseless)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("MATCHES") && refused.stderr.contains("hint:"), "\(refused.stderr)")
            let guessed = try Self.pql("update", url, "--set", caseless)
            #expect(guessed.status == 1)
            #expect(guessed.stderr.contains("--set \(caseless)") && guessed.stderr.contains("MATCHES"), "\(guessed.stderr)")
            #expect(guessed.stderr.contains("^") && guessed.stderr.contains("hint:"))
            let typeError = try Self.pql("update", url, "--set", "name=5")
            #expect(typeError.status == 1)
            #expect(try CommandLineProcess.run(["query", url] + after).stdout == (try CommandLineProcess.run(["query", sqlite] + after)).stdout)
        }
    }

    @Test("pql demo refuses a database whose tables of the demo's names are something else, writing nothing")
    func demoRefusesOtherTables() async throws {
        try await Self.withPeople { url, _ in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pg-cli-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: dir) }
            try "{\"code\": \"XX\"}\n".write(to: dir, atomically: true, encoding: .utf8)
            #expect(try Self.pql("import", url, dir.path, "--entity", "Airline").status == 0)
            let refused = try Self.pql("demo", url)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("has tables named as the demo's (Airline)"))
            #expect(refused.stderr.contains("hint:"))
            #expect(try Self.pql("query", url, "--entity", "Airline", "--count").stdout == "1\n")
            #expect(try Self.pql("query", url, "--entity", "Person", "--count").stdout == "5\n")
            #expect(try Self.pql("demo", "places.sqlite").status == 2)
        }
    }

    /// Runs the examples of `pql help` texts that name the examples' database
    /// (`postgres://me@localhost/flights`) on `url` instead, in a directory holding the
    /// `airlines.jsonl` the import example reads; returns how many ran.
    static func runHelpExamples(url: String) throws -> Int {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pg-examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try pql("query", ":demo:", "--entity", "Airline").stdout.write(to: dir.appendingPathComponent("airlines.jsonl"), atomically: true, encoding: .utf8)
        var env = CommandLineProcess.environment
        env["COLUMNS"] = "2000"
        env["PATH"] = CommandLineProcess.binary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        var ran = 0
        for command in ["demo", "repl", "import", "query", "update", "delete", nil] {
            let help = try shell("pql \(command ?? "") --help", in: dir, env)
            #expect(help.status == 0)
            for example in examples(help.stdout) where example.contains("postgres://me@localhost/flights") {
                let r = try shell(example.replacingOccurrences(of: "postgres://me@localhost/flights", with: "'\(url)'"), in: dir, env)
                #expect(r.status == 0, "\(example)\n\(r.stderr)")
                #expect(!r.stdout.isEmpty || !r.stderr.isEmpty || !example.contains(" -c ") && !example.contains("query"), "\(example) printed nothing")
                ran += 1
            }
        }
        return ran
    }

    /// The example commands of a help text: its indented lines that start with `pql`, with the
    /// lines a trailing backslash continues (as HelpTextTests reads them).
    static func examples(_ help: String) -> [String] {
        var out: [String] = []
        var continued = false
        for line in help.split(separator: "\n").map(String.init) {
            let t = String(line.drop { $0 == " " })
            if continued {
                out[out.count - 1] += "\n" + line
            } else if line.hasPrefix("  ") && (t.hasPrefix("pql ") || t == "pql") {
                out.append(t)
            } else {
                continue
            }
            continued = line.hasSuffix("\\")
        }
        return out
    }

    static func shell(_ command: String, in dir: URL, _ env: [String: String]) throws -> CommandLineProcess {
        CommandLineProcess(try ChildProcess.run("/bin/sh", ["-c", command], environment: env, directory: dir.path))
    }

    /// Waits (up to a minute) until a statement on the server whose text contains `text` is
    /// running, or until none is; true when that came about.
    static func waitForStatement(containing text: String, running: Bool, inDatabaseOf url: String? = nil) async throws -> Bool {
        let admin = try await PostgresPredicateStore(url: try TestServer.url(), model: try StoreModel([]))
        // The suites run in parallel: a test that names its database sees only its own statements.
        let database = url.flatMap { URLComponents(string: $0)?.path.dropFirst() }.map { " AND datname = '\($0)'" } ?? ""
        var seen = false
        for _ in 0..<600 {
            let rows = try await admin.rows("""
                SELECT count(*)::text FROM pg_stat_activity
                WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%\(text)%' AND query NOT LIKE '%pg_stat_activity%'\(database)
                """)
            if (rows.first?.first.flatMap { $0 } != "0") == running {
                seen = true
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await admin.close()
        return seen
    }
}

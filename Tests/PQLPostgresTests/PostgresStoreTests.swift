import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Opening, model inference, tables, import, insert, count and cancellation on a real server.
@Suite struct PostgresStoreTests {
    static let library = try! StoreModel([
        ModelEntity("Author", attributes: [ModelAttribute("name", .string, isOptional: false, isUnique: true),
                                           ModelAttribute("born", .date)],
                    relationships: [ModelRelationship("books", toMany: "Book", inverse: "author")]),
        ModelEntity("Book", attributes: [ModelAttribute("title", .string, isOptional: false, isIndexed: true),
                                         ModelAttribute("pages", .integer32), ModelAttribute("price", .decimal),
                                         ModelAttribute("rating", .double), ModelAttribute("inPrint", .boolean),
                                         ModelAttribute("isbn", .uuid), ModelAttribute("cover", .binary)],
                    relationships: [ModelRelationship("author", to: "Author", inverse: "books")]),
    ])

    @Test func createsTheModelsTablesAndReopensWithTheSavedModel() async throws {
        try await TestServer.withStore(model: Self.library) { store, schema in
            #expect(try await store.createTables().sorted() == ["Author", "Book"])
            #expect(try await store.createTables() == [])   // already there
            let columns = try await store.rows("""
                SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns
                WHERE table_schema = '\(schema)' AND table_name = 'Book' ORDER BY ordinal_position
                """)
            #expect(columns.map { $0[1]! } == ["Z_PK", "title", "pages", "price", "rating", "inPrint", "isbn", "cover", "author"])
            #expect(columns.map { $0[2]! } == ["bigint", "text", "integer", "numeric", "double precision", "boolean", "uuid", "bytea", "bigint"])
            #expect(columns[1][3] == "NO" && columns[2][3] == "YES")
            let fks = try await store.rows("""
                SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                WHERE n.nspname = '\(schema)' AND contype = 'f'
                """)
            #expect(fks == [["\(schema).\"Book\"", "\(schema).\"Author\""]])
            let indexes = try await store.rows("SELECT indexname::text FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname NOT LIKE '%pkey' ORDER BY 1")
            #expect(indexes.map { $0[0]! } == ["Author_name_unique", "Book_author_fk", "Book_title_index"])
            // Opened again without a model: the one saved, not an inference.
            let again = try await PostgresPredicateStore(url: try TestServer.url(), schema: schema)
            #expect(again.model == Self.library)
            await again.close()
        }
    }

    @Test func infersTheModelOfTablesItDidNotCreate() async throws {
        let setup = [
            "CREATE TABLE $SCHEMA.authors (id serial PRIMARY KEY, name varchar(80) NOT NULL UNIQUE, born date)",
            "CREATE TABLE $SCHEMA.books (id bigint PRIMARY KEY, title text NOT NULL, pages smallint, price numeric(8,2), score real, "
                + "author_id integer REFERENCES $SCHEMA.authors ON DELETE CASCADE, isbn uuid, data jsonb, cover bytea, flag boolean)",
            "CREATE INDEX books_title ON $SCHEMA.books (title)",
            "CREATE TABLE $SCHEMA.book_tags (book_id bigint REFERENCES $SCHEMA.books, tag text, PRIMARY KEY (book_id, tag))",
        ]
        try await TestServer.withStore(setup: setup) { store, _ in
            let model = store.model
            #expect(model.entities.map(\.name) == ["authors", "books"])
            #expect(store.skippedTables == ["book_tags": "its primary key is not one integer column"])
            let books = try model.entity(named: "books")
            #expect(books.primaryKey == "id")
            // The key is an attribute too, as on SQLite (adversarial run, F21: it was invisible).
            #expect(books.attributes.map(\.name) == ["id", "title", "pages", "price", "score", "author_id", "isbn", "data", "cover", "flag"])
            #expect(books.attributes.map(\.type) == [.integer64, .string, .integer16, .decimal, .float, .integer32, .uuid, .string, .binary, .boolean])
            #expect(books.attributes[0].isOptional == false && books.attributes[1].isOptional == false && books.attributes[1].isIndexed)
            let author = try #require(books.relationships.first)
            #expect(author.name == "author" && author.destination == "authors" && author.inverse == "books" && author.foreignKeyColumn == "author_id")
            let authors = try model.entity(named: "authors")
            #expect(authors.attributes.map(\.name) == ["id", "name", "born"])
            // serial: the server assigns it, so an insert may leave it out.
            #expect(authors.attributes[0].isOptional && authors.attributes[0].type == .integer32)
            #expect(authors.attributes[1].isUnique && authors.attributes[2].type == .date)
            let inverse = try #require(authors.relationships.first)
            #expect(inverse.name == "books" && inverse.isToMany && inverse.inverse == "author" && inverse.deleteRule == .cascade)
            try await store.execute("INSERT INTO \(quote(store.schema)).authors (name) VALUES ('Le Guin'), ('Lem')")
            #expect(try await store.count("authors") == 2)
            // The key reads, filters and sorts like any attribute; an insert may leave it out.
            let lem = try await store.fetch(EntityQuery("authors", where: "id == 2"))
            #expect(lem.map { $0["id"] } == [.int(2)] && lem.map { $0["name"] } == [.string("Lem")])
            #expect(try await store.fetchIDs(EntityQuery("authors", sort: [SortRule("id", ascending: false)])) == [2, 1])
            #expect(try await store.insert("authors", ["name": "Borges"]) == 3)
            #expect(try await store.fetch(EntityQuery("authors", where: "id == 3")).first?["name"] == .string("Borges"))
        }
    }

    /// Text PostgreSQL compares otherwise than PQL even for `==` is left out of an inferred
    /// model, with the reason: `char(n)` (pads), `citext` (ignores case), a nondeterministic
    /// collation (takes different text as equal). A predicate on it is an unknown key, never
    /// rows memory would not give; varchar stays.
    @Test func infersNoColumnPostgreSQLComparesOtherwise() async throws {
        let setup = [
            "CREATE EXTENSION IF NOT EXISTS citext",
            "CREATE COLLATION $SCHEMA.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
            "CREATE TABLE $SCHEMA.people (id bigint PRIMARY KEY, name varchar(20), code char(6), email citext, nick text COLLATE $SCHEMA.ci)",
            "INSERT INTO $SCHEMA.people VALUES (1, 'a', 'a', 'A@x', 'ABC')",
        ]
        try await TestServer.withStore(setup: setup) { (store, _) async throws in
            #expect(try store.model.entity(named: "people").attributes.map(\.name) == ["id", "name"])
            #expect(Set(store.skippedColumns.keys) == ["people.code", "people.email", "people.nick"])
            #expect(store.skippedColumns["people.code"]?.contains("char(n)") == true)
            #expect(store.skippedColumns["people.nick"]?.contains("nondeterministic") == true)
            #expect(store.skippedTables.isEmpty)
            var refused: StoreError? = nil
            do { _ = try await store.fetchIDs(EntityQuery("people", where: "code == 'a'")) } catch { refused = error as? StoreError }
            #expect(refused?.kind == .unknownKey, "\(String(describing: refused))")
            #expect(try await store.fetchIDs(EntityQuery("people", where: "name == 'a'")) == [1])
        }
    }

    @Test func importsCSVAndJSONLinesThroughCopy() async throws {
        try await TestServer.withStore { store, schema in
            let csv = "carrier,name,founded,rating,note\nUA,United Air Lines Inc.,1926,4.5,\"tab\there, \\\\ and\nnewline\"\nAA,American Airlines Inc.,1930,,\n"
            #expect(try await store.importFile(ImportSource(csv: Data(csv.utf8)), into: "airlines") == 2)
            #expect(try await store.count("airlines") == 2)
            let e = try store.model.entity(named: "airlines")
            #expect(e.attributes.map(\.type) == [.string, .string, .integer64, .double, .string])
            let rows = try await store.rows("SELECT carrier, founded::text, rating::text, note FROM \(quote(schema)).airlines ORDER BY 1")
            #expect(rows == [["AA", "1930", nil, nil], ["UA", "1926", "4.5", "tab\there, \\\\ and\nnewline"]])
            // JSON Lines into the same entity, with a new column.
            let jsonl = #"{"carrier": "DL", "name": "Delta Air Lines Inc.", "founded": 1925, "hub": "ATL"}"# + "\n"
            #expect(try await store.importFile(ImportSource(json: Data(jsonl.utf8)), into: "airlines") == 1)
            #expect(try store.model.entity(named: "airlines").attributes.map(\.name).last == "hub")
            #expect(try await store.rows("SELECT hub FROM \(quote(schema)).airlines WHERE carrier = 'DL'") == [["ATL"]])
            #expect(try await store.count("airlines") == 3)
        }
    }

    /// PostgreSQL keeps microseconds: every date PQL sends is rounded to the nearest one alike,
    /// so that an imported date is found by the same date given as a constant, as in memory and
    /// on SQLite (adversarial run, F7: COPY rounded, PostgresNIO's binding truncated).
    @Test func importedAndInsertedDatesMatchTheSameDateGivenToCompare() async throws {
        try await TestServer.withStore { store, _ in
            let dates = [1000.4999996, 1000.0000004, -1000.4999996, 7e8 + 0.1234567, 86_399.9999996, -0.0000006, 4e8 + 0.25]
                .map { Date(timeIntervalSinceReferenceDate: $0) }
            let table = ImportTable(columns: ["at", "i"], types: [.date, .integer64], optional: [true, true],
                                    rows: dates.enumerated().map { [.date($1), .int(Int64($0))] })
            #expect(try await store.importTable(table, into: "Stamp") == dates.count)
            for (i, d) in dates.enumerated() {
                _ = try await store.insert("Stamp", ["at": .date(d), "i": .int(Int64(100 + i))])
                let found = try await store.fetch(EntityQuery("Stamp", where: "at == %@", [d], sort: [SortRule("i")])).map { $0["i"].intValue ?? -1 }
                #expect(found == [i, 100 + i], "\(d.timeIntervalSinceReferenceDate): \(found)")
                #expect(try await store.count(EntityQuery("Stamp", where: "at >= %@ AND at <= %@", [d, d])) == 2)
            }
        }
    }

    @Test func importsEveryValueKindThroughCopy() async throws {
        try await TestServer.withStore { store, schema in
            let table = ImportTable(columns: ["at", "n", "price", "bytes", "ok", "note"],
                                    types: [.date, .integer64, .decimal, .binary, .boolean, .string],
                                    optional: [true, true, true, true, true, true],
                                    rows: [[.date(Date(timeIntervalSince1970: 1_357_017_300.25)), .int(-9_223_372_036_854_775_808),
                                            .decimal(Decimal(string: "-12.345")!), .data(Data([0x00, 0x5C, 0xFF])), .bool(true), .string("a\\b\tc")],
                                           [.date(Date(timeIntervalSince1970: -86_400 * 365 * 1900)), .int(0), .null, .null, .int(0), .null]])
            #expect(try await store.importTable(table, into: "kinds") == 2)
            let rows = try await store.rows("""
                SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US BC'), n::text, price::text, encode(bytes, 'hex'), ok::text, note
                FROM \(quote(schema)).kinds ORDER BY "Z_PK"
                """)
            #expect(rows == [["2013-01-01 05:15:00.250000 AD", "-9223372036854775808", "-12.345", "005cff", "true", "a\\b\tc"],
                             ["0071-04-06 00:00:00.000000 AD", "0", nil, nil, "false", nil]])
        }
    }

    @Test func aFailedImportWritesNothingAndNamesTheLine() async throws {
        try await TestServer.withStore { store, _ in
            let good = "code,seats\nA,1\nB,2\n"
            try await store.importFile(ImportSource(csv: Data(good.utf8)), into: "planes")
            let bad = "code,seats\nC,3\nD,many\n"
            do throws(StoreError) {
                try await store.importFile(ImportSource(csv: Data(bad.utf8)), into: "planes")
                Issue.record("an integer column took 'many'")
            } catch {
                #expect(error.kind == .invalidValue)
                #expect(error.message.contains("many") && error.message.contains("line 2"), "\(error.message)")
            }
            #expect(try await store.count("planes") == 2)
            // A new entity whose import fails leaves no table and no model change behind.
            let broken = "x\nmaybe\n"
            do throws(StoreError) {
                _ = try await store.importFile(ImportSource(csv: Data(broken.utf8)), into: "other", columns: ImportColumns(names: ["x"], types: [.boolean], optional: [true], rowCount: 1))
                Issue.record("a boolean column took 'maybe'")
            } catch {
                #expect(!store.model.entities.contains { $0.name == "other" })
            }
        }
    }

    @Test func insertsBindingValuesAndCounts() async throws {
        try await TestServer.withStore(model: Self.library) { store, schema in
            try await store.createTables()
            let lem = try await store.insert("Author", ["name": "Stanisław Lem", "born": .date(Date(timeIntervalSince1970: -1_522_195_200))])
            let hostile = "Robert'); DROP TABLE \"Book\"; --"
            try await store.insert("Book", ["title": .string(hostile), "pages": 204, "price": .decimal(Decimal(string: "12.50")!),
                                            "rating": 4.25, "inPrint": true, "author": .int(lem),
                                            "isbn": "9e9a2a3c-31c4-4b85-a7a4-5a3f7d1cbe2f", "cover": .data(Data([0, 1, 0xFF]))])
            #expect(try await store.count("Book") == 1)
            let row = try await store.rows("SELECT title, pages::text, price::text, \"inPrint\"::text, isbn::text, encode(cover, 'hex'), author::text FROM \(quote(schema)).\"Book\"")
            #expect(row == [[hostile, "204", "12.5", "true", "9e9a2a3c-31c4-4b85-a7a4-5a3f7d1cbe2f", "0001ff", String(lem)]])
            do throws(StoreError) {
                try await store.insert("Book", ["title": "x", "pages": "many"])
                Issue.record("an integer column took 'many'")
            } catch {
                #expect(error.kind == .invalidValue)
            }
            do throws(StoreError) {
                try await store.insert("Book", ["subtitle": "x"])
                Issue.record("an unknown key was inserted")
            } catch {
                #expect(error.kind == .unknownKey)
            }
        }
    }

    @Test func cancellingTheTaskCancelsTheStatementOnTheServer() async throws {
        try await TestServer.withStore { store, _ in
            let marker = "pql-cancel-" + UUID().uuidString
            let sleeping = Task {
                try await store.execute("SELECT pg_sleep(60) /* \(marker) */")
            }
            // Wait until the server runs it (bounded: a server that never shows it fails the test).
            var seen = false
            for _ in 0..<200 where !seen {
                seen = try await store.rows("SELECT pid::text FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND query NOT LIKE '%pg_stat_activity%'", {
                    var b = PostgresBindings(); b.append(marker); return b
                }()).count == 1
                if !seen { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(seen)
            sleeping.cancel()
            do {
                try await sleeping.value
                Issue.record("pg_sleep(60) returned although its task was cancelled")
            } catch let error as StoreError {
                #expect(error.kind == .cancelled, "\(error)")
            }
            let still = try await store.rows("SELECT pid::text FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND query NOT LIKE '%pg_stat_activity%'", {
                var b = PostgresBindings(); b.append(marker); return b
            }())
            #expect(still.isEmpty)
        }
    }

    /// Needs the server on this machine (as scripts/postgres runs it): its socket directory.
    @Test func opensAUnixSocketURL() async throws {
        try await TestServer.withStore { store, schema in
            let settings = try await store.rows("SELECT current_setting('unix_socket_directories'), current_setting('port'), current_database()::text")
            let directory = try #require(settings.first?[0]?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) })
            let port = try #require(settings.first?[1]), database = try #require(settings.first?[2])
            let encoded = try #require(directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let url = "postgres://\(try PostgresConnectionURL(try TestServer.url()).user)@\(encoded):\(port)/\(database)"
            try await store.execute("CREATE TABLE \(quote(schema)).t (id bigint PRIMARY KEY)")
            let local = try await PostgresPredicateStore(url: url, schema: schema)
            #expect(local.model.entities.map(\.name) == ["t"])
            #expect(try await local.count("t") == 0)
            await local.close()
        }
    }

    /// The URL's options reach the server as session settings, and a statement past the
    /// statement_timeout they set is a typed error that says so.
    @Test func appliesTheURLsSessionSettings() async throws {
        try await TestServer.withStore { _, schema in
            let base = try TestServer.url()
            let url = base + (base.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D50ms&application_name=pql%20test"
            let limited = try await PostgresPredicateStore(url: url, model: try StoreModel([]), schema: schema)
            let settings = try await limited.rows("SELECT current_setting('statement_timeout'), current_setting('application_name')")
            #expect(settings.first == ["50ms", "pql test"])
            do throws(StoreError) {
                try await limited.execute("SELECT pg_sleep(5)")
                Issue.record("pg_sleep(5) ran past a 50 ms statement_timeout")
            } catch {
                #expect(error.kind == .cancelled)
                #expect(error.message.contains("statement_timeout"))
                #expect(error.hint?.contains("narrow the predicate") == true)
            }
            await limited.close()
        }
    }

    /// JIT is off in PQL's sessions (LLVM compiling a long user predicate cannot be cancelled),
    /// unless the URL's options set it.
    @Test func sessionsRunWithoutJITUnlessTheURLSaysSo() async throws {
        try await TestServer.withStore { _, schema in
            let base = try TestServer.url()
            let plain = try await PostgresPredicateStore(url: base, model: try StoreModel([]), schema: schema)
            #expect(try await plain.rows("SELECT current_setting('jit')").first == ["off"])
            await plain.close()
            let url = base + (base.contains("?") ? "&" : "?") + "options=-c%20jit%3Don"
            let chosen = try await PostgresPredicateStore(url: url, model: try StoreModel([]), schema: schema)
            #expect(try await chosen.rows("SELECT current_setting('jit')").first == ["on"])
            await chosen.close()
            // An engine that does not know a setting PQL adds by default (as one without
            // PostgreSQL's JIT would refuse jit): left out, the store connects; the others stay.
            var unknown = try PostgresConnectionURL(base)
            unknown.sessionDefaults["pql_no_such_setting"] = "1"
            let tolerant = try await PostgresPredicateStore(connectingTo: unknown, shown: "test", model: try StoreModel([]),
                                                            schema: schema, functionSchema: "pql")
            #expect(try await tolerant.rows("SELECT current_setting('jit')").first == ["off"])
            await tolerant.close()
            // A setting the URL itself names is the user's: an unknown one is an error saying so.
            let named = base + (base.contains("?") ? "&" : "?") + "options=-c%20pql_no_such_setting%3D1"
            do throws(StoreError) {
                _ = try await PostgresPredicateStore(url: named, model: try StoreModel([]), schema: schema)
                Issue.record("connected with a setting the server does not know")
            } catch {
                #expect(error.message.contains("pql_no_such_setting"), "\(error)")
            }
        }
    }

    @Test func aMissingServerIsATypedError() async throws {
        do throws(StoreError) {
            _ = try await PostgresPredicateStore(url: "postgres://nobody:x@127.0.0.1:1/none?sslmode=disable")
            Issue.record("connected to port 1")
        } catch {
            #expect(error.kind == .server)
            #expect(!error.message.contains(":x@"))
        }
    }

    /// Why the server cannot be reached, in words: not NIO's descriptions of its own types
    /// (adversarial run, F18: `SingleConnectionFailure(target: [IPv4]…, error: …)`).
    @Test func anUnreachableServerIsDescribedInWords() async throws {
        let cases = [("postgres://nobody:x@127.0.0.1:1/none?sslmode=disable", "the connection was refused (no server listens there) at 127.0.0.1:1"),
                     ("postgres://nobody:x@[::1]:1/none?sslmode=disable", "the connection was refused (no server listens there) at [::1]:1"),
                     ("postgres://nobody:x@pql-no-such-host.invalid/none?sslmode=disable", "the host name 'pql-no-such-host.invalid' has no address"),
                     ("postgres://nobody@%2Fpql-no-such-dir/none", "there is no server socket")]
        for (url, words) in cases {
            do throws(StoreError) {
                _ = try await PostgresPredicateStore(url: url)
                Issue.record("connected to \(url)")
            } catch {
                #expect(error.kind == .server, "\(error)")
                #expect(error.message.contains("cannot reach the PostgreSQL server: " + words), "\(error)")
                for leaked in ["SingleConnectionFailure", "errno", "Connection errors", "descriptor", "IPv4", "IPv6", ":x@"] {
                    #expect(!error.message.contains(leaked), "\(error)")
                }
            }
        }
    }
}

/// Connection URLs, read without a server.
@Suite struct PostgresConnectionURLTests {
    @Test func readsTCPAndSocketURLs() throws {
        let tcp = try PostgresConnectionURL("postgres://app:s%40cret@db.internal:6543/shop?sslmode=disable")
        #expect(tcp.host == "db.internal" && tcp.port == 6543 && tcp.user == "app" && tcp.password == "s@cret" && tcp.database == "shop" && tcp.sslMode == "disable")
        #expect(try PostgresConnectionURL("postgres://[::1]:5433/db").host == "::1")
        let socket = try PostgresConnectionURL("postgresql://postgres@%2Ftmp%2Fpg/pql")
        #expect(socket.host == nil && socket.socketPath == "/tmp/pg/.s.PGSQL.5432" && socket.database == "pql")
        let parameter = try PostgresConnectionURL("postgres:///pql?host=/run/postgresql&port=5433&user=me")
        #expect(parameter.socketPath == "/run/postgresql/.s.PGSQL.5433" && parameter.user == "me")
        #expect(PostgresConnectionURL.redacted("postgres://app:secret@db/shop") == "postgres://app:***@db/shop")
        #expect(PostgresConnectionURL.redacted("postgres://db/shop?password=secret&sslmode=disable") == "postgres://db/shop?password=***&sslmode=disable")
        let options = try PostgresConnectionURL("postgres://h/db?options=-c%20statement_timeout%3D2s%20--lock-timeout=1s%20-cwork_mem=8MB%20-c%20search_path=a%5C%20b&application_name=api")
        #expect(options.serverSettings == ["statement_timeout": "2s", "lock_timeout": "1s", "work_mem": "8MB", "search_path": "a b", "application_name": "api"])
    }

    @Test func aURLToShowHasNoPasswordAndConnectsAsTheSameUser() throws {
        for (given, shown) in [("postgres://app:s%40cret@db.internal:6543/shop?sslmode=disable", "postgres://app@db.internal:6543/shop?sslmode=disable"),
                               ("postgresql://postgres:pw@%2Ftmp%2Fpg/pql", "postgresql://postgres@%2Ftmp%2Fpg/pql"),
                               ("postgres://me@db/shop?password=secret&sslmode=require", "postgres://me@db/shop?sslmode=require"),
                               ("postgres://me@db/shop?password=secret", "postgres://me@db/shop"),
                               ("postgres://me@db/shop", "postgres://me@db/shop"),
                               // Text no URL reader takes loses its password all the same.
                               ("postgres://me:se cret@db/shop?password=x y", "postgres://me@db/shop")] {
            let without = PostgresConnectionURL.withoutPassword(given)
            #expect(without == shown, "\(given)")
            #expect(!without.contains("cret") && !without.contains("pw@"), "\(given)")
            if let url = try? PostgresConnectionURL(without), let original = try? PostgresConnectionURL(given) {
                #expect(url.user == original.user && url.host == original.host && url.socketPath == original.socketPath && url.database == original.database
                        && url.sslMode == original.sslMode && url.password == nil, "\(given)")
            }
        }
    }

    @Test func refusesWhatItCannotRead() {
        for bad in ["mysql://x@y/z", "postgres://h:99999/db", "postgres://h/db?sslmode=maybe", "postgres://h/db?application=x",
                        "postgres://h/db?options=statement_timeout%3D2s", "postgres://h/db?options=-c%20x", "postgres://h/db?options=-c"] {
            #expect(throws: StoreError.self, "\(bad)") { try PostgresConnectionURL(bad) }
        }
    }
}

import CSQLite
import Foundation
import BenchmarkPeople
import PQL
import PQLStore

/// `pql-bench store`: P1–P8 of the anchors (Benchmarks/README.md) through PQL's SQLite store, beside
/// the best hand-written SQL for the same result on the same database file, first without
/// indexes and then with them; and the import rate beside a hand-written insert loop.
struct StoreBenchmark {
    var n = 1_000_000
    var runs = 5
    var directory = "/tmp/pql-bench"

    static let usage = """
          store        ms per query of P1–P8 through PQL's store (fetchIDs: the matching keys) beside
                       hand-written SQL stepping `SELECT Z_PK FROM Person WHERE …` on the same file,
                       without and with indexes (two files, timed in turn), with the plans of the
                       statements timed; then the import rate beside a hand-written loop
            --n N      people (default 1000000)
            --runs R   timed runs per query after one warm-up; the median counts (default 5)
            --dir D    where the databases go (default /tmp/pql-bench)
        """

    static func parse(_ arguments: [String]) -> StoreBenchmark {
        var b = StoreBenchmark()
        var rest = arguments[...]
        while let arg = rest.popFirst() {
            guard let v = rest.popFirst() else { fail("\(arg) needs a value") }
            switch arg {
            case "--n": b.n = Int(v) ?? b.n
            case "--runs": b.runs = Int(v) ?? b.runs
            case "--dir": b.directory = v
            default: fail("unknown argument '\(arg)'\n\(usage)")
            }
        }
        return b
    }

    struct Query {
        let name: String
        let predicate: String
        /// Hand-written WHERE clauses for the same rows; the fastest counts.
        let handWritten: [String]
    }

    static let queries: [Query] = [
        Query(name: "P1", predicate: "age > 30", handWritten: ["age > 30"]),
        Query(name: "P2", predicate: "age BETWEEN {18, 65} AND score >= 50.0", handWritten: ["age BETWEEN 18 AND 65 AND score >= 50.0"]),
        Query(name: "P3", predicate: "name == \"José\"", handWritten: ["name = 'José'"]),
        Query(name: "P4", predicate: "name BEGINSWITH[c] \"a\"", handWritten: ["name LIKE 'a%'", "(name GLOB 'a*' OR name GLOB 'A*')"]),
        Query(name: "P5", predicate: "city IN {\"Paris\", \"Berlin\", \"Tokyo\", \"Lima\"}", handWritten: ["city IN ('Paris', 'Berlin', 'Tokyo', 'Lima')"]),
        Query(name: "P6", predicate: "name CONTAINS[cd] \"ang\"", handWritten: ["swift_contains_cd(name, 'ang')"]),
        Query(name: "P7", predicate: "ANY tags.tag == \"vip\"",
              handWritten: ["Z_PK IN (SELECT person FROM Tag WHERE tag = 'vip')", "EXISTS (SELECT 1 FROM Tag WHERE Tag.person = Person.Z_PK AND tag = 'vip')"]),
        Query(name: "P8", predicate: "(age < 20 OR age > 60) AND NOT (city == \"Paris\") AND email != nil",
              handWritten: ["(age < 20 OR age > 60) AND NOT (city = 'Paris') AND email IS NOT NULL"]),
    ]

    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Person", attributes: [
                    ModelAttribute("name", .string, isOptional: false), ModelAttribute("age", .integer64, isOptional: false),
                    ModelAttribute("score", .double, isOptional: false), ModelAttribute("city", .string, isOptional: false),
                    ModelAttribute("email", .string),
                ], relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "person")]),
                ModelEntity("Tag", attributes: [ModelAttribute("tag", .string, isOptional: false)],
                            relationships: [ModelRelationship("person", to: "Person", inverse: "tags")]),
            ])
        } catch { fail("bench model: \(error)") }
    }()

    struct Cell { var ms: Double; var matches: Int }

    func run() -> String {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        log("generating \(n) people…")
        let people = generatePeople(n)
        var personRows: [[PredicateValue]] = []
        var tagRows: [[PredicateValue]] = []
        personRows.reserveCapacity(n)
        for (i, p) in people.enumerated() {
            personRows.append([.string(p.name), .int(Int64(p.age)), .double(p.score), .string(p.city), p.email.map { .string($0) } ?? .null])
            for t in p.tags { tagRows.append([.string(t), .int(Int64(i + 1))]) }
        }
        let path = "\(directory)/store-\(n).sqlite"
        for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) }
        log("importing through PQL…")
        let store: PredicateStore
        var importSeconds = 0.0, tagSeconds = 0.0
        do {
            store = try PredicateStore(path: path, model: Self.model)
            try store.dropIndexes()
            importSeconds = Timing.nanoseconds { _ = try? store.insertRows("Person", columns: ["name", "age", "score", "city", "email"], rows: personRows) } / 1e9
            tagSeconds = Timing.nanoseconds { _ = try? store.insertRows("Tag", columns: ["tag", "person"], rows: tagRows) } / 1e9
            guard try store.count(EntityQuery("Person")) == n else { fail("import lost rows") }
        } catch { fail("store: \(error)") }
        log("importing with a hand-written loop…")
        let (handPersonSeconds, handTagSeconds) = handWrittenImport(people)
        let db = openRaw(path)
        // The same rows in a second file that keeps no index, so that each query runs with and
        // without indexes in the same rounds: on a shared machine the load drifts between
        // minutes, and only runs interleaved compare.
        let plainPath = "\(directory)/store-\(n)-plain.sqlite"
        for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: plainPath + s) }
        log("copying the file to one that keeps no index…")
        exec(db, "VACUUM INTO '\(plainPath)'")
        let plainStore: PredicateStore
        do { plainStore = try PredicateStore(path: plainPath, model: Self.model) } catch { fail("plain store: \(error)") }
        let plainDB = openRaw(plainPath)
        log("creating indexes…")
        for sql in ["CREATE INDEX person_age ON Person(age)", "CREATE INDEX person_name ON Person(name)",
                    "CREATE INDEX person_city ON Person(city)", "CREATE INDEX tag_tag_person ON Tag(tag, person)",
                    "CREATE INDEX tag_person ON Tag(person)", "ANALYZE"] {
            exec(db, sql)
        }
        exec(plainDB, "ANALYZE")
        var rows: [Row] = []
        for q in Self.queries {
            log("\(q.name)…")
            let query: EntityQuery
            do { query = try EntityQuery("Person", where: q.predicate) } catch { fail("\(q.name): \(error)") }
            // quadratic without an index (Benchmarks/README.md, P7)
            let plainForms = q.handWritten.filter { !$0.hasPrefix("EXISTS") }
            func pql(_ s: PredicateStore) -> () -> Int {
                { do { return try s.fetchIDs(query).count } catch { fail("\(q.name): \(error)") } }
            }
            var bodies: [() -> Int] = [pql(plainStore)]
            bodies += plainForms.map { w in { handWrittenIDs(plainDB, "SELECT Z_PK FROM Person WHERE " + w) } }
            bodies.append(pql(store))
            bodies += q.handWritten.map { w in { handWrittenIDs(db, "SELECT Z_PK FROM Person WHERE " + w) } }
            let cells = measure(bodies)
            // The plans of the statements just timed, on the connections they ran on:
            // fetchIDs plans on one of the store's readers, as it runs.
            let plans: [[String]]
            do { plans = [try plainStore.queryPlan(for: query, as: .keys), try store.queryPlan(for: query, as: .keys)] } catch { fail("\(q.name) plan: \(error)") }
            let k = plainForms.count
            rows.append(Row(query: q, indexed: false, pql: cells[0], hand: Array(cells[1...k]), forms: plainForms,
                            pqlPlan: plans[0], handPlans: plainForms.map { plan(plainDB, "SELECT Z_PK FROM Person WHERE " + $0) }))
            rows.append(Row(query: q, indexed: true, pql: cells[k + 1], hand: Array(cells[(k + 2)...]), forms: q.handWritten,
                            pqlPlan: plans[1], handPlans: q.handWritten.map { plan(db, "SELECT Z_PK FROM Person WHERE " + $0) }))
        }
        sqlite3_close_v2(plainDB)
        sqlite3_close_v2(db)
        return report(rows, importSeconds: importSeconds, tagSeconds: tagSeconds, tags: tagRows.count,
                      handPerson: handPersonSeconds, handTag: handTagSeconds)
    }

    struct Row {
        let query: Query
        let indexed: Bool
        let pql: Cell
        /// One cell per hand-written form run (`forms`).
        let hand: [Cell]
        let forms: [String]
        let pqlPlan: [String]
        let handPlans: [[String]]

        /// The fastest hand-written form.
        var best: (cell: Cell, form: String, plan: [String]) {
            let i = hand.indices.min { hand[$0].ms < hand[$1].ms } ?? 0
            return (hand[i], forms[i], handPlans[i])
        }
    }

    /// Times each body `runs` times after one warm-up each, interleaved (one run of each in
    /// turn), so that a load that comes and goes weighs on all of them alike; the median counts.
    func measure(_ bodies: [() -> Int]) -> [Cell] {
        let matches = bodies.map { $0() }
        var times = Array(repeating: [Double](), count: bodies.count)
        for _ in 0..<runs {
            for (i, body) in bodies.enumerated() { times[i].append(Timing.nanoseconds { _ = body() }) }
        }
        return zip(matches, times).map { Cell(ms: Statistics.median($1) / 1e6, matches: $0) }
    }

    /// SQLite's `EXPLAIN QUERY PLAN` of `sql` on `db`, one line per step.
    func plan(_ db: OpaquePointer, _ sql: String) -> [String] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN " + sql, -1, &stmt, nil) == SQLITE_OK else { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        defer { sqlite3_finalize(stmt) }
        var lines: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            let parent = sqlite3_column_int64(stmt, 1)
            lines.append((parent == 0 ? "" : "  ") + String(cString: sqlite3_column_text(stmt, 3)))
        }
        return lines
    }

    func openRaw(_ path: String) -> OpaquePointer {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { fail("cannot open \(path)") }
        sqlite3_create_function_v2(db, "swift_contains_cd", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, containsCD, nil, nil, nil)
        return db
    }

    func exec(_ db: OpaquePointer, _ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    /// The hand-written side: prepare, step every row, collect the keys (what fetchIDs returns).
    func handWrittenIDs(_ db: OpaquePointer, _ sql: String) -> Int {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
        var ids: [Int64] = []
        while sqlite3_step(stmt) == SQLITE_ROW { ids.append(sqlite3_column_int64(stmt, 0)) }
        sqlite3_finalize(stmt)
        return ids.count
    }

    /// The anchors' insert loop: one transaction, two prepared statements, text bound transient.
    func handWrittenImport(_ people: [Person]) -> (Double, Double) {
        let path = "\(directory)/hand-\(n).sqlite"
        for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) }
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { fail("cannot open \(path)") }
        defer { sqlite3_close_v2(db) }
        exec(db, "PRAGMA journal_mode=WAL")
        exec(db, "PRAGMA synchronous=NORMAL")
        exec(db, "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, city TEXT NOT NULL, email TEXT)")
        exec(db, "CREATE TABLE tag(person_id INTEGER, tag TEXT NOT NULL)")
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var ps: OpaquePointer?, ts: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO person(id, name, age, score, city, email) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &ps, nil)
        sqlite3_prepare_v2(db, "INSERT INTO tag(person_id, tag) VALUES (?1, ?2)", -1, &ts, nil)
        var tagTime = 0.0
        let total = Timing.nanoseconds {
            exec(db, "BEGIN")
            for p in people {
                sqlite3_bind_int64(ps, 1, Int64(p.id)); sqlite3_bind_text(ps, 2, p.name, -1, transient)
                sqlite3_bind_int64(ps, 3, Int64(p.age)); sqlite3_bind_double(ps, 4, p.score)
                sqlite3_bind_text(ps, 5, p.city, -1, transient)
                if let e = p.email { sqlite3_bind_text(ps, 6, e, -1, transient) } else { sqlite3_bind_null(ps, 6) }
                sqlite3_step(ps); sqlite3_reset(ps)
            }
            tagTime = Timing.nanoseconds {
                for p in people {
                    for t in p.tags {
                        sqlite3_bind_int64(ts, 1, Int64(p.id)); sqlite3_bind_text(ts, 2, t, -1, transient)
                        sqlite3_step(ts); sqlite3_reset(ts)
                    }
                }
            }
            exec(db, "COMMIT")
        }
        sqlite3_finalize(ps); sqlite3_finalize(ts)
        return ((total - tagTime) / 1e9, tagTime / 1e9)
    }

    func report(_ rows: [Row], importSeconds: Double, tagSeconds: Double, tags: Int,
                handPerson: Double, handTag: Double) -> String {
        var out: [String] = []
        out.append("## PQL store beside hand-written SQL: P1–P8, \(EvalBenchmark.thousands(n)) people (median of \(runs) interleaved runs after a warm-up)")
        out.append("")
        out.append("PQL: `store.fetchIDs(EntityQuery(\"Person\", where: …))` (parse, compile, choose, bind, step, collect keys). Hand-written: `SELECT Z_PK FROM Person WHERE …` prepared and stepped on a second connection to the same file, collecting keys; the fastest of the listed forms counts. Two files with the same rows, both `ANALYZE`d: one without indexes, one with `age`, `name`, `city`, `Tag(tag, person)` and `Tag(person)` indexed; each round runs every statement on both, in turn.")
        out.append("")
        out.append("| P | PQL, no index | hand-written | ratio | PQL, indexes | hand-written | ratio | PQL indexes / no index | hand indexes / no index | matches |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        func ms(_ x: Double) -> String { String(format: "%.1f", x) }
        for q in Self.queries {
            guard let plain = rows.first(where: { $0.query.name == q.name && !$0.indexed }),
                  let withIndexes = rows.first(where: { $0.query.name == q.name && $0.indexed }) else { continue }
            let (a, b) = (plain.best, withIndexes.best)
            let counts = [plain.pql, withIndexes.pql] + plain.hand + withIndexes.hand
            let agree = counts.allSatisfy { $0.matches == plain.pql.matches } ? "" : " ≠ \(counts.map { String($0.matches) }.joined(separator: "/"))"
            out.append("| \(q.name) | \(ms(plain.pql.ms)) | \(ms(a.cell.ms)) `\(a.form)` | \(EvalBenchmark.ratio(plain.pql.ms / a.cell.ms)) "
                       + "| \(ms(withIndexes.pql.ms)) | \(ms(b.cell.ms)) `\(b.form)` | \(EvalBenchmark.ratio(withIndexes.pql.ms / b.cell.ms)) "
                       + "| \(EvalBenchmark.ratio(withIndexes.pql.ms / plain.pql.ms)) | \(EvalBenchmark.ratio(b.cell.ms / a.cell.ms)) "
                       + "| \(EvalBenchmark.thousands(plain.pql.matches))\(agree) |")
        }
        out.append("")
        out.append(String(format: "Import through PQL (`insertRows`, one transaction, WAL): %@ people in %.2f s = **%@ rows/s**; %@ tags in %.2f s = %@ rows/s. Hand-written loop: %@ people rows/s, %@ tag rows/s. Target ≥ 300,000 rows/s.",
                          EvalBenchmark.thousands(n), importSeconds, EvalBenchmark.thousands(Int(Double(n) / importSeconds)),
                          EvalBenchmark.thousands(tags), tagSeconds, EvalBenchmark.thousands(Int(Double(tags) / tagSeconds)),
                          EvalBenchmark.thousands(Int(Double(n) / handPerson)), EvalBenchmark.thousands(Int(Double(tags) / handTag))))
        out.append("")
        out.append("Plans with indexes, of the statements timed (`EXPLAIN QUERY PLAN` on the connections they ran on: PQL's through `store.queryPlan(for:as: .keys)`, on one of the store's readers):")
        for r in rows where r.indexed {
            out.append("- \(r.query.name) PQL: " + r.pqlPlan.joined(separator: " / "))
            for (form, plan) in zip(r.forms, r.handPlans) {
                out.append("  hand `\(form)`: " + plan.joined(separator: " / "))
            }
        }
        return out.joined(separator: "\n")
    }
}

/// The anchors' `swift_contains_cd`: Foundation's diacritic- and case-insensitive search.
private let containsCD: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
    guard let argv, let a = sqlite3_value_text(argv[0]), let b = sqlite3_value_text(argv[1]) else { return sqlite3_result_int(ctx, 0) }
    let s = String(cString: a), needle = String(cString: b)
    sqlite3_result_int(ctx, s.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil ? 1 : 0)
}

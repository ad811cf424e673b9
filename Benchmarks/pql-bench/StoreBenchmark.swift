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
                       without and with indexes; then the import rate beside a hand-written loop
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
        var rows: [(Query, [Cell], [Cell])] = []
        for indexed in [false, true] {
            if indexed {
                log("creating indexes…")
                for sql in ["CREATE INDEX person_age ON Person(age)", "CREATE INDEX person_name ON Person(name)",
                            "CREATE INDEX person_city ON Person(city)", "CREATE INDEX tag_tag_person ON Tag(tag, person)",
                            "CREATE INDEX tag_person ON Tag(person)", "ANALYZE"] {
                    exec(db, sql)
                }
            }
            for q in Self.queries {
                log("\(indexed ? "indexes" : "no index") \(q.name)…")
                let pql = measure { () -> Int in
                    do { return try store.fetchIDs(try EntityQuery("Person", where: q.predicate)).count } catch { fail("\(q.name): \(error)") }
                }
                var hand: [Cell] = []
                for w in q.handWritten {
                    if !indexed && w.hasPrefix("EXISTS") { continue } // quadratic without an index (Benchmarks/README.md, P7)
                    hand.append(measure { handWrittenIDs(db, "SELECT Z_PK FROM Person WHERE " + w) })
                }
                rows.append((q, [pql], hand))
                if indexed == false { continue }
            }
        }
        sqlite3_close_v2(db)
        return report(rows, importSeconds: importSeconds, tagSeconds: tagSeconds, tags: tagRows.count,
                      handPerson: handPersonSeconds, handTag: handTagSeconds, store: store)
    }

    func measure(_ body: () -> Int) -> Cell {
        let matches = body()
        var times: [Double] = []
        for _ in 0..<runs { times.append(Timing.nanoseconds { _ = body() }) }
        return Cell(ms: Statistics.median(times) / 1e6, matches: matches)
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

    func report(_ rows: [(Query, [Cell], [Cell])], importSeconds: Double, tagSeconds: Double, tags: Int,
                handPerson: Double, handTag: Double, store: PredicateStore) -> String {
        var out: [String] = []
        out.append("## PQL store beside hand-written SQL: P1–P8, \(EvalBenchmark.thousands(n)) people (median of \(runs) runs after a warm-up)")
        out.append("")
        out.append("PQL: `store.fetchIDs(EntityQuery(\"Person\", where: …))` (parse, compile, bind, step, collect keys). Hand-written: `SELECT Z_PK FROM Person WHERE …` prepared and stepped on a second connection to the same file, collecting keys; the fastest of the listed forms counts.")
        out.append("")
        out.append("| P | indexes | PQL ms | hand-written ms (best form) | PQL / hand | matches |")
        out.append("|---|---|---:|---:|---:|---:|")
        var worst = 0.0
        for (i, (q, pql, hand)) in rows.enumerated() {
            let indexed = i >= Self.queries.count
            guard let best = hand.min(by: { $0.ms < $1.ms }) else { continue }
            let form = q.handWritten[hand.firstIndex(where: { $0.ms == best.ms }) ?? 0]
            let ratio = pql[0].ms / best.ms
            worst = max(worst, ratio)
            let agree = hand.allSatisfy { $0.matches == pql[0].matches } ? "" : " ≠ \(hand.map { String($0.matches) }.joined(separator: "/"))"
            out.append("| \(q.name) | \(indexed ? "yes" : "no") | \(String(format: "%.1f", pql[0].ms)) | \(String(format: "%.1f", best.ms)) `\(form)` | \(EvalBenchmark.ratio(ratio)) | \(EvalBenchmark.thousands(pql[0].matches))\(agree) |")
        }
        out.append("")
        out.append(String(format: "Import through PQL (`insertRows`, one transaction, WAL): %@ people in %.2f s = **%@ rows/s**; %@ tags in %.2f s = %@ rows/s. Hand-written loop: %@ people rows/s, %@ tag rows/s. Target ≥ 300,000 rows/s.",
                          EvalBenchmark.thousands(n), importSeconds, EvalBenchmark.thousands(Int(Double(n) / importSeconds)),
                          EvalBenchmark.thousands(tags), tagSeconds, EvalBenchmark.thousands(Int(Double(tags) / tagSeconds)),
                          EvalBenchmark.thousands(Int(Double(n) / handPerson)), EvalBenchmark.thousands(Int(Double(tags) / handTag))))
        out.append("")
        out.append("Plans with indexes (PQL's SQL):")
        for q in Self.queries {
            if let plan = try? store.queryPlan(for: try EntityQuery("Person", where: q.predicate)) {
                out.append("- \(q.name): " + plan.joined(separator: " / "))
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

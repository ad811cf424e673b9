import BenchmarkPeople
import Foundation
import PostgresNIO
import PQL
import PQLPostgres
import PQLStore

/// P1–P8 of the anchors (../shared/perf/anchors.md; the same people as `pql-bench store`)
/// through `PostgresPredicateStore.fetchIDs`, beside the best hand-written SQL for the same rows
/// run on the same client (every id decoded, as the store does), first without indexes, then
/// with the indexes a PostgreSQL user would make for them. Also the import rate (COPY) of the
/// million people. Each cell is the median of `runs` timed runs after a warm-up. Beside them,
/// the server's own execution time of the hand-written statement (EXPLAIN ANALYZE), which
/// shows what an index changes without the client's decoding of the matching rows.
struct QueryBenchmark {
    var n = 1_000_000
    var runs = 5
    /// `--keep`: leave the schema (data and indexes) in the database, to explain plans by hand.
    var keep = false

    static func parse(_ arguments: [String]) -> QueryBenchmark {
        var b = QueryBenchmark()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--keep" { b.keep = true; continue }
            guard let value = rest.popFirst(), let number = Int(value) else { usageError("\(flag) needs a number") }
            switch flag {
            case "--n": b.n = number
            case "--runs": b.runs = number
            default: usageError("unknown argument \(flag)")
            }
        }
        return b
    }

    struct Query {
        let name: String
        let predicate: String
        /// WHERE clauses for the same rows (`$fold` is the installed fold function's schema); the fastest counts.
        let handWritten: [String]
    }

    static let queries: [Query] = [
        Query(name: "P1", predicate: "age > 30", handWritten: [#""age" > 30"#]),
        Query(name: "P2", predicate: "age BETWEEN {18, 65} AND score >= 50.0", handWritten: [#""age" BETWEEN 18 AND 65 AND "score" >= 50.0"#]),
        Query(name: "P3", predicate: #"name == "José""#, handWritten: [#""name" = 'José'"#]),
        Query(name: "P4", predicate: #"name BEGINSWITH[c] "a""#,
              handWritten: [#"lower("name") LIKE 'a%'"#, #"("name" LIKE 'a%' OR "name" LIKE 'A%')"#]),
        Query(name: "P5", predicate: #"city IN {"Paris", "Berlin", "Tokyo", "Lima"}"#, handWritten: [#""city" IN ('Paris', 'Berlin', 'Tokyo', 'Lima')"#]),
        // No built-in PostgreSQL function folds case and diacritics as [cd] does (unaccent is
        // not IMMUTABLE and folds otherwise): the hand-written query calls PQL's own fold.
        Query(name: "P6", predicate: #"name CONTAINS[cd] "ang""#, handWritten: [#"$fold.fold_cd("name") LIKE '%ang%'"#]),
        Query(name: "P7", predicate: #"ANY tags.tag == "vip""#,
              handWritten: [#""Z_PK" IN (SELECT "person" FROM $schema."Tag" WHERE "tag" = 'vip')"#,
                            #"EXISTS (SELECT 1 FROM $schema."Tag" t WHERE t."person" = p."Z_PK" AND t."tag" = 'vip')"#]),
        Query(name: "P8", predicate: #"(age < 20 OR age > 60) AND NOT (city == "Paris") AND email != nil"#,
              handWritten: [#"("age" < 20 OR "age" > 60) AND NOT ("city" = 'Paris') AND "email" IS NOT NULL"#]),
    ]

    /// The indexes for P1–P8: B-trees on the compared columns (`COLLATE "C"` too, the order PQL
    /// compares text in), a B-tree for prefixes and a trigram GIN on the fold for `[c]`/`[cd]`,
    /// and the tag's (tag, person) pair.
    static let indexes = [
        #"CREATE INDEX ON $schema."Person" ("age")"#,
        #"CREATE INDEX ON $schema."Person" ("name")"#,
        #"CREATE INDEX ON $schema."Person" ("name" COLLATE "C")"#,
        #"CREATE INDEX ON $schema."Person" (lower("name") text_pattern_ops)"#,
        #"CREATE INDEX ON $schema."Person" ($fold.fold_c("name") text_pattern_ops)"#,
        #"CREATE INDEX ON $schema."Person" USING gin ($fold.fold_cd("name") gin_trgm_ops)"#,
        #"CREATE INDEX ON $schema."Person" ("city")"#,
        #"CREATE INDEX ON $schema."Person" ("city" COLLATE "C")"#,
        #"CREATE INDEX ON $schema."Tag" ("tag", "person")"#,
        #"CREATE INDEX ON $schema."Tag" ("tag" COLLATE "C", "person")"#,
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
        } catch { fatalError("bench model: \(error)") }
    }()

    struct Cell { var ms: Double; var matches: Int }

    func run(url: String) async throws -> String {
        let schema = "pqlbench_people_\(ProcessInfo.processInfo.processIdentifier)"
        let store = try await PostgresPredicateStore(url: url, model: Self.model, schema: schema)
        log("generating \(n) people…")
        let people = generatePeople(n)
        try await store.createTables()
        try await store.installFunctions()
        let fold = "\"\(store.functionSchema)\""
        func sql(_ text: String) -> String {
            text.replacingOccurrences(of: "$schema", with: "\"\(schema)\"").replacingOccurrences(of: "$fold", with: fold)
        }
        func execute(_ text: String) async throws {
            try await store.client.query(PostgresQuery(unsafeSQL: sql(text)))
        }
        do {
            try await execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            // Only the keys: the benchmark adds the indexes it measures itself.
            var names: [String] = []
            for try await name in try await store.client.query(PostgresQuery(unsafeSQL: """
                SELECT indexname FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname NOT LIKE '%pkey'
                """)).decode(String.self) { names.append(name) }
            for name in names { try await execute(#"DROP INDEX $schema.""# + name + #"""#) }
            log("importing through PQL (COPY)…")
            let table = ImportTable(columns: ["name", "age", "score", "city", "email"],
                                    types: [.string, .integer64, .double, .string, .string],
                                    optional: [false, false, false, false, true],
                                    rows: people.map { [.string($0.name), .int(Int64($0.age)), .double($0.score), .string($0.city), $0.email.map { .string($0) } ?? .null] })
            let start = ContinuousClock.now
            let imported = try await store.importTable(table, into: "Person")
            let importSeconds = (ContinuousClock.now - start) / .seconds(1)
            precondition(imported == n)
            // What the import left for the planner (a load that fills a table analyses it), before the VACUUM ANALYZE below.
            var statistics = (rows: -1.0, columns: Int64(-1))
            for try await row in try await store.client.query(PostgresQuery(unsafeSQL: """
                SELECT c.reltuples::float8, (SELECT count(*) FROM pg_stats s WHERE s.schemaname = '\(schema)' AND s.tablename = 'Person')
                FROM pg_class c WHERE c.oid = to_regclass('"\(schema)"."Person"')
                """)).decode((Double, Int64).self) { statistics = (rows: row.0, columns: row.1) }
            // The tags by hand (an import sets attributes, not relationships): people are keyed 1…n in order.
            var tagPeople: [Int64] = [], tagNames: [String] = []
            for p in people { for t in p.tags { tagPeople.append(Int64(p.id)); tagNames.append(t) } }
            try await store.client.query("""
                INSERT INTO \(unescaped: "\"\(schema)\".\"Tag\"") ("tag", "person") SELECT * FROM unnest(\(tagNames)::text[], \(tagPeople)::bigint[])
                """)
            try await execute(#"VACUUM ANALYZE $schema."Person""#)
            try await execute(#"VACUUM ANALYZE $schema."Tag""#)

            var rows: [Row] = []
            for indexed in [false, true] {
                if indexed {
                    log("creating indexes…")
                    for ix in Self.indexes { try await execute(ix) }
                    try await execute(#"ANALYZE $schema."Person""#)
                    try await execute(#"ANALYZE $schema."Tag""#)
                    // Made outside PQL: BEGINSWITH[c]'s SQL depends on them (reloadIndexes()).
                    try await store.reloadIndexes()
                }
                for q in Self.queries {
                    log("\(indexed ? "indexes" : "no index") \(q.name)…")
                    let query = try EntityQuery("Person", where: q.predicate)
                    var bodies: [() async throws -> Int] = [{ try await store.fetchIDs(query).count }]
                    for w in q.handWritten {
                        let text = sql(#"SELECT p."Z_PK" FROM $schema."Person" p WHERE "# + w)
                        bodies.append {
                            var count = 0
                            for try await _ in try await store.client.query(PostgresQuery(unsafeSQL: text)).decode(Int64.self) { count += 1 }
                            return count
                        }
                    }
                    let cells = try await measure(bodies)
                    let pql = cells[0]
                    var best: (Cell, String)?
                    for (cell, w) in zip(cells.dropFirst(), q.handWritten) {
                        precondition(cell.matches == pql.matches, "\(q.name): hand-written \(w) found \(cell.matches), PQL \(pql.matches)")
                        if best == nil || cell.ms < best!.0.ms { best = (cell, w) }
                    }
                    let plan = try await store.explain(query).joined(separator: "\n")
                    let handSQL = sql(#"SELECT p."Z_PK" FROM $schema."Person" p WHERE "# + best!.1)
                    let server = try await serverTime(handSQL, on: store.client)
                    let serial = try await serverTime(handSQL, on: store.client, parallel: false)
                    rows.append(Row(query: q, indexed: indexed, pql: pql, hand: best!.0, server: server, serialServer: serial, handSQL: sql(best!.1),
                                    pqlSQL: try store.sql(for: query).sql, plan: plan))
                }
            }
            if keep { log("kept the schema \(schema)") } else { try await execute("DROP SCHEMA $schema CASCADE") }
            await store.close()
            return report(rows, importSeconds: importSeconds, statistics: statistics)
        } catch {
            try? await execute("DROP SCHEMA $schema CASCADE")
            await store.close()
            throw error
        }
    }

    /// Each body once untimed (the warm-up, and its count of matches), then `runs` rounds that
    /// time each body in turn: interleaved, so that a noisy machine's drift in speed falls on
    /// PQL and the hand-written SQL alike (timed one after the other, a slower minute made
    /// identical SQL differ by 1.35x). The median of each.
    func measure(_ bodies: [() async throws -> Int]) async throws -> [Cell] {
        var matches: [Int] = []
        for body in bodies { matches.append(try await body()) }
        var times = [[Double]](repeating: [], count: bodies.count)
        for _ in 0..<runs {
            for (i, body) in bodies.enumerated() {
                let start = ContinuousClock.now
                let m = try await body()
                times[i].append((ContinuousClock.now - start) / .milliseconds(1))
                precondition(m == matches[i])
            }
        }
        return zip(times, matches).map { Cell(ms: $0.0.sorted()[$0.0.count / 2], matches: $0.1) }
    }

    struct Row {
        var query: Query, indexed: Bool, pql: Cell, hand: Cell
        /// The server's own time for the hand-written statement (EXPLAIN ANALYZE's execution
        /// time, median): what an index changes, without the client's decoding of the rows.
        var server: Double
        /// The same without parallel workers (`max_parallel_workers_per_gather = 0`): on two
        /// shared cores a parallel plan's workers and `Gather` can cost more than they save.
        var serialServer: Double
        var handSQL: String, pqlSQL: String, plan: String
    }

    /// The median execution time the server reports for `text` (`EXPLAIN (ANALYZE, FORMAT JSON)`),
    /// with parallel plans or (`parallel` false) without.
    func serverTime(_ text: String, on client: PostgresClient, parallel: Bool = true) async throws -> Double {
        var times: [Double] = []
        let logger = Logger(label: "pql-postgres-bench")
        for _ in 0..<runs {
            var json = ""
            try await client.withConnection { connection in
                let workers = parallel ? "DEFAULT" : "0"
                try await connection.query(PostgresQuery(unsafeSQL: "SET max_parallel_workers_per_gather = \(workers)"), logger: logger)
                for try await line in try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + text), logger: logger).decode(String.self) { json += line }
                try await connection.query("RESET max_parallel_workers_per_gather", logger: logger)
            }
            guard let plans = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
                  let ms = plans.first?["Execution Time"] as? Double else { fatalError("no execution time in \(json)") }
            times.append(ms)
        }
        return times.sorted()[times.count / 2]
    }

    func report(_ rows: [Row], importSeconds: Double, statistics: (rows: Double, columns: Int64)) -> String {
        var out = ["## PostgreSQL: P1–P8 through PQL beside hand-written SQL, \(n) people (median of \(runs) runs after a warm-up)", ""]
        out.append("Import of the people through `importTable` (COPY): \(String(format: "%.2f", importSeconds)) s = \(Int(Double(n) / importSeconds)) rows/s.")
        out.append("Statistics the import left on `Person` (it runs `ANALYZE` after a load that fills a table): `pg_class.reltuples` \(Int(statistics.rows)), \(statistics.columns) columns in `pg_stats`.")
        out.append("")
        out.append("| P | matches | no index: PQL ms | hand ms | PQL / hand | indexes: PQL ms | hand ms | PQL / hand | PQL no index / indexes | server ms no index / indexes | serial plans |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for q in Self.queries {
            guard let plain = rows.first(where: { $0.query.name == q.name && !$0.indexed }),
                  let fast = rows.first(where: { $0.query.name == q.name && $0.indexed }) else { continue }
            func f(_ x: Double) -> String { String(format: "%.1f", x) }
            func r(_ x: Double) -> String { String(format: "%.2fx", x) }
            out.append("| \(q.name) | \(plain.pql.matches) | \(f(plain.pql.ms)) | \(f(plain.hand.ms)) | \(r(plain.pql.ms / plain.hand.ms)) | \(f(fast.pql.ms)) | \(f(fast.hand.ms)) | \(r(fast.pql.ms / fast.hand.ms)) | \(r(plain.pql.ms / fast.pql.ms)) | \(f(plain.server)) / \(f(fast.server)) = \(r(plain.server / fast.server)) | \(f(plain.serialServer)) / \(f(fast.serialServer)) = \(r(plain.serialServer / fast.serialServer)) |")
        }
        out.append("")
        out.append("SQL and plans (with indexes):")
        for row in rows where row.indexed {
            out.append("")
            out.append("\(row.query.name) `\(row.query.predicate)`")
            out.append("  PQL:  \(row.pqlSQL)")
            out.append("  hand: \(row.handSQL)")
            out.append(row.plan.split(separator: "\n").map { "  | " + $0 }.joined(separator: "\n"))
        }
        return out.joined(separator: "\n")
    }

    func log(_ message: String) { FileHandle.standardError.write(Data("\(message)\n".utf8)) }
}

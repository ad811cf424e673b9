import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Grouping fetches on PostgreSQL: the same `GroupQuery` list run in memory, on the SQLite
/// store and on PostgreSQL over the same people (nil keys and values, Unicode, dates, 64-bit
/// edges, groups without values) gives the same rows, value for value and kind for kind
/// (doubles bit for bit, dates to the microsecond), or errors of the same kind.
@Suite struct PostgresGroupTests {
    static func date(_ seconds: Double) -> PredicateValue { .date(Date(timeIntervalSinceReferenceDate: seconds)) }

    static let companies: [[String: PredicateValue]] = [
        ["name": "Zeta", "size": 10], ["name": "alpha", "size": 3], ["name": "Émile", "size": .null],
    ]

    /// Each person's values and employer (an index into `companies`).
    static let people: [([String: PredicateValue], Int?)] = [
        (["name": "Ann", "age": 30, "score": 0.1, "city": "Zürich", "active": true, "born": date(0), "balance": .decimal(Decimal(string: "1.5")!)], 0),
        (["name": "bob", "age": 41, "score": 0.2, "city": "Zürich", "active": false, "born": date(86_400)], 0),
        (["name": "Émile", "age": .null, "score": 0.3, "city": "Zürich", "active": .null, "born": date(-86_400.5)], 1),
        (["name": "e\u{301}mile", "age": 7, "score": .null, "city": "zurich", "active": true, "born": .null], 1),
        (["name": "𝔘ber", "age": -5, "score": 1e16, "city": "zurich", "active": true, "born": date(1e9)], nil),
        (["name": "Zoë", "age": 12, "score": 1.0, "city": "Ærø", "active": false, "born": date(1e9)], 2),
        (["name": .null, "age": 0, "score": -2.5, "city": "Ærø", "active": .null, "born": date(3e9)], 2),
        (["name": "ann", "age": .null, "score": .null, "city": .null, "active": .null, "born": .null], nil),
        (["name": "Nils", "age": 3, "score": .null, "city": .null, "active": false, "born": date(-3e9)], 0),
        (["name": "Big", "age": .int(.max), "score": 1e308, "city": "Edge", "active": true, "born": date(5)], nil),
        (["name": "Bigger", "age": .int(.max - 1), "score": 1e308, "city": "Edge", "active": true, "born": date(6)], 1),
        (["name": "Small", "age": .int(.min), "score": -1e308, "city": "Low", "active": false, "born": date(7)], nil),
        (["name": "Smaller", "age": .int(.min + 1), "score": .double(.leastNonzeroMagnitude), "city": "Low", "active": false, "born": date(8)], 2),
        (["name": "Hollow", "age": .null, "score": .null, "city": "Hollow", "active": .null, "born": .null], nil),
    ]

    /// The queries, and whether PostgreSQL refuses them (`.unsupported`).
    static func queries() throws -> [(GroupQuery, refused: Bool)] {
        let all: KeyValuePairs<String, String> = [
            "n": "count:(name)", "s": "sum:(age)", "a": "average:(age)", "lo": "min:(name)", "hi": "max:(name)",
            "sd": "sum:(score)", "ad": "average:(score)", "mn": "min:(score)", "mx": "max:(score)",
            "first": "min:(born)", "last": "max:(born)", "on": "sum:(active)", "anyOff": "min:(active)", "anyOn": "max:(active)",
        ]
        let noOverflow = "city != 'Edge' AND city != 'Low'"
        return [
            (try GroupQuery("Person", where: noOverflow, groupBy: ["city"], select: all), false),
            (try GroupQuery("Person", groupBy: ["employer.name"], select: ["n": "count:(name)", "sd": "sum:(score)", "lo": "min:(name)"],
                            sort: [SortRule("n", ascending: false)]), false),
            (try GroupQuery("Person", where: noOverflow, groupBy: ["active"], select: ["n": "count:(name)", "a": "average:(age)"], having: "n > 1"), false),
            (try GroupQuery("Person", groupBy: ["city"], select: ["n": "count:(name)", "hi": "max:(name)"],
                            sort: [SortRule("city", ascending: false)], limit: 3, offset: 1), false),
            (try GroupQuery("Person", where: "FALSEPREDICATE", groupBy: [], select: ["n": "count:(name)", "s": "sum:(age)", "ad": "average:(score)", "lo": "min:(name)"]), false),
            (try GroupQuery("Person", groupBy: [], select: ["n": "count:(name)", "sd": "sum:(score)", "mn": "min:(score)", "first": "min:(born)"]), false),
            (try GroupQuery("Person", groupBy: ["city"], select: ["n": "count:(id)", "lo": "min:(name)"],
                            sort: [SortRule("city", ascending: true, comparison: .caseInsensitive)]), false),
            (try GroupQuery("Person", groupBy: ["city"], select: ["lo": "min:(name)", "hi": "max:(name)"], sort: [SortRule("lo"), SortRule("hi", ascending: false)]), false),
            (try GroupQuery("Person", where: noOverflow, groupBy: ["born"], select: ["n": "count:(name)", "s": "sum:(age)"], sort: [SortRule("born", ascending: false)]), false),
            (try GroupQuery("Person", where: noOverflow, groupBy: ["city", "employer.name"], select: ["s": "sum:(age)", "ad": "average:(score)"],
                            having: "city BEGINSWITH 'Z' OR s > 10 OR ad == nil"), false),
            (try GroupQuery("Person", groupBy: ["city"], select: ["sd": "sum:(score)", "ad": "average:(score)", "mx": "max:(score)"], sort: [SortRule("sd")]), false),
            (try GroupQuery("Person", where: "city == 'Edge'", groupBy: ["city"], select: ["a": "average:(age)", "hi": "max:(age)"]), false),
            (try GroupQuery("Person", where: "city == 'Low'", groupBy: ["city"], select: ["a": "average:(age)", "lo": "min:(age)"]), false),
            (try GroupQuery("Person", groupBy: ["employer.size"], select: ["n": "count:(name)", "s": "sum:(employer.#size)"], limit: 0), false),
            (try GroupQuery("Person", groupBy: ["employer.size"], select: ["n": "count:(name)", "s": "sum:(employer.#size)", "a": "average:(employer.#size)"],
                            having: "n >= $least", variables: ["least": 2]), false),
            // Errors: an overflowing sum, a sum of text.
            (try GroupQuery("Person", where: "city == 'Edge'", groupBy: ["city"], select: ["s": "sum:(age)"]), false),
            (try GroupQuery("Person", where: "city == 'Low'", groupBy: [], select: ["s": "sum:(age)"]), false),
            (try GroupQuery("Person", groupBy: ["city"], select: ["s": "sum:(name)"]), false),
            // What PostgreSQL cannot compute as memory does.
            (try GroupQuery("Person", groupBy: ["city"], select: ["s": "sum:(balance)"]), true),
            (try GroupQuery("Person", groupBy: ["city"], select: ["a": "average:(balance)"]), true),
            (try GroupQuery("Person", groupBy: ["city"], select: ["p": "max:(photo)"]), true),
        ]
    }

    /// A value spelled with its kind, doubles by their bits: `.int(1)` and `.double(1)` differ.
    static func exact(_ v: PredicateValue) -> String {
        switch v {
        case .int(let n): return "int \(n)"
        case .double(let d): return "double \(d) \(d.bitPattern)"
        case .bool(let b): return "bool \(b)"
        // To the microsecond, PostgreSQL's precision: PostgresNIO reads 0.000001 s as 9.98e-07 s.
        case .date(let d): return "date \((d.timeIntervalSinceReferenceDate * 1e6).rounded()) µs"
        case .decimal(let d): return "decimal \(d)"
        default: return "\(v.kindDescription) \(v)"
        }
    }

    static func exact(_ rows: [[String: PredicateValue]]) -> [String] {
        rows.map { row in row.keys.sorted().map { "\($0)=\(exact(row[$0]!))" }.joined(separator: ", ") }
    }

    /// An error's kind: the evaluator's, or the store's (`store unsupported`).
    static func kind(_ error: any Error) -> String {
        guard let e = error as? StoreError else { return "\(error)" }
        return e.evaluationError.map { $0.kind.rawValue } ?? "store \(e.kind)"
    }

    enum Outcome: Equatable, CustomStringConvertible {
        case rows([String])
        case error(String)
        var description: String {
            switch self {
            case .rows(let r): return r.joined(separator: "\n")
            case .error(let kind): return "error \(kind)"
            }
        }
    }

    /// The people as the evaluator reads them, their employer nested; and loaded into both stores.
    static func load(sqlite: PredicateStore, postgres: PostgresPredicateStore) async throws -> [PredicateValue] {
        let model = PeopleSchema.model
        _ = try await postgres.createTables()
        try await postgres.installFunctions()
        var companyIDs: [Int64] = []
        for c in companies {
            let id = try sqlite.insert("Company", c)
            #expect(try await postgres.insert("Company", c) == id)
            companyIDs.append(id)
        }
        let person = try model.entity(named: "Person"), company = try model.entity(named: "Company")
        var objects: [PredicateValue] = []
        for (p, employer) in people {
            var row = p
            row["employer"] = employer.map { .int(companyIDs[$0]) } ?? .null
            let id = try sqlite.insert("Person", row)
            #expect(try await postgres.insert("Person", row) == id)
            var object = p
            object["id"] = .int(id)
            for a in person.attributes where object[a.name] == nil { object[a.name] = .null }
            if let e = employer {
                var o = companies[e]
                for a in company.attributes where o[a.name] == nil { o[a.name] = .null }
                object["employer"] = .dictionary(o)
            } else {
                object["employer"] = .null
            }
            objects.append(.dictionary(object))
        }
        return objects
    }

    @Test func theSameGroupsInMemorySQLiteAndPostgreSQL() async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { postgres, _ in
            let sqlite = try PredicateStore.inMemory(PeopleSchema.model)
            let objects = try await Self.load(sqlite: sqlite, postgres: postgres)
            var compared = 0, errors = 0
            for (query, refused) in try Self.queries() {
                let memory: Outcome
                do { memory = .rows(Self.exact(try query.rows(in: objects, reader: PredicateValue.predicateReader))) } catch {
                    memory = .error("\((error as? PredicateEvaluationError)?.kind.rawValue ?? "\(error)")")
                }
                let onSQLite: Outcome
                do { onSQLite = .rows(Self.exact(try sqlite.fetch(query))) } catch {
                    onSQLite = .error(Self.kind(error))
                }
                let onPostgres: Outcome
                do { onPostgres = .rows(Self.exact(try await postgres.fetch(query))) } catch {
                    onPostgres = .error(Self.kind(error))
                }
                let label = "\(query.groupBy) \(query.select.map { "\($0.name)=\($0.expression)" }) having \(query.having)"
                #expect(onSQLite == memory, "SQLite differs from memory: \(label)")
                if refused {
                    #expect(onPostgres == .error("store unsupported"), "PostgreSQL should refuse: \(label)")
                    continue
                }
                #expect(onPostgres == memory, "PostgreSQL differs from memory: \(label)\n  sql: \((try? postgres.sql(for: query).sql) ?? "")")
                compared += 1
                if case .error = memory { errors += 1 }
            }
            // The list's errors are an overflow (twice) and a sum of text: kinds compared, not just raised.
            #expect(errors == 3)
            #expect(compared == 18)
        }
    }

    /// The differential suite's seeded people (Unicode names and cities, nils, 64-bit edges,
    /// huge and subnormal doubles, infinities, dates far from 2001): each aggregate alone, per
    /// group key, in memory, on SQLite and on PostgreSQL.
    @Test(arguments: PostgresDifferential.seeds)
    func seededGroupsAsInMemoryAndSQLite(seed: UInt64) async throws {
        let world = try PostgresDifferential.World(seed: seed)
        try await TestServer.withStore(model: PeopleSchema.model) { postgres, _ in
            try await world.load(into: postgres)
            let aggregates = ["count:(name)", "sum:(age)", "average:(age)", "min:(age)", "max:(age)", "min:(name)", "max:(city)",
                              "sum:(score)", "average:(score)", "min:(score)", "max:(score)", "min:(born)", "max:(born)",
                              "sum:(active)", "average:(active)", "max:(active)", "min:(employer.name)", "sum:(tags.@count)"]
            var compared = 0, errors = 0
            for keys in [["city"], ["employer.name"], ["active"], ["born"], [], ["city", "active"]] {
                for text in aggregates {
                    let sort = keys.isEmpty ? [] : [SortRule("v", ascending: false)]
                    let query = try GroupQuery("Person", where: "age != 1", groupBy: keys, select: ["v": text], sort: sort, limit: 40, offset: 1)
                    let memory: Outcome
                    do { memory = .rows(Self.exact(try query.rows(in: world.people, reader: PredicateValue.predicateReader))) } catch {
                        memory = .error((error as? PredicateEvaluationError)?.kind.rawValue ?? "\(error)")
                    }
                    let onSQLite: Outcome
                    do { onSQLite = .rows(Self.exact(try world.sqlite.fetch(query))) } catch { onSQLite = .error(Self.kind(error)) }
                    let onPostgres: Outcome
                    do { onPostgres = .rows(Self.exact(try await postgres.fetch(query))) } catch { onPostgres = .error(Self.kind(error)) }
                    // SQLite's aggregate meets a group's rows in its own order, so its sums of
                    // doubles may round otherwise; PostgreSQL adds them in key order, as memory.
                    if !(text.hasPrefix("sum:(score") || text.hasPrefix("average:(score")) {
                        #expect(onSQLite == memory, "seed \(seed): SQLite differs from memory: \(keys) \(text)")
                    }
                    #expect(onPostgres == memory, "seed \(seed): PostgreSQL differs from memory: \(keys) \(text)")
                    compared += 1
                    if case .error = memory { errors += 1 }
                }
            }
            // The 64-bit edges make some integer sums overflow: errors compared too, but rows mostly.
            #expect(errors > 0 && errors < compared / 4, "\(errors) of \(compared) raise")
        }
    }

    /// NaN (which SQLite cannot store) and -0.0 (which it stores as 0): PostgreSQL against memory.
    @Test func nanAndNegativeZeroAsInMemory() async throws {
        try await TestServer.withStore(model: PeopleSchema.model) { postgres, _ in
            _ = try await postgres.createTables()
            try await postgres.installFunctions()
            let rows: [[String: PredicateValue]] = [
                ["city": "zero", "score": 0.0], ["city": "zero", "score": -0.0],
                ["city": "minus", "score": -0.0], ["city": "minus", "score": 0.0], ["city": "minus", "score": -0.0],
                ["city": "nan", "score": .double(.nan)],
                ["city": "nans", "score": .double(.nan)], ["city": "nans", "score": 1.0],
            ]
            var objects: [PredicateValue] = []
            for r in rows {
                let id = try await postgres.insert("Person", r)
                var o = r
                o["id"] = .int(id)
                objects.append(.dictionary(o))
            }
            for select: KeyValuePairs<String, String> in [["lo": "min:(score)", "hi": "max:(score)", "s": "sum:(score)", "a": "average:(score)"]] {
                let ok = try GroupQuery("Person", where: "city != 'nans'", groupBy: ["city"], select: select)
                let memory = Self.exact(try ok.rows(in: objects, reader: PredicateValue.predicateReader))
                #expect(Self.exact(try await postgres.fetch(ok)) == memory)
                // NaN as a key: NaN equals NaN (NSNumber's isEqual:), so all NaNs are one group, in both.
                let byScore = try GroupQuery("Person", groupBy: ["score"], select: ["n": "count:(city)", "lo": "min:(city)"])
                let memoryGroups = Self.exact(try byScore.rows(in: objects, reader: PredicateValue.predicateReader))
                #expect(memoryGroups.filter { $0.contains("score=double nan") } == [memoryGroups[0]] && memoryGroups[0].contains("n=int 2"), "\(memoryGroups)")
                #expect(Self.exact(try await postgres.fetch(byScore)) == memoryGroups)
                let nans = try GroupQuery("Person", where: "city == 'nans'", groupBy: ["city"], select: ["lo": "min:(score)"])
                #expect(throws: PredicateEvaluationError.self) { try nans.rows(in: objects, reader: PredicateValue.predicateReader) }
                do {
                    _ = try await postgres.fetch(nans)
                    Issue.record("PostgreSQL ordered NaN against 1.0")
                } catch {
                    #expect(Self.kind(error) == "incomparable")
                }
            }
        }
    }
}

import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// Decision D3 on PostgreSQL: the rows a fetch returns are the in-memory evaluator's and the
/// SQLite store's. The seeded data sets and predicate trees of PQLStoreTests' differential
/// suite (`DifferentialDataSet`, `DifferentialPredicateGenerator`) go into memory, an SQLite
/// store and a PostgreSQL store; every predicate must give the same keys in all three (and the
/// same count), every sorted, paged fetch the same keys in the same order. Predicates that
/// PostgreSQL refuses (`.unsupported`) are counted, by reason, and must stay a minority.
@Suite struct PostgresDifferential {
    static let seeds: [UInt64] = [1, 0xC0FFEE]
    static let predicatesPerSeed = 400
    static let sortsPerSeed = 120

    /// One seed's data in memory, in SQLite and (inside `run`) in PostgreSQL, keys in step.
    struct World {
        let people: [PredicateValue]
        let ids: [Int64]
        let sqlite: PredicateStore
        let data: DifferentialDataSet

        init(seed: UInt64) throws {
            var data = DifferentialDataSet(seed: seed)
            // PostgreSQL's text cannot hold U+0000 (SQLite's can): the one pool name with it
            // loses it, in all three stores alike.
            func clean(_ row: [String: PredicateValue]) -> [String: PredicateValue] {
                row.mapValues { v in
                    if case .string(let s) = v, s.contains("\u{0}") { return .string(s.replacingOccurrences(of: "\u{0}", with: "\u{1}")) }
                    return v
                }
            }
            data.people = data.people.map(clean)
            data.companies = data.companies.map(clean)
            data.tags = data.tags.map { $0.map(clean) }
            self.data = data
            let model = PeopleSchema.model
            sqlite = try PredicateStore.inMemory(model)
            let companyIDs = try sqlite.insert("Company", data.companies)
            var ids: [Int64] = [], objects: [PredicateValue] = []
            let person = try model.entity(named: "Person"), company = try model.entity(named: "Company"), tag = try model.entity(named: "Tag")
            for (i, p) in data.people.enumerated() {
                var row = p
                row["employer"] = data.employer[i].map { .int(companyIDs[$0]) } ?? .null
                let id = try sqlite.insert("Person", row)
                ids.append(id)
                var object = p
                for a in person.attributes where object[a.name] == nil { object[a.name] = .null }
                if let c = data.employer[i] {
                    var o = data.companies[c]
                    for a in company.attributes where o[a.name] == nil { o[a.name] = .null }
                    object["employer"] = .dictionary(o)
                } else {
                    object["employer"] = .null
                }
                var tags: [PredicateValue] = []
                for t in data.tags[i] {
                    try sqlite.insert("Tag", t.merging(["person": .int(id)]) { a, _ in a })
                    var o = t
                    for a in tag.attributes where o[a.name] == nil { o[a.name] = .null }
                    tags.append(.dictionary(o))
                }
                object["tags"] = .array(tags)
                objects.append(.dictionary(object))
            }
            people = objects
            self.ids = ids
        }

        /// The same rows in the PostgreSQL store, inserted in the same order: the same keys.
        func load(into store: PostgresPredicateStore) async throws {
            _ = try await store.createTables()
            try await store.installFunctions()
            var companyIDs: [Int64] = []
            for c in data.companies { companyIDs.append(try await store.insert("Company", c)) }
            for (i, p) in data.people.enumerated() {
                var row = p
                row["employer"] = data.employer[i].map { .int(companyIDs[$0]) } ?? .null
                let id = try await store.insert("Person", row)
                #expect(id == ids[i], "PostgreSQL gave person \(i) the key \(id), SQLite \(ids[i])")
                for t in data.tags[i] { try await store.insert("Tag", t.merging(["person": .int(id)]) { a, _ in a }) }
            }
        }

        func memory(_ node: PredicateNode) -> Result<[Int64], PredicateEvaluationError> {
            do {
                let compiled = try CompiledPredicate(node, reader: PredicateValue.predicateReader)
                var out: [Int64] = []
                for (i, p) in people.enumerated() where try compiled.evaluate(p) { out.append(ids[i]) }
                return .success(out)
            } catch {
                return .failure(error)
            }
        }
    }

    /// What one run saw.
    struct Tally: CustomStringConvertible {
        var predicates = 0, refused = 0, mismatches = 0, memoryErrors = 0, sorted = 0
        var reasons: [String: Int] = [:]
        var description: String {
            let top = reasons.sorted { $0.value > $1.value }.prefix(8).map { "\($0.value)× \($0.key)" }.joined(separator: "; ")
            return "\(predicates) predicates (\(sorted) sorted and paged): \(refused) refused by PostgreSQL, \(mismatches) mismatches, "
                + "\(memoryErrors) raise in memory. Refusals: \(top)"
        }

        mutating func refuse(_ error: StoreError) {
            refused += 1
            // The message without the values it quotes, so reasons group.
            let reason = error.message.split(separator: "'").enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: "…")
            reasons[reason, default: 0] += 1
        }
    }

    /// Compares one query in the three stores; a description of the disagreement, or nil.
    static func check(_ query: EntityQuery, want: Result<[Int64], PredicateEvaluationError>, ordered: Bool,
                      world: World, postgres: PostgresPredicateStore, tally: inout Tally) async -> String? {
        tally.predicates += 1
        let label = "\(query.predicate) sort \(query.sort.map { "\($0.keyPath.joined(separator: ".")) \($0.ascending ? "asc" : "desc")" }) offset \(query.offset) limit \(String(describing: query.limit))"
        let pg: [Int64], pgCount: Int
        do {
            pg = try await postgres.fetchIDs(query)
            pgCount = try await postgres.count(query)
        } catch {
            if error.kind == .unsupported {
                tally.refuse(error)
                return nil
            }
            if case .failure = want { return nil }   // memory raised too
            tally.mismatches += 1
            let sql = (try? postgres.sql(for: query).description) ?? "(no SQL)"
            return "PostgreSQL raised \"\(error)\" where memory did not: \(label)\n  sql: \(sql)"
        }
        guard case .success(let memory) = want else {
            tally.memoryErrors += 1
            tally.mismatches += 1
            return "memory raised, PostgreSQL returned \(pg.count) rows: \(label)"
        }
        let sqlite: [Int64]
        do { sqlite = try world.sqlite.fetchIDs(query) } catch { return "SQLite raised \"\(error)\": \(label)" }
        let same = ordered ? (pg == memory && sqlite == memory) : (Set(pg) == Set(memory) && Set(sqlite) == Set(memory) && pg.count == memory.count)
        if same && pgCount == memory.count { return nil }
        tally.mismatches += 1
        let sql = (try? postgres.sql(for: query).description) ?? "(no SQL)"
        return "rows differ: \(label)\n  memory \(memory.prefix(12)) (\(memory.count))\n  sqlite \(sqlite.prefix(12)) (\(sqlite.count))\n"
            + "  postgres \(pg.prefix(12)) (\(pg.count), count \(pgCount))\n  sql: \(sql)"
    }

    @Test func generatedPredicatesGiveTheSameRowsInMemorySQLiteAndPostgreSQL() async throws {
        var tally = Tally()
        var failures: [String] = []
        for seed in Self.seeds {
            let world = try World(seed: seed)
            try await TestServer.withStore(model: PeopleSchema.model) { store, _ in
                try await world.load(into: store)
                for i in 0..<Self.predicatesPerSeed {
                    var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
                    let node = g.predicate()
                    for p in [node, g.someLeaf(of: node)] {
                        let query = EntityQuery("Person", predicate: p)
                        if let f = await Self.check(query, want: world.memory(p), ordered: false, world: world, postgres: store, tally: &tally) {
                            failures.append("seed \(seed) case \(i): \(f)")
                        }
                    }
                }
                for i in 0..<Self.sortsPerSeed {
                    var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed ^ 0x5EED, i))
                    let node = g.rng.chance(0.35) ? PredicateNode.constant(true) : g.predicate(maxDepth: 2)
                    let rules = g.sortRules()
                    let offset = g.rng.chance(0.5) ? 0 : g.rng.int(in: 0...60)
                    let limit: Int? = g.rng.chance(0.4) ? nil : g.rng.int(in: 0...40)
                    let want: Result<[Int64], PredicateEvaluationError>
                    do {
                        want = .success(try PredicateQuery(node, sort: rules, offset: offset, limit: limit)
                            .indices(in: world.people, reader: PredicateValue.predicateReader).map { world.ids[$0] })
                    } catch { continue }
                    tally.sorted += 1
                    let query = EntityQuery("Person", predicate: node, sort: rules, offset: offset, limit: limit)
                    if let f = await Self.check(query, want: want, ordered: true, world: world, postgres: store, tally: &tally) {
                        failures.append("seed \(seed) sort case \(i): \(f)")
                    }
                }
            }
        }
        print("PostgresDifferential: \(tally)")
        for f in failures.prefix(10) { Issue.record(Comment(rawValue: f)) }
        #expect(tally.mismatches == 0, "\(tally)")
        #expect(tally.predicates >= 1_000, "\(tally)")
        #expect(tally.refused * 2 < tally.predicates, "PostgreSQL refuses too many: \(tally)")
    }
}

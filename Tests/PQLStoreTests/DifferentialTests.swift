import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// Decision D3: the store returns exactly the rows the in-memory evaluator returns.
///
/// Seeded random data (`DifferentialDataSet`) goes into a store and, as the same objects, into
/// memory; seeded random predicate trees (`DifferentialPredicateGenerator`) run through both.
/// Fetch, count, and sorted and paged fetches must agree row for row. A failure prints the
/// seed, the case number, the predicate's canonical text, the SQL and the rows that differ;
/// `PQL_DIFF_SEED=<n>` adds one more seed to the run.
@Suite struct DifferentialTests {
    static let seeds: [UInt64] = [1, 2, 3, 0xC0FFEE, 20_240_501] + (SeededSplitMix64.seed(fromEnvironment: "PQL_DIFF_SEED").map { [$0] } ?? [])
    static let predicatesPerSeed = 800
    static let sortsPerSeed = 200

    /// The store and the in-memory objects of one seed.
    struct World {
        let fixture: PeopleModel.Fixture
        let data: DifferentialDataSet

        init(seed: UInt64) throws {
            data = DifferentialDataSet(seed: seed)
            fixture = try PeopleModel.make(people: data.people, companies: data.companies, employer: data.employer, tags: data.tags)
        }

        var store: PredicateStore { fixture.store }

        /// The ids memory matches, in order, or the error it raised.
        func memory(_ node: PredicateNode) -> Result<[Int64], PredicateEvaluationError> {
            do {
                let compiled = try CompiledPredicate(node, reader: PredicateValue.predicateReader)
                var ids: [Int64] = []
                for (i, person) in fixture.people.enumerated() where try compiled.evaluate(person) { ids.append(fixture.ids[i]) }
                return .success(ids)
            } catch {
                return .failure(error)
            }
        }

        func row(_ id: Int64) -> String {
            guard let i = fixture.ids.firstIndex(of: id) else { return "#\(id)" }
            return "#\(id) \(fixture.people[i])"
        }

        /// A readable account of a disagreement.
        func report(_ title: String, _ node: PredicateNode, want: [Int64], got: [Int64], query: EntityQuery) -> String {
            let sql = (try? store.sql(for: query).description) ?? "(no SQL)"
            let missing = want.filter { !got.contains($0) }, extra = got.filter { !want.contains($0) }
            var s = "\(title)\n  predicate: \(node)\n  sql: \(sql)\n  memory: \(want.count) rows, store: \(got.count) rows"
            if !missing.isEmpty { s += "\n  only in memory: " + missing.prefix(3).map(row).joined(separator: "\n                  ") }
            if !extra.isEmpty { s += "\n  only in store: " + extra.prefix(3).map(row).joined(separator: "\n                 ") }
            if missing.isEmpty && extra.isEmpty { s += "\n  same rows, different order:\n  memory \(want.prefix(20))\n  store  \(got.prefix(20))" }
            return s
        }
    }

    /// What the generated trees contain, so the generator cannot quietly stop covering a form.
    struct Coverage {
        var operators: Set<ComparisonOperator> = []
        var options: Set<Int> = []
        var quantifiers: Set<String> = []
        var functions: Set<BuiltinFunction> = []
        var forms: Set<String> = []

        mutating func add(_ p: PredicateNode) {
            switch p {
            case .constant: forms.insert("constant")
            case .and(let ps), .or(let ps):
                forms.insert(p == .and(ps) ? "and" : "or")
                ps.forEach { add($0) }
            case .not(let q):
                forms.insert("not")
                add(q)
            case .comparison(let c):
                operators.insert(c.op)
                options.insert(c.options.rawValue)
                quantifiers.insert(c.quantifier == .any ? "ANY" : c.quantifier == .all ? "ALL" : "direct")
                add(c.lhs)
                add(c.rhs)
                if c.lhs == .constant(.null) || c.rhs == .constant(.null) { forms.insert("nil constant") }
                let collection = c.op == .in ? c.rhs : c.op == .contains ? c.lhs : nil
                if !c.options.isEmpty, let collection {
                    if case .constant(let v) = collection, v.collectionElements != nil || v.kindDescription == "a dictionary" {
                        forms.insert("\(c.op.symbol)[cd] collection")
                    }
                    if collection == .keyPath(["tags", "name"]) { forms.insert("\(c.op.symbol)[cd] to-many") }
                }
            }
            if case .not(.comparison(let c)) = p, c.quantifier == .any { quantifiers.insert("NONE") }
        }

        mutating func add(_ e: ExpressionNode) {
            switch e {
            case .keyPath(let path):
                if path.first == "employer" { forms.insert("to-one") }
                if let op = path.first(where: { $0.hasPrefix("@") }) { forms.insert(op) }
            case .keyPathOn(.subquery(_, _, let p), _):
                forms.insert("SUBQUERY")
                add(p)
            case .function(let f, let args):
                functions.insert(f)
                args.forEach { add($0) }
            case .aggregate(let items):
                forms.insert("aggregate")
                items.forEach { add($0) }
            default: break
            }
        }
    }

    /// Statistics of one run, for the record.
    struct Tally: CustomStringConvertible {
        var predicates = 0, rowsCompared = 0, matched = 0, empty = 0, everyRow = 0, memoryErrors = 0
        var description: String {
            "\(predicates) predicates, \(rowsCompared) row decisions; \(empty) match none, \(everyRow) match all, \(memoryErrors) raise in memory"
        }
    }

    /// Fetch and count of one predicate against memory; nil when they agree.
    static func check(_ node: PredicateNode, in world: World, label: String, tally: inout Tally) -> String? {
        let query = EntityQuery("Person", predicate: node)
        tally.predicates += 1
        tally.rowsCompared += world.fixture.people.count
        switch world.memory(node) {
        case .failure(let error):
            tally.memoryErrors += 1
            // Memory raised: the store must raise too (as a StoreError), for fetch and count.
            var problems: [String] = []
            do throws(StoreError) {
                let got = try world.store.fetch(query).map(\.id)
                problems.append("fetch returned \(got.count) rows")
            } catch let e {
                // The evaluator's error, of the same kind (the message names the operands of
                // the first row that fails, which follows each backend's scan order).
                if e.evaluationError?.kind != error.kind { problems.append("fetch raised \"\(e)\" (\(e.evaluationError?.kind.rawValue ?? "not an evaluation error"))") }
            }
            do {
                let n = try world.store.count(query)
                problems.append("count returned \(n)")
            } catch {}
            if problems.isEmpty { return nil }
            let sql = (try? world.store.sql(for: query).description) ?? "(no SQL)"
            return "\(label): memory raised \"\(error)\" but the store \(problems.joined(separator: " and "))\n  predicate: \(node)\n  sql: \(sql)"
        case .success(let want):
            if want.isEmpty { tally.empty += 1 }
            if want.count == world.fixture.people.count { tally.everyRow += 1 }
            tally.matched += want.count
            let got: [Int64]
            // Without sort rules the store's order is SQLite's plan order (an index's order when
            // one serves the WHERE clause), so the rows are compared in key order, which is the
            // insertion order memory keeps. Sorted fetches are compared in order below.
            do { got = try world.store.fetch(query).map(\.id).sorted() } catch {
                let sql = (try? world.store.sql(for: query).description) ?? "(no SQL)"
                return "\(label): the store raised \"\(error)\" where memory matched \(want.count) rows\n  predicate: \(node)\n  sql: \(sql)"
            }
            if got != want { return world.report(label, node, want: want, got: got, query: query) }
            do {
                let n = try world.store.count(query)
                if n != want.count { return "\(label): count \(n) but memory matched \(want.count)\n  predicate: \(node)" }
            } catch {
                return "\(label): count raised \"\(error)\"\n  predicate: \(node)"
            }
            return nil
        }
    }

    static func record(_ failures: [String], _ context: String) {
        for f in failures.prefix(8) { Issue.record(Comment(rawValue: f)) }
        if failures.count > 8 { Issue.record(Comment(rawValue: "… and \(failures.count - 8) more disagreements (\(context))")) }
    }

    // MARK: random predicates

    @Test(arguments: seeds)
    func randomPredicatesAgree(seed: UInt64) throws {
        let world = try World(seed: seed)
        var tally = Tally()
        var coverage = Coverage()
        var failures: [String] = []
        for i in 0..<Self.predicatesPerSeed {
            var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed, i))
            let node = g.predicate()
            coverage.add(node)
            if let f = Self.check(node, in: world, label: "seed \(seed) case \(i)", tally: &tally) { failures.append(f) }
            let leaf = g.someLeaf(of: node)
            if leaf != node, let f = Self.check(leaf, in: world, label: "seed \(seed) case \(i) (a part)", tally: &tally) { failures.append(f) }
        }
        Self.record(failures, "seed \(seed)")
        // The generator must produce predicates that discriminate: not all empty, not all full,
        // and (by construction) almost never raising in memory.
        #expect(tally.empty < tally.predicates / 2, "\(tally)")
        #expect(tally.everyRow < tally.predicates / 3, "\(tally)")
        #expect(tally.memoryErrors <= tally.predicates / 50, "\(tally)")
        let operators: Set<ComparisonOperator> = [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
                                                  .between, .in, .contains, .beginsWith, .endsWith, .like, .matches]
        #expect(operators.subtracting(coverage.operators).isEmpty, "operators never generated: \(operators.subtracting(coverage.operators))")
        let options: Set<Int> = [0, 1, 2, 3, 4]
        #expect(options.subtracting(coverage.options).isEmpty, "options never generated: \(options.subtracting(coverage.options))")
        #expect(coverage.forms.isSuperset(of: ["IN[cd] collection", "CONTAINS[cd] collection", "IN[cd] to-many"]), "\(coverage.forms)")
        #expect(coverage.quantifiers == ["direct", "ANY", "ALL", "NONE"], "\(coverage.quantifiers)")
        let functions: Set<BuiltinFunction> = [.add, .subtract, .multiply, .divide, .modulus, .negate, .abs, .uppercase, .lowercase, .length,
                                               .sum, .average, .min, .max]
        #expect(functions.subtracting(coverage.functions).isEmpty, "functions never generated: \(functions.subtracting(coverage.functions))")
        let forms: Set<String> = ["constant", "and", "or", "not", "nil constant", "to-one", "@count", "@sum", "@avg", "@min", "@max", "SUBQUERY", "aggregate"]
        #expect(forms.subtracting(coverage.forms).isEmpty, "forms never generated: \(forms.subtracting(coverage.forms))")
        print("DifferentialTests seed \(seed): \(tally)")
    }

    // MARK: 64-bit overflow

    /// Arithmetic near the ends of 64 bits: the same overflow error in both, or the same rows.
    @Test(arguments: seeds.prefix(3))
    func overflowingArithmeticAgrees(seed: UInt64) throws {
        let world = try World(seed: seed)
        var tally = Tally()
        var failures: [String] = []
        var overflows = 0
        for i in 0..<300 {
            var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed ^ 0x0F10, i))
            let node = g.overflowingArithmetic()
            if case .failure(let e) = world.memory(node), e.kind == .integerOverflow { overflows += 1 }
            if let f = Self.check(node, in: world, label: "seed \(seed) overflow case \(i)", tally: &tally) { failures.append(f) }
        }
        Self.record(failures, "seed \(seed) overflow")
        #expect(overflows > 30 && overflows < 270, "\(overflows) of 300 overflow: \(tally)")
    }

    // MARK: sorting, offset and limit

    @Test(arguments: seeds)
    func sortedPagesAgree(seed: UInt64) throws {
        let world = try World(seed: seed)
        var failures: [String] = []
        var compared = 0
        for i in 0..<Self.sortsPerSeed {
            var g = DifferentialPredicateGenerator(seed: SeededSplitMix64.caseSeed(seed ^ 0x5EED, i))
            let node = g.rng.chance(0.35) ? PredicateNode.constant(true) : g.predicate(maxDepth: 2)
            let rules = g.sortRules()
            let offset = g.rng.chance(0.5) ? 0 : g.rng.int(in: 0...60)
            let limit: Int? = g.rng.chance(0.4) ? nil : g.rng.int(in: 0...40)
            let want: [Int64]
            do {
                want = try PredicateQuery(node, sort: rules, offset: offset, limit: limit)
                    .indices(in: world.fixture.people, reader: PredicateValue.predicateReader).map { world.fixture.ids[$0] }
            } catch { continue }
            let query = EntityQuery("Person", predicate: node, sort: rules, offset: offset, limit: limit)
            let label = "seed \(seed) sort case \(i): sort \(rules.map { "\($0.keyPath.joined(separator: ".")) \($0.ascending ? "asc" : "desc") \($0.comparison)" }) offset \(offset) limit \(String(describing: limit))"
            do {
                let got = try world.store.fetch(query).map(\.id)
                compared += 1
                if got != want { failures.append(world.report(label, node, want: want, got: got, query: query)) }
                let n = try world.store.count(query)
                if n != want.count { failures.append("\(label): count \(n), memory \(want.count)\n  predicate: \(node)") }
            } catch {
                failures.append("\(label): the store raised \"\(error)\"\n  predicate: \(node)")
            }
        }
        Self.record(failures, "seed \(seed) sorting")
        #expect(compared > Self.sortsPerSeed * 9 / 10)
    }

    // MARK: both must fail

    /// Predicates memory rejects on this data: the store must reject them too, as a StoreError.
    static let failing: [String] = [
        "name < 5", "5 > name", "age BEGINSWITH 'a'", "name MATCHES '('", "name MATCHES '[a-'", "city MATCHES[c] '(?<n>'",
        "age + 1 > 5", "score * 2 < 1", "uppercase:(name) == 'A'", "length:(city) > 2", "abs:(age) > 3", "born < 5",
        "photo < photo", "score BETWEEN {'a', 'z'}", "ANY tags.name > 5", "'x' IN age", "name CONTAINS 5",
        "ALL tags.weight < 'a'", "length:(age) > 1", "abs:(name) > 1", "SUBQUERY(tags, $t, $t.name < 5).@count > 0",
        "employer.#size BETWEEN {1, 'x'}", "age MATCHES 'a'", "employer.name < 3", "tags.@sum.name == 0", "tags.@avg.name > 1",
        "age BETWEEN {'a', 1}", "employer.#size - age > 0", "name LIKE 5",
    ]

    @Test func bothMustFail() throws {
        let world = try World(seed: 1)
        for text in Self.failing {
            let node = try PredicateNode(format: text)
            if case .success(let ids) = world.memory(node) {
                Issue.record("memory did not raise for \(text) (matched \(ids.count) rows): fix the test's data or the list")
                continue
            }
            let query = EntityQuery("Person", predicate: node)
            #expect(throws: StoreError.self, "fetch of \(text)") { try world.store.fetch(query) }
            #expect(throws: StoreError.self, "count of \(text)") { try world.store.count(query) }
        }
    }

    // MARK: pinned cases

    /// Shapes that disagreed once (see the report in the change), kept as fixed cases.
    static let pinned: [String] = [
        "tags.@sum.weight / 2 == 1", "tags.@sum.weight / 2 >= 2", "modulus:by:(tags.@sum.weight, 2) == 1", "tags.@sum.weight == 0",
        "NOT (age != nil AND age + 1 > 18)", "NOT (name != nil AND length:(name) > 3)",
        "NOT (age == nil OR age * 2 > 40)", "NOT (tags.@avg.weight != nil AND tags.@avg.weight * 2 > 3)",
        "SUBQUERY(tags, $t, $t.weight < age).@count > 0", "SUBQUERY(tags, $t, $t.name ==[cd] name).@count > 0",
        "SUBQUERY(tags, $t, name == nil).@count > 0", "SUBQUERY(tags, $t, employer.name ==[c] $t.name OR $t.weight > employer.#size).@count >= 1",
        "NOT (SUBQUERY(tags, $t, $t.weight != nil AND $t.weight * 2 > 3).@count > 0)",
        "photo == nil", "photo != nil", "photo == CAST('', 'NSData')",
        "ANY tags.name == name", "ALL tags.weight < age", "NOT (ANY tags.weight != nil AND age > 3)",
        "name == age", "name != employer.#size", "'os' IN name", "name IN {'José', 5, nil}", "balance == 12.34", "balance < 1",
        "born BETWEEN {CAST(0, 'NSDate'), CAST(700000000, 'NSDate')}", "employer == nil", "nil != employer",
        "ALL tags.name BEGINSWITH[cd] 'v'", "NOT ANY tags.name LIKE[c] '*s*'", "tags.@min.name <= 'n'", "tags.@avg.weight == nil",
        "name BEGINSWITH 'Jos'", "name BEGINSWITH[n] 'Jos'", "name ==[cd] 'jose'", "name LIKE city", "name CONTAINS[c] city",
        // NaN (0.0 / 0, fmod by zero) is a value, never nil; SQLite turns it into NULL.
        "score != nil AND modulus:by:(score, 0) == nil", "score != nil AND modulus:by:(score, 0) != nil",
        "score != nil AND abs:(modulus:by:(score, 0)) >= 0", "score != nil AND modulus:by:(score, 0) + 1 != 2",
        "score != nil AND modulus:by:(score, 0) == modulus:by:(score, 0)", "score != nil AND age == modulus:by:(score, 0)",
        "score != nil AND age != modulus:by:(score, 0)", "score != nil AND modulus:by:(score, 0) <= modulus:by:(score, 0)",
        "score != nil AND NOT (modulus:by:(score, 0) > 1)", "score != nil AND score / 0 > 1000",
        "score != nil AND modulus:by:(score, 0) BETWEEN {-1, 1}", "score != nil AND modulus:by:(score, 0) IN {1, nil}",
        // TERNARY and CAST conditions and values.
        "TERNARY(age != nil AND age + 1 > 18, 1, 0) == 1", "TERNARY(name ==[cd] 'jose', 'y', 'n') == 'y'",
        "CAST(age, 'NSString') == '30'", "CAST(score, 'NSString') BEGINSWITH '3'", "name MATCHES city", "city MATCHES[c] name",
    ]

    @Test func pinnedCasesAgree() throws {
        var failures: [String] = []
        var tally = Tally()
        for seed in Self.seeds.prefix(3) {
            let world = try World(seed: seed)
            for text in Self.pinned {
                let node = try PredicateNode(format: text)
                if let f = Self.check(node, in: world, label: "seed \(seed) pinned '\(text)'", tally: &tally) { failures.append(f) }
            }
        }
        Self.record(failures, "pinned cases")
        #expect(tally.memoryErrors == 0, "\(tally)")
    }

    // MARK: known differences

    /// SQLite stores a REAL -0.0 as the integer 0, so the store reads back +0.0: `==` cannot
    /// tell (memory says -0.0 == 0.0 too), but a division by it can (1 / -0.0 is -infinity).
    /// The random data therefore holds no -0.0.
    /// `BEGINSWITH[c]` compiles to index ranges on an indexed column and to LIKE on a scanned
    /// one: both agree with memory, for prefixes where folding is more than ASCII case.
    @Test func caseInsensitivePrefixesAgreeWithAndWithoutIndexes() throws {
        let needles = ["a", "A", "ab", "aB", "abc", "abcd", "s", "ss", "ß", "ẞ", "k", "K", "\u{212A}", "é", "e", "jo", "JOS",
                       "Jos\u{301}", "%", "_", "\\", "%p", "1", "ｆ", "Ａ", "ẚ", "i", "İ", "ı", "ǆ", "ς", "a b", "z", "😀", "\u{0}", "a\u{301}"]
        var failures: [String] = []
        var tally = Tally()
        for seed in Self.seeds.prefix(2) {
            for dropIndexes in [false, true] {
                let world = try World(seed: seed)
                if dropIndexes { try world.store.dropIndexes() }
                for needle in needles {
                    for key in ["name", "email", "employer.name"] {
                        for format in ["\(key) BEGINSWITH[c] %@", "NOT (\(key) BEGINSWITH[c] %@)"] {
                            let node = try PredicateNode(format: format, argumentArray: [needle])
                            if let f = Self.check(node, in: world, label: "seed \(seed) indexes \(!dropIndexes) '\(format)' \(needle.debugDescription)", tally: &tally) {
                                failures.append(f)
                            }
                        }
                    }
                }
            }
        }
        Self.record(failures, "case-insensitive prefixes")
        #expect(tally.memoryErrors == 0, "\(tally)")
    }

    @Test func negativeZeroLosesItsSign() throws {
        let f = try PeopleModel.make(people: [["name": "a", "score": .double(-0.0)], ["name": "b", "score": .double(0.0)]],
                                     companies: [], employer: [nil, nil], tags: [[], []])
        let node = try PredicateNode(format: "score != nil AND 1 / score < 0")
        let want = try f.people.indices.filter { try node.evaluate(on: f.people[$0]) }.map { f.ids[$0] }
        let got = try f.store.fetch(EntityQuery("Person", predicate: node)).map(\.id)
        #expect(want == [f.ids[0]])
        withKnownIssue("SQLite keeps no negative zero: a REAL -0.0 is stored as the integer 0") {
            #expect(got == want)
        }
    }

    /// Without sort rules the store pages in SQLite's plan order (here the age index's order),
    /// memory (PredicateQuery) in input order: the same rows overall, but not the same page.
    @Test func pagingWithoutSortRulesFollowsThePlan() throws {
        let world = try World(seed: 1)
        // SQLite's own plan: the age index, whose order is not the input's. (On a table large
        // enough to be measured, the store scans so broad a range, in the table's order.)
        world.store.indexRangePolicy = .plannerOnly
        let node = try PredicateNode(format: "age >= 0")
        let all = try PredicateQuery(node).indices(in: world.fixture.people, reader: PredicateValue.predicateReader).map { world.fixture.ids[$0] }
        #expect(try world.store.fetch(EntityQuery("Person", predicate: node)).map(\.id).sorted() == all)
        let want = try PredicateQuery(node, limit: 5).indices(in: world.fixture.people, reader: PredicateValue.predicateReader)
            .map { world.fixture.ids[$0] }
        let got = try world.store.fetch(EntityQuery("Person", predicate: node, limit: 5)).map(\.id)
        withKnownIssue("EntityQuery without sort rules has no ORDER BY: its pages follow the query plan, PredicateQuery's the input order") {
            #expect(got == want)
        }
        // With any sort rule the key breaks ties, and the pages agree.
        let sorted = try PredicateQuery(node, sort: [SortRule("age")], limit: 5).indices(in: world.fixture.people, reader: PredicateValue.predicateReader)
        #expect(try world.store.fetch(EntityQuery("Person", predicate: node, sort: [SortRule("age")], limit: 5)).map(\.id)
                    == sorted.map { world.fixture.ids[$0] })
    }

    // MARK: the data

    /// The store holds what memory holds: every attribute of every person reads back equal
    /// (NUL inside text, empty data, decimals, fractional dates, booleans).
    @Test(arguments: seeds.prefix(2))
    func storedValuesEqualMemory(seed: UInt64) throws {
        let world = try World(seed: seed)
        let records = try world.store.fetch(EntityQuery("Person", sort: [SortRule("name")]))
        #expect(records.count == world.fixture.people.count)
        for r in records {
            guard let i = world.fixture.ids.firstIndex(of: r.id), case .dictionary(let person) = world.fixture.people[i] else {
                Issue.record("unknown record \(r.id)")
                continue
            }
            for key in r.keys {
                let a = r[key], b = person[key] ?? .null
                #expect(a == b && a.kindDescription == b.kindDescription, "#\(r.id).\(key): store \(a), memory \(b)")
            }
        }
    }

    /// Every pool string is a valid pattern for MATCHES (key paths are used as patterns), and
    /// the data holds what the suite claims to cover.
    @Test func dataCoversTheEdges() throws {
        let data = DifferentialDataSet(seed: 1)
        #expect(data.people.count == 150 && data.companies.count == 8)
        #expect(data.tags.filter(\.isEmpty).count > 30)
        #expect(data.employer.contains(nil))
        for key in ["name", "age", "score", "city", "email", "active", "born", "balance", "photo"] {
            #expect(data.people.contains { ($0[key] ?? .null).isNull }, "no nil \(key)")
            #expect(data.people.contains { !($0[key] ?? .null).isNull }, "no \(key)")
        }
        for s in DifferentialPools.names + DifferentialPools.cities + DifferentialPools.tagNames + DifferentialPools.companyNames + DifferentialPools.emails {
            #expect(throws: Never.self, "pattern \(s.debugDescription)") {
                _ = try PredicateNode.comparison(ComparisonNode(.constant("x"), .matches, .constant(.string(s)))).evaluate(on: PredicateValue.null)
            }
        }
    }
}

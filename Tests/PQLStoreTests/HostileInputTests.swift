import CSQLite
import Foundation
import PQL
@testable import PQLStore
import Testing

/// Hostile predicates, arguments and files: each one fails with a StoreError or gives exactly
/// the right rows, and the data is intact afterwards (decision D10: no crash, no hang; reference §8.1: no
/// injection).
@Suite struct HostileInputTests {
    static let injection = #"'; DROP TABLE "Person"; --"#

    static func fixture() throws -> PeopleModel.Fixture {
        try PeopleModel.make(
            people: [["name": "Ann", "age": 40, "city": "Paris"],
                     ["name": .string(injection), "age": 1],
                     ["name": "a\u{0}b", "age": 2],
                     ["name": "a", "age": 3],
                     ["name": "100%_done", "age": 4],
                     ["name": "O'Brien \"Bob\"", "age": 5]],
            companies: [PeopleModel.company("Acme", founded: 1, size: 12), PeopleModel.company("Tiny", founded: nil, size: 2)],
            employer: [0, 1, nil, nil, nil, 0],
            tags: [[["name": "vip"]], [["name": .string(injection)]], [], [], [], []])
    }

    /// Row counts of every table, and SQLite's own integrity check.
    static func expectIntact(_ store: PredicateStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let counts = try ["Person", "Tag", "Company"].map { try store.count(EntityQuery($0)) }
        #expect(counts == [6, 2, 2], sourceLocation: sourceLocation)
        let check = try store.locked { () throws(StoreError) -> String in
            let s = try store.connection.prepare("PRAGMA integrity_check")
            return try s.step() ? s.text(0) : "no result"
        }
        #expect(check == "ok", sourceLocation: sourceLocation)
        let tables = try store.locked { () throws(StoreError) -> [String] in
            let s = try store.connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
        #expect(tables == ["Company", "Person", "Tag", "Z_PQLMETADATA"], sourceLocation: sourceLocation)
    }

    /// The error as a StoreError (nil for any other error, which the test then reports).
    static func storeError(_ error: any Error) -> StoreError? { error as? StoreError }

    static func names(_ store: PredicateStore, _ format: String, _ arguments: [Any?] = []) throws -> [String] {
        try store.fetch(EntityQuery("Person", where: format, arguments, sort: [SortRule("age")])).map {
            if case .string(let s) = $0["name"] { return s } else { return "?" }
        }
    }

    // MARK: values

    static let hostileValues: [String] = [
        injection, "x'; DROP TABLE \"Person\"; --", "Robert'); DELETE FROM \"Tag\"; --", "' OR '1'='1", "\" OR \"\"=\"", "?1", ":name", "@x",
        "$minimum", "\\", "\\'", "%", "_", "*", "[", "/* comment", "-- comment", "\u{0}", "x\u{0}' OR 1=1 --", "NULL",
    ]

    @Test(arguments: hostileValues) func hostileArgumentValuesMatchOnlyThemselves(_ v: String) throws {
        let f = try Self.fixture()
        let expected = v == Self.injection ? [v] : []
        #expect(try Self.names(f.store, "name == %@", [v]) == expected)
        #expect(try Self.names(f.store, "name ==[cd] %@", [v]) == expected)
        #expect(try Self.names(f.store, "name IN %@", [[v, "nobody"]]) == expected)
        #expect(try Self.names(f.store, "name LIKE %@", [v]) == (v == "*" ? Self.names(f.store, "TRUEPREDICATE") : expected))
        _ = try Self.names(f.store, "name CONTAINS %@ OR city BEGINSWITH %@", [v, v])
        _ = try f.store.count(EntityQuery("Person", where: "ANY tags.name == %@ OR employer.name ENDSWITH[c] %@", [v, v]))
        _ = try f.store.fetchProperties(["name"], EntityQuery("Person", where: "SUBQUERY(tags, $t, $t.name == %@).@count > 0", [v]))
        try Self.expectIntact(f.store)
    }

    @Test func injectionTextInsideThePredicateIsAString() throws {
        let f = try Self.fixture()
        #expect(try Self.names(f.store, #"name == '\'; DROP TABLE "Person"; --'"#) == [Self.injection])
        #expect(try Self.names(f.store, #"name == "'; DROP TABLE \"Person\"; --""#) == [Self.injection])
        #expect(try Self.names(f.store, #"name == "O'Brien \"Bob\"""#) == ["O'Brien \"Bob\""])
        #expect(try f.store.count(EntityQuery("Person", where: "ANY tags.name == %@", [Self.injection])) == 1)
        let sql = try f.store.sql(for: EntityQuery("Person", where: "name == %@", [Self.injection]))
        #expect(!sql.sql.contains("DROP"))
        try Self.expectIntact(f.store)
    }

    @Test func writesOfHostileValuesStoreThemVerbatim() throws {
        let f = try Self.fixture()
        let weird = "x\"; DROP TABLE \"Tag\"; --\u{0}\u{1F600}"
        let id = try f.store.insert("Company", ["name": .string(weird)])
        #expect(try f.store.fetch(EntityQuery("Company", where: "name == %@", [weird])).map(\.id) == [id])
        #expect(try f.store.batchUpdate(EntityQuery("Company", where: "name == %@", [weird]), set: ["name": .string(weird + "'")]) == 1)
        #expect(try f.store.count(EntityQuery("Company", where: "name ENDSWITH %@", ["'"])) == 1)
        try f.store.delete("Company", id: id)
        try Self.expectIntact(f.store)
    }

    // MARK: keys

    @Test(arguments: ["name\"; DROP TABLE x; --", "name\" = \"name", "Z_PK", "rowid", "t0.\"name\"", "name; --", "", " name", "Z_ENT"])
    func hostileKeyThroughFormatK(_ key: String) throws {
        let f = try Self.fixture()
        #expect {
            _ = try f.store.fetch(EntityQuery("Person", where: "%K == 1", [key]))
        } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .unknownKey || e.kind == .syntax
        }
        try Self.expectIntact(f.store)
    }

    @Test func formatKWithARealKeyWorks() throws {
        let f = try Self.fixture()
        #expect(try Self.names(f.store, "%K == %@", ["city", "Paris"]) == ["Ann"])
        #expect(try f.store.count(EntityQuery("Company", where: "%K > 10", ["size"])) == 1)
    }

    @Test func hashEscapedKeywordsAreKeys() throws {
        let f = try Self.fixture()
        #expect(try f.store.count(EntityQuery("Company", where: "#size > 10")) == 1)
        #expect(try Self.names(f.store, "employer.#size < 5") == [Self.injection])
        #expect(throws: StoreError.self) { _ = try EntityQuery("Company", where: "size > 10") }
        // an escaped keyword the model lacks is an unknown key, not SQL
        #expect {
            _ = try f.store.fetch(EntityQuery("Person", where: "#select == 1"))
        } throws: { e in (e as? StoreError)?.kind == .unknownKey }
        try Self.expectIntact(f.store)
    }

    @Test(arguments: ["n\u{0430}me == 'Ann'", "\u{FF4E}ame == 'Ann'", "name\u{200B} == 'Ann'", "nam\u{0065}\u{0301} == 'Ann'"])
    func unicodeLookAlikeKeysAreUnknown(_ format: String) throws {
        let f = try Self.fixture()
        #expect {
            _ = try f.store.fetch(EntityQuery("Person", where: format))
        } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .unknownKey || e.kind == .syntax
        }
        try Self.expectIntact(f.store)
    }

    @Test func unicodeLookAlikeValuesMatchNothing() throws {
        let f = try Self.fixture()
        #expect(try Self.names(f.store, "name == %@", ["\u{0410}nn"]).isEmpty)          // Cyrillic А
        #expect(try Self.names(f.store, "name == %@", ["\u{FF21}nn"]).isEmpty)         // fullwidth Ａ
        // with [cd] the store folds exactly as the evaluator does
        let folded = try f.store.fetch(EntityQuery("Person", where: "name ==[cd] %@", ["\u{FF21}nn"])).map(\.id)
        let node = try PredicateNode(format: "name ==[cd] %@", argumentArray: ["\u{FF21}nn"])
        let want = try f.people.indices.filter { try node.evaluate(on: f.people[$0]) }.map { f.ids[$0] }
        #expect(folded == want)
        #expect(try Self.names(f.store, "name == %@", ["Ann\u{200B}"]).isEmpty)         // zero-width space
        #expect(try Self.names(f.store, "name BEGINSWITH %@", ["\u{0410}"]).isEmpty)
        #expect(try Self.names(f.store, "name ==[cd] %@", ["ÀNN"]) == ["Ann"])
        try Self.expectIntact(f.store)
    }

    // MARK: NUL bytes

    @Test func nulBytesSurviveAStoreRoundTrip() throws {
        let f = try Self.fixture()
        let stored = try f.store.fetch(EntityQuery("Person", where: "age == 2"))
        #expect(stored.first?["name"] == .string("a\u{0}b"))
        #expect(try Self.names(f.store, "name == %@", ["a\u{0}b"]) == ["a\u{0}b"])
        #expect(try Self.names(f.store, "name == %@", ["a"]) == ["a"])
        #expect(try Self.names(f.store, "name == %@", ["a\u{0}"]).isEmpty)
        #expect(try Self.names(f.store, "name BEGINSWITH %@", ["a\u{0}"]) == ["a\u{0}b"])
        #expect(try Self.names(f.store, "name CONTAINS %@", ["\u{0}b"]) == ["a\u{0}b"])
        #expect(try Self.names(f.store, "name ENDSWITH[c] %@", ["\u{0}B"]) == ["a\u{0}b"])
        #expect(try Self.names(f.store, "uppercase(name) == %@", ["A\u{0}B"]) == ["a\u{0}b"])
        #expect(try Self.names(f.store, "name IN %@", [["a\u{0}b", "zzz"]]) == ["a\u{0}b"])
        #expect(try f.store.fetchProperties(["name"], EntityQuery("Person", where: "age == 2")) == [["name": "a\u{0}b"]])
        try Self.expectIntact(f.store)
    }

    @Test func nulByteInThePredicateText() throws {
        let f = try Self.fixture()
        do {
            let got = try Self.names(f.store, "name == 'a\u{0}b'")
            #expect(got == ["a\u{0}b"])
        } catch {
            #expect(Self.storeError(error)?.kind == .syntax, "\(error)")
        }
        try Self.expectIntact(f.store)
    }

    // MARK: size and depth

    @Test func hugeInListOfArguments() throws {
        let f = try Self.fixture()
        let members: [Int] = Array(stride(from: 0, to: 20_000, by: 2))
        #expect(members.count == 10_000)
        #expect(try Self.names(f.store, "age IN %@", [members]) == ["a\u{0}b", "100%_done", "Ann"])
        #expect(try Self.names(f.store, "NOT (age IN %@)", [members]) == [Self.injection, "a", "O'Brien \"Bob\""])
        try Self.expectIntact(f.store)
    }

    @Test func hugeInListInTheText() throws {
        let f = try Self.fixture()
        let text = "age IN {" + (1_000..<11_000).map(String.init).joined(separator: ", ") + ", 5}"
        #expect(try Self.names(f.store, text) == ["O'Brien \"Bob\""])
        let strings = "name IN {" + (0..<10_000).map { "'n\($0)'" }.joined(separator: ", ") + ", 'Ann'}"
        #expect(try Self.names(f.store, strings) == ["Ann"])
        try Self.expectIntact(f.store)
    }

    @Test func longOrChains() throws {
        let f = try Self.fixture()
        let text = (0..<3_000).map { "age == \($0 + 10)" }.joined(separator: " OR ") + " OR age == 3"
        do {
            #expect(try Self.names(f.store, text) == ["a", "Ann"])
        } catch {
            Issue.record("a long OR chain should compile: \(error)")
        }
        let and = (0..<3_000).map { _ in "age > 2" }.joined(separator: " AND ") + " AND age < 4"
        #expect(try Self.names(f.store, and) == ["a"])
        try Self.expectIntact(f.store)
    }

    @Test func deeplyNestedTextIsAnErrorOrRightRows() throws {
        let f = try Self.fixture()
        for depth in [10, 60, 70, 500, 5_000] {
            let text = String(repeating: "(", count: depth) + "age == 40" + String(repeating: ")", count: depth)
            do {
                #expect(try Self.names(f.store, text) == ["Ann"], "depth \(depth)")
            } catch {
                #expect(Self.storeError(error)?.kind == .syntax, "depth \(depth): \(error)")
            }
            let nots = String(repeating: "NOT ", count: depth) + "age == 40"
            do {
                let got = try Self.names(f.store, nots)
                let want = depth % 2 == 0 ? ["Ann"] : try Self.names(f.store, "NOT (age == 40)")
                #expect(got == want, "NOT × \(depth)")
            } catch {
                let e = Self.storeError(error)
                // The parser's nesting limit, or SQLite's (its parser stack before 3.46).
                #expect(e?.kind == .syntax || (e?.kind == .unsupported && e?.message.contains("SQLite") == true),
                        "NOT × \(depth): \(error)")
            }
        }
        try Self.expectIntact(f.store)
    }

    @Test func deeplyNestedTreesBuiltInCode() throws {
        let f = try Self.fixture()
        let leaf = PredicateNode.comparison(ComparisonNode(.keyPath(["age"]), .equal, .constant(40)))
        for depth in [100, 400, 2_000] {
            var p = leaf
            for i in 0..<depth { p = i % 2 == 0 ? .and([p, .constant(true)]) : .or([p, .constant(false)]) }
            do {
                let got = try f.store.fetch(EntityQuery("Person", predicate: p)).map(\.id)
                #expect(got == [f.ids[0]], "depth \(depth)")
                #expect(depth < PredicateNode.maxCompileDepth, "depth \(depth) was compiled")
            } catch {
                let e = Self.storeError(error)
                #expect(e?.kind == .unsupported && e?.hint?.contains("flatten") == true, "depth \(depth): \(error)")
            }
            var n = leaf
            for _ in 0..<depth { n = .not(n) }
            do {
                let got = try f.store.count(EntityQuery("Person", predicate: n))
                #expect(got == (depth % 2 == 0 ? 1 : 5), "NOT depth \(depth)")
            } catch {
                let e = Self.storeError(error)
                #expect(e?.kind == .unsupported && e?.hint?.contains("flatten") == true, "NOT depth \(depth): \(error)")
            }
        }
        try Self.expectIntact(f.store)
    }

    @Test func hostileRegexIsBoundedOrFalse() throws {
        let f = try Self.fixture()
        try f.store.insert("Tag", ["name": .string(String(repeating: "a", count: 40) + "!")])
        do {
            let n = try f.store.count(EntityQuery("Tag", where: "name MATCHES '(a+)+$'"))
            #expect(n == 0)
        } catch {
            #expect(Self.storeError(error)?.kind == .evaluation, "\(error)")
        }
        _ = try f.store.batchDelete(EntityQuery("Tag", where: "name BEGINSWITH 'aaaa'"))
        try Self.expectIntact(f.store)
    }

    @Test func sqlWildcardsAreLiteralInLikeAndContains() throws {
        let f = try Self.fixture()
        #expect(try Self.names(f.store, "name LIKE '%'").isEmpty)
        #expect(try Self.names(f.store, "name LIKE '100%_done'") == ["100%_done"])
        #expect(try Self.names(f.store, "name CONTAINS '%_'") == ["100%_done"])
        #expect(try Self.names(f.store, "name LIKE '1??%*'") == ["100%_done"])
        try Self.expectIntact(f.store)
    }

    // MARK: identifiers from the model

    @Test func identifiersWithQuotesAreQuoted() throws {
        let model = try StoreModel([
            ModelEntity("Odd\"Table; DROP", attributes: [ModelAttribute("we\"ird", .string, isIndexed: true),
                                                        ModelAttribute("select", .integer64)]),
        ])
        let store = try PredicateStore.inMemory(model)
        try store.insert("Odd\"Table; DROP", ["we\"ird": "x", "select": 1])
        try store.insert("Odd\"Table; DROP", ["we\"ird": "y", "select": 2])
        #expect(try store.count(EntityQuery("Odd\"Table; DROP", where: "%K == 'y'", ["we\"ird"])) == 1)
        #expect(try store.count(EntityQuery("Odd\"Table; DROP", where: "#select > 0")) == 2)
        #expect(try store.batchDelete(EntityQuery("Odd\"Table; DROP", where: "#select == 1")) == 1)
        #expect(try store.fetch(EntityQuery("Odd\"Table; DROP"))[0]["we\"ird"] == "y")
    }

    // MARK: files

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func openingANonSQLiteFileFails() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, bytes) in [("text.sqlite", Data("this is not a database, just some text\n".utf8)),
                              ("zeros.sqlite", Data(repeating: 0, count: 8_192)),
                              ("random.sqlite", Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })),
                              ("header-only.sqlite", Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0xFF, count: 200))] {
            let path = dir.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            #expect(throws: StoreError.self, "\(name)") { _ = try PredicateStore(path: path) }
            #expect(throws: StoreError.self, "\(name)") { _ = try PredicateStore(path: path, model: PeopleModel.model) }
            #expect(throws: StoreError.self, "\(name)") { _ = try PredicateStore(path: path, readOnly: true) }
        }
        // a directory is not a database either
        #expect(throws: StoreError.self) { _ = try PredicateStore(path: dir.path) }
    }

    @Test func openingATruncatedSQLiteFileFails() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("full.sqlite").path
        do {
            let store = try PredicateStore(path: original, model: PeopleModel.model)
            try store.insert("Person", (0..<3_000).map { ["name": .string("Person \($0) " + String(repeating: "x", count: 50)), "age": .int(Int64($0))] })
            try store.checkpoint()
        }
        let full = try Data(contentsOf: URL(fileURLWithPath: original))
        #expect(full.count > 64 * 1_024)
        for cut in [50, 100, 4_096, 4_096 * 2 + 100, full.count / 2] {
            let path = dir.appendingPathComponent("cut-\(cut).sqlite").path
            try full.prefix(cut).write(to: URL(fileURLWithPath: path))
            do {
                let store = try PredicateStore(path: path)
                // Whatever opened must fail cleanly as soon as it reads the missing pages.
                let n = try store.count(EntityQuery("Person", where: "age >= 0"))
                _ = try store.fetch(EntityQuery("Person", sort: [SortRule("name")]))
                Issue.record("a file cut at \(cut) bytes read \(n) rows without an error")
            } catch {
                #expect(Self.storeError(error)?.message.isEmpty == false, "\(error)")
            }
        }
    }
}

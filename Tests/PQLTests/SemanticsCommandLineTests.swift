import Foundation
import PQL
import PQLStore
import Testing

/// Issue 13, items 14–18, as a user meets them: `pql filter` on JSON (the evaluator) and
/// `pql query` on a store (SQL) give the same people, or fail with the same message.
@Suite("pql filter and pql query agree on options, nil, overflow and BETWEEN")
struct SemanticsCommandLineTests {
    static let people = """
    [{"name": "José", "age": 30, "tags": [{"name": "VIP", "weight": 1}, {"name": "new", "weight": null}, {"name": "x", "weight": 2}]},
     {"name": "ana", "age": null, "tags": [{"name": "vip", "weight": null}]},
     {"name": "STRASSE", "age": 9223372036854775807, "tags": []},
     {"name": "Zoë", "age": 5, "tags": [{"name": "Ｖｉｐ", "weight": 9223372036854775807}, {"name": "b", "weight": 1}]}]
    """

    /// The same people as a JSON file and as a store file.
    static func workspace() throws -> (json: String, store: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-semantics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let json = dir.appendingPathComponent("people.json")
        try people.write(to: json, atomically: true, encoding: .utf8)
        let model = try StoreModel([
            ModelEntity("Person", attributes: [ModelAttribute("name", .string, isIndexed: true), ModelAttribute("age", .integer64)],
                        relationships: [ModelRelationship("tags", toMany: "Tag", inverse: "person", deleteRule: .cascade)]),
            ModelEntity("Tag", attributes: [ModelAttribute("name", .string), ModelAttribute("weight", .integer64)],
                        relationships: [ModelRelationship("person", to: "Person", inverse: "tags")]),
        ])
        let path = dir.appendingPathComponent("people.sqlite").path
        let store = try PredicateStore(path: path, model: model)
        guard case .array(let rows) = try JSONReader.value(from: people) else { throw CocoaError(.fileReadCorruptFile) }
        for case .dictionary(var person) in rows {
            let tags = person.removeValue(forKey: "tags")?.collectionElements ?? []
            let id = try store.insert("Person", person)
            for case .dictionary(var tag) in tags {
                tag["person"] = .int(id)
                try store.insert("Tag", tag)
            }
        }
        return (json.path, path)
    }

    static func name(_ v: PredicateValue) -> String? {
        if case .dictionary(let d) = v, case .string(let s)? = d["name"] { return s }
        return nil
    }

    /// The names `pql filter` prints, or its standard error.
    static func filter(_ w: (json: String, store: String), _ predicate: String) throws -> (names: [String], stderr: String, status: Int32) {
        let r = try PQLProcess.run(["filter", "--", predicate, w.json])
        guard r.status == 0, case .array(let rows)? = try? JSONReader.value(from: r.stdout) else { return ([], r.stderr, r.status) }
        return (rows.compactMap(name), r.stderr, r.status)
    }

    /// The names `pql query` prints (JSON Lines), or its standard error.
    static func query(_ w: (json: String, store: String), _ predicate: String) throws -> (names: [String], stderr: String, status: Int32) {
        let r = try PQLProcess.run(["query", w.store, "--entity", "Person", "--where", predicate])
        guard r.status == 0 else { return ([], r.stderr, r.status) }
        var names: [String] = []
        for line in r.stdout.split(separator: "\n") {
            if let v = try? JSONReader.value(from: String(line)), let s = name(v) { names.append(s) }
        }
        return (names, r.stderr, r.status)
    }

    /// Both commands print `names` (store rows in key order = file order).
    static func expectBoth(_ w: (json: String, store: String), _ predicate: String, _ names: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let f = try filter(w, predicate), q = try query(w, predicate)
        #expect(f.names == names, "pql filter \(predicate): \(f.stderr)", sourceLocation: sourceLocation)
        #expect(q.names == names, "pql query \(predicate): \(q.stderr)", sourceLocation: sourceLocation)
    }

    /// Both commands fail with exit status 1 and `message` on standard error.
    static func expectBothFail(_ w: (json: String, store: String), _ predicate: String, _ message: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let f = try filter(w, predicate), q = try query(w, predicate)
        #expect(f.status == 1 && f.stderr.contains(message), "pql filter \(predicate): \(f.stderr)", sourceLocation: sourceLocation)
        #expect(q.status == 1 && q.stderr.contains(message), "pql query \(predicate): \(q.stderr)", sourceLocation: sourceLocation)
    }

    @Test func membershipAppliesItsOptions() throws {
        let w = try Self.workspace()
        try Self.expectBoth(w, "name IN[c] {'josé', 'ANA'}", ["José", "ana"])
        try Self.expectBoth(w, "name IN[cd] {'jose', 'zoe'}", ["José", "Zoë"])
        try Self.expectBoth(w, "name IN {'josé', 'ana'}", ["ana"])
        try Self.expectBoth(w, "name IN[c] {'strasse'}", ["STRASSE"])
        try Self.expectBoth(w, "'VIP' IN[c] tags.name", ["José", "ana", "Zoë"])
        try Self.expectBoth(w, "tags.name CONTAINS[c] 'vip'", ["José", "ana", "Zoë"])
        try Self.expectBoth(w, "ANY tags.name IN[c] {'NEW'}", ["José"])
    }

    @Test func averagesCountNilAsZero() throws {
        let w = try Self.workspace()
        try Self.expectBoth(w, "tags.@avg.weight == 1", ["José"])       // (1 + 0 + 2) / 3
        try Self.expectBoth(w, "tags.@avg.weight == 0", ["ana"])        // one nil weight
        try Self.expectBoth(w, "tags.@avg.weight == nil", ["STRASSE"])  // no tags
        try Self.expectBoth(w, "tags.@avg.weight > 4e18", ["Zoë"])      // (max + 1) / 2, exact sum
        try Self.expectBoth(w, "tags.@max.weight == nil", ["ana", "STRASSE"])
        try Self.expectBothFail(w, "sum:(tags.weight) > 0", "sum: found nil among the numbers")
    }

    @Test func integersNeverWrap() throws {
        let w = try Self.workspace()
        try Self.expectBothFail(w, "age != nil AND age + 1 > 0", "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits")
        try Self.expectBothFail(w, "age != nil AND age * age > 0", "integer overflow: 9223372036854775807 * 9223372036854775807")
        try Self.expectBothFail(w, "tags.@sum.weight > 0", "integer overflow: @sum of these integers is 9223372036854775808")
        try Self.expectBothFail(w, "9223372036854775807 + 1 > 0", "compute in floating point")
        try Self.expectBoth(w, "age != nil AND age * 1.0 + 1 > 9.2e18", ["STRASSE"])
        try Self.expectBoth(w, "age > -9223372036854775808", ["José", "STRASSE", "Zoë"])
    }

    @Test func betweenNeedsAPairOfLiteralBounds() throws {
        let w = try Self.workspace()
        for bounds in ["18", "{1}", "{1, 2, 3}", "nil", "'a'"] {
            let predicate = "age BETWEEN \(bounds)"
            let f = try Self.filter(w, predicate), q = try Self.query(w, predicate)
            for (what, r) in [("filter", f), ("query", q)] {
                #expect(r.status == 1, "\(what) \(predicate)")
                #expect(r.stderr.contains("BETWEEN needs an array of exactly two bounds, not \(bounds)"), "\(what): \(r.stderr)")
                #expect(r.stderr.contains("line 1, column 13") || r.stderr.contains("            ^"), "\(what): \(r.stderr)")
            }
        }
        let arg = try PQLProcess.run(["filter", "--arg", "5", "--", "age BETWEEN %@", w.json])
        #expect(arg.status == 1 && arg.stderr.contains("not %@ (a number, 5)"), "\(arg.stderr)")
        try Self.expectBoth(w, "age BETWEEN {1, 30}", ["José", "Zoë"])
    }

    @Test func theStoreRaisesWhatMemoryRaises() throws {
        let w = try Self.workspace()
        // Used to be WHERE 0 in the store.
        try Self.expectBothFail(w, "age BETWEEN {'x', nil}", "cannot order a number against a string")
        try Self.expectBothFail(w, "age BEGINSWITH ''", "BEGINSWITH needs strings on both sides, not a number")
        try Self.expectBothFail(w, "nil == age + 1", "arithmetic on nil")
        // Errors that depend on no row, when compiling, even where no row is read.
        try Self.expectBothFail(w, "name == 'nobody' AND 1 + 'a' > 0", "arithmetic needs numbers, not a string")
        try Self.expectBothFail(w, "name MATCHES '('", "invalid MATCHES pattern")
    }
}

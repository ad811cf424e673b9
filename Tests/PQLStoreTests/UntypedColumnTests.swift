import Foundation
import PQL
@testable import PQLStore
import Testing

/// A column declared without a type (`CREATE TABLE note(folder_id)`) keeps each value as the
/// kind it was given, so no one kind describes it: predicates over it must compare row by row
/// as the evaluator does. Before, such a column was taken for text, and `folder_id == 1` over
/// integers compiled to a constant false.
@Suite struct UntypedColumnTests {
    static func store() throws -> PredicateStore {
        try PredicateStore(path: try ManyToManyTests.file([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, v, n INTEGER, s TEXT)",
            "INSERT INTO t VALUES (1, 1, 1, 'a'), (2, 2.5, 2, 'b'), (3, 'abc', 3, 'c'), (4, '2', 4, 'd'), (5, NULL, 5, 'e'), (6, 2, 6, 'f'), (7, -1, 7, 'g')",
        ]))
    }

    @Test func anUntypedColumnIsNoTextColumn() throws {
        let store = try Self.store()
        let v = try #require(try store.model.entity(named: "t").attributes.first { $0.name == "v" })
        #expect(v.isUntyped)
        #expect(try store.model.entity(named: "t").attributes.filter(\.isUntyped).map(\.name) == ["v"])
        #expect(try store.count(EntityQuery("t", where: "v == 2")) == 1)
        #expect(try store.count(EntityQuery("t", where: "v IN {1, 2}")) == 2)
        #expect(try store.count(EntityQuery("t", where: "v == '2'")) == 1)
    }

    /// Every predicate gives the rows the evaluator gives over the fetched records.
    @Test func theStoreAgreesWithMemory() throws {
        let store = try Self.store()
        let records = try store.fetch(EntityQuery("t", sort: [SortRule("id")]))
        let predicates = ["v == 1", "v == 2", "v != 2", "v == '2'", "v == 'abc'", "v IN {1, 2, 'abc'}", "v > 1", "v <= 2",
                          "v BETWEEN {0, 3}", "v BEGINSWITH 'a'", "v == nil", "v != nil", "v == n", "v < n", "v CONTAINS[c] 'B'",
                          "v + 1 == 3", "v == 2.5", "NOT (v IN {2.5, -1})", "v LIKE '*b*'"]
        for p in predicates {
            let node = try PredicateNode(format: p)
            let compiled = try node.compiled(for: PredicateValue.self)
            var expected: [Int64] = []
            var memoryError = false
            do { for r in records where try compiled.evaluate(r.dictionary) { expected.append(r.id) } } catch { memoryError = true }
            do {
                let stored = try store.fetch(EntityQuery("t", predicate: node, sort: [SortRule("id")])).map(\.id)
                #expect(!memoryError, "\(p): the store answered \(stored), memory raised an error")
                #expect(stored == expected, "\(p)")
            } catch {
                #expect(memoryError, "\(p): \(error)")
            }
        }
    }

    /// An object compared with an untyped column: its integers are keys, its text an error,
    /// row by row, as in memory.
    @Test func anObjectAgainstAnUntypedColumn() throws {
        let store = try PredicateStore(path: try ManyToManyTests.file(ManyToManyTests.acceptanceSQL))
        let folder = ObjectID("folder", key: 1)
        #expect(try store.count(EntityQuery("note", where: "folder_id == %@", [folder])) == 2)
        #expect(try store.count(EntityQuery("note", where: "folder_id != %@", [folder])) == 2)
        for predicate in ["title == %@", "title != %@", "ANY tag.name == %@"] {
            #expect(throws: StoreError.self, "\(predicate)") { _ = try store.count(EntityQuery("note", where: predicate, [folder])) }
            let records = try store.fetch(EntityQuery("note"))
            if !predicate.hasPrefix("ANY") {
                #expect(throws: PredicateEvaluationError.self, "\(predicate)") { try records.filter(PredicateNode(format: predicate, folder)) }
            }
        }
    }

    @Test func writesKeepEachValuesKind() throws {
        let store = try Self.store()
        let key = try store.insert("t", ["v": .int(42), "n": .int(8), "s": .string("h")])
        let other = try store.insert("t", ["v": .string("x"), "n": .int(9)])
        #expect(try store.fetch(EntityQuery("t", where: "v == 42")).map(\.id) == [key])
        #expect(try store.fetch(EntityQuery("t", where: "v == 'x'")).map(\.id) == [other])
        #expect(try store.fetch(EntityQuery("t", where: "SELF == %@", [key])).first?["v"] == .int(42))
        // Sorted as the evaluator sorts mixed kinds, the same order every time.
        let sorted = try store.fetch(EntityQuery("t", sort: [SortRule("v", ascending: false)])).map(\.id)
        #expect(sorted.count == 9)
    }

    @Test func theModelFileKeepsIt() throws {
        let store = try Self.store()
        let back = try StoreModel(json: store.model.jsonData())
        #expect(try back.entity(named: "t").attributes.first { $0.name == "v" }?.isUntyped == true)
    }
}

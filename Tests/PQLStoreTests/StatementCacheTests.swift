import Foundation
import PQL
@testable import PQLStore
import Testing

/// The statement cache under reentrancy: a cached statement still stepping is never reset
/// under its reader, and statements take exactly the values they have placeholders for.
@Suite("statement cache")
struct StatementCacheTests {
    /// The same query inside its own `forEach`, on the one connection of an in-memory store and
    /// on the writer's connection inside a transaction (a file store's reads elsewhere use
    /// connections of their own). Before, the inner fetch reset the outer statement, which then
    /// ended silently after its first row.
    @Test func aFetchInsideForEachOfTheSameQuery() throws {
        let dir = try ReadOnlyStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try PredicateStore(path: try ReadOnlyStoreTests.closedStore(in: dir))
        let memory = try PredicateStore.inMemory(PeopleModel.model)
        try memory.insert("Person", [["name": "Ann", "age": 40], ["name": "Bob", "age": 20], ["name": "Cy", "age": 30]])
        let query = try EntityQuery("Person", where: "age > 10", sort: [SortRule("name")])
        for store in [memory, file] {
            var outer: [String] = [], inner: [Int] = []
            func run() throws(StoreError) {
                try store.forEach(query) { (r) throws(StoreError) in
                    outer.append(r["name"] == .string("Ann") ? "Ann" : r["name"] == .string("Bob") ? "Bob" : r["name"] == .string("Cy") ? "Cy" : "?")
                    if outer.count > 100 { throw StoreError(.cancelled, "the outer fetch started over") }
                    inner.append(try store.fetch(query).count)
                    inner.append(try store.count(query))
                }
            }
            if store === file { try store.transaction { () throws(StoreError) in try run() } } else { try run() }
            #expect(outer == ["Ann", "Bob", "Cy"])
            #expect(inner == [3, 3, 3, 3, 3, 3])
        }
    }

    @Test func bindingsMustMatchThePlaceholders() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.locked { () throws(StoreError) in
            let s = try store.connection.prepare("SELECT ?1 + ?2")
            #expect(throws: StoreError.self) { try s.bind([.integer(1)]) }
            #expect(throws: StoreError.self) { try s.bind([.integer(1), .integer(2), .integer(3)]) }
            try s.bind([.integer(1), .integer(2)])
            #expect(try s.step() && s.int64(0) == 3)
        }
    }
}

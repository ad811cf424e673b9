import Foundation
import Testing
import PQL
@testable import PQLStore

/// `transaction { }` with a body that throws errors of its own: they come out as thrown, after
/// the rollback; the store's own failures stay `StoreError`s.
@Suite("Store transactions with the caller's errors")
struct StoreTransactionTests {
    struct OutOfStock: Error, Equatable { var item: String }

    static func store() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", [["name": "Ann", "age": 40], ["name": "Bob", "age": 17]])
        return store
    }

    @Test("the caller's own error comes out unchanged and everything is rolled back")
    func ownErrorRollsBack() throws {
        let store = try Self.store()
        do {
            try store.transaction {
                try store.insert("Person", ["name": "New"])
                try store.batchUpdate(EntityQuery("Person"), set: ["city": "Nowhere"])
                throw OutOfStock(item: "pens")
            }
            Issue.record("the transaction did not throw")
        } catch let e as OutOfStock {
            #expect(e == OutOfStock(item: "pens"))
        }
        #expect(try store.count(EntityQuery("Person")) == 2)
        #expect(try store.count(EntityQuery("Person", where: "city == 'Nowhere'")) == 0)
    }

    @Test("a closure typed throws(OutOfStock) is accepted, and its value is returned on success")
    func typedOwnError() throws {
        let store = try Self.store()
        func reserve(_ n: Int) throws(OutOfStock) -> Int {
            if n > 3 { throw OutOfStock(item: "cups") }
            return n
        }
        let kept = try store.transaction { () throws(OutOfStock) -> Int in try reserve(2) }
        #expect(kept == 2)
        #expect { try store.transaction { () throws(OutOfStock) -> Int in try reserve(5) } } throws: { ($0 as? OutOfStock)?.item == "cups" }
    }

    @Test("a store failure inside is a StoreError, and rolled back too")
    func storeErrorInside() throws {
        let store = try Self.store()
        #expect {
            try store.transaction {
                try store.insert("Person", ["name": "Kept?"])
                if store.model.entities.isEmpty { throw OutOfStock(item: "never") }
                try store.insert("Person", ["age": "not a number"])
            }
        } throws: { e in (e as? StoreError)?.kind == .invalidValue }
        #expect(try store.count(EntityQuery("Person")) == 2)
    }

    @Test("a body annotated throws(StoreError) still gets the typed overload")
    func typedStoreOverload() throws {
        let store = try Self.store()
        do {
            try store.transaction { () throws(StoreError) in
                try store.insert("Person", ["name": "Dropped"])
                throw StoreError(.constraint, "stop")
            }
        } catch {
            // `error` is a StoreError here: the typed overload was chosen.
            let kind: StoreError.Kind = error.kind
            #expect(kind == .constraint)
        }
        #expect(try store.count(EntityQuery("Person", where: "name == 'Dropped'")) == 0)
    }

    @Test("nested: an inner caller error rolls back only the inner part when caught")
    func nested() throws {
        let store = try Self.store()
        let n = try store.transaction {
            try store.insert("Person", ["name": "Outer"])
            do {
                try store.transaction {
                    try store.insert("Person", ["name": "Inner"])
                    throw OutOfStock(item: "inner")
                }
            } catch is OutOfStock {}
            return try store.count(EntityQuery("Person"))
        }
        #expect(n == 3)
        #expect(try store.count(EntityQuery("Person", where: "name == 'Outer'")) == 1)
        #expect(try store.count(EntityQuery("Person", where: "name == 'Inner'")) == 0)
    }

    @Test("batch results may be ignored without `_ =`")
    func discardableBatchResults() throws {
        let store = try Self.store()
        try store.batchUpdate(EntityQuery("Person", where: "age < 18"), set: ["city": "Lima"])
        #expect(try store.count(EntityQuery("Person", where: "city == 'Lima'")) == 1)
        try store.batchDelete(EntityQuery("Person", where: "city == 'Lima'"))
        #expect(try store.count(EntityQuery("Person")) == 1)
    }
}

import Foundation
import PQL
import PQLStore
import Testing

/// Issue 28: a service maps store errors to HTTP statuses with `httpStatus`, not by hand.
@Suite struct HTTPStatusTests {
    @Test func requestMistakesAre400sAndTheRestAreTheServices() throws {
        let store = try PredicateStore.inMemory(try StoreModel([ModelEntity("Item", attributes: [ModelAttribute("name", .string, isUnique: true)])]))
        try store.insert("Item", ["name": "a"])
        func status(_ body: () throws -> Void) -> Int? {
            do { try body(); return nil } catch let error as StoreError { return error.httpStatus } catch { return nil }
        }
        #expect(status { _ = try store.fetch(EntityQuery("Item", where: "name ==")) } == 400)
        #expect(status { _ = try store.fetch(EntityQuery("Item", where: "nmae == 'a'")) } == 400)
        #expect(status { _ = try store.fetch(EntityQuery("Item", where: "name > 5")) } == 400)
        #expect(status { _ = try store.fetch(EntityQuery("Items")) } == 404)
        #expect(status { try store.insert("Item", ["name": "a"]) } == 409)
        #expect(StoreError.Kind.timedOut.httpStatus == 503 && StoreError.Kind.corrupt.httpStatus == 500 && StoreError.Kind.diskFull.httpStatus == 507)
    }
}

import Foundation
import PQL
import PQLStore
import Testing

/// Issue 28: a key the caller gives is kept where the model lets the caller give keys
/// (`primaryKey: "id"`), and refused with a clear error where the store assigns them; it is
/// never silently replaced.
@Suite struct GivenKeyTests {
    struct Item: Codable { var id: Int64?; var name: String }

    @Test func aGivenKeyIsKeptOrRefusedNeverReplaced() throws {
        let assigned = try PredicateStore.inMemory(try StoreModel([ModelEntity("Item", attributes: [ModelAttribute("name", .string)])]))
        _ = try assigned.insert("Item", ["name": "first"])
        #expect { try assigned.insert("Item", encoding: Item(id: 42, name: "x")) } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.kind == .invalidValue && e.message.contains("would not be kept") && e.hint?.contains("primaryKey") == true
        }
        #expect(throws: StoreError.self) { try assigned.insert("Item", ["id": 43, "name": "y"]) }
        #expect(try assigned.count(EntityQuery("Item")) == 1)
        // No key, or nil: the store assigns one.
        #expect(try assigned.insert("Item", encoding: Item(id: nil, name: "z")) == 2)
        #expect(try assigned.insert("Item", ["id": .null, "name": "w"]) == 3)

        let declared = try PredicateStore.inMemory(try StoreModel([ModelEntity("Item", attributes: [ModelAttribute("name", .string)], primaryKey: "id")]))
        _ = try declared.insert("Item", ["name": "first"])
        #expect(try declared.insert("Item", encoding: Item(id: 42, name: "x")) == 42)
        #expect(try declared.fetch(EntityQuery("Item", where: "id == 42"), as: Item.self).first?.name == "x")
    }
}

import Foundation
import PQL
import PQLPostgres
import Testing

/// Record types on PostgreSQL (issue 28), as on SQLite (EntityRecordTests).
@Suite struct PostgresEntityRecordTests {
    enum Status: String, Codable, CaseIterable { case active, retired }

    struct Vendor: EntityRecord, Equatable {
        var id: Int64?
        var code: String
        var name: String
        static let relationships = [ModelRelationship("items", toMany: "Item", inverse: "vendor")]
        static let uniqueAttributes = ["code"]
    }

    struct Item: EntityRecord, Equatable {
        var id: Int64?
        var name: String
        var price: Double
        var status: Status
        var added: Date?
        var sku: UUID?
        var vendor: Int64?
        static let relationships = [ModelRelationship("vendor", to: Vendor.self, inverse: "items")]
    }

    @Test func fetchInsertUpdateUpsertAndDeleteTakeTheType() async throws {
        let model = try StoreModel(records: [Vendor.self, Item.self], names: .postgreSQL)
        try await TestServer.withStore(model: model) { store, _ in
            _ = try await store.createTables()
            let acme = try await store.insert(Vendor(code: "ACME", name: "Acme"))
            let given = try await store.insert(Vendor(id: 140, code: "GLOBEX", name: "Globex"))
            #expect(given == 140)
            let sku = UUID()
            let lamp = try await store.insert(Item(name: "Lamp", price: 19.5, status: .active, added: Date(timeIntervalSinceReferenceDate: 86_400), sku: sku, vendor: acme))
            try await store.insert(Item(name: "Desk", price: 120, status: .retired, vendor: 140))
            // The key the store assigns next does not collide with the one given.
            let third = try await store.insert(Vendor(code: "INITECH", name: "Initech"))
            #expect(third != 140)
            #expect(try await store.fetch(Item.self, where: "vendor == %@", 140).map(\.name) == ["Desk"])
            #expect(try await store.fetch(Item.self, where: "status == %@ AND price > %@", Status.active, 10).map(\.id) == [lamp])
            #expect(try await store.count(Item.self, where: "vendor.code == 'ACME'") == 1)
            var item = try #require(try await store.fetch(Item.self, id: lamp))
            #expect(item == Item(id: lamp, name: "Lamp", price: 19.5, status: .active, added: Date(timeIntervalSinceReferenceDate: 86_400), sku: sku, vendor: acme))
            item.added = nil
            item.price = 17
            try await store.update(item)
            #expect(try await store.fetch(Item.self, id: lamp)?.added == nil)
            #expect(try await store.fetch(Item.self, where: "price < 20").map(\.price) == [17])
            let again = try await store.upsert(Vendor(code: "ACME", name: "Acme Corp."), onConflict: "code")
            #expect(again == acme)
            #expect(try await store.fetch(Vendor.self, id: acme)?.name == "Acme Corp.")
            try await store.delete(item)
            try await store.delete(Vendor.self, id: 140)
            #expect(try await store.count(Item.self) == 1)
            #expect(try await store.count(Vendor.self) == 2)
        }
    }
}

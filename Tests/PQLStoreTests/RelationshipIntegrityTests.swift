import Foundation
import PQL
@testable import PQLStore
import Testing

/// Writes that would break a relationship fail with a typed error naming the relationship,
/// the value and a fix, and change nothing.
@Suite("relationship integrity")
struct RelationshipIntegrityTests {
    static func isLinkError(_ error: any Error, _ fragments: String...) -> Bool {
        guard let e = error as? StoreError, e.kind == .constraint, e.hint != nil else { return false }
        return fragments.allSatisfy { e.message.contains($0) }
    }

    @Test func insertUpdateAndBatchUpdateRefuseAMissingTarget() throws {
        let store = try LibraryModel.make()
        let books = try store.fetchIDs(EntityQuery("Book"))
        #expect { try store.insert("Book", ["title": "Ghost", "author": .int(999)]) } throws: {
            Self.isLinkError($0, "Book.author would link to no Author", "999")
        }
        #expect { try store.update("Book", id: books[0], ["author": .int(999)]) } throws: { Self.isLinkError($0, "Book.author", "999") }
        #expect { _ = try store.batchUpdate(EntityQuery("Book"), set: ["author": .int(999)]) } throws: { Self.isLinkError($0, "Book.author", "999") }
        // One bad row of several: none is written.
        #expect(throws: StoreError.self) {
            try store.insert("Note", [["text": "fine", "book": .int(books[0])], ["text": "lost", "book": .int(-1)]])
        }
        #expect(try LibraryModel.counts(store) == [3, 3, 6])
        #expect(try store.count(EntityQuery("Book", where: "author == nil")) == 0)
        // Existing targets and nil (an optional link) are fine.
        let a3 = try store.fetchIDs(EntityQuery("Author", where: "code == 'A3'"))[0]
        try store.update("Book", id: books[0], ["author": .int(a3)])
        #expect(try store.batchUpdate(EntityQuery("Book", where: "title == 'Two'"), set: ["author": .null]) == 1)
        try store.insert("Note", ["text": "loose"])
    }

    /// A to-one whose key is an attribute of the source (the demo's Flight.carrier →
    /// Airline.carrier): set by either name; the referenced attribute may not change under links.
    @Test func linksThroughAnAttribute() throws {
        let model = try StoreModel([
            ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string, isOptional: false, isUnique: true)],
                        relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
            ModelEntity("Flight", attributes: [ModelAttribute("carrier", .string), ModelAttribute("number", .integer64)],
                        relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights", foreignKeyColumn: "carrier", referencedColumn: "carrier")]),
        ])
        let store = try PredicateStore.inMemory(model)
        try store.insert("Airline", [["carrier": "UA"], ["carrier": "HA"]])
        try store.insert("Flight", [["carrier": "UA", "number": 1], ["airline": "HA", "number": 51]])
        #expect { try store.insert("Flight", ["carrier": "ZZ", "number": 2]) } throws: {
            Self.isLinkError($0, "Flight.airline would link to no Airline: none has carrier 'ZZ'")
        }
        #expect { _ = try store.batchUpdate(EntityQuery("Flight"), set: ["carrier": "ZZ"]) } throws: { Self.isLinkError($0, "'ZZ'") }
        #expect { _ = try store.batchUpdate(EntityQuery("Flight"), set: ["airline": "ZZ"]) } throws: { Self.isLinkError($0, "'ZZ'") }
        #expect(try store.batchUpdate(EntityQuery("Flight", where: "number == 1"), set: ["airline": "HA"]) == 1)
        #expect(try store.count(EntityQuery("Airline", where: "ANY flights.number == 1 AND carrier == 'HA'")) == 1)
        #expect { _ = try store.batchUpdate(EntityQuery("Airline", where: "carrier == 'HA'"), set: ["carrier": "HX"]) } throws: {
            Self.isLinkError($0, "changing Airline.carrier would leave Flight objects linking to no Airline")
        }
        #expect(try store.batchUpdate(EntityQuery("Airline", where: "carrier == 'UA'"), set: ["carrier": "UX"]) == 1)
        #expect(try store.count(EntityQuery("Flight", where: "airline.carrier == 'HA'")) == 2)
    }

    @Test func nullifyIntoARequiredLinkIsRefused() throws {
        let model = try StoreModel([
            ModelEntity("Team", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("players", toMany: "Player", inverse: "team", deleteRule: .nullify)]),
            ModelEntity("Player", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("team", to: "Team", inverse: "players", isOptional: false)]),
        ])
        let store = try PredicateStore.inMemory(model)
        let teams = try store.insert("Team", [["name": "Reds"], ["name": "Blues"]])
        try store.insert("Player", ["name": "Ann", "team": .int(teams[0])])
        #expect { _ = try store.batchDelete(EntityQuery("Team", where: "name == 'Reds'")) } throws: {
            Self.isLinkError($0, "cannot delete Team", "without team, which is not optional")
        }
        #expect(try store.count(EntityQuery("Team")) == 2)
        #expect(try store.batchDelete(EntityQuery("Team", where: "name == 'Blues'")) == 1)
    }

    @Test func aLinkWithoutInverseIsNotLeftDangling() throws {
        let model = try StoreModel([
            ModelEntity("Tag", attributes: [ModelAttribute("name", .string)]),
            ModelEntity("Item", attributes: [ModelAttribute("name", .string)], relationships: [ModelRelationship("tag", to: "Tag")]),
        ])
        let store = try PredicateStore.inMemory(model)
        let tags = try store.insert("Tag", [["name": "red"], ["name": "blue"]])
        try store.insert("Item", ["name": "ball", "tag": .int(tags[0])])
        #expect { _ = try store.batchDelete(EntityQuery("Tag", where: "name == 'red'")) } throws: {
            Self.isLinkError($0, "Item objects still link to it through Item.tag, which has no inverse")
        }
        #expect(try store.count(EntityQuery("Tag")) == 2)
        #expect(try store.batchDelete(EntityQuery("Tag", where: "name == 'blue'")) == 1)
    }
}

import Foundation
import PQL
import PQLStore

/// Records of every attribute type, with a to-one and a many-to-many link, for the tests of
/// `fetch(_:as:)` on both stores (RecordDecodingTests, PostgresRecordDecodingTests).
package enum DecodingSchema {
    package static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Shelf", attributes: [ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("items", toMany: "Item", inverse: "shelf")]),
                ModelEntity("Label", attributes: [ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("items", toMany: "Item", inverse: "labels")]),
                ModelEntity("Item", attributes: [
                    ModelAttribute("name", .string),
                    ModelAttribute("small", .integer16),
                    ModelAttribute("medium", .integer32),
                    ModelAttribute("large", .integer64),
                    ModelAttribute("ratio", .double),
                    ModelAttribute("weight", .float),
                    ModelAttribute("price", .decimal),
                    ModelAttribute("done", .boolean),
                    ModelAttribute("due", .date),
                    ModelAttribute("blob", .binary),
                    ModelAttribute("uuid", .uuid),
                    ModelAttribute("link", .uri),
                    ModelAttribute("kind", .string),
                    ModelAttribute("level", .integer64),
                ], relationships: [ModelRelationship("shelf", to: "Shelf", inverse: "items"),
                                   ModelRelationship("labels", toMany: "Label", inverse: "items")]),
            ])
        } catch {
            fatalError("the decoding model is invalid: \(error)")
        }
    }()

    package enum Kind: String, Codable, Sendable { case book, tool, food }
    package enum Level: Int, Codable, Sendable { case low = 1, high = 2 }

    /// Every field of an item, each as its attribute's natural Swift type.
    package struct Item: Codable, Equatable, Sendable {
        package var id: Int64
        package var name: String
        package var small: Int16
        package var medium: Int32
        package var large: Int64
        package var ratio: Double
        package var weight: Float
        package var price: Decimal
        package var done: Bool
        package var due: Date
        package var blob: Data
        package var uuid: UUID
        package var link: URL
        package var kind: Kind
        package var level: Level
        package var shelf: Int64?
        package var labels: [Int64]
    }

    /// The same fields, every one optional, and some read as other types the values convert to.
    package struct LooseItem: Codable, Equatable, Sendable {
        package var id: Int?
        package var name: String?
        package var small: Int?
        package var medium: Int64?
        package var large: Double?
        package var ratio: Decimal?
        package var weight: Double?
        package var price: Double?
        package var done: Bool?
        package var due: Double?
        package var blob: String?
        package var uuid: String?
        package var link: String?
        package var kind: Kind?
        package var level: Int8?
        package var shelf: Int?
        package var labels: Set<Int64>?
        package var nickname: String?

        /// A record with a key and links only, every other field nil.
        package init(id: Int?, labels: Set<Int64>?) {
            self.id = id
            self.labels = labels
        }
    }

    package static let shelves: [[String: PredicateValue]] = [["name": "top"], ["name": "bottom"]]
    package static let labels: [[String: PredicateValue]] = [["name": "red"], ["name": "blue"], ["name": "green"]]

    /// Items with every field, then with nils and edge values; shelves and labels are keys 1…
    package static let items: [[String: PredicateValue]] = [
        ["name": "Emma", "small": 7, "medium": 70_000, "large": .int(9_000_000_000_000), "ratio": 0.1, "weight": 1.5,
         "price": .decimal(Decimal(string: "12.99")!), "done": true, "due": .date(Date(timeIntervalSinceReferenceDate: -5_901_580_800.5)),
         "blob": .data(Data([0, 1, 2, 255])), "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "link": "https://example.com/emma?lang=en#top",
         "kind": "book", "level": 1, "shelf": 1, "labels": [1, 3]],
        ["name": "Hammer", "small": -32_768, "medium": -2_147_483_648, "large": .int(Int64.min), "ratio": .double(1.0 / 3.0), "weight": 0,
         "price": 0, "done": false, "due": .date(Date(timeIntervalSinceReferenceDate: 0)),
         "blob": .data(Data()), "uuid": "00000000-0000-0000-0000-000000000000", "link": "file:///tmp/a%20b",
         "kind": "tool", "level": 2, "shelf": 2, "labels": [2]],
        ["name": "", "small": 32_767, "medium": 2_147_483_647, "large": .int(Int64.max), "ratio": -1e30, "weight": -0.25,
         "price": .decimal(Decimal(string: "-0.5")!), "done": true, "due": .date(Date(timeIntervalSinceReferenceDate: 86_400)),
         "blob": .data(Data(repeating: 9, count: 300)), "uuid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "link": "mailto:a@b.c",
         "kind": "food", "level": 1, "labels": []],
        ["name": "Ünïcödé 🍎", "small": 0, "medium": 1, "large": 2, "ratio": 3, "weight": 4, "price": 5, "done": false,
         "due": .date(Date(timeIntervalSinceReferenceDate: 1_000_000_000.25)), "blob": .data(Data([42])),
         "uuid": "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "link": "https://pql.dev/", "kind": "book", "level": 2, "shelf": 1, "labels": [1, 2, 3]],
        ["name": .null],
        [:],
    ]

    /// Fills a store through `insert`: shelves, labels, then items.
    package static func fill(_ insert: (String, [[String: PredicateValue]]) async throws -> Void) async throws {
        try await insert("Shelf", shelves)
        try await insert("Label", labels)
        try await insert("Item", items)
    }
}

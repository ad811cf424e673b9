import Foundation
import PQL
@testable import PQLStore
import Testing

/// `insert(_:encoding:)` then `fetch(_:as:)` of the same `Codable` type gives back equal values:
/// every attribute type, optionals (nil and not), and to-one relationships as the linked key.
@Suite("records that round-trip")
struct RecordRoundTripTests {
    struct Author: Codable, Equatable {
        var name: String
    }

    struct Book: Codable, Equatable {
        var title: String
        var pages: Int16
        var copies: Int32
        var isbn13: Int64
        var rating: Double
        var weight: Float
        var price: Decimal
        var inPrint: Bool
        var published: Date
        var cover: Data
        var uuid: UUID
        var homepage: URL
        var subtitle: String?
        var sequel: Int64?
        var author: Int64?
        var editor: Int64?
    }

    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Author", attributes: [ModelAttribute("name", .string, isOptional: false)],
                            relationships: [ModelRelationship("books", toMany: "Book", inverse: "author"),
                                            ModelRelationship("edited", toMany: "Book", inverse: "editor")]),
                ModelEntity("Book", attributes: [
                    ModelAttribute("title", .string, isOptional: false),
                    ModelAttribute("pages", .integer16),
                    ModelAttribute("copies", .integer32),
                    ModelAttribute("isbn13", .integer64),
                    ModelAttribute("rating", .double),
                    ModelAttribute("weight", .float),
                    ModelAttribute("price", .decimal),
                    ModelAttribute("inPrint", .boolean),
                    ModelAttribute("published", .date),
                    ModelAttribute("cover", .binary),
                    ModelAttribute("uuid", .uuid),
                    ModelAttribute("homepage", .uri),
                    ModelAttribute("subtitle", .string),
                    ModelAttribute("sequel", .integer64),
                ], relationships: [ModelRelationship("author", to: "Author", inverse: "books"),
                                   ModelRelationship("editor", to: "Author", inverse: "edited")]),
            ])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    static func book(author: Int64?, editor: Int64?) throws -> Book {
        Book(title: "Emma", pages: 474, copies: 2_000_000, isbn13: 9_780_141_439_587, rating: 4.25, weight: 0.3,
             price: try #require(Decimal(string: "12.99")), inPrint: true,
             published: Date(timeIntervalSinceReferenceDate: -5_901_580_800.5), cover: Data([0, 1, 2, 255]),
             uuid: try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
             homepage: try #require(URL(string: "https://example.com/emma?lang=en#top")),
             subtitle: nil, sequel: nil, author: author, editor: editor)
    }

    @Test func everyAttributeTypeAndToOneRoundTrips() throws {
        let store = try PredicateStore.inMemory(Self.model)
        let austen = try store.insert("Author", encoding: Author(name: "Jane Austen"))
        let emma = try Self.book(author: austen, editor: nil)
        var persuasion = try Self.book(author: austen, editor: austen)
        persuasion.title = "Persuasion"
        persuasion.subtitle = "A Novel"
        persuasion.sequel = 7
        persuasion.price = try #require(Decimal(string: "0.1"))
        persuasion.rating = 1.0 / 3.0
        persuasion.weight = 1.1
        persuasion.inPrint = false
        try store.insert("Book", encoding: emma)
        try store.insert("Book", encoding: persuasion)
        let fetched = try store.fetch(EntityQuery("Book", sort: [SortRule("title")]), as: Book.self)
        #expect(fetched == [emma, persuasion])
        // A required to-one decodes too (it was "keyNotFound author" when records left links out).
        struct Credit: Decodable, Equatable { var title: String; var author: Int64 }
        #expect(try store.fetch(EntityQuery("Book", sort: [SortRule("title")]), as: Credit.self)
                == [Credit(title: "Emma", author: austen), Credit(title: "Persuasion", author: austen)])
        #expect(try store.fetch(EntityQuery("Author"), as: Author.self) == [Author(name: "Jane Austen")])
    }

    @Test func aRecordWithoutLinksStillDecodesAsBefore() throws {
        // Plain fetches keep their attribute keys; links are only added for decoding.
        let store = try PredicateStore.inMemory(Self.model)
        let austen = try store.insert("Author", encoding: Author(name: "Jane Austen"))
        try store.insert("Book", encoding: try Self.book(author: austen, editor: nil))
        let record = try #require(try store.fetch(EntityQuery("Book")).first)
        #expect(!record.keys.contains("author"))
        #expect(record.keys.count == 14)
    }

    @Test func aLinkToAnotherEntityInAnInheritanceTreeRoundTrips() throws {
        struct Pet: Codable, Equatable { var name: String; var owner: Int64? }
        struct Dog: Codable, Equatable { var name: String; var owner: Int64?; var barks: Bool }
        let model = try StoreModel([
            ModelEntity("Owner", attributes: [ModelAttribute("name", .string)],
                        relationships: [ModelRelationship("pets", toMany: "Pet", inverse: "owner")]),
            ModelEntity("Pet", attributes: [ModelAttribute("name", .string)], relationships: [ModelRelationship("owner", to: "Owner", inverse: "pets")]),
            ModelEntity("Dog", attributes: [ModelAttribute("barks", .boolean)], parent: "Pet"),
        ])
        let store = try PredicateStore.inMemory(model)
        let ann = try store.insert("Owner", ["name": "Ann"])
        try store.insert("Dog", encoding: Dog(name: "Rex", owner: ann, barks: true))
        try store.insert("Pet", encoding: Pet(name: "Tom", owner: nil))
        #expect(try store.fetch(EntityQuery("Dog"), as: Dog.self) == [Dog(name: "Rex", owner: ann, barks: true)])
        #expect(try store.fetch(EntityQuery("Pet", sort: [SortRule("name")]), as: Pet.self) == [Pet(name: "Rex", owner: ann), Pet(name: "Tom", owner: nil)])
    }
}

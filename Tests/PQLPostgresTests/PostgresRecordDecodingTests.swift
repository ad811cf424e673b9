import Foundation
import PQL
import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// `fetch(_:as:)` on a server decodes rows straight from their cells (issue 28), as the SQLite
/// store does and as the records' JSON form did: every attribute type, links, enums, nils, and
/// the errors of a type that does not fit.
@Suite struct PostgresRecordDecodingTests {
    typealias Item = DecodingSchema.Item
    typealias LooseItem = DecodingSchema.LooseItem

    static func withBoth(_ body: (PredicateStore, PostgresPredicateStore) async throws -> Void) async throws {
        try await PostgresBatchTests.withBoth(DecodingSchema.model) { lite, pg, _ in
            try await DecodingSchema.fill { entity, rows in
                let keys = try await pg.insert(entity, rows)
                #expect(try lite.insert(entity, rows) == keys)
            }
            try await body(lite, pg)
        }
    }

    @Test func everyTypeDecodesAsOnSQLite() async throws {
        try await Self.withBoth { lite, pg in
            let query = try EntityQuery("Item", where: "kind != nil")
            let items = try await pg.fetch(query, as: Item.self)
            #expect(items == (try lite.fetch(query, as: Item.self)) && items.count == 4)
            let emma = try #require(items.first)
            #expect(emma.name == "Emma" && emma.small == 7 && emma.medium == 70_000 && emma.large == 9_000_000_000_000 && emma.ratio == 0.1)
            #expect(emma.weight == 1.5 && emma.price == Decimal(string: "12.99") && emma.done && emma.blob == Data([0, 1, 2, 255]))
            #expect(emma.due == Date(timeIntervalSinceReferenceDate: -5_901_580_800.5) && emma.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            #expect(emma.link == URL(string: "https://example.com/emma?lang=en#top") && emma.kind == .book && emma.level == .low)
            #expect(emma.shelf == 1 && emma.labels == [1, 3] && items[2].shelf == nil && items[2].labels == [] && items[1].large == Int64.min)
            let all = EntityQuery("Item")
            let loose = try await pg.fetch(all, as: LooseItem.self)
            #expect(loose == (try lite.fetch(all, as: LooseItem.self)) && loose.last == LooseItem(id: 6, labels: []))
        }
    }

    @Test func errorsNameEntityKeyAndFieldAsOnSQLite() async throws {
        struct Nick: Decodable, Sendable { var name: String; var nickname: String }
        struct TextCount: Decodable, Sendable { var large: String }
        struct Strict: Decodable, Sendable { var name: String }
        try await Self.withBoth { lite, pg in
            let query = EntityQuery("Item")
            func same<T: Decodable & Sendable>(_ type: T.Type) async -> StoreError? {
                let want = PostgresBatchTests.error { () throws(StoreError) in try lite.fetch(query, as: T.self) }
                let got = await PostgresBatchTests.error { () async throws(StoreError) in try await pg.fetch(query, as: T.self) }
                #expect(want != nil && got?.kind == .invalidValue && got?.message == want?.message && got?.hint == want?.hint)
                return got
            }
            #expect(await same(Nick.self)?.message == "cannot decode Item 1 as Nick: the record has no field 'nickname'")
            #expect(await same(TextCount.self)?.message.contains("'large': expected String, found the number 9000000000000") == true)
            #expect(await same(Strict.self)?.message.contains("Item 5") == true)
            // The store is usable after a fetch that stopped at a bad row.
            let after = try await pg.fetch(query, as: LooseItem.self)
            #expect(after.count == 6)
        }
    }

    /// The decoder gives what the JSON path gave (`StoreRecord.decode` of the records `fetch`
    /// returns): the same values, and an error where it failed.
    @Test func decodesAsTheJSONPathDid() async throws {
        try await Self.withBoth { _, pg in
            try await Self.expectSameAsJSON(pg, Item.self)
            try await Self.expectSameAsJSON(pg, LooseItem.self)
            struct Narrow: Decodable, Equatable, Sendable { var small: Int8?; var medium: Int16?; var large: Int32?; var weight: Float?; var due: Date?; var price: Decimal? }
            try await Self.expectSameAsJSON(pg, Narrow.self)
            struct Numbers: Decodable, Equatable, Sendable { var ratio: Int?; var price: Int?; var done: Int?; var name: Double?; var due: Int? }
            try await Self.expectSameAsJSON(pg, Numbers.self)
            struct Texts: Decodable, Equatable, Sendable { var kind: String?; var blob: Data?; var uuid: UUID?; var link: URL?; var labels: [Int]?; var shelf: String? }
            try await Self.expectSameAsJSON(pg, Texts.self)
        }
    }

    static func expectSameAsJSON<T: Decodable & Equatable & Sendable>(_ pg: PostgresPredicateStore, _ type: T.Type) async throws {
        for (i, record) in try await pg.fetch(EntityQuery("Item")).enumerated() {
            let query = EntityQuery("Item", offset: i, limit: 1)
            let old = Result { () throws(StoreError) in try record.decode(T.self) }
            let new: Result<T?, StoreError>
            do throws(StoreError) { new = .success(try await pg.fetch(query, as: T.self).first) } catch { new = .failure(error) }
            switch (old, new) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(T.self), Item \(record.id)")
            case (.failure(let a), .failure(let b)): #expect(a.kind == b.kind, "\(T.self), Item \(record.id)")
            default: Issue.record("\(T.self), Item \(record.id): JSON \(old), rows \(new)")
            }
        }
    }
}

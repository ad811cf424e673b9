import Foundation
import PQL
import PQLStore
import PQLTestSupport
import Testing

/// `fetch(_:as:)` decodes rows straight from their columns (issue 28): every attribute type,
/// links, enums, nils, and the errors of a type that does not fit, naming entity, key and field.
@Suite struct RecordDecodingTests {
    typealias Item = DecodingSchema.Item
    typealias LooseItem = DecodingSchema.LooseItem

    static func store() async throws -> PredicateStore {
        let store = try PredicateStore.inMemory(DecodingSchema.model)
        try await DecodingSchema.fill { entity, rows in _ = try store.insert(entity, rows) }
        return store
    }

    static func error<T>(_ body: () throws(StoreError) -> T) -> StoreError? {
        do throws(StoreError) { _ = try body(); return nil } catch { return error }
    }

    @Test func everyTypeDecodes() async throws {
        let store = try await Self.store()
        let items = try store.fetch(EntityQuery("Item", where: "kind != nil"), as: Item.self)
        #expect(items.count == 4)
        let emma = try #require(items.first)
        #expect(emma.id == 1 && emma.name == "Emma" && emma.small == 7 && emma.medium == 70_000 && emma.large == 9_000_000_000_000)
        #expect(emma.ratio == 0.1 && emma.weight == 1.5 && emma.price == Decimal(string: "12.99") && emma.done)
        #expect(emma.due == Date(timeIntervalSinceReferenceDate: -5_901_580_800.5) && emma.blob == Data([0, 1, 2, 255]))
        #expect(emma.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") && emma.link == URL(string: "https://example.com/emma?lang=en#top"))
        #expect(emma.kind == .book && emma.level == .low && emma.shelf == 1 && emma.labels == [1, 3])
        #expect(items[1].large == Int64.min && items[1].small == Int16.min && items[1].blob == Data() && items[1].kind == .tool && items[1].level == .high)
        #expect(items[2].large == Int64.max && items[2].name == "" && items[2].shelf == nil && items[2].labels == [] && items[2].ratio == -1e30)
        #expect(items[3].name == "Ünïcödé 🍎" && items[3].ratio == 3 && items[3].labels == [1, 2, 3])
    }

    @Test func nullsAndMissingFieldsAreNilForOptionals() async throws {
        let store = try await Self.store()
        let loose = try store.fetch(EntityQuery("Item"), as: LooseItem.self)
        #expect(loose.count == 6)
        let empty = try #require(loose.last)
        #expect(empty == LooseItem(id: 6, labels: []))
        // Conversions the values allow: a whole number as any integer, a number as Double or Decimal, data as base64 text.
        let emma = loose[0]
        #expect(emma.small == 7 && emma.medium == 70_000 && emma.large == 9e12 && emma.ratio == Decimal(string: "0.1") && emma.price == 12.99)
        #expect(emma.due == -5_901_580_800.5 && emma.blob == "AAEC/w==" && emma.uuid == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(emma.level == 1 && emma.shelf == 1 && emma.labels == [1, 3] && emma.nickname == nil)
        // A NULL under a field that is not optional names the field.
        let error = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item", where: "name == nil"), as: Item.self) })
        #expect(error.kind == .invalidValue && error.message.contains("Item 5") && error.message.contains("'name' is nil"))
        #expect(error.hint?.contains("optional") == true)
    }

    @Test func aMissingFieldIsAStoreErrorNamingEntityKeyAndField() async throws {
        struct Nick: Decodable { var name: String; var nickname: String }
        let store = try await Self.store()
        let error = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item"), as: Nick.self) })
        #expect(error.kind == .invalidValue)
        #expect(error.message == "cannot decode Item 1 as Nick: the record has no field 'nickname'")
        #expect(error.hint?.contains("name the type's properties after Item's attributes") == true && error.hint?.contains("'nickname' optional") == true)
    }

    @Test func aWrongTypeIsAStoreErrorNamingTheField() async throws {
        struct TextCount: Decodable { var large: String }
        struct NumberName: Decodable { var name: Int }
        struct BadKind: Decodable { var kind: DecodingSchema.Level }
        let store = try await Self.store()
        let text = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item"), as: TextCount.self) })
        #expect(text.kind == .invalidValue && text.message.contains("Item 1") && text.message.contains("'large'")
                && text.message.contains("expected String, found the number 9000000000000"))
        #expect(text.hint?.contains("String") == true)
        let number = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item"), as: NumberName.self) })
        #expect(number.message.contains("'name': expected Int, found the string \"Emma\""))
        let kind = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item"), as: BadKind.self) })
        #expect(kind.kind == .invalidValue && kind.message.contains("'kind'"))
        // An enum whose raw value the column does not hold.
        struct Odd: Decodable { var kind: DecodingSchema.Kind }
        try store.update("Item", id: 4, ["kind": "toy"])
        let odd = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item", offset: 3, limit: 1), as: Odd.self) })
        #expect(odd.message.contains("Item 4") && odd.message.contains("'kind'") && odd.message.contains("toy"))
    }

    @Test func aNumberBeyondTheTypeIsAnError() async throws {
        struct Small: Decodable { var large: Int8 }
        let store = try await Self.store()
        let error = try #require(Self.error { () throws(StoreError) in try store.fetch(EntityQuery("Item"), as: Small.self) })
        #expect(error.message.contains("'large'") && error.message.contains("does not fit in Int8"))
    }

    @Test func anInfiniteDoubleReadsAsItself() throws {
        // The JSON path read it as nil (JSON has no infinity): a value lost, or a non-optional
        // field that failed to decode.
        struct Ratio: Decodable, Equatable { var ratio: Double }
        let store = try PredicateStore.inMemory(DecodingSchema.model)
        try store.insert("Item", ["ratio": .double(.infinity)])
        #expect(try store.fetch(EntityQuery("Item"), as: Ratio.self) == [Ratio(ratio: .infinity)])
    }

    @Test func recordsOfAnInheritanceTreeDecodeTheirOwnFields() throws {
        struct Pet: Decodable, Equatable { var id: Int64; var name: String; var barks: Bool? }
        let model = try StoreModel([
            ModelEntity("Pet", attributes: [ModelAttribute("name", .string)]),
            ModelEntity("Dog", attributes: [ModelAttribute("barks", .boolean)], parent: "Pet"),
        ])
        let store = try PredicateStore.inMemory(model)
        try store.insert("Dog", ["name": "Rex", "barks": true])
        try store.insert("Pet", ["name": "Tom"])
        #expect(try store.fetch(EntityQuery("Pet", sort: [SortRule("name")]), as: Pet.self)
                == [Pet(id: 1, name: "Rex", barks: true), Pet(id: 2, name: "Tom", barks: nil)])
    }

    /// The decoder gives what the JSON path gave (`StoreRecord.decode`): the same values, and
    /// an error where it failed, for types that read the records as they are and otherwise.
    @Test func decodesAsTheJSONPathDid() async throws {
        let store = try await Self.store()
        try Self.expectSameAsJSON(store, Item.self)
        try Self.expectSameAsJSON(store, LooseItem.self)
        try Self.expectSameAsJSON(store, [String: Loose].self)
        struct Narrow: Decodable, Equatable { var small: Int8?; var medium: Int16?; var large: Int32?; var weight: Float?; var due: Date?; var price: Decimal? }
        try Self.expectSameAsJSON(store, Narrow.self)
        struct Numbers: Decodable, Equatable { var ratio: Int?; var price: Int?; var done: Int?; var name: Double?; var due: Int? }
        try Self.expectSameAsJSON(store, Numbers.self)
        struct Texts: Decodable, Equatable { var kind: String?; var blob: Data?; var uuid: UUID?; var link: URL?; var labels: [Int]?; var shelf: String? }
        try Self.expectSameAsJSON(store, Texts.self)
    }

    /// Each record of `Item`, decoded both ways, one by one.
    static func expectSameAsJSON<T: Decodable & Equatable>(_ store: PredicateStore, _ type: T.Type) throws {
        let records = try store.fetch(EntityQuery("Item"))
        for (i, record) in records.enumerated() {
            let query = EntityQuery("Item", offset: i, limit: 1)
            let old = Result { () throws(StoreError) in try record.decode(T.self) }
            let new = Result { () throws(StoreError) in try store.fetch(query, as: T.self).first! }
            switch (old, new) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(T.self), Item \(record.id)")
            case (.failure(let a), .failure(let b)): #expect(a.kind == b.kind, "\(T.self), Item \(record.id)")
            default: Issue.record("\(T.self), Item \(record.id): JSON \(old), rows \(new)")
            }
        }
    }

    /// Any value, spelled out (a dictionary of these reads a whole record).
    struct Loose: Decodable, Equatable {
        let description: String

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { description = "nil" }
            else if let b = try? c.decode(Bool.self) { description = "\(b)" }
            else if let n = try? c.decode(Int64.self) { description = "\(n)" }
            else if let d = try? c.decode(Double.self) { description = "\(d)" }
            else if let s = try? c.decode(String.self) { description = "s:" + s }
            else { description = "\(try c.decode([Int64].self))" }
        }
    }
}

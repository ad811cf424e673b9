import CSQLite
import Foundation
import PQL
@testable import PQLStore
import Testing

/// One entity with an attribute of every type, and one whose attributes have defaults.
enum AllTypesModel {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Thing", attributes: [
                    ModelAttribute("s", .string), ModelAttribute("i16", .integer16), ModelAttribute("i32", .integer32),
                    ModelAttribute("i64", .integer64), ModelAttribute("d", .double), ModelAttribute("f", .float),
                    ModelAttribute("dec", .decimal), ModelAttribute("b", .boolean), ModelAttribute("dt", .date),
                    ModelAttribute("bin", .binary), ModelAttribute("u", .uuid), ModelAttribute("uri", .uri),
                ]),
                ModelEntity("Defaults", attributes: [
                    ModelAttribute("count", .integer64, defaultValue: 7), ModelAttribute("label", .string, defaultValue: "none"),
                    ModelAttribute("flag", .boolean, defaultValue: false), ModelAttribute("ratio", .double, defaultValue: 0.5),
                    ModelAttribute("required", .string, isOptional: false, defaultValue: "given"),
                ]),
            ])
        } catch {
            fatalError("invalid model: \(error)")
        }
    }()
}

/// Authors deny their deletion while they have books; books cascade to their notes; author
/// codes are unique.
enum LibraryModel {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Author", attributes: [ModelAttribute("code", .string, isOptional: false, isUnique: true), ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("books", toMany: "Book", inverse: "author", deleteRule: .deny)]),
                ModelEntity("Book", attributes: [ModelAttribute("title", .string)],
                            relationships: [ModelRelationship("author", to: "Author", inverse: "books"),
                                            ModelRelationship("notes", toMany: "Note", inverse: "book", deleteRule: .cascade)]),
                ModelEntity("Note", attributes: [ModelAttribute("text", .string)],
                            relationships: [ModelRelationship("book", to: "Book", inverse: "notes")]),
            ])
        } catch {
            fatalError("invalid model: \(error)")
        }
    }()

    /// Authors A1 (two books), A2 (one book), A3 (none); each book has two notes.
    static func make() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(model)
        let authors = try store.insert("Author", [["code": "A1", "name": "Ann"], ["code": "A2", "name": "Bob"], ["code": "A3", "name": "Cy"]])
        let books = try store.insert("Book", [["title": "One", "author": .int(authors[0])], ["title": "Two", "author": .int(authors[0])],
                                              ["title": "Three", "author": .int(authors[1])]])
        for b in books { try store.insert("Note", [["text": "n", "book": .int(b)], ["text": "m", "book": .int(b)]]) }
        return store
    }

    static func counts(_ store: PredicateStore) throws -> [Int] {
        try ["Author", "Book", "Note"].map { try store.count(EntityQuery($0)) }
    }
}

/// The public API of the store, end to end.
@Suite struct StoreAPITests {
    static func people() throws -> PeopleModel.Fixture {
        try PeopleModel.make(
            people: [["name": "Ann", "age": 40, "city": "Paris", "score": 1.5],
                     ["name": "Bob", "age": 17, "city": "Lima"],
                     ["name": "Cy", "age": .null, "city": "Paris", "active": true],
                     ["name": "Dee", "age": 65, "city": "Rome", "score": 9]],
            companies: [PeopleModel.company("Acme", founded: 100, size: 10), PeopleModel.company("Zeta", founded: nil, size: nil)],
            employer: [0, nil, 0, 1],
            tags: [[["name": "vip", "weight": 3], ["name": "new", "weight": 1]], [], [["name": "vip", "weight": 2]], [["name": "old"]]])
    }

    static func names(_ records: [StoreRecord]) -> [String] {
        records.map { if case .string(let s) = $0["name"] { return s } else { return "?" } }
    }

    // MARK: attribute types

    @Test func everyAttributeTypeRoundTrips() throws {
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        let blob = Data([0, 1, 2, 255, 0])
        let id = try store.insert("Thing", [
            "s": "Zoë \u{1F600}", "i16": .int(Int64(Int16.max)), "i32": .int(Int64(Int32.min)), "i64": .int(Int64.max),
            "d": 2.5, "f": 0.1, "dec": .decimal(Decimal(string: "12.34")!), "b": true, "dt": .date(date), "bin": .data(blob),
            "u": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "uri": "https://example.org/a?b=c#d",
        ])
        let r = try #require(try store.fetch(EntityQuery("Thing")).first)
        #expect(r.id == id)
        #expect(r.entity == "Thing")
        #expect(r.keys == ["s", "i16", "i32", "i64", "d", "f", "dec", "b", "dt", "bin", "u", "uri"])
        #expect(r["s"] == "Zoë \u{1F600}")
        #expect(r["i16"] == .int(32767))
        #expect(r["i32"] == .int(-2_147_483_648))
        #expect(r["i64"] == .int(Int64.max))
        #expect(r["d"] == .double(2.5))
        #expect(r["f"] == .double(Double(Float(0.1))))
        #expect(r["dec"] == .decimal(Decimal(string: "12.34")!))
        #expect(r["b"] == .bool(true))
        #expect(r["dt"] == .date(date))
        #expect(r["bin"] == .data(blob))
        #expect(r["u"] == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(r["uri"] == "https://example.org/a?b=c#d")
        // and the predicates see the same values
        for format in ["s == 'Zoë \u{1F600}'", "i16 == 32767", "i64 == 9223372036854775807", "f < 0.2", "dec == 12.34", "b == YES",
                       "dt == CAST(1234.5, 'NSDate')", "u ==[c] 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'", "uri BEGINSWITH 'https://'"] {
            #expect(try store.count(EntityQuery("Thing", where: format)) == 1, "\(format)")
        }
    }

    @Test func emptyStringAndEmptyDataAreNotNil() throws {
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        try store.insert("Thing", ["s": "", "bin": .data(Data())])
        let r = try #require(try store.fetch(EntityQuery("Thing")).first)
        #expect(r["s"] == .string(""))
        #expect(r["bin"] == .data(Data()))
        #expect(try store.count(EntityQuery("Thing", where: "s == nil OR bin == nil")) == 0)
        #expect(try store.count(EntityQuery("Thing", where: "s == ''")) == 1)
        #expect(try store.batchUpdate(EntityQuery("Thing"), set: ["bin": .data(Data()), "s": ""]) == 1)
        #expect(try store.count(EntityQuery("Thing", where: "bin != nil AND s != nil")) == 1)
    }

    @Test func nilAttributesReadAsNull() throws {
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        try store.insert("Thing", [:])
        let r = try #require(try store.fetch(EntityQuery("Thing")).first)
        #expect(r.values.count == 12)
        #expect(r.values.values.allSatisfy { $0 == .null })
        #expect(try store.count(EntityQuery("Thing", where: "s == nil AND i16 == nil AND bin == nil AND dt == nil")) == 1)
    }

    static let integerRanges: [(key: String, value: Int64, fits: Bool)] = [
        ("i16", 32767, true), ("i16", -32768, true), ("i16", 32768, false), ("i16", -32769, false),
        ("i32", 2_147_483_647, true), ("i32", -2_147_483_648, true), ("i32", 2_147_483_648, false), ("i32", -2_147_483_649, false),
        ("i64", Int64.max, true), ("i64", Int64.min, true),
    ]

    @Test(arguments: integerRanges.indices)
    func integerRangeErrors(_ i: Int) throws {
        let (key, value, fits) = Self.integerRanges[i]
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        if fits {
            try store.insert("Thing", [key: .int(value)])
            #expect(try store.fetch(EntityQuery("Thing"))[0][key] == .int(value))
        } else {
            #expect {
                try store.insert("Thing", [key: .int(value)])
            } throws: { e in
                guard let e = e as? StoreError else { return false }
                return e.kind == .invalidValue && e.message.contains("out of its range") && e.hint == "use a wider integer type in the model"
            }
            #expect(try store.count(EntityQuery("Thing")) == 0)
        }
    }

    @Test func valueConversionsOnInsert() throws {
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        // whole doubles fit integers; 0 and 1 fit booleans; dates from ISO text or seconds; data from base64
        try store.insert("Thing", ["i64": 3.0, "b": 1, "dt": "2001-01-01T00:01:40Z", "bin": "AAEC/w==", "d": 2, "dec": 1.25])
        try store.insert("Thing", ["dt": 100, "b": false])
        let rows = try store.fetch(EntityQuery("Thing", sort: [SortRule("b")]))
        #expect(rows[1]["i64"] == .int(3))
        #expect(rows[1]["b"] == .bool(true))
        #expect(rows[1]["dt"] == .date(Date(timeIntervalSinceReferenceDate: 100)))
        #expect(rows[1]["bin"] == .data(Data([0, 1, 2, 255])))
        #expect(rows[1]["d"] == .double(2))
        #expect(rows[1]["dec"] == .decimal(Decimal(string: "1.25")!))
        #expect(rows[0]["dt"] == .date(Date(timeIntervalSinceReferenceDate: 100)))
        for bad: [String: PredicateValue] in [["i64": 3.5], ["b": 2], ["u": "not-a-uuid"], ["bin": "%%%"], ["dt": "tomorrow"], ["s": true], ["d": "1"]] {
            #expect(throws: StoreError.self, "\(bad)") { try store.insert("Thing", bad) }
        }
        #expect(try store.count(EntityQuery("Thing")) == 2)
    }

    @Test func defaultsFillMissingAttributes() throws {
        let store = try PredicateStore.inMemory(AllTypesModel.model)
        try store.insert("Defaults", [:])
        try store.insert("Defaults", ["count": 1, "label": nil, "required": "mine"])
        let rows = try store.fetch(EntityQuery("Defaults", sort: [SortRule("count", ascending: false)]))
        #expect(rows[0].values == ["count": 7, "label": "none", "flag": false, "ratio": 0.5, "required": "given"])
        // an explicit nil is a value: it overrides the default
        #expect(rows[1].values == ["count": 1, "label": nil, "flag": false, "ratio": 0.5, "required": "mine"])
    }

    // MARK: Codable

    struct PersonDTO: Codable, Equatable {
        var id: Int64?
        var name: String
        var age: Int?
        var score: Double?
        var active: Bool?
        var born: Date?
        var balance: Decimal?
        var photo: Data?
    }

    @Test func codableInsertAndDecode() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let ann = PersonDTO(id: nil, name: "Ann", age: 40, score: 1.5, active: true, born: Date(timeIntervalSinceReferenceDate: 86_400),
                            balance: Decimal(string: "10.25"), photo: Data([1, 2, 3]))
        let bob = PersonDTO(id: nil, name: "Bob", age: nil, score: nil, active: false, born: nil, balance: nil, photo: nil)
        let a = try store.insert("Person", encoding: ann)
        let b = try store.insert("Person", encoding: bob)
        let fetched = try store.fetch(EntityQuery("Person", sort: [SortRule("name")]), as: PersonDTO.self)
        var wantAnn = ann, wantBob = bob
        wantAnn.id = a
        wantBob.id = b
        #expect(fetched == [wantAnn, wantBob])
        let record = try #require(try store.fetch(EntityQuery("Person", where: "name == 'Ann'")).first)
        #expect(try record.decode(PersonDTO.self) == wantAnn)
        #expect(record["active"] == .bool(true))
        #expect(record["born"] == .date(Date(timeIntervalSinceReferenceDate: 86_400)))
    }

    @Test func codableErrors() throws {
        struct Wrong: Codable { var name: Int }
        struct Unknown: Codable { var nickname: String }
        let store = try PredicateStore.inMemory(PeopleModel.model)
        #expect(throws: StoreError.self) { try store.insert("Person", encoding: Unknown(nickname: "x")) }
        #expect(throws: StoreError.self) { try store.insert("Person", encoding: [1, 2]) }
        try store.insert("Person", ["name": "Ann"])
        #expect {
            _ = try store.fetch(EntityQuery("Person"), as: Wrong.self)
        } throws: { e in (e as? StoreError)?.kind == .invalidValue && (e as? StoreError)?.hint != nil }
    }

    // MARK: update and delete

    @Test func updateChangesOneObject() throws {
        let f = try Self.people()
        try f.store.update("Person", id: f.ids[0], ["age": 41, "city": nil, "employer": nil])
        let ann = try f.store.fetch(EntityQuery("Person", where: "name == 'Ann'"))[0]
        #expect(ann["age"] == 41)
        #expect(ann["city"] == .null)
        #expect(try f.store.count(EntityQuery("Person", where: "employer == nil")) == 2)
        #expect(try f.store.count(EntityQuery("Person", where: "age == 65")) == 1)
        try f.store.update("Person", id: f.ids[0], [:])
        #expect(try f.store.fetch(EntityQuery("Person", where: "name == 'Ann'"))[0] == ann)
    }

    @Test func deleteWithCascadeRemovesTags() throws {
        let f = try Self.people()
        try f.store.delete("Person", id: f.ids[0])
        #expect(try f.store.count(EntityQuery("Person")) == 3)
        #expect(try f.store.count(EntityQuery("Tag")) == 2)
        #expect(try f.store.count(EntityQuery("Tag", where: "person == nil")) == 0)
        #expect(try f.store.count(EntityQuery("Company")) == 2)
    }

    @Test func deleteWithNullifyKeepsTheOtherSide() throws {
        let f = try Self.people()
        let acme = try f.store.fetch(EntityQuery("Company", where: "name == 'Acme'"))[0].id
        try f.store.delete("Company", id: acme)
        #expect(try f.store.count(EntityQuery("Person")) == 4)
        #expect(try f.store.count(EntityQuery("Person", where: "employer == nil")) == 3)
        let fk = try f.store.fetchProperties(["name"], EntityQuery("Person", where: "employer != nil"))
        #expect(fk == [["name": "Dee"]])
    }

    @Test func denyRefusesAndLeavesEverythingIntact() throws {
        let store = try LibraryModel.make()
        let a1 = try store.fetch(EntityQuery("Author", where: "code == 'A1'"))[0].id
        #expect {
            try store.delete("Author", id: a1)
        } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .constraint && e.message.contains("deny") && e.hint?.contains("Book") == true
        }
        #expect(try LibraryModel.counts(store) == [3, 3, 6])
        #expect(try store.count(EntityQuery("Book", where: "author.code == 'A1'")) == 2)
        // without books the author goes
        let a3 = try store.fetch(EntityQuery("Author", where: "code == 'A3'"))[0].id
        try store.delete("Author", id: a3)
        #expect(try LibraryModel.counts(store) == [2, 3, 6])
    }

    @Test func cascadeFollowsChains() throws {
        let store = try LibraryModel.make()
        let n = try store.batchDelete(EntityQuery("Book", where: "author.code == 'A1'"))
        #expect(n == 2)
        #expect(try LibraryModel.counts(store) == [3, 1, 2])
        // now A1 has no books and can be deleted
        #expect(try store.batchDelete(EntityQuery("Author", where: "code == 'A1'")) == 1)
        #expect(try LibraryModel.counts(store) == [2, 1, 2])
    }

    /// Replies cascade to their replies: a model whose cascade comes back to its own entity.
    static let thread = try! StoreModel([
        ModelEntity("Post", attributes: [ModelAttribute("n", .integer64)],
                    relationships: [ModelRelationship("replies", toMany: "Post", inverse: "inReplyTo", deleteRule: .cascade),
                                    ModelRelationship("inReplyTo", to: "Post", inverse: "replies", deleteRule: .nullify)]),
    ])

    @Test func cascadesToTheSameEntityEndWhereTheObjectsDo() throws {
        let store = try PredicateStore(path: ":memory:", model: Self.thread)
        // Two threads: 150 replies deep, and 250 deep.
        for (first, depth) in [(0, 150), (10_000, 250)] {
            var parent: Int64? = nil
            for n in first..<(first + depth) {
                parent = try store.insert("Post", ["n": .int(Int64(n)), "inReplyTo": parent.map(PredicateValue.int) ?? .null])
            }
        }
        // A short thread goes whole (it recursed into empty sets to the depth limit before).
        #expect(try store.batchDelete(EntityQuery("Post", where: "n == 0")) == 1)
        #expect(try store.count(EntityQuery("Post", where: "n < 10000")) == 0)
        // Deeper than the limit: an error, and nothing deleted.
        do {
            _ = try store.batchDelete(EntityQuery("Post", where: "n == 10000"))
            Issue.record("a 250-level cascade went through")
        } catch {
            #expect(error.kind == .constraint)
            #expect(error.message == "cascading deletes go deeper than 200 levels of related objects")
        }
        #expect(try store.count(EntityQuery("Post")) == 250)
        // Deleting from the deep end first works.
        #expect(try store.batchDelete(EntityQuery("Post", where: "n >= 10100")) == 150)
        #expect(try store.batchDelete(EntityQuery("Post", where: "n == 10000")) == 1)
        #expect(try store.count(EntityQuery("Post")) == 0)
    }

    // MARK: batch operations

    @Test func batchUpdateCountsAndChangesOnlyMatches() throws {
        let f = try Self.people()
        let n = try f.store.batchUpdate(EntityQuery("Person", where: "age > 30"), set: ["city": "Oslo", "active": true])
        #expect(n == 2)
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", where: "city == 'Oslo' AND active == YES", sort: [SortRule("name")]))) == ["Ann", "Dee"])
        #expect(try f.store.count(EntityQuery("Person", where: "city == 'Oslo'")) == 2)
        #expect(try f.store.batchUpdate(EntityQuery("Person", where: "age > 100"), set: ["city": "X"]) == 0)
        // links can be set too
        let zeta = try f.store.fetch(EntityQuery("Company", where: "name == 'Zeta'"))[0].id
        #expect(try f.store.batchUpdate(EntityQuery("Person", where: "employer == nil"), set: ["employer": .int(zeta)]) == 1)
        #expect(try f.store.count(EntityQuery("Person", where: "employer.name == 'Zeta'")) == 2)
    }

    @Test func batchUpdateHonoursSortAndLimit() throws {
        let f = try Self.people()
        let n = try f.store.batchUpdate(EntityQuery("Person", where: "age != nil", sort: [SortRule("age")], limit: 2), set: ["email": "young"])
        #expect(n == 2)
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", where: "email == 'young'", sort: [SortRule("name")]))) == ["Ann", "Bob"])
    }

    @Test func batchUpdateIsAtomic() throws {
        let store = try LibraryModel.make()
        // the second row breaks the unique code: the first must not stay changed
        #expect {
            _ = try store.batchUpdate(EntityQuery("Author"), set: ["code": "SAME"])
        } throws: { e in (e as? StoreError)?.kind == .constraint }
        #expect(try store.fetchProperties(["code"], EntityQuery("Author", sort: [SortRule("code")])) == [["code": "A1"], ["code": "A2"], ["code": "A3"]])
        // a value that does not fit fails before anything runs
        #expect(throws: StoreError.self) { _ = try store.batchUpdate(EntityQuery("Author"), set: ["code": nil]) }
        #expect(throws: StoreError.self) { _ = try store.batchUpdate(EntityQuery("Author"), set: ["name": "x", "nope": 1]) }
        #expect(try store.count(EntityQuery("Author", where: "name == 'x'")) == 0)
    }

    @Test func batchDeleteAppliesRulesAndCounts() throws {
        let f = try Self.people()
        let n = try f.store.batchDelete(EntityQuery("Person", where: "age > 30 OR age == nil"))
        #expect(n == 3)
        #expect(Self.names(try f.store.fetch(EntityQuery("Person"))) == ["Bob"])
        #expect(try f.store.count(EntityQuery("Tag")) == 0)
        #expect(try f.store.count(EntityQuery("Company")) == 2)
        #expect(try f.store.batchDelete(EntityQuery("Person", where: "FALSEPREDICATE")) == 0)
    }

    @Test func batchDeleteIsAtomic() throws {
        let store = try LibraryModel.make()
        // A3 could go, A1 and A2 deny: nothing may be deleted
        #expect {
            _ = try store.batchDelete(EntityQuery("Author", sort: [SortRule("code", ascending: false)]))
        } throws: { e in (e as? StoreError)?.kind == .constraint }
        #expect(try LibraryModel.counts(store) == [3, 3, 6])
        #expect(try store.count(EntityQuery("Author", where: "code == 'A3'")) == 1)
    }

    // MARK: transactions

    @Test func transactionRollsBackEverything() throws {
        let f = try Self.people()
        #expect(throws: StoreError.self) {
            try f.store.transaction { () throws(StoreError) in
                try f.store.insert("Person", ["name": "New"])
                _ = try f.store.batchUpdate(EntityQuery("Person"), set: ["city": "Nowhere"])
                try f.store.delete("Person", id: f.ids[1])
                throw StoreError(.invalidValue, "stop")
            }
        }
        #expect(try f.store.count(EntityQuery("Person")) == 4)
        #expect(try f.store.count(EntityQuery("Person", where: "city == 'Nowhere' OR name == 'New'")) == 0)
        #expect(try f.store.count(EntityQuery("Tag")) == 4)
    }

    @Test func transactionCommitsAndNestedFailureRollsBackOnlyItsPart() throws {
        let f = try Self.people()
        let value = try f.store.transaction { () throws(StoreError) -> Int in
            try f.store.insert("Person", ["name": "Kept"])
            do {
                try f.store.transaction { () throws(StoreError) in
                    try f.store.insert("Person", ["name": "Dropped"])
                    try f.store.insert("Person", ["age": "not a number"])
                }
            } catch {
                #expect(HostileInputTests.storeError(error)?.kind == .invalidValue)
            }
            return 42
        }
        #expect(value == 42)
        #expect(try f.store.count(EntityQuery("Person", where: "name == 'Kept'")) == 1)
        #expect(try f.store.count(EntityQuery("Person", where: "name == 'Dropped'")) == 0)
    }

    @Test func insertOfManyIsAllOrNothing() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        #expect(throws: StoreError.self) { try store.insert("Person", [["name": "a"], ["name": "b"], ["age": "c"]]) }
        #expect(try store.count(EntityQuery("Person")) == 0)
    }

    // MARK: templates, sort, paging, count

    @Test func fetchTemplateWithVariables() throws {
        let f = try Self.people()
        #expect(Self.names(try f.store.fetch(template: "OlderThan", variables: ["minimum": 16])) == ["Bob", "Ann", "Dee"])
        #expect(Self.names(try f.store.fetch(template: "OlderThan", variables: ["minimum": 100])) == [])
        let q = try f.store.model.template(named: "OlderThan").query(variables: ["minimum": 50])
        #expect(q.entity == "Person")
        #expect(q.sort == [SortRule("age")])
        #expect(try f.store.count(q) == 1)
    }

    @Test func sortLimitOffset() throws {
        let f = try Self.people()
        let byAge = try f.store.fetch(EntityQuery("Person", sort: [SortRule("age")]))
        // nil sorts first, as in memory
        #expect(Self.names(byAge) == ["Cy", "Bob", "Ann", "Dee"])
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("age", ascending: false)]))) == ["Dee", "Ann", "Bob", "Cy"])
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("age")], offset: 1, limit: 2))) == ["Bob", "Ann"])
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("age")], offset: 3))) == ["Dee"])
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("age")], limit: 0))) == [])
        // ties keep key order
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("city")]))) == ["Bob", "Ann", "Cy", "Dee"])
        #expect(Self.names(try f.store.fetch(EntityQuery("Person", sort: [SortRule("employer.name", ascending: false), SortRule("name")]))) == ["Dee", "Ann", "Cy", "Bob"])
    }

    @Test func caseInsensitiveSort() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", [["name": "b"], ["name": "A"], ["name": "a"], ["name": "B"]])
        #expect(Self.names(try store.fetch(EntityQuery("Person", sort: [SortRule("name")]))) == ["A", "B", "a", "b"])
        #expect(Self.names(try store.fetch(EntityQuery("Person", sort: [SortRule("name", comparison: .caseInsensitive)]))) == ["A", "a", "b", "B"])
    }

    @Test func countWithPredicateAndPaging() throws {
        let f = try Self.people()
        #expect(try f.store.count(EntityQuery("Person")) == 4)
        #expect(try f.store.count(EntityQuery("Person", where: "city == 'Paris'")) == 2)
        #expect(try f.store.count(EntityQuery("Person", limit: 3)) == 3)
        #expect(try f.store.count(EntityQuery("Person", offset: 3)) == 1)
        #expect(try f.store.count(EntityQuery("Person", where: "ANY tags.name == 'vip'")) == 2)
        #expect(try f.store.count(EntityQuery("Company", where: "employees.@count == 2")) == 1)
    }

    // MARK: fetchProperties

    @Test func fetchPropertiesWithToOnePathAndAggregates() throws {
        let f = try Self.people()
        let rows = try f.store.fetchProperties(["name", "employer.name", "tags.@count", "tags.@sum.weight"], EntityQuery("Person", sort: [SortRule("name")]))
        #expect(rows.count == 4)
        #expect(rows[0] == ["name": "Ann", "employer.name": "Acme", "tags.@count": 2, "tags.@sum.weight": 4.0])
        #expect(rows[1] == ["name": "Bob", "employer.name": nil, "tags.@count": 0, "tags.@sum.weight": 0.0])
        #expect(rows[3] == ["name": "Dee", "employer.name": "Zeta", "tags.@count": 1, "tags.@sum.weight": 0.0])
        let founded = try f.store.fetchProperties(["employer.founded"], EntityQuery("Person", where: "name == 'Ann'"))
        #expect(founded == [["employer.founded": .date(Date(timeIntervalSinceReferenceDate: 100))]])
    }

    @Test func fetchPropertiesDistinct() throws {
        let f = try Self.people()
        let all = try f.store.fetchProperties(["city"], EntityQuery("Person", sort: [SortRule("city")]))
        #expect(all.count == 4)
        let distinct = try f.store.fetchProperties(["city"], EntityQuery("Person", sort: [SortRule("city")]), distinct: true)
        #expect(distinct == [["city": "Lima"], ["city": "Paris"], ["city": "Rome"]])
        // Ann and Cy are both (Paris, Acme)
        let pairs = try f.store.fetchProperties(["city", "employer.name"], EntityQuery("Person"), distinct: true)
        #expect(pairs.count == 3)
    }

    @Test func fetchPropertiesRejectsRelationships() throws {
        let f = try Self.people()
        for keys in [["employer"], ["tags"], ["tags.name"], []] {
            #expect(throws: StoreError.self, "\(keys)") { _ = try f.store.fetchProperties(keys, EntityQuery("Person")) }
        }
    }

    // MARK: streaming

    @Test func forEachVisitsEveryRowOfALargeTable() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let n = 100_000
        let rows: [[PredicateValue]] = (0..<n).map { [.string("t\($0 % 97)"), .int(Int64($0))] }
        #expect(try store.insertRows("Tag", columns: ["name", "weight"], rows: rows) == n)
        var visited = 0
        var sum: Int64 = 0
        var last: Int64 = 0
        var ordered = true
        try store.forEach(EntityQuery("Tag", sort: [SortRule("weight")])) { (r) throws(StoreError) in
            visited += 1
            if case .int(let w) = r["weight"] {
                sum += w
                if w < last { ordered = false }
                last = w
            }
        }
        #expect(visited == n)
        #expect(sum == Int64(n) * Int64(n - 1) / 2)
        #expect(ordered)
        var filtered = 0
        try store.forEach(EntityQuery("Tag", where: "name == 't5'")) { (_) throws(StoreError) in filtered += 1 }
        #expect(filtered == (0..<n).filter { $0 % 97 == 5 }.count)
    }

    @Test func forEachStopsWhenTheBodyThrows() throws {
        let f = try Self.people()
        var seen = 0
        #expect(throws: StoreError.self) {
            try f.store.forEach(EntityQuery("Person")) { (_) throws(StoreError) in
                seen += 1
                if seen == 2 { throw StoreError(.cancelled, "enough") }
            }
        }
        #expect(seen == 2)
        // the statement is reusable afterwards
        #expect(try f.store.fetch(EntityQuery("Person")).count == 4)
    }

    // MARK: inheritance

    static func zoo() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(ZooModel.model)
        let keeper = try store.insert("Keeper", ["name": "Kim"])
        try store.insert("Dog", ["name": "Rex", "dogKeeper": .int(keeper)])
        try store.insert("Cat", ["name": "Tom", "indoor": true])
        try store.insert("Puppy", ["name": "Bit", "age": 1, "barks": false, "legs": 3, "dogKeeper": .int(keeper)])
        try store.insert("Cat", ["name": "Rita", "legs": 3])
        return store
    }

    @Test func fetchingTheParentReturnsEveryKind() throws {
        let store = try Self.zoo()
        let all = try store.fetch(EntityQuery("Animal", sort: [SortRule("name")]))
        #expect(all.map(\.entity) == ["Puppy", "Dog", "Cat", "Cat"])
        #expect(Self.names(all) == ["Bit", "Rex", "Rita", "Tom"])
        #expect(all[1].keys == ["name", "legs", "barks"])
        // Links follow the attributes in the values: a dog's keeper as the keeper's key.
        #expect(all[1].values == ["name": "Rex", "legs": 4, "barks": true, "dogKeeper": 1])
        #expect(all[0].values == ["name": "Bit", "legs": 3, "barks": false, "age": 1, "dogKeeper": 1])
        #expect(all[3].values == ["name": "Tom", "legs": 4, "indoor": true])
    }

    @Test func fetchingAChildReturnsOnlyItsRows() throws {
        let store = try Self.zoo()
        #expect(Self.names(try store.fetch(EntityQuery("Dog", sort: [SortRule("name")]))) == ["Bit", "Rex"])
        #expect(Self.names(try store.fetch(EntityQuery("Cat", sort: [SortRule("name")]))) == ["Rita", "Tom"])
        #expect(Self.names(try store.fetch(EntityQuery("Puppy"))) == ["Bit"])
        #expect(try store.fetch(EntityQuery("Puppy"))[0].entity == "Puppy")
        #expect(try store.count(EntityQuery("Animal")) == 4)
        #expect(try store.count(EntityQuery("Cat")) == 2)
    }

    @Test func predicatesOnInheritedAttributes() throws {
        let store = try Self.zoo()
        #expect(Self.names(try store.fetch(EntityQuery("Cat", where: "legs == 3"))) == ["Rita"])
        #expect(Self.names(try store.fetch(EntityQuery("Dog", where: "name BEGINSWITH 'R'"))) == ["Rex"])
        #expect(Self.names(try store.fetch(EntityQuery("Animal", where: "legs == 3", sort: [SortRule("name")]))) == ["Bit", "Rita"])
        #expect(Self.names(try store.fetch(EntityQuery("Dog", where: "barks == NO"))) == ["Bit"])
        #expect(try store.count(EntityQuery("Keeper", where: "ANY dogs.name == 'Bit'")) == 1)
        #expect(try store.count(EntityQuery("Keeper", where: "dogs.@count == 2")) == 1)
        #expect(try store.count(EntityQuery("Dog", where: "dogKeeper.name == 'Kim'")) == 2)
        // a sub-entity's attribute is not a key of its parent or sibling
        #expect(throws: StoreError.self) { _ = try store.fetch(EntityQuery("Animal", where: "barks == YES")) }
        #expect(throws: StoreError.self) { _ = try store.fetch(EntityQuery("Cat", where: "barks == YES")) }
        // batch operations stay inside the sub-entity
        #expect(try store.batchUpdate(EntityQuery("Cat"), set: ["legs": 5]) == 2)
        #expect(try store.count(EntityQuery("Animal", where: "legs == 5")) == 2)
        #expect(try store.batchDelete(EntityQuery("Dog", where: "legs > 0")) == 2)
        #expect(Self.names(try store.fetch(EntityQuery("Animal", sort: [SortRule("name")]))) == ["Rita", "Tom"])
    }

    // MARK: files

    static func temporaryPath(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    @Test func fileStoreReopensWithItsSavedModel() throws {
        let path = try Self.temporaryPath("people.sqlite")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        do {
            let store = try PredicateStore(path: path, model: PeopleModel.model)
            let c = try store.insert("Company", ["name": "Acme"])
            let p = try store.insert("Person", ["name": "Ann", "age": 40, "employer": .int(c)])
            try store.insert("Tag", ["name": "vip", "person": .int(p)])
            try store.checkpoint()
        }
        let reopened = try PredicateStore(path: path)
        #expect(reopened.model == PeopleModel.model)
        #expect(reopened.model.templates.map(\.name) == ["OlderThan"])
        #expect(Self.names(try reopened.fetch(EntityQuery("Person", where: "employer.name == 'Acme' AND ANY tags.name == 'vip'"))) == ["Ann"])
        #expect(Self.names(try reopened.fetch(template: "OlderThan", variables: ["minimum": 30])) == ["Ann"])
        try reopened.insert("Person", ["name": "Bob"])
        // opening again with the model keeps the data
        let again = try PredicateStore(path: path, model: PeopleModel.model)
        #expect(try again.count(EntityQuery("Person")) == 2)
        // read-only: reads work, writes fail cleanly
        let readOnly = try PredicateStore(path: path, readOnly: true)
        #expect(try readOnly.count(EntityQuery("Person")) == 2)
        #expect(throws: StoreError.self) { try readOnly.insert("Person", ["name": "Cy"]) }
        #expect(try again.count(EntityQuery("Person")) == 2)
    }

    @Test func missingFileIsAnError() throws {
        let path = try Self.temporaryPath("absent.sqlite")
        #expect {
            _ = try PredicateStore(path: path)
        } throws: { e in (e as? StoreError)?.kind == .fileAccess && (e as? StoreError)?.message.contains("no database") == true }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: schema inference

    static func makeForeignDatabase(at path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw StoreError(.sqlite, "cannot create the test database") }
        defer { sqlite3_close(db) }
        let sql = """
            CREATE TABLE company (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL UNIQUE, listed BOOLEAN, revenue REAL, logo BLOB, misc);
            CREATE TABLE employee (emp_id INTEGER PRIMARY KEY, name TEXT NOT NULL, company_id INTEGER, salary DOUBLE,
                                   FOREIGN KEY (company_id) REFERENCES company(id));
            CREATE INDEX employee_salary ON employee(salary);
            CREATE TABLE log (message TEXT, level INT);
            INSERT INTO company VALUES (1, 'Acme', 1, 12.5, x'0102', 'anything'), (2, 'Zeta', 0, NULL, NULL, 42), (3, 'Idle', NULL, NULL, NULL, NULL);
            INSERT INTO employee VALUES (10, 'Ann', 1, 150), (11, 'Bob', 1, 90), (12, 'Cy', 2, 200), (13, 'Dee', NULL, 50);
            INSERT INTO log VALUES ('start', 1), ('stop', 2);
            """
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw StoreError(.sqlite, "cannot fill the test database: \(text)")
        }
    }

    @Test func schemaInferenceOnAForeignFile() throws {
        let path = try Self.temporaryPath("foreign.sqlite")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try Self.makeForeignDatabase(at: path)
        let store = try PredicateStore(path: path)
        let model = store.model
        #expect(model.entities.map(\.name) == ["company", "employee", "log"])
        let company = try model.entity(named: "company")
        #expect(company.primaryKey == "id")
        let types = Dictionary(uniqueKeysWithValues: company.attributes.map { ($0.name, $0.type) })
        #expect(types == ["id": .integer64, "name": .string, "listed": .boolean, "revenue": .double, "logo": .binary, "misc": .string])
        let name = try #require(company.attributes.first { $0.name == "name" })
        #expect(!name.isOptional)
        #expect(name.isUnique)
        #expect(company.relationships.map(\.name) == ["employee"])
        #expect(company.relationships.first?.isToMany == true)
        let employee = try model.entity(named: "employee")
        #expect(employee.primaryKey == "emp_id")
        #expect(employee.attributes.first { $0.name == "salary" }?.isIndexed == true)
        #expect(employee.attributes.first { $0.name == "name" }?.isOptional == false)
        let link = try #require(employee.relationships.first)
        #expect(link.name == "company")
        #expect(link.destination == "company")
        #expect(!link.isToMany)
        #expect(link.foreignKeyColumn == "company_id")
        #expect(try model.entity(named: "log").primaryKey == "rowid")
        #expect(try store.inferModel() == model)

        // queries over the inferred model: to-one path, ANY over the inverse, @count
        let viaPath = try store.fetch(EntityQuery("employee", where: "company.name == 'Acme'", sort: [SortRule("name")]))
        #expect(viaPath.map(\.id) == [10, 11])
        #expect(Self.names(viaPath) == ["Ann", "Bob"])
        #expect(Self.names(try store.fetch(EntityQuery("company", where: "ANY employee.salary > 100", sort: [SortRule("name")]))) == ["Acme", "Zeta"])
        #expect(Self.names(try store.fetch(EntityQuery("company", where: "employee.@count == 0"))) == ["Idle"])
        #expect(Self.names(try store.fetch(EntityQuery("company", where: "NONE employee.salary < 100", sort: [SortRule("name")]))) == ["Idle", "Zeta"])
        #expect(Self.names(try store.fetch(EntityQuery("employee", where: "company == nil"))) == ["Dee"])
        #expect(try store.fetch(EntityQuery("company", where: "listed == YES"))[0]["logo"] == .data(Data([1, 2])))
        #expect(try store.fetch(EntityQuery("company", where: "name == 'Zeta'"))[0]["listed"] == .bool(false))
        let logs = try store.fetch(EntityQuery("log", sort: [SortRule("level")]))
        #expect(logs.map(\.id) == [1, 2])
        #expect(logs.map { $0["message"] } == ["start", "stop"])
        let props = try store.fetchProperties(["name", "company.name"], EntityQuery("employee", where: "salary >= 150", sort: [SortRule("salary")]))
        #expect(props == [["name": "Ann", "company.name": "Acme"], ["name": "Cy", "company.name": "Zeta"]])
        // writes through the inferred model
        try store.insert("employee", ["name": "Eve", "company_id": 3, "salary": 10])
        #expect(Self.names(try store.fetch(EntityQuery("company", where: "employee.@count == 0"))) == [])
    }
}

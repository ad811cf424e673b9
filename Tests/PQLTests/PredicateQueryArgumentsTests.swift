import Foundation
import Testing
import PQL

/// `PredicateQuery` takes what `EntityQuery` takes, in the same order, and runs on plain
/// `Codable` types as well as `PredicateReadable` ones.
@Suite("PredicateQuery arguments and Codable elements")
struct PredicateQueryArgumentsTests {
    struct Item: Codable, Equatable {
        var name: String
        var price: Double
        var tags: [String]
        var added: Date?
    }

    static let items = [
        Item(name: "pen", price: 2.5, tags: ["office"], added: Date(timeIntervalSinceReferenceDate: 10)),
        Item(name: "lamp", price: 30, tags: ["home", "light"], added: nil),
        Item(name: "Cup", price: 4, tags: ["home"], added: Date(timeIntervalSinceReferenceDate: 20)),
        Item(name: "desk", price: 120, tags: ["office"], added: Date(timeIntervalSinceReferenceDate: 5)),
    ]

    @Test("the format initializer takes predicate, sort, offset, limit in EntityQuery's order")
    func formatInitializer() throws {
        let q = try PredicateQuery(where: "price < %@", [100], sort: [SortRule("price")], offset: 1, limit: 1,
                                   variables: ["x": 1], limits: .interactive)
        #expect(q.predicate == (try PredicateNode(format: "price < 100")))
        #expect(q.offset == 1 && q.limit == 1 && q.variables == ["x": 1] && q.limits == .interactive)
        #expect(throws: PredicateFormatError.self) { try PredicateQuery(where: "price <") }
    }

    @Test("a Codable type runs through PredicateQuery with no code of its own")
    func codableElements() throws {
        let cheap = try PredicateQuery(where: "price < 50 AND ANY tags == 'home'", sort: [SortRule("name", comparison: .caseInsensitive)])
        #expect(try cheap.run(on: Self.items).map(\.name) == ["Cup", "lamp"])
        let recent = try PredicateQuery(where: "added > %@", [Date(timeIntervalSinceReferenceDate: 6)], sort: [SortRule("added", ascending: false)])
        #expect(try recent.run(on: Self.items).map(\.name) == ["Cup", "pen"])
        let page = PredicateQuery(sort: [SortRule("price")], offset: 1, limit: 2)
        #expect(try page.run(on: Self.items).map(\.name) == ["Cup", "lamp"])
    }

    @Test("a misspelt key of a Codable type is an error naming the type")
    func unknownKey() throws {
        #expect { try PredicateQuery(where: "prise < 5").run(on: Self.items) } throws: { e in
            (e as? PredicateEvaluationError)?.message.contains("prise") == true
        }
    }

    @Test("types that are both evaluable and Codable keep their own reader")
    func bothConformances() throws {
        #expect(try PredicateQuery(where: "SELF > 2").run(on: [1, 5, 3]) == [5, 3])
        #expect(try PredicateQuery(where: "SELF BEGINSWITH 'a'").run(on: ["ab", "b", "ac"]) == ["ab", "ac"])
        let values: [PredicateValue] = [["n": 1], ["n": 2]]
        #expect(try PredicateQuery(where: "n == 2").run(on: values) == [["n": 2]])
    }
}

import Foundation
import Testing
import PQL
@testable import PQLStore

/// `EntityQuery` through JSON: the predicate as text, errors pointing into the decoded text,
/// and a decoded query fetching what the original fetches.
@Suite("EntityQuery Codable and argument order")
struct EntityQueryCodableTests {
    static func json(_ q: EntityQuery) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(q), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> EntityQuery {
        try JSONDecoder().decode(EntityQuery.self, from: Data(text.utf8))
    }

    @Test("a query round-trips and fetches the same records")
    func roundTrip() throws {
        let f = try StoreAPITests.people()
        let q = try EntityQuery("Person", where: "age > %@ OR city == $city", [18], sort: [SortRule("age", ascending: false)],
                                offset: 1, limit: 2, variables: ["city": "Lima"], limits: .interactive)
        let text = try Self.json(q)
        #expect(text.contains(#""predicate":"age > 18 OR city == $city""#))
        let back = try Self.decode(text)
        #expect(back.entity == q.entity && back.predicate == q.predicate && back.sort == q.sort)
        #expect(back.offset == 1 && back.limit == 2 && back.variables == q.variables && back.limits == .interactive)
        #expect(back.predicateText == "age > 18 OR city == $city")
        #expect(try f.store.fetch(back) == f.store.fetch(q))
        #expect(try f.store.fetch(back).count == 2)
    }

    @Test("a decoded query's store errors point into the decoded text")
    func errorsPointIntoText() throws {
        let f = try StoreAPITests.people()
        let q = try Self.decode(#"{"entity": "Person", "predicate": "age > 1 AND nmae == 'x'"}"#)
        #expect { try f.store.fetch(q) } throws: { e in
            guard let e = e as? StoreError else { return false }
            return e.kind == .unknownKey && e.source == "age > 1 AND nmae == 'x'" && e.range?.offset == 12
        }
    }

    @Test("a predicate that does not parse is a DecodingError with the parser's message; entity is required")
    func decodingErrors() throws {
        do {
            _ = try Self.decode(#"{"entity": "Person", "predicate": "age >"}"#)
            Issue.record("decoded an invalid predicate")
        } catch let DecodingError.dataCorrupted(context) {
            let parseError = try #require(context.underlyingError as? PredicateFormatError)
            #expect(context.debugDescription.contains(parseError.message))
            #expect(context.codingPath.map(\.stringValue) == ["predicate"])
        }
        #expect(throws: DecodingError.self) { try Self.decode(#"{"predicate": "age > 1"}"#) }
        let minimal = try Self.decode(#"{"entity": "Person"}"#)
        #expect(minimal.predicate == .constant(true) && minimal.limit == nil && minimal.offset == 0 && minimal.limits == .default)
    }

    @Test("EntityQuery and PredicateQuery take predicate, sort, offset, limit in one order and agree")
    func sameArgumentOrder() throws {
        let f = try StoreAPITests.people()
        let sort = [SortRule("name")]
        let stored = try EntityQuery("Person", where: "age > %@", [10], sort: sort, offset: 1, limit: 2, variables: [:], limits: .default)
        let memory = try PredicateQuery(where: "age > %@", [10], sort: sort, offset: 1, limit: 2, variables: [:], limits: .default)
        #expect(stored.predicate == memory.predicate)
        let inStore = try f.store.fetch(stored).map { $0["name"] }
        let people = try f.store.fetch(EntityQuery("Person")).map(\.dictionary)
        #expect(try memory.run(on: people).map { $0.dictionaryValue?["name"] ?? .null } == inStore)
        #expect(inStore.count == 2)
    }
}

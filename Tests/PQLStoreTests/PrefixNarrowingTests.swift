import PQL
@testable import PQLStore
import Testing

/// `BEGINSWITH[c]` narrows its search by the scalar a match can start with (index ranges on an
/// indexed column): text that begins with marks out of canonical order begins, once folded,
/// with another mark than it stores, so a needle starting with a mark is not narrowed. The
/// SQLite store against memory, indexed and not.
@Suite struct PrefixNarrowingTests {
    static let names = ["\u{345}\u{301}", "\u{345}\u{301}b", "\u{301}", "\u{301}x", "\u{651}\u{64E}x", "\u{64E}\u{651}",
                        "\u{301}\u{316}", "\u{316}\u{301}", "\u{345}ι", "ιx", "Ι", "\u{3099}x", "ﾞx", "a", "b\u{301}"]
    static let needles = ["\u{301}", "\u{64E}", "\u{316}", "\u{345}", "ι", "Ι", "ﾞ", "\u{3099}", "a"]

    @Test(arguments: [false, true]) func aNeedleStartingWithAMarkFindsEveryMatch(indexed: Bool) throws {
        let model = try StoreModel([ModelEntity("Person", attributes: [ModelAttribute("name", .string, isIndexed: indexed)])])
        let store = try PredicateStore.inMemory(model)
        var objects: [(Int64, PredicateValue)] = []
        for name in Self.names {
            objects.append((try store.insert("Person", ["name": .string(name)]), .dictionary(["name": .string(name)])))
        }
        var matched = 0
        for needle in Self.needles {
            let query = try EntityQuery("Person", where: "name BEGINSWITH[c] %@", [needle])
            let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader)
            let want = try objects.filter { try compiled.evaluate($0.1) }.map(\.0)
            #expect(Set(try store.fetchIDs(query)) == Set(want), "\(needle.unicodeScalars.map { String($0.value, radix: 16) })")
            matched += want.count
        }
        // The marks' own cases: U+0345 U+0301 begins with U+0301 once normalised.
        #expect(matched > 10)
    }
}

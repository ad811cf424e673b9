import Foundation
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// `BEGINSWITH[c]` on PostgreSQL narrows the rows to those starting with a scalar a match can
/// start with before it folds (`nativePrefix`): a condition that must keep every match; and for
/// a one-letter needle it takes the text in ranges of certain matches without folding, which
/// must add none. Text
/// starting with each such scalar, spelled composed and decomposed, with marks, width and
/// compatibility forms, and text that folds to more than one scalar, against memory's rows.
@Suite struct PostgresPrefixSearchTests {
    static let model = try! StoreModel([ModelEntity("Person", attributes: [ModelAttribute("name", .string)])])

    static let needles = ["a", "A", "ab", "ss", "k", "ff", "st", "i", "ı", "é", "e\u{301}", "Å", "ω", "ǆ", "1", "ß", "ﬀ", "ＡＢ", "ẚ", "ǰ",
                          "μ", "Μ", "µx", "\u{915}", "\u{300}"]

    /// The names: each start scalar of each needle and a few dozen more, alone and followed by
    /// a letter, a mark, and more letters.
    static var names: [String] {
        var starts: Set<Unicode.Scalar> = []
        for n in needles { starts.formUnion(SharedSemantics.caseInsensitivePrefixStarts(n) ?? []) }
        let extra: [Unicode.Scalar] = ["\u{212A}", "\u{212B}", "ß", "ẞ", "ﬀ", "ﬆ", "İ", "ı", "ſ", "\u{301}", "\u{345}", "Ａ", "ａ", "ǅ", "Ǆ",
                                       "\u{1E9E}", "Ω", "\u{2126}", "j", "J", "\u{30C}", "0", "１", "ﾞ", "Z",
                                       "µ", "\u{958}", "\u{340}", "\u{915}"]
        starts.formUnion(extra)
        var out: [String] = []
        for u in starts.sorted(by: { $0.value < $1.value }) {
            let s = String(Character(u))
            out += [s, s + "b", s + "\u{301}", s + "\u{30A}x", s + "ss", s + "ﬀ", s + "\u{301}b", "\u{301}" + s]
        }
        return out + ["Ángel", "Åsa", "A\u{30A}sa", "Ångström", "Straße", "STRASSE", "ǰoe", "j\u{30C}oe", "ﬀoo", "FFoo", "Kelvin", "\u{212A}elvin", "",
                     // The edges of the ranges a one-letter needle is certain of (`a` followed
                     // by nothing or a scalar below U+0300): inside, and just past them.
                     "a\u{2FF}", "A\u{2FF}b", "a\u{300}", "A\u{300}b", "a\u{34F}x", "A\u{FFFD}", "a\u{10FFFF}", "A\r\n", "a\u{7F}"]
    }

    @Test func caseInsensitivePrefixesKeepEveryMatch() async throws {
        try await TestServer.withStore(model: Self.model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            var objects: [(Int64, PredicateValue)] = []
            for name in Self.names + [nil] as [String?] {
                let value: PredicateValue = name.map { .string($0) } ?? .null
                objects.append((try await store.insert("Person", ["name": value]), .dictionary(["name": value])))
            }
            var compared = 0, matched = 0
            for needle in Self.needles {
                for format in ["name BEGINSWITH[c] %@", "NOT (name BEGINSWITH[c] %@)"] {
                    let query = try EntityQuery("Person", where: format, [needle])
                    let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader)
                    let want = try objects.filter { try compiled.evaluate($0.1) }.map(\.0)
                    let got = try await store.fetchIDs(query)
                    #expect(Set(got) == Set(want), "\(format) with \(needle.unicodeScalars.map { String($0.value, radix: 16) }): memory \(want.count), PostgreSQL \(got.count)\n\((try? store.sql(for: query).description) ?? "")")
                    compared += 1
                    if format.hasPrefix("name") { matched += want.count }
                }
            }
            #expect(compared == Self.needles.count * 2)
            // Not a vacuous comparison: the needles find text of many spellings.
            #expect(matched > 200)
        }
    }
}

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
                          "μ", "Μ", "µx", "\u{915}", "\u{300}", "\u{301}", "\u{64E}", "\u{316}", "ﾞ", "ι", "\u{AC00}", "\u{AC01}"]

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
                     "a\u{2FF}", "A\u{2FF}b", "a\u{300}", "A\u{300}b", "a\u{34F}x", "A\u{FFFD}", "a\u{10FFFF}", "A\r\n", "a\u{7F}",
                     // Leading marks out of canonical order: normalisation puts another first.
                     "\u{345}\u{301}", "\u{345}\u{301}b", "\u{651}\u{64E}x", "\u{301}\u{316}", "\u{345}ι", "\u{3099}x",
                     // A syllable and a final consonant's jamo: canonically the composed syllable.
                     "\u{AC00}\u{11A8}", "\u{AC01}", "\u{1100}\u{1161}\u{11A8}x"]
    }

    /// The three forms a one-letter needle takes by the indexes the store read (see
    /// `nativePrefix`): a scan's (`fold_c_like`), the fold index's (the fold alone), both
    /// indexes' (ranges in `COLLATE "C"` and the fold); each against memory's rows for every
    /// needle, and the forms told apart by their SQL.
    @Test func caseInsensitivePrefixesKeepEveryMatch() async throws {
        try await TestServer.withStore(model: Self.model) { store, schema in
            _ = try await store.createTables()
            try await store.installFunctions()
            var objects: [(Int64, PredicateValue)] = []
            for name in Self.names + [nil] as [String?] {
                let value: PredicateValue = name.map { .string($0) } ?? .null
                objects.append((try await store.insert("Person", ["name": value]), .dictionary(["name": value])))
            }
            let table = "\(quote(schema)).\"Person\""
            let states: [(name: String, index: String?, form: (String) -> Bool)] = [
                ("no index", nil, { $0.contains(".fold_c_like(") && $0.contains(#"COLLATE "C""#) }),
                ("the fold's index", #"CREATE INDEX person_fold_c ON \#(table) (\#(quote(schema)).fold_c("name") text_pattern_ops)"#,
                 { !$0.contains("fold_c_like") && !$0.contains(#"COLLATE "C""#) && $0.contains(".fold_c(") }),
                ("both indexes", #"CREATE INDEX person_name_c ON \#(table) ("name" COLLATE "C")"#,
                 { !$0.contains("fold_c_like") && $0.contains(#"COLLATE "C""#) && $0.contains(".fold_c(") }),
            ]
            var compared = 0, matched = 0
            for state in states {
                if let index = state.index { try await store.execute(index) }
                try await store.reloadIndexes()
                let one = try store.sql(for: EntityQuery("Person", where: "name BEGINSWITH[c] 'a'")).sql
                #expect(state.form(one), "\(state.name):\n\(one)")
                if state.index == nil {
                    // Still a call in the plan: PostgreSQL prices it at its cost, not the fold's.
                    let plan = try await store.explain(EntityQuery("Person", where: "name BEGINSWITH[c] 'a'")).joined(separator: "\n")
                    #expect(plan.contains("fold_c_like("), "\(plan)")
                }
                for needle in Self.needles {
                    // ==[c] beside: the fold both searches compare.
                    for format in ["name BEGINSWITH[c] %@", "NOT (name BEGINSWITH[c] %@)", "name ==[c] %@"] {
                        let query = try EntityQuery("Person", where: format, [needle])
                        let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader)
                        let want = try objects.filter { try compiled.evaluate($0.1) }.map(\.0)
                        let got = try await store.fetchIDs(query)
                        #expect(Set(got) == Set(want), "\(state.name): \(format) with \(needle.unicodeScalars.map { String($0.value, radix: 16) }): memory \(want.count), PostgreSQL \(got.count)\n\((try? store.sql(for: query).description) ?? "")")
                        compared += 1
                        if format.hasPrefix("name BEGINSWITH") { matched += want.count }
                    }
                }
            }
            #expect(compared == Self.needles.count * 3 * states.count)
            // Not a vacuous comparison: the needles find text of many spellings.
            #expect(matched > 600)
        }
    }

    /// What the store reads of the catalog: a B-tree in `COLLATE "C"` order and an index whose
    /// first key is the `[c]` fold count, per column; other collations, partial indexes, the
    /// other folds and a fold that is not the first key do not; the store's own schema changes
    /// read it again, an index made outside PQL is known after
    /// ``PostgresPredicateStore/reloadIndexes()``; functions without `fold_c_like` (an older
    /// PQL's) leave the indexes unknown, and the one-letter form needs only `fold_c` then.
    @Test func theStoreReadsWhichColumnsThePrefixIndexesServe() async throws {
        let model = try StoreModel([ModelEntity("Person", attributes: [ModelAttribute("name", .string), ModelAttribute("city", .string),
                                                                       ModelAttribute("nick", .string), ModelAttribute("note", .string)])])
        try await TestServer.withStore(model: model) { store, schema in
            _ = try await store.createTables()
            try await store.installFunctions()
            try await store.reloadIndexes()
            #expect(store.indexCatalog.current == PrefixIndexes(ordered: [], caseFolded: []))
            let s = quote(schema), table = "\(quote(schema)).\"Person\""
            for sql in [#"CREATE INDEX ON \#(table) ("name" COLLATE "C")"#,
                        #"CREATE INDEX ON \#(table) (\#(s).fold_c("name") text_pattern_ops)"#,
                        #"CREATE INDEX ON \#(table) (\#(s).fold_c("city"))"#,
                        #"CREATE INDEX ON \#(table) ("city")"#,
                        #"CREATE INDEX ON \#(table) ("nick" COLLATE "C") WHERE "nick" <> ''"#,
                        #"CREATE INDEX ON \#(table) (\#(s).fold_cd("note"))"#,
                        #"CREATE INDEX ON \#(table) (lower("note"))"#,
                        #"CREATE INDEX ON \#(table) (\#(s).fold_c("city"), "note")"#] {
                try await store.execute(sql)
            }
            // Not yet read: the store still knows the indexes of before.
            #expect(store.indexCatalog.current == PrefixIndexes(ordered: [], caseFolded: []))
            try await store.reloadIndexes()
            let column = { (name: String) in IndexedColumn(table: "Person", column: name) }
            let known = PrefixIndexes(ordered: [column("name")], caseFolded: [column("name"), column("city")])
            #expect(store.indexCatalog.current == known)
            // The store's own schema changes read the catalog again, and see what else changed.
            try await store.execute(#"CREATE INDEX ON \#(table) ("nick" COLLATE "C")"#)
            try await store.createIndexes()
            #expect(store.indexCatalog.current == PrefixIndexes(ordered: [column("name"), column("nick")], caseFolded: known.caseFolded))
            // An older PQL's functions, which a role that cannot install them reads with.
            try await store.execute("DROP FUNCTION \(s).fold_c_like(text, text)")
            try await store.reloadIndexes()
            #expect(store.indexCatalog.current == nil)
            let query = try EntityQuery("Person", where: "nick BEGINSWITH[c] 'a'")
            #expect(!(try store.sql(for: query).sql.contains("fold_c_like")))
            #expect(try await store.fetchIDs(query) == [])
        }
    }

    /// A schema whose name has capitals, spaces and quotes is read as that name (not parsed as
    /// SQL, which would fold the capitals or fail on the quotes).
    @Test func aSchemaNamedOddlyIsReadByItsName() async throws {
        let schema = "Odd \"Q\" Schema \(UUID().uuidString.prefix(8))"
        let model = try StoreModel([ModelEntity("Person", attributes: [ModelAttribute("name", .string)])])
        let admin = try await PostgresPredicateStore(url: try TestServer.url(), model: try StoreModel([]))
        try await admin.execute("CREATE SCHEMA \(quote(schema))")
        do {
            let store = try await PostgresPredicateStore(url: try TestServer.url(), model: model, schema: schema, functionSchema: schema)
            _ = try await store.createTables()
            try await store.installFunctions()
            let table = "\(quote(schema)).\"Person\""
            try await store.execute(#"CREATE INDEX ON \#(table) ("name" COLLATE "C")"#)
            try await store.execute(#"CREATE INDEX ON \#(table) (\#(quote(schema)).fold_c("name") text_pattern_ops)"#)
            try await store.reloadIndexes()
            let column = IndexedColumn(table: "Person", column: "name")
            #expect(store.indexCatalog.current == PrefixIndexes(ordered: [column], caseFolded: [column]))
            _ = try await store.insert("Person", ["name": .string("Ann")])
            #expect(try await store.fetchIDs(EntityQuery("Person", where: "name BEGINSWITH[c] 'a'")).count == 1)
            await store.close()
        } catch {
            try? await admin.execute("DROP SCHEMA \(quote(schema)) CASCADE")
            await admin.close()
            throw error
        }
        try await admin.execute("DROP SCHEMA \(quote(schema)) CASCADE")
        await admin.close()
    }
}

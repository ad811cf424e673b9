import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import PQLTestSupport
import Testing

/// The installed `pql.fold_*` functions fold as PQL does in memory (`StringFolding`), and
/// PostgreSQL's planner serves `[cd]` searches from indexes on them.
@Suite struct FoldFunctionTests {
    static let options: [(name: String, c: Bool, d: Bool)] = [("fold_c", true, false), ("fold_d", false, true), ("fold_cd", true, true)]

    /// Folds `strings` on the server with each function, and compares with PQL's fold.
    func compare(_ strings: [String], in store: PostgresPredicateStore, schema: String) async throws {
        for o in Self.options {
            for start in stride(from: 0, to: strings.count, by: 2000) {
                let batch = Array(strings[start..<min(start + 2000, strings.count)])
                var binds = PostgresBindings()
                binds.append(batch)
                let rows = try await store.rows("SELECT \(quote(schema)).\(o.name)(s) FROM unnest($1::text[]) WITH ORDINALITY AS t(s, i) ORDER BY i", binds)
                #expect(rows.count == batch.count)
                var mismatches: [String] = []
                for (s, row) in zip(batch, rows) {
                    let expected = StringFolding.fold(s, caseInsensitive: o.c, diacriticInsensitive: o.d)
                    let got = row[0] ?? "<NULL>"
                    if !got.unicodeScalars.elementsEqual(expected.unicodeScalars) {
                        mismatches.append("\(o.name)(\(s.unicodeScalars.map { String($0.value, radix: 16) })) = \(got.unicodeScalars.map { String($0.value, radix: 16) }), PQL: \(expected.unicodeScalars.map { String($0.value, radix: 16) })")
                    }
                }
                #expect(mismatches.isEmpty, "\(mismatches.count) differences, first: \(mismatches.prefix(5))")
            }
        }
    }

    @Test func foldsEveryScalarOfTheTableAsPQLDoes() async throws {
        try await TestServer.withStore { store, schema in
            #expect(try await store.installFunctions())
            // Every scalar of the ranges PQL's scalar fold table covers, and every scalar the
            // generated functions map, alone and between letters.
            var scalars: Set<UInt32> = []
            for range in [0x80...0x24F, 0x370...0x52F, 0x1E00...0x1EFF] as [ClosedRange<UInt32>] { scalars.formUnion(range) }
            for f in FoldFunctionSQL.functions {
                scalars.formUnion(f.single.map(\.from.value))
                scalars.formUnion(f.deleted.map(\.value))
                scalars.formUnion(f.multiple.map(\.from.value))
            }
            var strings: [String] = []
            for v in scalars.sorted() {
                guard let u = Unicode.Scalar(v) else { continue }
                strings.append(String(Character(u)))
                strings.append("A" + String(Character(u)) + "b")
            }
            try await compare(strings, in: store, schema: schema)
        }
    }

    /// Text of Latin-1 scalars takes `translate` instead of the loop (`FoldFunctionSQL.latin1`;
    /// for `[d]` and `[cd]` over PostgreSQL's NFD, `latin1Decomposed`), which is exact only if
    /// such text folds scalar by scalar: every pair says so.
    @Test func foldsLatin1TextAsPQLDoes() async throws {
        // The decomposed form was generated (not its fallback), with its short list.
        for name in ["fold_d", "fold_cd"] {
            let f = try #require(FoldFunctionSQL.functions.first { $0.name == name })
            let sql = try #require(FoldFunctionSQL.latin1Decomposed(f))
            #expect(sql.contains("normalize(t, NFD)") && sql.unicodeScalars.count < 120, "\(sql)")
        }
        #expect(FoldFunctionSQL.latin1Decomposed(try #require(FoldFunctionSQL.functions.first { $0.name == "fold_c" })) == nil)
        var strings: [String] = []
        for a in UInt32(0x20)...0xFF {
            for b in UInt32(0x20)...0xFF where a >= 0x80 || b >= 0x80 {
                strings.append(String(String.UnicodeScalarView([Unicode.Scalar(a)!, Unicode.Scalar(b)!])))
            }
        }
        strings += ["Ångström", "Straße", "ÆSIR", "µ", "ÞÓRÐUR", "François-Xavier", "ÿ\u{01}ß", "naïve café"]
        try await TestServer.withStore { store, schema in
            try await store.installFunctions()
            try await compare(strings, in: store, schema: schema)
        }
    }

    /// Text of extended Latin takes `FoldFunctionSQL.latinExtended` (NFD, a short `translate`):
    /// every scalar of its range beside every other kind of neighbour, and random names of it.
    @Test func foldsExtendedLatinTextAsPQLDoes() async throws {
        for f in FoldFunctionSQL.functions {
            let sql = try #require(FoldFunctionSQL.latinExtended(f), "\(f.name)")
            // Short lists for translate to search (all of Latin Extended-B made it 330 scalars).
            #expect(sql.unicodeScalars.count < 240, "\(sql)")
        }
        let range = FoldFunctionSQL.latinExtendedScalars.flatMap { $0 }.compactMap(Unicode.Scalar.init).filter { !$0.isASCII }
        // Each scalar after and before a letter, a Latin-1 letter and a scalar of the range
        // that decomposes (marks of neighbours must not meet).
        var strings: [String] = []
        let neighbours: [Unicode.Scalar] = ["a", "Z", "\u{C5}", "\u{E9}", "\u{1EAF}", "\u{141}", "\u{130}", "\u{1E9E}", "\u{DF}"]
        for u in range {
            for n in neighbours {
                strings.append(String(String.UnicodeScalarView([n, u])))
                strings.append(String(String.UnicodeScalarView([u, n, u])))
            }
        }
        var random = SeededSplitMix64(seed: 0x1A71_E87D)
        for _ in 0..<4000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...10, using: &random) {
                scalars.append(Bool.random(using: &random) ? Unicode.Scalar(UInt8.random(in: 0x41...0x7A, using: &random))
                                                          : range[Int.random(in: 0..<range.count, using: &random)])
            }
            strings.append(String(scalars))
        }
        strings += ["Łukasz", "Thắng", "Nguyệt", "İbrahim", "Şule", "Ştefan", "Țara", "Dvořák", "Ǚ", "ŉ", "ẞtraße", "ĲSSEL"]
        try await TestServer.withStore { store, schema in
            try await store.installFunctions()
            try await compare(strings, in: store, schema: schema)
        }
    }

    @Test func foldsRandomUnicodeTextAsPQLDoes() async throws {
        var random = SeededSplitMix64(seed: 0x5EED_F01D)
        // Scalars from the scripts and forms folding treats specially, with marks to combine.
        let pools: [ClosedRange<UInt32>] = [0x41...0x7A, 0xC0...0x24F, 0x300...0x36F, 0x370...0x3FF, 0x400...0x52F,
                                            0x1E00...0x1FFF, 0x3040...0x30FF, 0x3099...0x309A, 0xAC00...0xAC40,
                                            0x1100...0x1112, 0xFF01...0xFFEE, 0xFB00...0xFB06, 0x1F600...0x1F64F,
                                            0x4E00...0x4E40, 0x0590...0x05FF, 0x0900...0x097F, 0x20...0x40]
        var strings: [String] = []
        for _ in 0..<3000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let pool = pools[Int.random(in: 0..<pools.count, using: &random)]
                if let u = Unicode.Scalar(UInt32.random(in: pool, using: &random)), u.properties.generalCategory != .unassigned, u.value != 0 {
                    scalars.append(u)
                }
            }
            strings.append(String(scalars))
        }
        try await TestServer.withStore { store, schema in
            try await store.installFunctions()
            try await compare(strings, in: store, schema: schema)
        }
    }

    @Test func installsOncePerVersionAndIsImmutable() async throws {
        try await TestServer.withStore { store, schema in
            #expect(try await store.installFunctions())
            #expect(try await store.installFunctions() == false)
            let version = try await store.rows("SELECT \(quote(schema)).functions_version()")
            #expect(version == [[PostgresPredicateStore.functionsVersion]])
            let volatility = try await store.rows("""
                SELECT p.proname::text, p.provolatile::text, p.proparallel::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = '\(schema)' AND p.proname LIKE 'fold%' ORDER BY 1
                """)
            // Each fold is an expression PostgreSQL inlines (ASCII) and a function for the rest;
            // fold_c_like is the scan's BEGINSWITH[c].
            #expect(volatility == ["fold_c", "fold_c_like", "fold_c_slow", "fold_cd", "fold_cd_slow", "fold_d", "fold_d_slow"].map { [$0, "i", "s"] })
            // An older version is replaced, and an index over the fold rebuilt.
            try await store.execute("CREATE OR REPLACE FUNCTION \(quote(schema)).functions_version() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'old'::text $$")
            try await store.execute("CREATE TABLE \(quote(schema)).t (id bigint PRIMARY KEY, name text)")
            try await store.execute("CREATE INDEX t_fold ON \(quote(schema)).t (\(quote(schema)).fold_cd(name))")
            // The planner inlines fold_cd; the index's stored expression still names it, so the
            // reinstall finds the index and rebuilds it (a new file).
            let fileBefore = try await store.rows("SELECT pg_relation_filenode('\(quote(schema)).t_fold')::text")
            #expect(try await store.installFunctions())
            #expect(try await store.rows("SELECT \(quote(schema)).functions_version()") == [[PostgresPredicateStore.functionsVersion]])
            let fileAfter = try await store.rows("SELECT pg_relation_filenode('\(quote(schema)).t_fold')::text")
            #expect(fileBefore != fileAfter, "REINDEX gives the index a new file")
        }
    }

    @Test func expressionIndexesServeCaseAndDiacriticInsensitiveSearches() async throws {
        try await TestServer.withStore { store, schema in
            try await store.installFunctions()
            let s = quote(schema)
            try await store.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
            try await store.execute("CREATE TABLE \(s).city (id bigint PRIMARY KEY, name text NOT NULL)")
            try await store.execute("INSERT INTO \(s).city SELECT i, 'Zürich ' || i || ' Straße ' || md5(i::text) FROM generate_series(1, 20000) i")
            try await store.execute("CREATE INDEX city_name_cd ON \(s).city (\(s).fold_cd(name))")
            try await store.execute("CREATE INDEX city_name_cd_trgm ON \(s).city USING gin (\(s).fold_cd(name) public.gin_trgm_ops)")
            try await store.execute("ANALYZE \(s).city")
            let equal = try await store.rows("EXPLAIN SELECT id FROM \(s).city WHERE \(s).fold_cd(name) = \(s).fold_cd('ZURICH 77 strasse 28dd2c7955ce926456240b2ff0100bde')")
            let equalPlan = equal.compactMap { $0[0] }.joined(separator: "\n")
            print("EXPLAIN ==[cd]:\n\(equalPlan)")
            #expect(equalPlan.contains("Index Scan using city_name_cd on city") || equalPlan.contains("Bitmap Index Scan on city_name_cd\n") || equalPlan.hasSuffix("Bitmap Index Scan on city_name_cd"), "\(equalPlan)")
            let like = try await store.rows("EXPLAIN SELECT id FROM \(s).city WHERE \(s).fold_cd(name) LIKE '%' || \(s).fold_cd('STRASSE 28DD2C79') || '%'")
            let likePlan = like.compactMap { $0[0] }.joined(separator: "\n")
            print("EXPLAIN CONTAINS[cd]:\n\(likePlan)")
            #expect(likePlan.contains("Bitmap Index Scan on city_name_cd_trgm"), "\(likePlan)")
            // And they find the row.
            let found = try await store.rows("SELECT id::text FROM \(s).city WHERE \(s).fold_cd(name) LIKE '%' || \(s).fold_cd('STRASSE 28DD2C79') || '%'")
            #expect(found == [["77"]])
        }
    }
}

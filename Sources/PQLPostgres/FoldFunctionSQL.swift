import Foundation
import PQL

/// The SQL of PQL's `[c]`, `[d]` and `[cd]` fold functions for PostgreSQL, generated from PQL's
/// own folding (`StringFolding`, the code the in-memory evaluator runs), so the server folds as
/// memory does.
///
/// PQL's fold normalises the text (NFC for `[c]`, NFD for `[d]` and `[cd]`), maps each scalar on
/// its own (width, stroke letters, diacritic marks removed, full case mapping), and composes the
/// result (NFC). Each step but the mapping is one of PostgreSQL's own `normalize` calls; the
/// mapping is every scalar whose fold differs from itself, found by asking `StringFolding` about
/// each scalar that can occur in the normalised text, written into the function as a `jsonb`
/// object (scalar → fold, "" for a removed mark) that each character of the text is looked up
/// in (a binary search). ASCII text (octet length = character length) takes
/// `lower(… COLLATE "C")`, as PQL's ASCII fast path does, in an expression PostgreSQL inlines;
/// other text a PL/pgSQL loop (`inlinable`, `characterMap`).
///
/// Why not `translate()`: PostgreSQL's `translate` searches its `from` string linearly for each
/// character, and the map has over 2,000 scalars: 20 times slower than the lookup (0.65 ms
/// against 30 µs for a 57-character string with two non-ASCII letters, measured on PostgreSQL 15).
enum FoldFunctionSQL {
    /// One of the three functions.
    struct Function {
        var name: String
        var caseInsensitive: Bool
        var diacriticInsensitive: Bool
        /// Scalars mapped to one scalar.
        var single: [(from: Unicode.Scalar, to: Unicode.Scalar)] = []
        /// Scalars deleted (diacritic marks under `[d]`).
        var deleted: [Unicode.Scalar] = []
        /// Scalars mapped to more than one.
        var multiple: [(from: Unicode.Scalar, to: String)] = []
    }

    static let functions: [Function] = [
        mapping("fold_c", caseInsensitive: true, diacriticInsensitive: false),
        mapping("fold_d", caseInsensitive: false, diacriticInsensitive: true),
        mapping("fold_cd", caseInsensitive: true, diacriticInsensitive: true),
    ]

    /// The statements (after `CREATE SCHEMA`) that define the functions in `schema`.
    static func statements(schema: String) -> [String] {
        let s = quoteIdentifier(schema)
        return functions.map { f -> [String] in
            // The map as a JSON object literal: scalar → its fold ("" for a deleted mark).
            var entries: [String] = []
            for m in f.single { entries.append(jsonString(String(Character(m.from))) + ":" + jsonString(String(Character(m.to)))) }
            for u in f.deleted { entries.append(jsonString(String(Character(u))) + ":\"\"") }
            for m in f.multiple { entries.append(jsonString(String(Character(m.from))) + ":" + jsonString(m.to)) }
            let map = quoteLiteral("{" + entries.joined(separator: ",") + "}")
            let normalForm = f.diacriticInsensitive ? "NFD" : "NFC"
            let ascii = f.caseInsensitive ? #"lower(t COLLATE "C")"# : "t"
            let latin = (f.diacriticInsensitive ? latin1Decomposed(f) : nil) ?? latin1(f, ascii: ascii)
            return inlinable(f.name, schema: s, returns: "text", ascii: ascii, latin1: latin, latinExtended: latinExtended(f),
                             slow: characterMap(map, over: "normalize(t, \(normalForm))", result: "normalize(mapped, NFC)"))
        }.flatMap { $0 } + [foldLike("fold_c", schema: s)]
    }

    /// `name_like(t, pattern)`: `name(t) LIKE pattern` as a call PostgreSQL prices at its
    /// declared `COST 1`, where the inlined fold is priced as the sum of its branches, for
    /// the `BEGINSWITH[c]` of a scan, which folds few rows (`SQLFunction.caseFoldLike`).
    /// `STRICT` is what keeps it a call: PostgreSQL inlines a strict SQL function only when
    /// its body is strict too, and the fold's `CASE` is not. No index serves it.
    static func foldLike(_ name: String, schema s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).\(name)_like(t text, pattern text) RETURNS boolean
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 1 AS $pql$ SELECT \(s).\(name)(t) LIKE pattern $pql$
        """
    }

    /// `name(t)` as two functions: `name` itself is one SQL expression PostgreSQL inlines into
    /// the statement and into index expressions (no call per row for ASCII text, the common
    /// case), and only other text calls `name_slow`, whose body is `slow` in `language`. The
    /// outer function is not `STRICT`: PostgreSQL does not inline a strict function whose body
    /// is a `CASE` (its null input reaches the strict `name_slow`, which answers null).
    ///
    /// `latin1`, when given, is the result for text of scalars U+0001...U+00FF that is not
    /// ASCII (most accented names of Western Europe and the Americas), also inlined: without it
    /// such text calls `name_slow` too. `latinExtended`, likewise, for the other text of
    /// ``latinExtendedScalars`` (Central European, Turkish, Vietnamese).
    ///
    /// `name_slow` has `COST 1`: PostgreSQL prices a `CASE` as the sum of all its branches,
    /// and at the default 100 a call that runs for few rows (text beyond Latin) made every
    /// fold look like a hundred operators. `BEGINSWITH[c] 'a'` with indexes then looked three
    /// times its cost and was given a parallel plan whose `Gather` of 161,860 rows took longer
    /// than the serial scan (66 against 59 ms).
    static func inlinable(_ name: String, schema s: String, returns type: String, ascii: String,
                          latin1: String? = nil, latinExtended: String? = nil, slow: String, language: String = "plpgsql") -> [String] {
        // E'' so that the pattern's backslashes reach the regex engine whatever
        // standard_conforming_strings says.
        let latin1Branch = (latin1.map { #" WHEN t !~ E'[^\\x01-\\xff]' THEN "# + $0 } ?? "")
            + (latinExtended.map { " WHEN t !~ \(latinExtendedPattern) THEN " + $0 } ?? "")
        return [
            """
            CREATE OR REPLACE FUNCTION \(s).\(name)_slow(t text) RETURNS \(type)
            LANGUAGE \(language) IMMUTABLE STRICT PARALLEL SAFE COST 1 AS $pql$
            \(slow)
            $pql$
            """,
            """
            CREATE OR REPLACE FUNCTION \(s).\(name)(t text) RETURNS \(type)
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $pql$
            SELECT CASE WHEN octet_length(t) = char_length(t) THEN \(ascii)\(latin1Branch) ELSE \(s).\(name)_slow(t) END
            $pql$
            """,
        ]
    }

    /// The fold of `f` for text of Latin-1 scalars (U+0001...U+00FF) as `translate` and
    /// `replace` calls over the fold of its ASCII letters (`ascii`): each scalar's own fold,
    /// from `StringFolding`. Exact because such text folds scalar by scalar: it is already NFC,
    /// each scalar decomposes into at most a letter and one mark that the mapping keeps with
    /// it or deletes, and no fold result is a mark that could compose with its neighbour
    /// (checked here: any other case returns nil, and every such text takes `name_slow`;
    /// FoldFunctionTests compares every pair of these scalars with PQL's fold). 60 scalars
    /// through `translate` cost a fraction of the PL/pgSQL loop: a million names, 18% Latin-1,
    /// scan 800 ms → 440 ms.
    static func latin1(_ f: Function, ascii: String) -> String? {
        var folds: [(Unicode.Scalar, String)] = []
        for v in UInt32(0x80)...0xFF {
            let u = Unicode.Scalar(v)!
            let folded = StringFolding.fold(String(Character(u)), caseInsensitive: f.caseInsensitive,
                                            diacriticInsensitive: f.diacriticInsensitive)
            guard folded.unicodeScalars.count != 1 || folded.unicodeScalars.first != u else { continue }
            // A mark in a result could compose with what follows it.
            if folded.unicodeScalars.contains(where: isMark) { return nil }
            folds.append((u, folded))
        }
        return translation(of: folds, over: ascii)
    }

    /// Whether `u` is a mark that could compose with, or be reordered around, its neighbour.
    static func isMark(_ u: Unicode.Scalar) -> Bool {
        u.properties.canonicalCombiningClass != .notReordered || u.properties.generalCategory == .nonspacingMark
    }

    /// `base` with each scalar of `folds` (in that order) replaced by its fold: `replace` for
    /// folds of several scalars first, so that `translate` cannot change their results again,
    /// then one `translate` for the rest (an empty fold deletes the scalar). nil when a
    /// replacement holds a scalar the `translate` would change.
    static func translation(of folds: [(Unicode.Scalar, String)], over base: String) -> String? {
        var from = "", to = "", deleted = "", replaced: [(Character, String)] = []
        for (u, folded) in folds {
            switch folded.unicodeScalars.count {
            case 0: deleted.unicodeScalars.append(u)
            case 1: from.unicodeScalars.append(u); to += folded
            default: replaced.append((Character(u), folded))
            }
        }
        let translated = Set((from + deleted).unicodeScalars)
        if replaced.contains(where: { $0.1.unicodeScalars.contains(where: translated.contains) }) { return nil }
        var expression = base
        for (c, r) in replaced { expression = "replace(\(expression), \(quoteLiteral(String(c))), \(quoteLiteral(r)))" }
        if !(from + deleted).isEmpty {
            expression = "translate(\(expression), \(quoteLiteral(from + deleted)), \(quoteLiteral(to)))"
        }
        return expression
    }

    /// For `[d]` and `[cd]`, a cheaper form of ``latin1(_:ascii:)``: PostgreSQL's own NFD
    /// (`normalize`, in C) splits each accented letter into an ASCII letter and one of seven
    /// marks, so `translate` searches a list of about fifteen scalars (the marks, deleted, and
    /// the letters without a decomposition: æ, ø, ß, þ…) instead of sixty for each character.
    /// 182,202 Latin-1 names: 516 ms → 176 ms for the translation. See ``decomposed(_:over:)``.
    static func latin1Decomposed(_ f: Function) -> String? {
        f.diacriticInsensitive ? decomposed(f, over: [0x01...0xFF]) : nil
    }

    /// The scalars of the extended-Latin branch (``latinExtended``): Latin-1, Latin
    /// Extended-A, pinyin's vowels with tones and Romanian's Ș and Ț from Latin Extended-B,
    /// Latin Extended Additional (Vietnamese); and the pattern of a text holding anything else.
    /// The rest of Latin Extended-B (African and phonetic letters) would double the list
    /// `translate` searches for every character.
    static let latinExtendedScalars: [ClosedRange<UInt32>] = [0x01...0x17F, 0x1CD...0x1DC, 0x218...0x21B, 0x1E00...0x1EFF]
    static let latinExtendedPattern = #"E'[^\\x01-\\u017f\\u01cd-\\u01dc\\u0218-\\u021b\\u1e00-\\u1eff]'"#

    /// The fold of text of ``latinExtendedScalars`` (Polish, Czech, Turkish, Romanian,
    /// Vietnamese… names), which would otherwise take the PL/pgSQL loop (6 µs a name):
    /// ``decomposed(_:over:)`` over them. nil when some scalar of the range folds otherwise.
    static func latinExtended(_ f: Function) -> String? { decomposed(f, over: latinExtendedScalars) }

    /// The fold of text whose scalars lie in `ranges`, through PostgreSQL's NFD: the text
    /// decomposed (`normalize`, in C), its ASCII letters lowered (`[c]`), the other scalars of
    /// the decomposition mapped by `translate` and `replace` (the marks deleted under `[d]`),
    /// and under `[c]` alone composed again (NFC), as PQL's fold composes. The list `translate`
    /// searches for each character holds only the non-ASCII scalars of the decompositions
    /// that change. Exact because such text folds scalar by scalar: each scalar's
    /// decomposition begins with a letter that nothing before it composes with, and its marks
    /// follow it in canonical order; checked here for every scalar of `ranges` against
    /// `StringFolding` (nil if any differs), and pairwise on the server by FoldFunctionTests.
    static func decomposed(_ f: Function, over ranges: [ClosedRange<UInt32>]) -> String? {
        var map: [Unicode.Scalar: String] = [:]
        for m in f.single { map[m.from] = String(Character(m.to)) }
        for u in f.deleted { map[u] = "" }
        for m in f.multiple { map[m.from] = m.to }
        func foldOne(_ u: Unicode.Scalar) -> String {
            var s = String.UnicodeScalarView()
            if u.isASCII {
                s.append(f.caseInsensitive && u.properties.isUppercase ? Unicode.Scalar(u.value + 0x20)! : u)
                return String(s)
            }
            if let m = map[u] { return m }
            s.append(u)
            return String(s)
        }
        var seen: Set<Unicode.Scalar> = []
        var folds: [(Unicode.Scalar, String)] = []
        for range in ranges {
            for v in range {
                guard let u = Unicode.Scalar(v) else { continue }
                var one = String.UnicodeScalarView()
                one.append(u)
                let parts = String(one).decomposedStringWithCanonicalMapping.unicodeScalars
                var folded = parts.map(foldOne).joined()
                if !f.diacriticInsensitive { folded = folded.canonicallyComposed }
                // The scalar's fold through this path must be PQL's; under [d], with no mark
                // left that could compose with what follows.
                guard folded.unicodeScalars.elementsEqual(StringFolding.fold(String(one), caseInsensitive: f.caseInsensitive,
                                                                             diacriticInsensitive: f.diacriticInsensitive).unicodeScalars),
                      !f.diacriticInsensitive || !folded.unicodeScalars.contains(where: isMark)
                else { return nil }
                for p in parts where !p.isASCII && seen.insert(p).inserted {
                    let r = foldOne(p)
                    if !r.unicodeScalars.elementsEqual([p]) { folds.append((p, r)) }
                }
            }
        }
        let base = f.caseInsensitive ? #"lower(normalize(t, NFD) COLLATE "C")"# : "normalize(t, NFD)"
        guard let expression = translation(of: folds, over: base) else { return nil }
        return f.diacriticInsensitive ? expression : "normalize(\(expression), NFC)"
    }

    /// A PL/pgSQL body that maps each character of `input` (an expression of `t`) through the
    /// JSON object literal `map` (a character absent from it stays) into `mapped`, and returns
    /// `result`. A loop with the map a constant, planned once per session: 3-4 times faster than
    /// one SQL query with `unnest` and `string_agg` per call (a million names, 24% not ASCII:
    /// 1.2 s against 4.0 s).
    static func characterMap(_ map: String, over input: String, result: String) -> String {
        """
        DECLARE
            map CONSTANT jsonb := \(map)::jsonb;
            mapped text := '';
            c text;
        BEGIN
            FOREACH c IN ARRAY string_to_array(\(input), NULL) LOOP
                mapped := mapped || coalesce(map ->> c, c);
            END LOOP;
            RETURN \(result);
        END
        """
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// A short fingerprint of the generated SQL: installing functions of another fingerprint
    /// replaces the installed ones (and rebuilds the indexes on them).
    static let version: String = {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a: the same on every run and platform
        for b in statements(schema: "pql").joined(separator: "\n").utf8 {
            h = (h ^ UInt64(b)) &* 0x100_0000_01b3
        }
        return "1-" + String(h, radix: 16)
    }()

    private static func mapping(_ name: String, caseInsensitive c: Bool, diacriticInsensitive d: Bool) -> Function {
        var f = Function(name: name, caseInsensitive: c, diacriticInsensitive: d)
        let candidates = foldCandidates
        var i = 0
        while i < candidates.count {
            let u = candidates[i]
            i += 1
            let s = String(Character(u))
            // A scalar that normalisation replaces never reaches the mapping.
            let normal = d ? s.decomposedStringWithCanonicalMapping : s.canonicallyComposed
            guard normal.unicodeScalars.count == 1, normal.unicodeScalars.first == u else { continue }
            let folded = StringFolding.fold(s, caseInsensitive: c, diacriticInsensitive: d).unicodeScalars
            if folded.count == 1, folded.first == u { continue }
            switch folded.count {
            case 0: f.deleted.append(u)
            case 1: f.single.append((u, folded.first!))
            default: f.multiple.append((u, String(folded)))
            }
        }
        return f
    }

    /// The scalars ``mayFold(_:)`` keeps, found once for the three folds (see ``allScalars(where:)``).
    private static let foldCandidates = allScalars(where: mayFold)

    /// False for the scalars no step of the fold changes: no case mapping, no decomposition or
    /// compatibility form (NFKC_Casefold leaves them alone), not a mark, not a stroke letter
    /// (all below U+3000, which are all looked at). Saves folding ~250,000 CJK and other scalars.
    private static func mayFold(_ u: Unicode.Scalar) -> Bool {
        let p = u.properties
        switch p.generalCategory {
        case .unassigned, .privateUse, .surrogate: return false
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: break
        }
        return u.value < 0x3000 || p.changesWhenNFKCCaseFolded || p.changesWhenCaseMapped || p.isDiacritic
    }

    static func quoteLiteral(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
    static func quoteIdentifier(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

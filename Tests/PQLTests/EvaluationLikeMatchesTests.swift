import Foundation
import Testing
@testable import PQL

/// Reference §6.6 and decision D7: LIKE (`*`, `?`, backslash escapes, whole string) and MATCHES
/// (PCRE2, whole string, invalid patterns and runaway patterns are errors).
@Suite("Evaluation: LIKE and MATCHES (§6.6, D7)")
struct EvaluationLikeMatchesTests {
    static let cases: [EvalCase] = [
        // A.2 #1–#3
        EvalCase("SELF LIKE 'J*n'", "Jon", true),
        EvalCase("SELF LIKE 'J*n'", "Jn", true),
        EvalCase("SELF LIKE 'J*n'", "Jo", false),
        EvalCase("SELF LIKE 'A?C'", "ABC", true),
        EvalCase("SELF LIKE 'A?C'", "AC", false),
        EvalCase("SELF LIKE 'a\\\\*'", "a*", true),   // predicate text: 'a\\*'
        EvalCase("SELF LIKE 'a\\\\*'", "ab", false),
        // whole-string semantics
        EvalCase("SELF LIKE 'J*n'", "Jon!", false),
        EvalCase("SELF LIKE 'J*n'", "xJon", false),
        EvalCase("SELF LIKE 'J*n'", "Jonathan", true),
        EvalCase("SELF LIKE 'abc'", "abc", true),
        EvalCase("SELF LIKE 'abc'", "abcd", false),
        EvalCase("SELF LIKE 'abc'", "ABC", false),
        // * is any run including none; ? is exactly one character
        EvalCase("SELF LIKE '*'", "", true),
        EvalCase("SELF LIKE '*'", "anything at all", true),
        EvalCase("SELF LIKE '**'", "x", true),
        EvalCase("SELF LIKE '?'", "", false),
        EvalCase("SELF LIKE '?'", "é", true),
        EvalCase("SELF LIKE '?'", "e\u{301}", true),
        EvalCase("SELF LIKE '??'", "é", false),
        EvalCase("SELF LIKE '???'", "abc", true),
        EvalCase("SELF LIKE '?*'", "", false),
        EvalCase("SELF LIKE '*?'", "a", true),
        EvalCase("SELF LIKE 'a*b*c'", "aXXbYYc", true),
        EvalCase("SELF LIKE 'a*b*c'", "abc", true),
        EvalCase("SELF LIKE 'a*b*c'", "acb", false),
        EvalCase("SELF LIKE '*ab'", "aab", true),
        EvalCase("SELF LIKE '*ab*ab'", "xxabyyabzab", true),
        EvalCase("SELF LIKE '*a*a*a*a*a*b'", .string(String(repeating: "a", count: 60)), false),
        // an empty pattern matches nothing, not even the empty string
        EvalCase("SELF LIKE ''", "", false),
        EvalCase("SELF LIKE ''", "a", false),
        // regex metacharacters and SQL wildcards are literal
        EvalCase("SELF LIKE 'a.c'", "abc", false),
        EvalCase("SELF LIKE 'a.c'", "a.c", true),
        EvalCase("SELF LIKE '[ab]'", "a", false),
        EvalCase("SELF LIKE '[ab]'", "[ab]", true),
        EvalCase("SELF LIKE '%'", "%", true),
        EvalCase("SELF LIKE '%'", "xyz", false),
        EvalCase("SELF LIKE '_'", "_", true),
        EvalCase("SELF LIKE '_'", "x", false),
        EvalCase("SELF LIKE '(a|b)+$'", "(a|b)+$", true),
        EvalCase("SELF LIKE '^a'", "a", false),
        // escapes: \* \? \\ stand for themselves (given through %@ to skip the lexer)
        EvalCase("SELF LIKE %@", "a*", true, args: ["a\\*"]),
        EvalCase("SELF LIKE %@", "ab", false, args: ["a\\*"]),
        EvalCase("SELF LIKE %@", "a?", true, args: ["a\\?"]),
        EvalCase("SELF LIKE %@", "ab", false, args: ["a\\?"]),
        EvalCase("SELF LIKE %@", "a\\", true, args: ["a\\\\"]),
        EvalCase("SELF LIKE %@", "a\\b", true, args: ["a\\\\*"]),
        EvalCase("SELF LIKE %@", "a*b?c", true, args: ["*\\**\\?*"]),
        EvalCase("SELF LIKE %@", "ab", false, args: ["*\\**"]),
        EvalCase("SELF LIKE 'a\\\\?'", "a?", true),
        EvalCase("SELF LIKE 'a\\\\?'", "ab", false),
        // newlines are ordinary characters
        EvalCase("SELF LIKE 'a*b'", "a\nb", true),
        EvalCase("SELF LIKE 'a?b'", "a\nb", true),
        // options
        EvalCase("SELF LIKE[c] 'J*N'", "jon", true),
        EvalCase("SELF LIKE 'J*N'", "jon", false),
        EvalCase("SELF LIKE[d] 'cafe'", "café", true),
        EvalCase("SELF LIKE[d] 'café'", "cafe", true),
        EvalCase("SELF LIKE[cd] 'CAFE*'", "Café au lait", true),
        EvalCase("SELF LIKE[c] 'ss*'", "ßtraße", true),
        EvalCase("SELF LIKE[c] 'a?c'", "AＢC", true),
        EvalCase("SELF LIKE[d] 'L?dz'", "Łódź", true),
        EvalCase("SELF LIKE[n] 'abc'", "ABC", false),
        EvalCase("SELF LIKE[c] '*Σ'", "λόγος", true),
        // LIKE against a key path pattern, and non-strings
        EvalCase("name LIKE pattern", ["name": "Jon", "pattern": "J?n"], true),
        EvalCase("name LIKE pattern", ["name": "Jon", "pattern": nil], false),
        EvalCase("SELF LIKE 'a'", 1, throws: .typeMismatch),
        EvalCase("SELF LIKE 5", "5", throws: .typeMismatch),

        // A.2 #4, #5: MATCHES covers the whole string
        EvalCase("SELF MATCHES 'ab'", "abc", false),
        EvalCase("SELF MATCHES 'a|ab'", "ab", true),
        EvalCase("SELF MATCHES 'ab|a'", "a", true),
        EvalCase("SELF MATCHES 'ab'", "ab", true),
        EvalCase("SELF MATCHES 'b'", "abc", false),
        EvalCase("SELF MATCHES '.*b.*'", "abc", true),
        EvalCase("SELF MATCHES 'a.c'", "abc", true),
        EvalCase("SELF MATCHES '\\\\d+'", "123", true),   // predicate text: '\\d+'
        EvalCase("SELF MATCHES '\\\\d+'", "12a", false),
        EvalCase("SELF MATCHES %@", "2024-05-01", true, args: ["\\d{4}-\\d{2}-\\d{2}"]),
        EvalCase("SELF MATCHES %@", "2024-5-1", false, args: ["\\d{4}-\\d{2}-\\d{2}"]),
        EvalCase("SELF MATCHES '[A-Z][a-z]+'", "Hello", true),
        EvalCase("SELF MATCHES '[A-Z][a-z]+'", "hello", false),
        EvalCase("SELF MATCHES '(?i)hello'", "HeLLo", true),
        EvalCase("SELF MATCHES 'a{2,3}'", "aaaa", false),
        EvalCase("SELF MATCHES 'a{2,3}'", "aaa", true),
        EvalCase("SELF MATCHES '.*'", "", true),
        EvalCase("SELF MATCHES 'x?'", "", true),
        // an empty pattern is false, even for an empty subject
        EvalCase("SELF MATCHES ''", "", false),
        EvalCase("SELF MATCHES ''", "a", false),
        // dot matches newlines (DOTALL)
        EvalCase("SELF MATCHES 'a.b'", "a\nb", true),
        EvalCase("SELF MATCHES 'a.*'", "a\n\nb", true),
        // UTF and UCP modes: characters, not bytes
        EvalCase("SELF MATCHES '.'", "é", true),
        EvalCase("SELF MATCHES '...'", "日本語", true),
        EvalCase("SELF MATCHES '\\\\w+'", "Ünïcödé", true),
        EvalCase("SELF MATCHES '\\\\p{Greek}+'", "λόγος", true),
        EvalCase("SELF MATCHES '.'", "\u{1F600}", true),
        // options: [c] caseless, [d] folds subject and literal pattern text
        EvalCase("SELF MATCHES[c] 'ABC'", "abc", true),
        EvalCase("SELF MATCHES 'ABC'", "abc", false),
        EvalCase("SELF MATCHES[c] 'é+'", "ÉÉé", true),
        EvalCase("SELF MATCHES[d] 'cafe'", "café", true),
        EvalCase("SELF MATCHES[d] 'café'", "cafe", true),
        EvalCase("SELF MATCHES 'cafe'", "café", false),
        EvalCase("SELF MATCHES[cd] 'CAF.'", "café", true),
        EvalCase("SELF MATCHES[d] 'L.dz'", "Łódź", true),
        EvalCase("SELF MATCHES[n] 'abc'", "ABC", false),
        // [c] and [d] make canonically equivalent text match; [c] is width-insensitive
        EvalCase("SELF MATCHES[c] 'é'", "E\u{301}", true),
        EvalCase("SELF MATCHES[c] 'e\u{301}'", "É", true),
        EvalCase("SELF MATCHES[d] 'e'", "e\u{301}", true),
        EvalCase("SELF MATCHES[c] 'abc'", "ＡＢＣ", true),
        EvalCase("SELF MATCHES[c] 'ＡＢＣ'", "abc", true),
        // invalid patterns are errors, whatever the subject
        EvalCase("SELF MATCHES '('", "(", throws: .invalidRegex),
        EvalCase("SELF MATCHES '['", "a", throws: .invalidRegex),
        EvalCase("SELF MATCHES 'a{2,1}'", "aa", throws: .invalidRegex),
        EvalCase("SELF MATCHES '(?<'", "a", throws: .invalidRegex),
        EvalCase("SELF MATCHES %@", "a", throws: .invalidRegex, args: ["*a"]),
        EvalCase("SELF MATCHES $P", "a", throws: .invalidRegex, vars: ["P": "(a"]),
        EvalCase("s MATCHES p", ["s": "a", "p": "a)"], throws: .invalidRegex),
        EvalCase("s MATCHES p", ["s": "a", "p": "a+"], true),
        // a runaway pattern hits the match limit and is an error, not a hang
        EvalCase("SELF MATCHES '(a+)+$'", .string(String(repeating: "a", count: 40) + "!"), throws: .regexLimit),
        EvalCase("SELF MATCHES '(a|aa)+$'", .string(String(repeating: "a", count: 60) + "!"), throws: .regexLimit),
        // PCRE2 rejects at once a subject without the pattern's required last character
        EvalCase("SELF MATCHES '(a|aa)+b'", .string(String(repeating: "a", count: 60)), false),
        EvalCase("SELF MATCHES '(a+)+$'", .string(String(repeating: "a", count: 40)), true),
        // non-strings
        EvalCase("SELF MATCHES '5'", 5, throws: .typeMismatch),
        EvalCase("SELF MATCHES 5", "5", throws: .typeMismatch),
    ]

    @Test("LIKE and MATCHES", arguments: cases)
    func likeAndMatches(_ c: EvalCase) { check(c) }

    @Test("an invalid pattern reports PCRE2's message and offset")
    func invalidPatternMessage() throws {
        let e = evaluationError { try PredicateNode(format: "SELF MATCHES %@", "ab(").evaluate(on: "x") }
        #expect(e?.kind == .invalidRegex)
        #expect(e?.message.contains("ab(") == true)
        #expect(e?.message.contains("offset 3") == true)
    }

    @Test("a runaway pattern is stopped with a hint, and the same predicate still works on other values")
    func runawayIsRecoverable() throws {
        let p = try PredicateNode(format: "SELF MATCHES '(a+)+$'").compiled(for: String.self)
        let e = evaluationError { try p.evaluate(String(repeating: "a", count: 40) + "!") }
        #expect(e?.kind == .regexLimit)
        #expect(e?.hint?.contains("(a+)+") == true)
        #expect(try p.evaluate("aaa"))
        #expect(try !p.evaluate("b"))
    }

    @Test("one MATCHES predicate filters many values")
    func regexFilter() throws {
        let values = ["a1", "b22", "c", "", "d333", "e\n4"]
        let p = try PredicateNode(format: "SELF MATCHES '[a-z]\\\\d+'")
        #expect(try values.indices(matching: p.compiled(for: String.self)) == [0, 1, 4])
        let q = try PredicateNode(format: "SELF LIKE '?*'")
        #expect(try values.filter(q) == ["a1", "b22", "c", "d333", "e\n4"])
    }

    /// Patterns that are canonically equivalent but differ in code points are different
    /// regular expressions: the pattern cache must not hand one the other's compiled form
    /// (it once keyed by `String`, whose equality is canonical equivalence).
    @Test func canonicallyEquivalentPatternsAreNotShared() throws {
        let p = try PredicateNode(format: "SELF MATCHES $pattern")
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        for _ in 0..<2 {
            #expect(try p.evaluate(on: PredicateValue.string(composed), variables: ["pattern": .string(composed)]))
            #expect(try !p.evaluate(on: PredicateValue.string(composed), variables: ["pattern": .string(decomposed)]))
            #expect(try p.evaluate(on: PredicateValue.string(decomposed), variables: ["pattern": .string(decomposed)]))
            #expect(try !p.evaluate(on: PredicateValue.string(decomposed), variables: ["pattern": .string(composed)]))
        }
    }
}

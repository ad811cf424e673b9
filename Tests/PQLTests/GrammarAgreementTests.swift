import Foundation
import PQLTestSupport
import Testing
import PQL

/// The grammar file and the parser agree: `grammar/predicate.ebnf` is read at test time, checked
/// for consistency, and random sentences generated from it must parse, print, and reparse to the
/// same tree with the same text.
///
/// Seeds are fixed so runs are deterministic; set `PQL_GRAMMAR_SEED` (decimal or 0x-hex) to try
/// others. Every failure names its seed, case number, sentence and arguments.
@Suite("Grammar agreement")
struct GrammarAgreementTests {
    static let defaultSeed: UInt64 = 0x9E11_A5ED_2024_0001
    static var seed: UInt64 { SeededSplitMix64.seed(fromEnvironment: "PQL_GRAMMAR_SEED", default: defaultSeed) }

    static let predicateSentenceCount = 2_500
    static let expressionSentenceCount = 600
    static let brokenSentenceCount = 1_200

    // MARK: - The EBNF reader itself

    @Test func readerParsesEveryNotation() throws {
        let text = #"""
        (* header (* nested *) still a comment *)
        start = "A" , [ 'b' ] , { x | ( "\" , '"' ) } ;   (* after start *)
        x = "x" ;
        (* @lexical: below *)
        y = "y" , x ;
        """#
        let g = try EBNFGrammar(text: text)
        #expect(g.ruleNames == ["start", "x", "y"])
        #expect(g.rule("start")?.body == .sequence([
            .terminal("A"),
            .optional(.terminal("b")),
            .repetition(.choice([.reference("x"), .group(.sequence([.terminal("\\"), .terminal("\"")]))])),
        ]))
        #expect(g.rule("start")?.isLexical == false)
        #expect(g.rule("x")?.isLexical == false)
        #expect(g.rule("y")?.isLexical == true)
        #expect(g.rule("start")?.comments == [" after start "])
        #expect(g.comments.first == " header (* nested *) still a comment ")
        #expect(g.undefinedReferences.isEmpty)
        #expect(g.unusedRules(from: ["start"]) == ["y"])
        #expect(g.terminals(reachableFrom: ["start"]) == ["A", "b", "x", "\\", "\""])
    }

    @Test func readerReportsProblems() throws {
        #expect(throws: EBNFGrammar.SyntaxError.self) { try EBNFGrammar(text: "a = \"x\" - \"y\" ;") }
        #expect(throws: EBNFGrammar.SyntaxError.self) { try EBNFGrammar(text: "a = \"x\" ") }
        #expect(throws: EBNFGrammar.SyntaxError.self) { try EBNFGrammar(text: "a = ( \"x\" ;") }
        #expect(throws: EBNFGrammar.SyntaxError.self) { try EBNFGrammar(text: "(* open (* nested *) a = \"x\" ;") }
        let g = try EBNFGrammar(text: "a = b , c ; c = \"1\" ; c = \"2\" ;")
        #expect(g.undefinedReferences.map(\.missing) == ["b"])
        #expect(g.duplicateDefinitions == ["c"])
    }

    // MARK: - The grammar file

    @Test func grammarFileIsConsistent() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        #expect(g.duplicateDefinitions.isEmpty, "rules defined twice: \(g.duplicateDefinitions)")
        let undefined = g.undefinedReferences.map { "\($0.rule) → \($0.missing)" }
        #expect(undefined.isEmpty, "references to undefined rules: \(undefined)")
        #expect(g.rule("predicate-format") != nil && g.rule("expression-format") != nil)
        // expression-format is the other entry point; everything else hangs off predicate-format.
        let unused = g.unusedRules(from: ["predicate-format"]).filter { $0 != "expression-format" }
        #expect(unused.isEmpty, "rules not reachable from predicate-format: \(unused)")
        #expect(g.reachable(from: ["predicate-format"]).isSuperset(of: g.rule("expression-format")!.body.references))
        // The @lexical marker splits the file: the predicate rules are syntactic, tokens lexical.
        for name in ["predicate", "comparison", "expression", "primary", "cast"] {
            #expect(g.rule(name)?.isLexical == false, "\(name) should be syntactic")
        }
        for name in ["identifier", "string", "number", "format-specifier", "key-component", "variable"] {
            #expect(g.rule(name)?.isLexical == true, "\(name) should be lexical")
        }
        // Every rule can finish, and the generator's special cases name real rules.
        let generator = GrammarSentenceGenerator(grammar: g, seed: 0)
        let endless = g.ruleNames.filter { generator.minimumDepth(of: $0) >= GrammarSentenceGenerator.infinity }
        #expect(endless.isEmpty, "rules with no finite sentence: \(endless)")
        let missingHooks = GrammarSentenceGenerator.hookedRules.subtracting(g.ruleNames)
        #expect(missingHooks.isEmpty, "the generator special-cases rules the grammar no longer has: \(missingHooks)")
    }

    /// The reserved-word list in the grammar's comment is the parser's: each word is not a key
    /// as written (in any case), and `#word` is; after `$`, `#` or `@` it is a name.
    @Test func reservedWordsMatchTheParser() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        let words = g.reservedWords
        #expect(words.count >= 30, "the Reserved: list after `identifier` was not found: \(words)")
        #expect(words.isSuperset(of: ["AND", "OR", "SIZE", "UTI-CONFORMS-TO", "FETCH", "CI"]))
        var problems: [String] = []
        for word in words.sorted() {
            for spelling in [word, word.lowercased()] {
                let asKey = PredicateNode.comparison(ComparisonNode(.keyPath(["x", spelling]), .equal, .constant(1)))
                if let p = try? PredicateNode(format: "x.\(spelling) == 1"), p == asKey {
                    problems.append("x.\(spelling) == 1 reads \(spelling) as a key")
                }
                if let p = try? PredicateNode(format: "\(spelling) == 1"),
                   p == .comparison(ComparisonNode(.keyPath([spelling]), .equal, .constant(1))) {
                    problems.append("\(spelling) == 1 reads \(spelling) as a key")
                }
                // After "$", "#" or "@" a reserved word is a name (the grammar's comment).
                if !spelling.contains("-") {
                    let variable = PredicateNode.comparison(ComparisonNode(.variable(spelling), .equal, .constant(1)))
                    for text in ["$\(spelling) == 1", "$#\(spelling) == 1"] where (try? PredicateNode(format: text)) != variable {
                        problems.append("\(text) is not the variable \(spelling)")
                    }
                    let collectionOperator = PredicateNode.comparison(ComparisonNode(.keyPath(["x", "@" + spelling]), .equal, .constant(1)))
                    if (try? PredicateNode(format: "x.@\(spelling) == 1")) != collectionOperator {
                        problems.append("x.@\(spelling) == 1 is not the key path x.@\(spelling)")
                    }
                }
                let escaped = spelling.contains("-") ? "#\"\(spelling)\"" : "#\(spelling)"
                do {
                    let p = try PredicateNode(format: "x.\(escaped) == 1")
                    if p != asKey { problems.append("x.\(escaped) == 1 parsed as \(p)") }
                } catch {
                    problems.append("x.\(escaped) == 1 was rejected: \(error.message)")
                }
            }
        }
        // Contextual keywords stay usable as keys (grammar: "keywords only in this position").
        for word in ["FUNCTION", "TERNARY", "UNION", "INTERSECT", "MINUS", "function", "union"] {
            do {
                let p = try PredicateNode(format: "\(word) == 1")
                if p != .comparison(ComparisonNode(.keyPath([word]), .equal, .constant(1))) {
                    problems.append("\(word) == 1 parsed as \(p)")
                }
            } catch {
                problems.append("\(word) == 1 was rejected: \(error.message)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    // MARK: - Random sentences

    @Test func randomPredicateSentencesParseAndRoundTrip() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        let seed = Self.seed
        var failures = RandomTestFailureLog(title: "predicate sentences", seed: seed)
        var nonTrivial = 0
        var generator = GrammarSentenceGenerator(grammar: g, seed: seed)
        for i in 0..<Self.predicateSentenceCount {
            generator.reseed(SeededSplitMix64.caseSeed(seed, i))
            let s = generator.sentence(from: "predicate-format")
            if s.tokens.count > 3 { nonTrivial += 1 }
            if let problem = Self.checkPredicate(s.text, arguments: s.arguments) {
                failures.record(case: i, cause: problem.cause, "\(problem.message)\n  sentence:  \(s.text)\n  arguments: \(s.argumentsDescription)")
            }
        }
        failures.report()
        #expect(nonTrivial > Self.predicateSentenceCount / 2, "most sentences should be more than a keyword or two")
    }

    @Test func randomExpressionSentencesParseAndRoundTrip() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        let seed = Self.seed &+ 1
        var failures = RandomTestFailureLog(title: "expression sentences", seed: seed)
        var generator = GrammarSentenceGenerator(grammar: g, seed: seed)
        for i in 0..<Self.expressionSentenceCount {
            generator.reseed(SeededSplitMix64.caseSeed(seed, i))
            let s = generator.sentence(from: "expression-format")
            if let problem = Self.checkExpression(s.text, arguments: s.arguments) {
                failures.record(case: i, cause: problem.cause, "\(problem.message)\n  sentence:  \(s.text)\n  arguments: \(s.argumentsDescription)")
            }
        }
        failures.report()
    }

    /// The generator reaches every rule and every terminal of the grammar, so the sentence
    /// tests above really test the whole grammar.
    @Test func sentencesCoverTheWholeGrammar() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        let seed = Self.seed
        // The same sentences, in the same order, as randomPredicateSentencesParseAndRoundTrip.
        var generator = GrammarSentenceGenerator(grammar: g, seed: seed)
        for i in 0..<Self.predicateSentenceCount {
            generator.reseed(SeededSplitMix64.caseSeed(seed, i))
            _ = generator.sentence(from: "predicate-format")
        }
        let covered = generator.coverage
        let rules = g.reachable(from: ["predicate-format"]).filter { !covered.contains("rule:" + $0) }
        #expect(rules.isEmpty, "rules never generated (seed \(seed)): \(rules.sorted())")
        let terminals = g.terminals(reachableFrom: ["predicate-format"]).filter { !covered.contains("terminal:" + $0) }
        #expect(terminals.isEmpty, "terminals never generated (seed \(seed)): \(terminals.sorted())")
    }

    /// Sentences with a token deleted or a stray `)` inserted either fail with a
    /// ``PredicateFormatError`` that points into the text, or parse to a tree that round-trips.
    /// A crash fails the whole run.
    @Test func brokenSentencesFailCleanly() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        let seed = Self.seed &+ 2
        var failures = RandomTestFailureLog(title: "broken sentences", seed: seed)
        var rejected = 0
        var generator = GrammarSentenceGenerator(grammar: g, seed: seed)
        for i in 0..<Self.brokenSentenceCount {
            generator.reseed(SeededSplitMix64.caseSeed(seed, i))
            let start = i % 4 == 3 ? "expression-format" : "predicate-format"
            let s = generator.sentence(from: start).broken(using: &generator.rng)
            let text = s.text
            do {
                if start == "predicate-format" {
                    _ = try PredicateNode(format: text, argumentArray: s.arguments)
                    if let problem = Self.checkPredicate(text, arguments: s.arguments) {
                        failures.record(case: i, cause: problem.cause, "\(problem.message)\n  sentence:  \(text)\n  arguments: \(s.argumentsDescription)")
                    }
                } else {
                    _ = try ExpressionNode(format: text, argumentArray: s.arguments)
                    if let problem = Self.checkExpression(text, arguments: s.arguments) {
                        failures.record(case: i, cause: problem.cause, "\(problem.message)\n  sentence:  \(text)\n  arguments: \(s.argumentsDescription)")
                    }
                }
            } catch {
                rejected += 1
                let length = text.utf8.count
                if error.range.offset < 0 || error.range.offset > length || error.range.offset + error.range.length > length
                    || error.message.isEmpty || !error.rendered.hasPrefix("error: ") {
                    failures.record(case: i, cause: "parser: malformed error", "malformed error \(error.kind) at \(error.range.offset)+\(error.range.length): \(error.message)\n  sentence:  \(text)")
                }
            }
        }
        failures.report()
        #expect(rejected > Self.brokenSentenceCount / 2, "most broken sentences should be rejected, only \(rejected) were")
    }

    // MARK: - Checks

    /// What went wrong with one sentence: a cause to group by and the details.
    typealias Problem = RoundTripFailureCauses.Problem

    /// Nil if `text` parses as a predicate, prints, reparses to an equal tree and prints the same
    /// again; else what went wrong.
    static func checkPredicate(_ text: String, arguments: [Any?]) -> Problem? {
        check(text, arguments: arguments, as: PredicateNode.self)
    }

    static func checkExpression(_ text: String, arguments: [Any?]) -> Problem? {
        check(text, arguments: arguments, as: ExpressionNode.self)
    }

    static func check<T: RoundTripTree>(_ text: String, arguments: [Any?], as type: T.Type) -> Problem? {
        let tree: T
        do { tree = try T(format: text, argumentArray: arguments) } catch {
            return ("parser: grammatical sentence rejected (\(error.kind))", "rejected: \(error.message) at byte \(error.range.offset)")
        }
        return RoundTripFailureCauses.roundTrip(tree)
    }

}

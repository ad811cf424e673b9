import Foundation
import PQLTestSupport
import PQL

/// Random sentences of an ``EBNFGrammar``, with the format arguments their `%` specifiers need.
///
/// Syntactic rules put one space between tokens; lexical rules (after the grammar's `@lexical`
/// marker) produce one token with nothing inside. Depth is bounded: past a per-sentence soft
/// depth or token budget every choice takes its shortest alternative and every `{ }` and `[ ]`
/// is left empty, and no choice is ever taken that cannot finish within the hard depth.
///
/// What the grammar's comments (not its rules) say is rejected is avoided here, each in one
/// place, `accept(rule:text:)`: keys that spell reserved words get a `#` or are regenerated,
/// hexadecimal/octal/binary numbers that do not fit in 64 bits are regenerated, `\u` escapes of
/// surrogates come in high/low pairs, `%p` is regenerated and every other specifier gets an
/// argument of the type it needs. Upper-case keyword terminals are written in random case
/// (keywords are case-insensitive, decision D4).
///
/// One generator makes a whole run: ``reseed(_:)`` starts each sentence from its own seed, and
/// the generator remembers how often it took each alternative so that it sometimes takes the
/// least used one; a run with a fixed seed is therefore deterministic and covers the grammar.
///
/// ```swift
/// var g = GrammarSentenceGenerator(grammar: try EBNFGrammar.loadPredicateGrammar(), seed: 1)
/// let s = g.sentence(from: "predicate-format")
/// _ = try PredicateNode(format: s.text, argumentArray: s.arguments)
/// ```
struct GrammarSentenceGenerator {
    struct Sentence {
        var tokens: [String]
        var arguments: [Any?]
        var text: String { tokens.joined(separator: " ") }
        var argumentsDescription: String {
            arguments.isEmpty ? "[]" : "[" + arguments.map { $0.map { String(reflecting: $0) } ?? "nil" }.joined(separator: ", ") + "]"
        }
    }

    /// The rules `accept(rule:text:)` knows; the test checks they all exist in the grammar.
    static let hookedRules: Set<String> = ["key-component", "hex-number", "octal-number", "binary-number", "escape",
                                           "format-specifier"]

    let grammar: EBNFGrammar
    let reservedWords: Set<String>
    private let compiled: CompiledGrammar
    var rng: SeededSplitMix64

    // Per sentence.
    private var tokens: [String] = []
    private var arguments: [Any?] = []
    private var softDepth = 0
    private var hardDepth = 0
    private var tokenBudget = 0
    /// Rules and terminals used, in order; truncated when a lexeme is regenerated.
    private var coverageLog: [String] = []
    /// The syntactic rule being expanded, to weigh its self-recursive alternatives.
    private var currentRule = ""

    /// Every rule name (as "rule:name") and terminal (as "terminal:text") used so far.
    private(set) var coverage: Set<String> = []

    static let infinity = CompiledGrammar.infinity

    init(grammar: EBNFGrammar, seed: UInt64) {
        self.grammar = grammar
        self.reservedWords = grammar.reservedWords
        self.rng = SeededSplitMix64(seed: seed)
        self.compiled = CompiledGrammar(grammar)
    }

    /// Starts the next sentence from `seed`. The generator keeps how often it took each
    /// alternative, and sometimes takes the least used one, so a run covers the grammar.
    mutating func reseed(_ seed: UInt64) { rng = SeededSplitMix64(seed: seed) }

    /// The least depth a rule needs; `infinity` when it cannot finish or is undefined.
    func minimumDepth(of rule: String) -> Int { compiled.rules[rule]?.minDepth ?? Self.infinity }

    // MARK: - Sentences

    /// One random sentence of `start`.
    mutating func sentence(from start: String) -> Sentence {
        tokens = []
        arguments = []
        coverageLog = []
        softDepth = rng.int(in: 14...46)
        hardDepth = max(softDepth + 30, minimumDepth(of: start) + 1)
        tokenBudget = rng.chance(0.15) ? rng.int(in: 1...6) : rng.int(in: 6...70)
        expandSyntactic(compiled.rules[start]!, depth: 0)
        coverage.formUnion(coverageLog)
        return Sentence(tokens: tokens, arguments: arguments)
    }

    private var isDeepByTokens: Bool { tokens.count >= tokenBudget }

    private mutating func expandSyntactic(_ r: CompiledGrammar.Rule, depth: Int) {
        coverageLog.append("rule:" + r.name)
        let outer = currentRule
        currentRule = r.name
        var unused = ""
        emit(r.body!, depth: depth, lexical: false, into: &unused)
        currentRule = outer
    }

    /// One token of a lexical rule, regenerated until `accept` takes it.
    private mutating func lexeme(_ r: CompiledGrammar.Rule, depth: Int) -> String {
        let mark = coverageLog.count
        for _ in 0..<500 {
            coverageLog.removeSubrange(mark...)
            coverageLog.append("rule:" + r.name)
            var text = ""
            emit(r.body!, depth: depth, lexical: true, into: &text)
            if let accepted = accept(rule: r.name, text: text) { return accepted }
        }
        preconditionFailure("could not generate an acceptable \(r.name)")
    }

    private mutating func emit(_ node: CompiledGrammar.Node, depth: Int, lexical: Bool, into text: inout String) {
        switch node.kind {
        case .terminal(let t):
            coverageLog.append("terminal:" + t)
            if lexical { text += t } else { tokens.append(recase(t)) }
        case .reference(let link):
            let r = link.rule
            if lexical {
                text += lexeme(r, depth: depth + 1)
            } else if r.isLexical {
                tokens.append(lexeme(r, depth: depth + 1))
            } else {
                expandSyntactic(r, depth: depth + 1)
            }
        case .sequence(let items):
            for item in items { emit(item, depth: depth, lexical: lexical, into: &text) }
        case .choice(let items):
            let room = hardDepth - depth
            let allowed = items.indices.filter { items[$0].minDepth <= room }
            precondition(!allowed.isEmpty, "no alternative fits at depth \(depth)")
            let chosen: Int
            let deep = !lexical && (depth >= softDepth || isDeepByTokens)
            if deep {
                let best = allowed.map { items[$0].minSize }.min()!
                chosen = rng.pick(allowed.filter { items[$0].minSize == best })
            } else if rng.chance(lexical ? 0.15 : 0.3) {
                // The least used alternative, so rare corners are reached in every run.
                let fewest = allowed.map { node.uses[$0] }.min()!
                chosen = rng.pick(allowed.filter { node.uses[$0] == fewest })
            } else if lexical {
                chosen = rng.pick(allowed)
            } else {
                // Alternatives that go on to other rules are likelier than bare keywords, except
                // those that recurse into the same rule (`"-" , unary`, `"NOT" , not-predicate`).
                let weights = allowed.map { i -> Int in
                    let refs = items[i].references
                    return refs.isEmpty || refs.contains(currentRule) ? 1 : 3
                }
                chosen = allowed[rng.weightedIndex(weights)]
            }
            node.uses[chosen] += 1
            emit(items[chosen], depth: depth, lexical: lexical, into: &text)
        case .optional(let inner):
            guard inner.minDepth <= hardDepth - depth else { return }
            let take = lexical ? rng.chance(0.5) : (depth < softDepth && !isDeepByTokens && rng.chance(0.4))
            if take { emit(inner, depth: depth, lexical: lexical, into: &text) }
        case .repetition(let inner):
            guard inner.minDepth <= hardDepth - depth else { return }
            let count: Int
            if lexical {
                count = rng.chance(0.2) ? 0 : (rng.chance(0.05) ? rng.int(in: 8...24) : rng.int(in: 1...5))
            } else if depth >= softDepth || isDeepByTokens {
                count = 0
            } else {
                var n = 0
                while n < 4 && rng.chance(0.3) { n += 1 }
                count = n
            }
            for _ in 0..<count { emit(inner, depth: depth, lexical: lexical, into: &text) }
        }
    }

    /// Upper-case keyword terminals (`AND`, `UTI-EQUALS`) in random case, sometimes.
    private mutating func recase(_ t: String) -> String {
        guard t.count >= 2, t.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || $0 == "-" }),
              rng.chance(0.25) else { return t }
        return String(t.map { rng.chance(0.5) ? Character($0.lowercased()) : $0 })
    }

    // MARK: - What the grammar's comments reject

    /// The lexeme to use for `text` of `rule`, or nil to generate it again.
    private mutating func accept(rule: String, text: String) -> String? {
        switch rule {
        case "key-component":
            // "An identifier that spells a reserved word is that keyword; write #word."
            guard let first = text.unicodeScalars.first, first != "#", first != "@",
                  reservedWords.contains(text.uppercased()) else { return text }
            return rng.chance(0.5) ? "#" + text : nil
        case "hex-number", "octal-number", "binary-number":
            // "Hexadecimal, octal and binary numbers must fit in 64 bits."
            let radix = rule == "hex-number" ? 16 : (rule == "octal-number" ? 8 : 2)
            return UInt64(text.dropFirst(2), radix: radix) == nil ? nil : text
        case "escape":
            // A \u escape of a surrogate needs its other half.
            let scalars = Array(text.unicodeScalars)
            guard scalars.count == 6, scalars[1] == "u" || scalars[1] == "U",
                  let v = UInt32(String(String.UnicodeScalarView(scalars[2...])), radix: 16) else { return text }
            if (0xDC00...0xDFFF).contains(v) { return nil }
            if (0xD800...0xDBFF).contains(v) {
                return text + "\\u" + String(rng.int(in: 0xDC00...0xDFFF), radix: 16, uppercase: rng.chance(0.5))
            }
            return text
        case "format-specifier":
            if text == "%%" { return text }
            let conversion = text.last!
            if conversion == "p" { return nil }  // "%p is rejected"
            arguments.append(argument(for: conversion))
            return text
        default:
            return text
        }
    }

    // MARK: - Format arguments

    /// An argument of the type a conversion needs (reference §5.2).
    private mutating func argument(for conversion: Character) -> Any? {
        switch conversion {
        case "@": return anyValue()
        case "K": return keyPathArgument()
        case "d", "i", "D":
            return rng.pick([Int(rng.int(in: -1000...1000)), Int.min, Int.max, Int8(-5), Int32(7), true] as [Any])
        case "u", "U", "o", "O", "x", "X":
            return rng.pick([Int(rng.int(in: 0...100_000)), UInt64.max, UInt8(200), Int.max] as [Any])
        case "c":
            return rng.chance(0.5) ? Character(Unicode.Scalar(UInt8(rng.int(in: 0x21...0x7E)))) : Int(rng.int(in: 0...127))
        case "C":
            return rng.pick([Character("é"), Character("字"), Character("A"), 0x263A] as [Any])
        case "e", "E", "f", "F", "g", "G", "a", "A":
            return rng.pick([Double(rng.int(in: -999...999)) / 8, Double.nan, -Double.infinity, -0.0, 1e300,
                             Float(2.5), Int(rng.int(in: -9...9)), Decimal(string: "12.75")!] as [Any])
        case "s", "S", "P":
            return rng.pick(Self.sampleStrings)
        default:
            preconditionFailure("no argument for %\(conversion)")
        }
    }

    static let sampleStrings = ["", "plain", "with \"double\" and 'single' quotes", "back\\slash", "line\nbreak",
                                "tab\there", "Zoë ☃ 🎉", "%@ is not a specifier here", "\u{0}nul", "e\u{301}"]

    private mutating func keyPathArgument() -> String {
        let parts = ["name", "address", "city", "size", "FIRST", "first name", "naïve", "x-y", "@count", "_k1", "union",
                     "#", "a'b"]
        let n = rng.int(in: 1...3)
        return (0..<n).map { _ in rng.pick(parts) }.joined(separator: ".")
    }

    private mutating func anyValue() -> Any? {
        switch rng.int(in: 0...17) {
        case 0: return nil
        case 1: return NSNull()
        case 2: return Int(rng.int(in: -1_000_000...1_000_000))
        case 3: return Int64.min
        case 4: return rng.pick([3.25, -0.0, 1e-300, Double.nan, -Double.nan, Double.infinity, -Double.infinity, 0.1])
        case 5: return rng.pick(Self.sampleStrings)
        case 6: return rng.chance(0.5)
        case 7: return [1, "a", nil, 2.5] as [Any?]
        case 8: return ["k": 1, "j": ["x", true], "first name": NSNull()] as [String: Any]
        case 9: return Set([1, 2, 3])
        case 10: return Date(timeIntervalSinceReferenceDate: rng.pick([721692800.5, -1.25, 0, 1e-7]))
        case 11: return Data([0, 1, 254, 255].prefix(rng.int(in: 0...4)))
        case 12: return Decimal(string: rng.pick(["1.5", "-0.001", "123456789012345678901234567890", "0"]))!
        case 13: return UInt64.max
        case 14: return Character("é")
        case 15: return PredicateValue.set([.int(1), .string("a")])
        case 16: return [[1, 2], [Date(timeIntervalSinceReferenceDate: 3)]] as [Any]
        default: return "%K"
        }
    }
}

extension GrammarSentenceGenerator.Sentence {
    /// The sentence with one token deleted or a stray `)` inserted: mostly not a sentence.
    func broken(using rng: inout SeededSplitMix64) -> GrammarSentenceGenerator.Sentence {
        var copy = self
        if rng.chance(0.5), !tokens.isEmpty {
            copy.tokens.remove(at: rng.int(in: 0...(tokens.count - 1)))
        } else {
            copy.tokens.insert(")", at: rng.int(in: 0...tokens.count))
        }
        return copy
    }
}

/// An ``EBNFGrammar`` as a graph of nodes with the least depth and size each needs to finish,
/// computed once (a fixed point), and a use count per alternative.
final class CompiledGrammar {
    static let infinity = Int.max / 4

    final class Rule {
        let name: String
        let isLexical: Bool
        var body: Node?
        var minDepth = CompiledGrammar.infinity
        var minSize = CompiledGrammar.infinity
        init(name: String, isLexical: Bool) { self.name = name; self.isLexical = isLexical }
    }

    /// A node's link to a rule it names. Unowned: the grammar is recursive, so strong links
    /// would form cycles that outlive the generator (LeakSanitizer reported them); the
    /// ``CompiledGrammar`` keeps every rule alive through `rules`.
    struct RuleLink {
        unowned let rule: Rule
    }

    final class Node {
        enum Kind {
            case terminal(String)
            case reference(RuleLink)
            case sequence([Node])
            case choice([Node])
            case optional(Node)
            case repetition(Node)
        }
        let kind: Kind
        /// Rule names mentioned anywhere below.
        let references: Set<String>
        var minDepth = CompiledGrammar.infinity
        var minSize = CompiledGrammar.infinity
        /// For a choice: how often each alternative was taken.
        var uses: [Int]
        init(_ kind: Kind, references: Set<String>, alternatives: Int = 0) {
            self.kind = kind
            self.references = references
            self.uses = Array(repeating: 0, count: alternatives)
        }
    }

    let rules: [String: Rule]

    init(_ g: EBNFGrammar) {
        var rules: [String: Rule] = [:]
        for r in g.rules where rules[r.name] == nil { rules[r.name] = Rule(name: r.name, isLexical: r.isLexical) }
        func compile(_ e: EBNFGrammar.Expression) -> Node {
            switch e {
            case .terminal(let t): return Node(.terminal(t), references: [])
            case .reference(let name):
                guard let r = rules[name] else { preconditionFailure("undefined rule \(name)") }
                return Node(.reference(RuleLink(rule: r)), references: [name])
            case .sequence(let items): return Node(.sequence(items.map(compile)), references: e.references)
            case .choice(let items): return Node(.choice(items.map(compile)), references: e.references, alternatives: items.count)
            case .optional(let inner): return Node(.optional(compile(inner)), references: e.references)
            case .repetition(let inner): return Node(.repetition(compile(inner)), references: e.references)
            case .group(let inner): return compile(inner)
            }
        }
        for r in g.rules where rules[r.name]!.body == nil { rules[r.name]!.body = compile(r.body) }
        self.rules = rules
        var changed = true
        while changed {
            changed = false
            for r in rules.values {
                let d = Self.measure(r.body!)
                let size = r.isLexical ? (d.depth < Self.infinity ? 1 : Self.infinity) : d.size
                if d.depth < r.minDepth { r.minDepth = d.depth; changed = true }
                if size < r.minSize { r.minSize = size; changed = true }
            }
        }
    }

    /// Least depth and size of `n` from the rules' current values; stores them in the nodes.
    @discardableResult
    private static func measure(_ n: Node) -> (depth: Int, size: Int) {
        let result: (Int, Int)
        switch n.kind {
        case .terminal: result = (0, 1)
        case .reference(let link): result = (min(infinity, 1 + link.rule.minDepth), link.rule.minSize)
        case .sequence(let items):
            let parts = items.map { measure($0) }
            result = (parts.map(\.depth).max() ?? 0, min(infinity, parts.reduce(0) { $0 + $1.size }))
        case .choice(let items):
            let parts = items.map { measure($0) }
            result = (parts.map(\.depth).min() ?? infinity, parts.map(\.size).min() ?? infinity)
        case .optional(let inner), .repetition(let inner):
            measure(inner)
            result = (0, 0)
        }
        n.minDepth = result.0
        n.minSize = result.1
        return result
    }
}

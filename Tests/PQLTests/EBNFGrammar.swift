import Foundation

/// An ISO-14977-style EBNF grammar read from text, as `grammar/predicate.ebnf` writes it.
///
/// Supported notation: `name = body ;` rules; `,` concatenation; `|` alternatives; `[ … ]`
/// optional; `{ … }` zero or more repetitions; `( … )` groups; terminals in `"…"` or `'…'` with
/// no escape processing (`"\"` is one backslash, `'"'` a double quote); `(* … *)` comments,
/// which may nest. A comment whose text starts with `@lexical` marks every rule after it as
/// lexical (no whitespace between its parts). Anything else is an error, so a grammar that
/// starts using notation this reader does not know fails loudly instead of being misread.
///
/// ```swift
/// let g = try EBNFGrammar(text: "greeting = \"hi\" , [ name ] ; name = \"bob\" | \"ann\" ;")
/// g.rule("greeting")?.body   // .sequence([.terminal("hi"), .optional(.reference("name"))])
/// ```
struct EBNFGrammar {
    /// The right-hand side of a rule.
    indirect enum Expression: Hashable, CustomStringConvertible {
        case terminal(String)
        case reference(String)
        /// `a , b , c`
        case sequence([Expression])
        /// `a | b | c`
        case choice([Expression])
        /// `[ a ]`
        case optional(Expression)
        /// `{ a }`
        case repetition(Expression)
        /// `( a )`
        case group(Expression)

        var description: String {
            switch self {
            case .terminal(let t): return t.contains("\"") ? "'\(t)'" : "\"\(t)\""
            case .reference(let r): return r
            case .sequence(let items): return items.map(\.description).joined(separator: " , ")
            case .choice(let items): return items.map(\.description).joined(separator: " | ")
            case .optional(let e): return "[ \(e) ]"
            case .repetition(let e): return "{ \(e) }"
            case .group(let e): return "( \(e) )"
            }
        }

        /// Every rule name this expression mentions.
        var references: Set<String> {
            switch self {
            case .terminal: return []
            case .reference(let r): return [r]
            case .sequence(let items), .choice(let items): return items.reduce(into: []) { $0.formUnion($1.references) }
            case .optional(let e), .repetition(let e), .group(let e): return e.references
            }
        }

        /// Every terminal this expression mentions.
        var terminals: Set<String> {
            switch self {
            case .terminal(let t): return [t]
            case .reference: return []
            case .sequence(let items), .choice(let items): return items.reduce(into: []) { $0.formUnion($1.terminals) }
            case .optional(let e), .repetition(let e), .group(let e): return e.terminals
            }
        }
    }

    struct Rule {
        let name: String
        let body: Expression
        /// Defined after the `@lexical` marker: no whitespace between its parts.
        let isLexical: Bool
        /// 1-based line of the rule's name.
        let line: Int
        /// The comments written inside the rule or after it, before the next rule starts.
        var comments: [String]
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let message: String
        let line: Int
        var description: String { "EBNF line \(line): \(message)" }
    }

    /// The rules in the order they are written.
    private(set) var rules: [Rule] = []
    /// Every comment of the file, in order.
    private(set) var comments: [String] = []
    /// Names defined more than once.
    private(set) var duplicateDefinitions: [String] = []
    private var index: [String: Int] = [:]

    func rule(_ name: String) -> Rule? { index[name].map { rules[$0] } }

    var ruleNames: [String] { rules.map(\.name) }

    init(text: String) throws {
        var parser = Reader(tokens: try Self.tokenize(text))
        var lexical = false
        while true {
            parser.collectComments()
            for c in parser.takeComments() {
                comments.append(c)
                if c.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("@lexical") { lexical = true }
                if !rules.isEmpty { rules[rules.count - 1].comments.append(c) }
            }
            guard !parser.atEnd else { break }
            let (name, line) = try parser.ruleName()
            try parser.expect(.equals, "'=' after rule name \(name)")
            let body = try parser.choice()
            try parser.expect(.semicolon, "';' to end rule \(name)")
            let inner = parser.takeComments()
            comments.append(contentsOf: inner)
            if index[name] != nil { duplicateDefinitions.append(name) } else { index[name] = rules.count }
            rules.append(Rule(name: name, body: body, isLexical: lexical, line: line, comments: inner))
        }
    }

    // MARK: - Analyses

    /// `(rule, missing)` for every reference to a rule that is not defined.
    var undefinedReferences: [(rule: String, missing: String)] {
        var out: [(String, String)] = []
        for r in rules {
            for ref in r.body.references.sorted() where index[ref] == nil { out.append((r.name, ref)) }
        }
        return out
    }

    /// The rules reachable from `roots` (the roots included).
    func reachable(from roots: [String]) -> Set<String> {
        var seen = Set<String>()
        var stack = roots
        while let name = stack.popLast() {
            guard seen.insert(name).inserted, let r = rule(name) else { continue }
            stack.append(contentsOf: r.body.references)
        }
        return seen
    }

    /// Defined rules that are not reachable from `roots`, in file order.
    func unusedRules(from roots: [String]) -> [String] {
        let live = reachable(from: roots)
        return rules.map(\.name).filter { !live.contains($0) }
    }

    /// Every terminal of the rules reachable from `roots`.
    func terminals(reachableFrom roots: [String]) -> Set<String> {
        reachable(from: roots).reduce(into: Set<String>()) { acc, name in
            if let r = rule(name) { acc.formUnion(r.body.terminals) }
        }
    }

    // MARK: - Lexing

    enum TokenKind: Equatable {
        case name(String)
        case terminal(String)
        case comment(String)
        case equals, comma, bar, semicolon
        case leftBracket, rightBracket, leftBrace, rightBrace, leftParen, rightParen
    }

    struct Token {
        let kind: TokenKind
        let line: Int
    }

    static func tokenize(_ text: String) throws -> [Token] {
        let chars = Array(text.unicodeScalars)
        var tokens: [Token] = []
        var i = 0
        var line = 1
        func isNameStart(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic && c.isASCII }
        func isNamePart(_ c: Unicode.Scalar) -> Bool { isNameStart(c) || ("0"..."9").contains(c) || c == "-" || c == "_" }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" { line += 1; i += 1; continue }
            if c == " " || c == "\t" || c == "\r" { i += 1; continue }
            let startLine = line
            if c == "(" && i + 1 < chars.count && chars[i + 1] == "*" {
                // A comment; comments nest.
                var depth = 1
                var j = i + 2
                var body = String.UnicodeScalarView()
                while j < chars.count {
                    if chars[j] == "(" && j + 1 < chars.count && chars[j + 1] == "*" {
                        depth += 1; body.append(contentsOf: ["(", "*"]); j += 2; continue
                    }
                    if chars[j] == "*" && j + 1 < chars.count && chars[j + 1] == ")" {
                        depth -= 1
                        if depth == 0 { break }
                        body.append(contentsOf: ["*", ")"]); j += 2; continue
                    }
                    if chars[j] == "\n" { line += 1 }
                    body.append(chars[j])
                    j += 1
                }
                guard depth == 0 else { throw SyntaxError(message: "unterminated comment", line: startLine) }
                tokens.append(Token(kind: .comment(String(body)), line: startLine))
                i = j + 2
                continue
            }
            if c == "\"" || c == "'" {
                var j = i + 1
                var body = String.UnicodeScalarView()
                while j < chars.count && chars[j] != c {
                    if chars[j] == "\n" { throw SyntaxError(message: "terminal runs past the end of the line", line: startLine) }
                    body.append(chars[j])
                    j += 1
                }
                guard j < chars.count else { throw SyntaxError(message: "unterminated terminal", line: startLine) }
                guard !body.isEmpty else { throw SyntaxError(message: "empty terminal", line: startLine) }
                tokens.append(Token(kind: .terminal(String(body)), line: startLine))
                i = j + 1
                continue
            }
            if isNameStart(c) {
                var j = i
                var body = String.UnicodeScalarView()
                while j < chars.count && isNamePart(chars[j]) { body.append(chars[j]); j += 1 }
                tokens.append(Token(kind: .name(String(body)), line: startLine))
                i = j
                continue
            }
            let kind: TokenKind
            switch c {
            case "=": kind = .equals
            case ",": kind = .comma
            case "|": kind = .bar
            case ";": kind = .semicolon
            case "[": kind = .leftBracket
            case "]": kind = .rightBracket
            case "{": kind = .leftBrace
            case "}": kind = .rightBrace
            case "(": kind = .leftParen
            case ")": kind = .rightParen
            default:
                throw SyntaxError(message: "unsupported EBNF character '\(c)'", line: startLine)
            }
            tokens.append(Token(kind: kind, line: startLine))
            i += 1
        }
        return tokens
    }

    // MARK: - Parsing

    /// Recursive descent over the tokens; comments are collected on the side.
    private struct Reader {
        let tokens: [Token]
        var position = 0
        var pendingComments: [String] = []

        init(tokens: [Token]) { self.tokens = tokens }

        var atEnd: Bool { position >= tokens.count }

        mutating func collectComments() {
            while position < tokens.count, case .comment(let c) = tokens[position].kind {
                pendingComments.append(c)
                position += 1
            }
        }

        mutating func takeComments() -> [String] {
            defer { pendingComments = [] }
            return pendingComments
        }

        /// The next non-comment token, without consuming it.
        mutating func peek() -> Token? {
            collectComments()
            return position < tokens.count ? tokens[position] : nil
        }

        var line: Int { position < tokens.count ? tokens[position].line : (tokens.last?.line ?? 0) }

        mutating func expect(_ kind: TokenKind, _ what: String) throws {
            guard let t = peek(), t.kind == kind else {
                throw SyntaxError(message: "expected \(what), found \(peek().map { "\($0.kind)" } ?? "end of file")", line: line)
            }
            position += 1
        }

        mutating func ruleName() throws -> (String, Int) {
            guard let t = peek(), case .name(let n) = t.kind else {
                throw SyntaxError(message: "expected a rule name, found \(peek().map { "\($0.kind)" } ?? "end of file")", line: line)
            }
            position += 1
            return (n, t.line)
        }

        mutating func choice() throws -> Expression {
            var items = [try sequence()]
            while peek()?.kind == .bar {
                position += 1
                items.append(try sequence())
            }
            return items.count == 1 ? items[0] : .choice(items)
        }

        mutating func sequence() throws -> Expression {
            var items = [try term()]
            while peek()?.kind == .comma {
                position += 1
                items.append(try term())
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func term() throws -> Expression {
            guard let t = peek() else { throw SyntaxError(message: "unexpected end of file in a rule", line: line) }
            position += 1
            switch t.kind {
            case .terminal(let s): return .terminal(s)
            case .name(let n): return .reference(n)
            case .leftBracket:
                let e = try choice()
                try expect(.rightBracket, "']'")
                return .optional(e)
            case .leftBrace:
                let e = try choice()
                try expect(.rightBrace, "'}'")
                return .repetition(e)
            case .leftParen:
                let e = try choice()
                try expect(.rightParen, "')'")
                return .group(e)
            default:
                throw SyntaxError(message: "unexpected \(t.kind) in a rule body", line: t.line)
            }
        }
    }
}

extension EBNFGrammar {
    /// `grammar/predicate.ebnf`, found from this file's path: the package root is three
    /// directories up from `Tests/PQLTests/<file>.swift`.
    static func predicateGrammarURL(testFile: String = #filePath) -> URL {
        URL(fileURLWithPath: testFile)
            .deletingLastPathComponent()   // PQLTests
            .deletingLastPathComponent()   // Tests
            .deletingLastPathComponent()   // package root
            .appendingPathComponent("grammar/predicate.ebnf")
    }

    static func loadPredicateGrammar(testFile: String = #filePath) throws -> EBNFGrammar {
        let text = try String(contentsOf: predicateGrammarURL(testFile: testFile), encoding: .utf8)
        return try EBNFGrammar(text: text)
    }

    /// The reserved words listed in the comment after `identifier` ("Reserved: AND OR …
    /// UTI-EQUALS."), upper-cased. Empty if the comment is missing.
    var reservedWords: Set<String> {
        guard let comment = rule("identifier")?.comments.first(where: { $0.contains("Reserved:") }) else { return [] }
        let afterLabel = comment.components(separatedBy: "Reserved:")[1]
        var words = Set<String>()
        for raw in afterLabel.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            let ends = raw.hasSuffix(".")
            let word = raw.trimmingCharacters(in: CharacterSet(charactersIn: "."))
            if !word.isEmpty { words.insert(word.uppercased()) }
            if ends { break }
        }
        return words
    }
}

/// A recursive-descent parser that follows `grammar/predicate.ebnf` rule by rule.
///
/// It never backtracks: a parenthesis in predicate position is parsed as "predicate or
/// expression" and settled by what follows, so parse time is linear in the input. Format
/// arguments are bound while parsing (spec §5.1), each specifier becoming a constant or a key
/// path, never text.
struct Parser {
    /// Trees taller than this (operators, calls, negations nested in one another) are an error,
    /// never a stack overflow.
    static let maxNestingDepth = 64
    /// Recursion of the parser itself: parentheses cost levels without adding tree height, and
    /// the printer adds parentheses, so this is larger than the tree limit — every tree within
    /// the limit prints to text that parses again.
    static let maxRecursionDepth = 4 * maxNestingDepth
    /// Longer format strings are an error rather than a long wait.
    static let maxSourceLength = 16 * 1024 * 1024
    /// SUBQUERY inside SUBQUERY: each level multiplies the work per object by the size of a
    /// collection, so deeper nesting is an error rather than an evaluation that never ends.
    static let maxSubqueryNesting = 8
    /// Elements of one `{…}` literal. Longer lists belong in one `%@` argument, which is bound
    /// as a single value instead of parsed and kept as a tree node per element.
    static let maxAggregateElements = 1_000_000

    var tokens: [Token]
    var index = 0
    let source: String
    var arguments: ArgumentList
    /// Current recursion depth.
    var depth = 0
    /// SUBQUERY expressions open around the current token.
    var subqueryDepth = 0

    /// A parsed expression with the height of its tree, so that operator chains count toward
    /// the nesting limit too.
    typealias Parsed = (node: ExpressionNode, height: Int)

    init(tokens: [Token], source: String, arguments: ArgumentList) {
        self.tokens = tokens
        self.source = source
        self.arguments = arguments
    }

    // MARK: - Entry points

    /// Parses a whole predicate format string.
    static func parsePredicate(_ source: String, arguments: ArgumentList) throws(PredicateFormatError) -> PredicateNode {
        let parser = try make(source, arguments: arguments)
        return try LargeStack.run(if: parser.mayRecurseDeeply) { () throws(PredicateFormatError) in
            var parser = parser
            guard parser.current.kind != .eof else {
                throw parser.error(.unexpectedToken, "the predicate is empty", expected: ["a predicate"],
                                   hint: "write a comparison such as age > 30, or TRUEPREDICATE")
            }
            let p = try parser.parsePredicateRule()
            try parser.finish()
            return p
        }
    }

    /// Parses a whole expression format string (NSExpression(format:)).
    static func parseExpression(_ source: String, arguments: ArgumentList) throws(PredicateFormatError) -> ExpressionNode {
        let parser = try make(source, arguments: arguments)
        return try LargeStack.run(if: parser.mayRecurseDeeply) { () throws(PredicateFormatError) in
            var parser = parser
            guard parser.current.kind != .eof else {
                throw parser.error(.unexpectedToken, "the expression is empty", expected: ["an expression"])
            }
            let e = try parser.parseExpression()
            try parser.finish()
            return e.node
        }
    }

    /// The weighted nesting up to which a parse runs on the caller's thread (see
    /// ``mayRecurseDeeply``): at most about 200 KiB of stack in a debug build.
    static let inlineNestingBudget = 8

    /// An upper bound on the stack the parse can need, in units of a parenthesised group
    /// (about 16 KiB in a debug build): an open bracket counts 1, the bracket of a call 2 and a
    /// SUBQUERY 3 (a call recurses through the expression rules, a SUBQUERY through the
    /// predicate rules as well), every prefix operator (NOT, `-`, `~`, `**`, `:=`) a quarter.
    /// Cheap, and above the budget only for unusual input, which then parses on a large stack.
    var mayRecurseDeeply: Bool {
        var open: [Int] = []
        var depth = 0, prefix = 0
        for (i, t) in tokens.enumerated() {
            switch t.kind {
            case .leftParen, .leftBracket, .leftBrace:
                let before = i > 0 ? tokens[i - 1] : t
                let weight = t.kind != .leftParen ? 1
                    : before.kind == .keyword && before.keyword == .subquery ? 3
                    : before.kind == .identifier || before.kind == .keyword ? 2 : 1
                open.append(weight)
                depth += weight
            case .rightParen, .rightBracket, .rightBrace:
                depth -= open.popLast() ?? 0
            case .minus, .tilde, .bang, .starStar, .assign: prefix += 1
            case .keyword where t.keyword == .not: prefix += 1
            default: break
            }
            if depth + prefix / 4 > Self.inlineNestingBudget { return true }
        }
        return false
    }

    private static func make(_ source: String, arguments: ArgumentList) throws(PredicateFormatError) -> Parser {
        var text = source
        let count = text.utf8.count
        guard count <= maxSourceLength else {
            throw Diagnostics.error(.inputTooLong, "the format string is \(count) bytes long; the limit is \(maxSourceLength)",
                                    start: 0, end: 0, source: "", found: "\(count) bytes",
                                    hint: "pass large value lists as one %@ argument instead of inline literals")
        }
        let result: Result<[Token], PredicateFormatError> = text.withUTF8 { buffer in
            var lexer = Lexer(bytes: buffer, source: source)
            do throws(PredicateFormatError) { return .success(try lexer.tokenize()) } catch { return .failure(error) }
        }
        return Parser(tokens: try result.get(), source: source, arguments: arguments)
    }

    /// The whole input must be consumed, and every argument used.
    private mutating func finish() throws(PredicateFormatError) {
        guard current.kind == .eof else {
            if let c = PrecedenceTable.comparisonOperator(current) {
                throw error(.unexpectedToken, "unexpected \(c.symbol) after a complete predicate",
                            hint: "join conditions with AND or OR")
            }
            throw unexpected(expected: ["AND", "OR", "end of input"],
                             hint: suggestionForStrayWord() ?? "join conditions with AND or OR")
        }
        try arguments.checkAllUsed(source: source, end: current.start)
    }

    // MARK: - Tokens

    var current: Token { tokens[index] }

    func peek(_ n: Int = 1) -> Token { tokens[min(index + n, tokens.count - 1)] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    @discardableResult
    mutating func expect(_ kind: Token.Kind, _ what: String, hint: String? = nil) throws(PredicateFormatError) -> Token {
        guard current.kind == kind else { throw unexpected(expected: [what], hint: hint) }
        let t = current
        advance()
        return t
    }

    /// Source text between two byte offsets, for hints that quote the user's own words.
    func text(from start: Int, to end: Int) -> String {
        let utf8 = source.utf8
        let s = utf8.index(utf8.startIndex, offsetBy: max(0, min(start, utf8.count)))
        let e = utf8.index(utf8.startIndex, offsetBy: max(0, min(end, utf8.count)))
        return String(decoding: utf8[s..<max(s, e)], as: UTF8.self)
    }

    /// End offset of the token before the current one.
    var previousEnd: Int { index > 0 ? tokens[index - 1].end : 0 }

    // MARK: - Nesting

    mutating func enter() throws(PredicateFormatError) {
        depth += 1
        if depth > Self.maxRecursionDepth { throw tooDeep(parentheses: true) }
    }

    mutating func leave() { depth -= 1 }

    /// `token` is the construct that makes the tree too tall; without it the error would point
    /// at whatever follows the construct, often the end of the input.
    func checkHeight(_ h: Int, at token: Token? = nil) throws(PredicateFormatError) {
        if h > Self.maxNestingDepth { throw tooDeep(at: token) }
    }

    func tooDeep(at token: Token? = nil, parentheses: Bool = false) -> PredicateFormatError {
        error(.nestingTooDeep, parentheses
              ? "the predicate nests parentheses and operators deeper than \(Self.maxRecursionDepth) levels"
              : "the predicate nests deeper than \(Self.maxNestingDepth) levels", at: token,
              hint: "flatten it: long chains of AND/OR are fine, deep parentheses and operator chains are not")
    }

    // MARK: - Errors

    func error(_ kind: PredicateFormatError.Kind, _ message: String, at token: Token? = nil, expected: [String] = [],
               hint: String? = nil) -> PredicateFormatError {
        let t = token ?? current
        return Diagnostics.error(kind, message, start: t.start, end: t.end, source: source, expected: expected,
                                 found: describe(t), hint: hint)
    }

    func error(_ kind: PredicateFormatError.Kind, _ message: String, from start: Int, to end: Int,
               hint: String? = nil) -> PredicateFormatError {
        Diagnostics.error(kind, message, start: start, end: end, source: source, hint: hint)
    }

    /// "expected X, found Y" at the current token.
    func unexpected(expected: [String], hint: String? = nil) -> PredicateFormatError {
        let t = current
        let message = "expected \(PredicateFormatError.list(expected)), found \(describe(t))"
        return error(.unexpectedToken, message, expected: expected, hint: hint)
    }

    func describe(_ t: Token) -> String {
        switch t.kind {
        case .eof: return "end of input"
        case .string: return "string \(text(from: t.start, to: t.end))"
        case .keyword: return "keyword \(t.keyword?.spelling ?? "")"
        default: return "'\(text(from: t.start, to: t.end))'"
        }
    }

    /// For a word where an operator or connective belongs: the keyword it most likely misspells.
    func suggestionForStrayWord() -> String? {
        guard current.kind == .identifier, !current.escaped else { return nil }
        let word = current.text.uppercased()
        let candidates = ["AND", "OR", "NOT", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
                          "BETWEEN", "UTI-CONFORMS-TO", "UTI-EQUALS"]
        guard let best = Spelling.nearest(to: word, in: candidates) else { return nil }
        return "did you mean \(best)?"
    }
}

/// A recursive-descent parser that follows `grammar/predicate.ebnf` rule by rule.
///
/// It never backtracks: a parenthesis in predicate position is parsed as "predicate or
/// expression" and settled by what follows, so parse time is linear in the input. Format
/// arguments are bound while parsing (reference §5.1), each specifier becoming a constant or a key
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

    /// Tokens come from the lexer one at a time (see ``Lexer/nextToken()``): the parser keeps
    /// the current token, at most one token of lookahead and the end of the previous one.
    private var lexer: Lexer
    /// The token being looked at.
    private(set) var current: Token
    private var lookahead: Token?
    /// End offset of the token before the current one.
    private(set) var previousEnd = 0
    let source: String
    var arguments: ArgumentList
    /// Current recursion depth.
    var depth = 0
    /// SUBQUERY expressions open around the current token.
    var subqueryDepth = 0
    /// Repeated keys and literals share one node.
    var leaves = LeafNodes()
    /// Where each node was written, when the caller asked (``SourceMap``).
    var positions: SourceMapRecorder
    /// String literals whose text holds a specifier (`'%@'`): if arguments go unused, these
    /// are why, and the warnings point at them.
    var quotedSpecifiers: [(start: Int, end: Int, specifier: String)] = []
    /// What the parse found worth telling that is no error (``PredicateDiagnostic``).
    private(set) var warnings: [PredicateDiagnostic] = []

    /// A parsed expression with the height of its tree, so that operator chains count toward
    /// the nesting limit too.
    typealias Parsed = (node: ExpressionNode, height: Int)

    /// `lexer` must be at the start of the input, which ``Lexer/scan(inlineBudget:)`` has read
    /// once already without an error.
    private init(lexer: Lexer, source: String, arguments: ArgumentList, recordsPositions: Bool) {
        self.lexer = lexer
        self.source = source
        self.arguments = arguments
        positions = SourceMapRecorder(isOn: recordsPositions)
        current = Self.pull(&self.lexer)
    }

    // MARK: - Entry points

    /// Parses a whole predicate format string.
    static func parsePredicate(_ source: String, arguments: ArgumentList) throws(PredicateFormatError) -> PredicateNode {
        try parsePredicate(source, arguments: arguments, recordsPositions: false).node
    }

    /// Parses a whole predicate format string, with the ``SourceMap`` of its nodes when
    /// `recordsPositions`, and the warnings found (surplus arguments).
    static func parsePredicate(_ source: String, arguments: ArgumentList, recordsPositions: Bool)
        throws(PredicateFormatError) -> (node: PredicateNode, map: SourceMap, warnings: [PredicateDiagnostic])
    {
        try run(source, arguments: arguments, recordsPositions: recordsPositions) { (parser) throws(PredicateFormatError) in
            guard parser.current.kind != .eof else {
                throw parser.error(.unexpectedToken, "the predicate is empty", expected: ["a predicate"],
                                   hint: "write a comparison such as age > 30, or TRUEPREDICATE")
            }
            let p = try parser.parsePredicateRule()
            try parser.finish()
            return (p, parser.positions.map(source), parser.warnings)
        }
    }

    /// Parses a whole expression format string (NSExpression(format:)).
    static func parseExpression(_ source: String, arguments: ArgumentList) throws(PredicateFormatError) -> ExpressionNode {
        try parseExpression(source, arguments: arguments, recordsPositions: false).node
    }

    /// Parses a whole expression format string, with the ``SourceMap`` of its nodes when
    /// `recordsPositions`, and the warnings found (surplus arguments).
    static func parseExpression(_ source: String, arguments: ArgumentList, recordsPositions: Bool)
        throws(PredicateFormatError) -> (node: ExpressionNode, map: SourceMap, warnings: [PredicateDiagnostic])
    {
        try run(source, arguments: arguments, recordsPositions: recordsPositions) { (parser) throws(PredicateFormatError) in
            guard parser.current.kind != .eof else {
                throw parser.error(.unexpectedToken, "the expression is empty", expected: ["an expression"])
            }
            let e = try parser.parseExpression()
            try parser.finish()
            return (e.node, parser.positions.map(source), parser.warnings)
        }
    }

    /// The weighted nesting up to which a parse runs on the caller's thread (see
    /// ``Lexer/scan(inlineBudget:)``): at most about 200 KiB of stack in a debug build.
    static let inlineNestingBudget = 8

    /// Checks the length, reads the input once for lexical errors and the stack it may need,
    /// then parses it with tokens lexed a second time, one at a time, on a large stack when
    /// the first reading found deep nesting.
    private static func run<T>(_ source: String, arguments: ArgumentList, recordsPositions: Bool,
                               _ body: @escaping (inout Parser) throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        var text = source
        let count = text.utf8.count
        guard count <= maxSourceLength else {
            throw Diagnostics.error(.inputTooLong, "the format string is \(count) bytes long; the limit is \(maxSourceLength)",
                                    start: 0, end: 0, source: "", found: "\(count) bytes",
                                    hint: "pass large value lists as one %@ argument instead of inline literals")
        }
        let result: Result<T, PredicateFormatError> = text.withUTF8 { buffer in
            do throws(PredicateFormatError) {
                var scanner = Lexer(bytes: buffer, source: source)
                let deep = try scanner.scan(inlineBudget: inlineNestingBudget).mayRecurseDeeply
                let lexer = Lexer(bytes: buffer, source: source)
                // The buffer outlives the large-stack thread: LargeStack joins it before returning.
                return .success(try LargeStack.run(if: deep) { () throws(PredicateFormatError) -> T in
                    var parser = Parser(lexer: lexer, source: source, arguments: arguments, recordsPositions: recordsPositions)
                    return try body(&parser)
                })
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The whole input must be consumed; arguments left over are warnings (decision D15).
    private mutating func finish() throws(PredicateFormatError) {
        guard current.kind == .eof else {
            if let c = PrecedenceTable.comparisonOperator(current) {
                throw error(.unexpectedToken, "unexpected \(c.symbol) after a complete predicate",
                            hint: "join conditions with AND or OR")
            }
            throw unexpected(expected: ["AND", "OR", "end of input"],
                             hint: suggestionForStrayWord() ?? "join conditions with AND or OR")
        }
        warnings += arguments.surplusWarnings(source: source, end: current.start, quoted: quotedSpecifiers)
    }

    // MARK: - Tokens

    /// The lexer's next token. The input was read once without an error
    /// (``Lexer/scan(inlineBudget:)``), so reading it again cannot fail; if it somehow did,
    /// the input ends there and the parse reports what it expected.
    private static func pull(_ lexer: inout Lexer) -> Token {
        do throws(PredicateFormatError) { return try lexer.nextToken() } catch {
            assertionFailure("the second reading of the input failed: \(error)")
            return Token(.eof, error.range.offset, error.range.offset)
        }
    }

    /// The token after the current one.
    mutating func peek() -> Token {
        if let lookahead { return lookahead }
        let t = current.kind == .eof ? current : Self.pull(&lexer)
        lookahead = t
        return t
    }

    mutating func advance() {
        guard current.kind != .eof else { return }
        previousEnd = current.end
        if let next = lookahead {
            current = next
            lookahead = nil
        } else {
            current = Self.pull(&lexer)
        }
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

/// The nodes of leaves already parsed, so that a key or literal written many times is one
/// node in the tree, shared, rather than an allocation (two for a key path) per occurrence: a
/// long predicate repeats a handful of keys and constants. Keys compare by their UTF-8 bytes,
/// numbers by their exact value (`1` and `1.0` are different nodes, as they print differently).
struct LeafNodes {
    enum Key: Hashable {
        case key(ExactText)
        case variable(ExactText)
        case string(ExactText)
        case int(Int64)
        /// A double's bit pattern: -0.0 and 0.0 differ, every NaN is its own.
        case double(UInt64)
    }

    /// Distinct leaves kept; later ones get nodes of their own. Texts longer than
    /// ``maxTextLength`` bytes are not kept either: they rarely repeat.
    static let capacity = 4_096
    static let maxTextLength = 64

    private var table: [Key: ExpressionNode] = [:]

    mutating func node(_ key: Key) -> ExpressionNode {
        if let known = table[key] { return known }
        let node: ExpressionNode
        var keep = true
        switch key {
        case .key(let k): node = .keyPath([k.text]); keep = k.text.utf8.count <= Self.maxTextLength
        case .variable(let v): node = .variable(v.text); keep = v.text.utf8.count <= Self.maxTextLength
        case .string(let s): node = .constant(.string(s.text)); keep = s.text.utf8.count <= Self.maxTextLength
        case .int(let i): node = .constant(.int(i))
        case .double(let bits): node = .constant(.double(Double(bitPattern: bits)))
        }
        if keep && table.count < Self.capacity { table[key] = node }
        return node
    }
}

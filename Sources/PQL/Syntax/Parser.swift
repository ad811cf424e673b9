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
    /// the current token, the next one and the end of the previous one.
    private(set) var lexer: Lexer
    /// The lexer's first error. Reading stops there (the parser sees the end of the input);
    /// the parse then reports this error, whatever it made of the truncated input.
    var lexicalError: PredicateFormatError? { lexicalErrors.first }
    /// ``lexicalError``, in an array: one word in the parser rather than the error's hundred
    /// bytes, which every copy of the parser would move.
    private var lexicalErrors: [PredicateFormatError] = []
    /// Whether ``lexicalError`` is set: a flag to test per token.
    private var lexerFailed = false
    /// The stack address below which ``enter()`` hands the parse to a large stack (see
    /// ``inlineStackBudget``); nil when the parse runs on one already.
    private let stackLimit: UInt?
    /// Set when the recursion reached ``stackLimit``: the parse is abandoned and run again on
    /// a large stack. Copies made to look ahead (a hint's probe) pass it back.
    var needsLargeStack = false
    /// The token being looked at.
    private(set) var current: Token
    /// The token after it, always read: looking ahead, which every leaf does, is then a field
    /// read rather than a call that may lex. At the end (or a lexical error) it is the `.eof`
    /// token of ``current`` again. A lexical error is found a token earlier this way, which
    /// changes nothing: the parse reports it whenever it was found.
    private var next: Token
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

    /// `lexer` must be at the start of the input.
    private init(lexer: Lexer, source: String, arguments: ArgumentList, recordsPositions: Bool, stackLimit: UInt?) {
        self.lexer = lexer
        self.source = source
        self.arguments = arguments
        self.stackLimit = stackLimit
        positions = SourceMapRecorder(isOn: recordsPositions)
        current = Token(.eof, 0, 0)
        next = current
        current = pull()
        next = current.kind == .eof ? current : pull()
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
        try run(source, arguments: arguments, recordsPositions: recordsPositions) { (parser: inout Parser) throws(PredicateFormatError) in
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
        try run(source, arguments: arguments, recordsPositions: recordsPositions) { (parser: inout Parser) throws(PredicateFormatError) in
            guard parser.current.kind != .eof else {
                throw parser.error(.unexpectedToken, "the expression is empty", expected: ["an expression"])
            }
            let e = try parser.parseExpression()
            try parser.finish()
            return (e.node, parser.positions.map(source), parser.warnings)
        }
    }

    /// Stack the parse may take on the caller's thread before it moves to a large one
    /// (``LargeStack``): well inside the 512 KiB of the smallest threads a caller may be on,
    /// beside what the caller itself uses. A debug build spends about 16 KiB per parenthesised
    /// group, so about a dozen nested groups parse here; a release build, many more.
    static let inlineStackBudget: UInt = 192 << 10

    /// Checks the length, then parses on the caller's stack. Tokens are lexed one at a time as
    /// the parser asks, once. A parse that nests deeper than ``inlineStackBudget`` allows is
    /// abandoned and run again from the start on a large stack: rare input, and at most twice
    /// the work. A lexical error anywhere in the input is the error reported, before any
    /// grammar error, as if the input had been tokenized first.
    private static func run<T>(_ source: String, arguments: ArgumentList, recordsPositions: Bool,
                               _ body: (inout Parser) throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        var text = source
        let count = text.utf8.count
        guard count <= maxSourceLength else {
            throw Diagnostics.error(.inputTooLong, "the format string is \(count) bytes long; the limit is \(maxSourceLength)",
                                    start: 0, end: 0, source: "", found: "\(count) bytes",
                                    hint: "pass large value lists as one %@ argument instead of inline literals")
        }
        let result: Result<T, PredicateFormatError> = text.withUTF8 { buffer in
            var limit: UInt? = nil
            if !LargeStack.isOnLargeStack {
                var here: UInt8 = 0
                let address = withUnsafeMutablePointer(to: &here) { UInt(bitPattern: $0) }
                limit = address > inlineStackBudget ? address - inlineStackBudget : 0
            }
            let inline = attempt(buffer, source, arguments, recordsPositions, stackLimit: limit, body)
            guard inline.deep else { return inline.result }
            // The buffer and `body` outlive the large-stack thread: LargeStack joins it before
            // returning.
            return withoutActuallyEscaping(body) { body in
                LargeStack.run(if: true) { () -> Result<T, PredicateFormatError> in
                    attempt(buffer, source, arguments, recordsPositions, stackLimit: nil, body).result
                }
            }
        }
        return try result.get()
    }

    /// One parse of the whole input; `deep` when it stopped at `stackLimit` (its result is
    /// then that stop, not the input's answer).
    private static func attempt<T>(_ buffer: UnsafeBufferPointer<UInt8>, _ source: String, _ arguments: ArgumentList,
                                   _ recordsPositions: Bool, stackLimit: UInt?,
                                   _ body: (inout Parser) throws(PredicateFormatError) -> T)
        -> (result: Result<T, PredicateFormatError>, deep: Bool)
    {
        var parser = Parser(lexer: Lexer(bytes: buffer, source: source), source: source, arguments: arguments,
                            recordsPositions: recordsPositions, stackLimit: stackLimit)
        do throws(PredicateFormatError) {
            let value = try body(&parser)
            if let lexical = parser.lexicalError { return (.failure(lexical), false) }
            return (.success(value), false)
        } catch {
            if parser.needsLargeStack { return (.failure(error), true) }
            if let lexical = parser.lexicalError ?? parser.lexer.firstErrorInRest() { return (.failure(lexical), false) }
            return (.failure(error), false)
        }
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

    /// The lexer's next token; after a lexical error, the end of the input (the error is
    /// kept in ``lexicalError`` and reported when the parse ends).
    ///
    /// Inlined into ``advance()``, with the failure kept apart.
    @inline(__always)
    private mutating func pull() -> Token {
        if lexerFailed { return Token(.eof, lexer.pos, lexer.pos) }
        do throws(PredicateFormatError) { return try lexer.nextToken() } catch {
            return lexingFailed(error)
        }
    }

    @inline(never)
    private mutating func lexingFailed(_ error: PredicateFormatError) -> Token {
        lexicalErrors = [error]
        lexerFailed = true
        return Token(.eof, error.range.offset, error.range.offset)
    }

    /// The token after the current one.
    @inline(__always)
    func peek() -> Token { next }

    mutating func advance() {
        guard current.kind != .eof else { return }
        previousEnd = current.end
        current = next
        next = current.kind == .eof ? current : pull()
    }

    /// The text of a token: a key, a variable's name, a string's value (``Lexer/text(of:)``).
    func text(of t: Token) -> String { lexer.text(of: t) }

    /// Inlined, with the error apart (and mutating, for the reason at ``checkHeight(_:at:)``):
    /// every `)` and `]` is expected.
    @discardableResult @inline(__always)
    mutating func expect(_ kind: Token.Kind, _ what: String, hint: String? = nil) throws(PredicateFormatError) -> Token {
        guard current.kind == kind else { throw expected(what, hint: hint) }
        let t = current
        advance()
        return t
    }

    @inline(never)
    private mutating func expected(_ what: String, hint: String?) -> PredicateFormatError {
        unexpected(expected: [what], hint: hint)
    }

    /// Source text between two byte offsets, for hints that quote the user's own words.
    func text(from start: Int, to end: Int) -> String {
        let utf8 = source.utf8
        let s = utf8.index(utf8.startIndex, offsetBy: max(0, min(start, utf8.count)))
        let e = utf8.index(utf8.startIndex, offsetBy: max(0, min(end, utf8.count)))
        return String(decoding: utf8[s..<max(s, e)], as: UTF8.self)
    }

    // MARK: - Nesting

    /// Inlined, with the errors apart: every operand enters a level.
    @inline(__always)
    mutating func enter() throws(PredicateFormatError) {
        depth += 1
        if depth > Self.maxRecursionDepth { throw tooDeep(parentheses: true) }
        if let stackLimit {
            var here: UInt8 = 0
            if withUnsafeMutablePointer(to: &here, { UInt(bitPattern: $0) }) < stackLimit {
                throw stackExhausted()
            }
        }
    }

    @inline(never)
    private mutating func stackExhausted() -> PredicateFormatError {
        needsLargeStack = true
        return tooDeep(parentheses: true)
    }

    mutating func leave() { depth -= 1 }

    /// `token` is the construct that makes the tree too tall; without it the error would point
    /// at whatever follows the construct, often the end of the input.
    ///
    /// Inlined: called for every node, and as a call it made the compiler copy the parser.
    /// Mutating, as is the error's function, though neither changes the parser: a non-mutating
    /// call made the compiler copy the whole parser (248 bytes) before every test, for the
    /// error path's sake; a mutating one takes its address.
    @inline(__always)
    mutating func checkHeight(_ h: Int, at token: Token? = nil) throws(PredicateFormatError) {
        if h > Self.maxNestingDepth { throw tooTall(at: token) }
    }

    @inline(never)
    private mutating func tooTall(at token: Token?) -> PredicateFormatError {
        tooDeep(at: token)
    }

    @inline(never)
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
        let word = text(of: current).uppercased()
        let candidates = ["AND", "OR", "NOT", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
                          "BETWEEN", "UTI-CONFORMS-TO", "UTI-EQUALS"]
        guard let best = Spelling.nearest(to: word, in: candidates) else { return nil }
        return "did you mean \(best)?"
    }
}

/// Grammar rules `predicate` … `comparison` (grammar/predicate.ebnf, "predicates").
extension Parser {
    /// What a parenthesis in predicate position turned out to hold. Deciding after the fact is
    /// what keeps the parser free of backtracking: `(a > 1) OR b` and `(a + b) > 3` both work.
    enum PredicateOrExpression {
        /// A predicate and the height of its tree (comparisons count their operands).
        case predicate(PredicateNode, height: Int)
        /// An expression and its source range, for the "bare expression" error.
        case expression(Parsed, start: Int, end: Int)
    }

    /// `predicate = or-predicate`: the entry for every place a predicate must stand.
    mutating func parsePredicateRule() throws(PredicateFormatError) -> PredicateNode {
        try parsePredicateWithHeight().node
    }

    /// The predicate rule with the height of its tree, for forms that nest predicates.
    mutating func parsePredicateWithHeight() throws(PredicateFormatError) -> (node: PredicateNode, height: Int) {
        // Two statements: a call on self would capture the parser before the argument advances it.
        let parsed = try parseOr()
        return try requirePredicate(parsed)
    }

    /// `or-predicate = and-predicate , { ( "OR" | "||" ) , and-predicate }`: OR binds loosest
    /// (``PrecedenceTable``). Chains written without parentheses are flattened into one node.
    mutating func parseOr() throws(PredicateFormatError) -> PredicateOrExpression {
        let start = current.start, mark = positions.mark
        let first = try parseAnd()
        guard PrecedenceTable.connective(current) == .or else { return first }
        return try parseChain(.or, first: first, start: start, mark: mark)
    }

    /// `and-predicate = not-predicate , { ( "AND" | "&&" ) , not-predicate }`.
    mutating func parseAnd() throws(PredicateFormatError) -> PredicateOrExpression {
        let start = current.start, mark = positions.mark
        let first = current.isNotOperator ? try parseNot() : try parsePrimaryPredicate()
        guard PrecedenceTable.connective(current) == .and else { return first }
        return try parseChain(.and, first: first, start: start, mark: mark)
    }

    /// The rest of a chain joined by `connective`, the current token, after its `first` operand,
    /// which began at `start` and at `mark` in the source map. The array starts with room for
    /// the two operands every chain has, and an OR of thousands of clauses appends to it.
    private mutating func parseChain(_ connective: PrecedenceTable.Connective, first: consuming PredicateOrExpression,
                                     start: Int, mark: Int) throws(PredicateFormatError) -> PredicateOrExpression {
        let connectiveToken = current
        // Nodes are moved into the array (`consume`), not copied and the originals destroyed.
        let (head, headHeight) = try requirePredicate(consume first)
        advance()
        let second = connective == .or ? try parseAnd()
            : current.isNotOperator ? try parseNot() : try parsePrimaryPredicate()
        let (tail, tailHeight) = try requirePredicate(consume second)
        var operands = [consume head, consume tail]
        var height = max(headHeight, tailHeight)
        while PrecedenceTable.connective(current) == connective {
            advance()
            let next = connective == .or ? try parseAnd()
                : current.isNotOperator ? try parseNot() : try parsePrimaryPredicate()
            let (operand, operandHeight) = try requirePredicate(consume next)
            operands.append(consume operand)
            height = max(height, operandHeight)
        }
        try checkHeight(height + 1, at: connectiveToken)
        positions.node(from: start, to: previousEnd, since: mark)
        return .predicate(connective == .and ? .and(operands) : .or(operands), height: height + 1)
    }

    /// `not-predicate = ( "NOT" | "!" ) , not-predicate | primary-predicate`.
    mutating func parseNot() throws(PredicateFormatError) -> PredicateOrExpression {
        guard current.isNotOperator else { return try parsePrimaryPredicate() }
        let not = current
        try enter()
        defer { leave() }
        advance()
        let mark = positions.mark
        let parsed = try parseNot()
        let operand = try requirePredicate(parsed)
        try checkHeight(operand.height + 1, at: not)
        positions.node(from: not.start, to: previousEnd, since: mark)
        return .predicate(.not(operand.node), height: operand.height + 1)
    }

    /// `primary-predicate`: a parenthesised predicate, a constant predicate, or a comparison.
    mutating func parsePrimaryPredicate() throws(PredicateFormatError) -> PredicateOrExpression {
        let t = current
        if t.kind == .keyword {
            switch t.keyword {
            case .truePredicate, .falsePredicate:
                advance()
                positions.node(from: t.start, to: t.end, since: positions.mark)
                return .predicate(.constant(t.keyword == .truePredicate), height: 1)
            case .any, .someQuantifier, .all, .noneQuantifier: return try parseQuantified()
            default: break
            }
        }
        let start = t.start
        if t.kind == .leftParen {
            try enter()
            defer { leave() }
            advance()
            let inner = try parseOr()
            try expect(.rightParen, "')'", hint: "every '(' needs a matching ')'")
            positions.widenLast(from: start, to: previousEnd)
            switch inner {
            case .predicate:
                if let op = PrecedenceTable.comparisonOperator(current) {
                    throw error(.unexpectedToken, "a predicate in parentheses cannot be compared with \(op.symbol)",
                                hint: "compare values, not conditions; use TERNARY(condition, a, b) to turn a condition into a value")
                }
                return inner
            case .expression(let e, _, _):
                // A parenthesised expression: it may go on with postfix and binary operators.
                let operand = try parsePostfix(on: e, parenthesized: true)
                let whole = try parseBinary(minLevel: 0, seed: operand)
                return try parseComparisonTail(whole, start: start)
            }
        }
        let lhs = try parseOperand()
        return try parseComparisonTail(lhs, start: start)
    }

    /// `comparison` with a quantifier: `ANY`, `SOME`, `ALL`, `NONE` (= `NOT ANY`).
    mutating func parseQuantified() throws(PredicateFormatError) -> PredicateOrExpression {
        let q = current
        advance()
        if current.kind == .keyword, [Keyword.any, .someQuantifier, .all, .noneQuantifier].contains(current.keyword!) {
            throw error(.unexpectedToken, "quantifiers cannot be nested",
                        hint: "use one of ANY, ALL or NONE before the collection; nest collections with SUBQUERY")
        }
        let start = current.start, mark = positions.mark
        let lhs = try parseExpression()
        let quantifier: Quantifier = q.keyword == .all ? .all : .any
        guard case .predicate(let p, let h) = try parseComparisonTail(lhs, start: start, quantifier: quantifier,
                                                                       nodeStart: q.start) else {
            throw unexpected(expected: ["a comparison operator"],
                             hint: "\(q.keyword!.spelling) needs a comparison, as in \(q.keyword!.spelling) tags == 'a'")
        }
        guard q.keyword == .noneQuantifier else { return .predicate(p, height: h) }
        try checkHeight(h + 1, at: q)
        positions.node(from: q.start, to: previousEnd, since: mark)
        return .predicate(.not(p), height: h + 1)
    }

    /// After an expression: a comparison operator makes it a comparison; anything else leaves
    /// it an expression for the caller to judge. `lhs` is the subtree the parser recorded last;
    /// the comparison's range starts at `nodeStart` (a quantifier) or else at `start`.
    mutating func parseComparisonTail(_ lhs: consuming Parsed, start: Int, quantifier: Quantifier = .direct, nodeStart: Int? = nil)
        throws(PredicateFormatError) -> PredicateOrExpression
    {
        let lhsEnd = previousEnd
        let lhsMark = positions.lastSubtree.mark
        guard let op = PrecedenceTable.comparisonOperator(current) else {
            try rejectNegatedOperator(lhsStart: start, lhsEnd: lhsEnd)
            if current.kind == .identifier, !current.escaped, peek().kind == .colon {
                return try parseSelectorOperator(lhs, start: start, lhsMark: lhsMark, quantifier: quantifier, nodeStart: nodeStart)
            }
            return .expression(lhs, start: start, end: lhsEnd)
        }
        let opToken = current
        advance()
        let options = try parseOptions(for: op, opToken: opToken)
        let rhsStart = current.start
        let rhs = try parseOperand()
        if op == .between { try checkBetweenBounds(rhs.node, from: rhsStart, to: previousEnd) }
        try checkHeight(max(lhs.height, rhs.height) + 1, at: opToken)
        if let next = PrecedenceTable.comparisonOperator(current) {
            throw chainedComparison(op, next, start: start, lhsEnd: lhsEnd, rhsStart: rhsStart)
        }
        positions.node(from: nodeStart ?? start, to: previousEnd, since: lhsMark)
        return .predicate(.comparison(ComparisonNode(lhs.node, op, rhs.node, quantifier: quantifier, options: options)),
                          height: max(lhs.height, rhs.height) + 1)
    }

    /// The error for `a < b < c`, with a hint that quotes the operands. Apart from
    /// ``parseComparisonTail(_:start:quantifier:nodeStart:)``, whose frame it made larger.
    @inline(never)
    private mutating func chainedComparison(_ op: ComparisonOperator, _ next: ComparisonOperator, start: Int, lhsEnd: Int,
                                            rhsStart: Int) -> PredicateFormatError {
        let middle = text(from: rhsStart, to: previousEnd)
        let first = text(from: start, to: lhsEnd)
        // Read the third operand on a copy, only to quote it in the hint.
        var probe = self
        probe.advance()
        let thirdStart = probe.current.start
        let third = (try? probe.parseExpression()) != nil ? probe.text(from: thirdStart, to: probe.previousEnd) : "…"
        if probe.needsLargeStack { needsLargeStack = true }
        let ascending: Set<ComparisonOperator> = [.lessThan, .lessThanOrEqual]
        let hint = ascending.contains(op) && ascending.contains(next)
            ? "write \(middle) BETWEEN {\(first), \(third)}, or join two comparisons with AND"
            : "join two comparisons with AND: \(first) \(op.symbol) \(middle) AND \(middle) \(next.symbol) \(third)"
        return error(.chainedComparison, "comparisons cannot be chained", hint: hint)
    }

    /// `bounds`: a literal right side of BETWEEN (a `%@` argument included) must be a pair,
    /// `{low, high}`; anything else is an error at that operand now, not at every evaluation.
    /// Key paths, variables and other expressions are checked when evaluated.
    func checkBetweenBounds(_ rhs: ExpressionNode, from start: Int, to end: Int) throws(PredicateFormatError) {
        let written = text(from: start, to: end)
        let found: String
        switch rhs {
        case .constant(.array(let a)) where a.count == 2: return
        case .constant(let v):
            found = written.hasPrefix("%") ? "\(written) (\(v.kindDescription), \(v))" : written
        case .aggregate(let items) where items.count != 2:
            found = "\(written) (\(items.count) element\(items.count == 1 ? "" : "s"))"
        default: return
        }
        throw error(.badBetweenBounds, "BETWEEN needs an array of exactly two bounds, not \(found)", from: start, to: end,
                    hint: "write x BETWEEN {low, high}")
    }

    /// `options = "[" , option-letter , { option-letter } , "]"`. Inlined down to the test for
    /// `[`, which most comparisons lack.
    @inline(__always)
    mutating func parseOptions(for op: ComparisonOperator, opToken: Token) throws(PredicateFormatError) -> ComparisonOptions {
        guard current.kind == .leftBracket else { return [] }
        return try parseOptionLetters(for: op)
    }

    private mutating func parseOptionLetters(for op: ComparisonOperator) throws(PredicateFormatError) -> ComparisonOptions {
        let open = current
        advance()
        guard current.kind == .identifier || current.kind == .keyword else {
            throw unexpected(expected: ["option letters such as c, d or cd"],
                             hint: "options are c (case-insensitive), d (diacritic-insensitive), n (normalized), l (locale)")
        }
        let lettersToken = current
        var options: ComparisonOptions = []
        if let ascii = asciiOptions(lettersToken) {
            options = ascii
        } else {
            options = try unicodeOptions(lettersToken)
        }
        advance()
        try expect(.rightBracket, "']'", hint: "close the options with ']', as in LIKE[cd]")
        guard op.acceptsOptions else {
            throw error(.unexpectedToken, "\(op.symbol) takes no options", from: open.start, to: previousEnd,
                        hint: "remove \(text(from: open.start, to: previousEnd))")
        }
        return options
    }

    /// The options of an ASCII word of option letters, read from its bytes; nil when a byte is
    /// no option letter, for ``unicodeOptions(_:)`` to find and report.
    private func asciiOptions(_ t: Token) -> ComparisonOptions? {
        var options: ComparisonOptions = []
        for i in t.start..<t.end {
            switch lexer.bytes[i] | 0x20 {
            case UInt8(ascii: "c"): options.insert(.caseInsensitive)
            case UInt8(ascii: "d"): options.insert(.diacriticInsensitive)
            case UInt8(ascii: "l"): options.insert(.localeSensitive)
            case UInt8(ascii: "n"): options.insert(.normalized)
            case UInt8(ascii: "w"): options.insert(.wordBoundary)
            default: return nil
            }
        }
        return options
    }

    /// The options of a word of option letters, by its lower-cased characters; the first that
    /// is no option letter is the error.
    private func unicodeOptions(_ lettersToken: Token) throws(PredicateFormatError) -> ComparisonOptions {
        let letters = text(from: lettersToken.start, to: lettersToken.end)
        var options: ComparisonOptions = []
        for ch in letters.lowercased() {
            guard let option = ComparisonOptions.letters.first(where: { $0.0 == ch })?.1 else {
                throw error(.unexpectedToken, "unknown comparison option '\(ch)'", at: lettersToken,
                            hint: "options are c (case-insensitive), d (diacritic-insensitive), n (normalized), l (locale)")
            }
            options.insert(option)
        }
        return options
    }

    /// `x NOT IN y` and friends (decision D6): an error that shows the accepted spelling.
    mutating func rejectNegatedOperator(lhsStart: Int, lhsEnd: Int) throws(PredicateFormatError) {
        guard current.isNotOperator, let op = PrecedenceTable.comparisonOperator(peek()) else { return }
        let notToken = current
        let lhsText = text(from: lhsStart, to: lhsEnd)
        advance()
        let opStart = current.start
        // The operator token's own end: a spelling may be shorter than the symbol (`=` for `==`).
        let opEnd = current.end
        let opToken = current
        advance()
        _ = try? parseOptions(for: op, opToken: opToken)
        let opText = text(from: opStart, to: previousEnd)
        var rhsText = "…"
        let rhsStart = current.start
        if (try? parseExpression()) != nil { rhsText = text(from: rhsStart, to: previousEnd) }
        throw error(.negatedOperator, "NOT cannot negate an operator; negate the whole comparison",
                    from: notToken.start, to: opEnd,
                    hint: "write NOT (\(lhsText) \(opText) \(rhsText))")
    }

    /// `lhs selector: rhs`, Apple's custom selector operator (`SELF isKindOfClass: %@`): the
    /// comparison `FUNCTION(lhs, "selector:", rhs) == YES` (``SelectorOperator``). What it
    /// means is decided when it is evaluated, not here.
    mutating func parseSelectorOperator(_ lhs: Parsed, start: Int, lhsMark: Int, quantifier: Quantifier, nodeStart: Int?)
        throws(PredicateFormatError) -> PredicateOrExpression
    {
        let name = current
        let selector = text(of: name) + ":"
        guard quantifier == .direct else {
            throw error(.unsupported, "ANY and ALL cannot range over a custom selector operator ('\(selector)')",
                        from: name.start, to: peek().end,
                        hint: "test each element with SUBQUERY(collection, $x, $x \(selector) value).@count > 0")
        }
        guard SelectorOperator.isOperatorSelector(selector) else {
            throw error(.unexpectedToken, "'\(selector)' cannot be a selector operator", from: name.start, to: peek().end,
                        hint: "a selector operator is one name and a colon, as in SELF isKindOfClass: 'NSString'")
        }
        advance()
        let colon = current
        advance()
        let rhs = try parseExpression()
        let h = max(lhs.height, rhs.height) + 2
        try checkHeight(h, at: name)
        if let next = PrecedenceTable.comparisonOperator(current) {
            throw error(.chainedComparison, "comparisons cannot be chained: \(next.symbol) after a selector operator",
                        hint: "join two comparisons with AND")
        }
        // The tree is FUNCTION(lhs, "selector:", rhs) == YES: the call covers both operands,
        // the YES is the selector's own text, the comparison all of it.
        positions.node(from: start, to: previousEnd, since: lhsMark)
        positions.node(from: name.start, to: colon.end, since: positions.mark)
        positions.node(from: nodeStart ?? start, to: previousEnd, since: lhsMark)
        return .predicate(.comparison(SelectorOperator.comparison(lhs.node, selector: selector, rhs.node)), height: h)
    }

    /// A bare expression where a predicate is required is an error (decision D6).
    ///
    /// Inlined, with the error apart: called for every operand, and as a call it made the
    /// compiler copy the parser.
    /// The operand is consumed, so that its node is moved out rather than copied (a comparison's
    /// operands retained) and the original destroyed (released again).
    /// Mutating, as is ``bareExpression(_:start:end:)``, for the reason given at
    /// ``checkHeight(_:at:)``: no copy of the parser per operand.
    @inline(__always)
    mutating func requirePredicate(_ x: consuming PredicateOrExpression) throws(PredicateFormatError) -> (node: PredicateNode, height: Int) {
        switch consume x {
        case .predicate(let p, let h): return (p, h)
        case .expression(let e, let start, let end): throw bareExpression(e, start: start, end: end)
        }
    }

    /// The error for a bare expression where a predicate is required.
    @inline(never)
    mutating func bareExpression(_ e: Parsed, start: Int, end: Int) -> PredicateFormatError {
        // A long operand is under the caret already; the message and hint name it shortly.
        let full = text(from: start, to: end)
        let written = full.count <= 40 ? full : String(full.prefix(30)) + "…"
        let hint: String
        switch e.node {
        case .constant(.bool(true)): hint = "write TRUEPREDICATE for a predicate that is always true"
        case .constant(.bool(false)): hint = "write FALSEPREDICATE for a predicate that is always false"
        default: hint = full.count <= 40 ? "compare it with a value, as in \(written) == YES" : "compare it with a value, as in VALUE == YES"
        }
        if current.kind == .identifier || current.kind == .keyword, let s = suggestionForStrayWord() {
            return unexpected(expected: ["a comparison operator"], hint: s)
        }
        return error(.bareExpression, "\(written) is a value, not a predicate", from: start, to: end, hint: hint)
    }
}

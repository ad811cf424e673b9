/// Grammar rules `expression` … `primary` (grammar/predicate.ebnf, "expressions").
extension Parser {
    /// `expression = assignment`; `assignment = variable , ":=" , assignment | set-expression`.
    mutating func parseExpression() throws(PredicateFormatError) -> Parsed {
        try enter()
        defer { leave() }
        if current.kind == .variable, peek().kind == .assign {
            let variable = current
            let name = text(of: current)
            advance()
            advance()
            let mark = positions.mark
            let value = try parseExpression()
            try checkHeight(value.height + 1, at: variable)
            positions.node(from: variable.start, to: previousEnd, since: mark)
            return (.assignment(variable: name, value: value.node), value.height + 1)
        }
        if let leaf = parseLeafAlone() { return leaf }
        return try parseBinary(minLevel: 0, seed: nil)
    }

    /// `set-expression` … `power`: precedence climbing over ``PrecedenceTable/binaryLevels``.
    /// `seed` is an operand already parsed (a parenthesised expression in predicate position).
    mutating func parseBinary(minLevel: Int, seed: Parsed?) throws(PredicateFormatError) -> Parsed {
        var lhs: Parsed
        if let seed { lhs = seed } else { lhs = try parseUnary() }
        // Every operator node built here has the operand so far as its first child.
        let (lhsMark, lhsStart) = positions.lastSubtree
        while let (op, level) = PrecedenceTable.binaryOperator(current, in: lexer), level >= minLevel {
            let opToken = current
            advance()
            try enter()
            let nextLevel = PrecedenceTable.rightAssociative.contains(op) ? level : level + 1
            let rhs = try parseBinary(minLevel: nextLevel, seed: nil)
            leave()
            let height = max(lhs.height, rhs.height) + 1
            try checkHeight(height, at: opToken)
            positions.node(from: lhsStart, to: previousEnd, since: lhsMark)
            switch op {
            case .function(let f): lhs = (.function(f, [lhs.node, rhs.node]), height)
            case .set(let s): lhs = (.setOperation(s, lhs.node, rhs.node), height)
            }
        }
        return lhs
    }

    /// `unary = "-" , unary | "~" , unary | postfix`. A minus directly before a number literal
    /// is folded into a negative constant (so `-9223372036854775808` is an integer).
    mutating func parseUnary() throws(PredicateFormatError) -> Parsed {
        switch current.kind {
        case .minus:
            let minus = current
            let next = peek()
            if next.kind == .integer || next.kind == .float {
                advance()
                let literal = current
                advance()
                let value: PredicateValue
                if literal.kind == .float {
                    value = .double(-literal.double)
                } else if let m = literal.integer, m <= UInt64(Int64.max) + 1 {
                    value = m == UInt64(Int64.max) + 1 ? .int(Int64.min) : .int(-Int64(m))
                } else {
                    value = .double(-integerLiteralAsDouble(literal))
                }
                positions.node(from: minus.start, to: literal.end, since: positions.mark)
                return try postfixAfter((.constant(value), 1))
            }
            advance()
            try enter()
            defer { leave() }
            let mark = positions.mark
            let operand = try parseUnary()
            try checkHeight(operand.height + 1, at: minus)
            positions.node(from: minus.start, to: previousEnd, since: mark)
            return (.function(.negate, [operand.node]), operand.height + 1)
        case .tilde:
            let tilde = current
            advance()
            try enter()
            defer { leave() }
            let mark = positions.mark
            let operand = try parseUnary()
            try checkHeight(operand.height + 1, at: tilde)
            positions.node(from: tilde.start, to: previousEnd, since: mark)
            return (.function(.onesComplement, [operand.node]), operand.height + 1)
        case .plus:
            throw error(.unexpectedToken, "'+' cannot start an expression", hint: "remove the '+': numbers are positive unless negated")
        default:
            let primaryStart = current.kind
            let primary = try parsePrimary()
            return try parsePostfix(on: primary, parenthesized: primaryStart == .leftParen)
        }
    }

    /// A folded negative literal is a primary too: `-1[0]` never happens, but `-5.x` is odd
    /// enough that postfix after a negative literal is read as applying to the literal.
    private mutating func postfixAfter(_ p: Parsed) throws(PredicateFormatError) -> Parsed {
        try parsePostfix(on: p, parenthesized: true)
    }

    /// The height a constant has when its printed form is parsed: a level per brace and per
    /// CAST (sets, dictionaries, dates, data, decimals and NaN print as CASTs, reference §7.2).
    /// Stops counting once past `limit`, with a result that is then past it too.
    static func printedHeight(of value: PredicateValue, limit: Int) -> Int {
        guard limit > 0 else { return 2 }
        func deepest(_ values: some Sequence<PredicateValue>) -> Int {
            values.reduce(0) { max($0, printedHeight(of: $1, limit: limit - 1)) }
        }
        switch value {
        case .array(let a): return deepest(a) + 1
        case .set(let a): return deepest(a) + 2
        case .dictionary(let d): return d.isEmpty ? 2 : max(1, deepest(d.values)) + 3
        case .date, .data, .decimal: return 2
        case .double(let d): return d.isFinite ? 1 : 2
        default: return 1
        }
    }

    /// An integer literal too large for Int64, as the nearest double.
    func integerLiteralAsDouble(_ t: Token) -> Double {
        if let m = t.integer { return Double(m) }
        return Double(text(from: t.start, to: t.end)) ?? .infinity
    }

    /// `postfix = primary , { "." , key-component | "[" , index-spec , "]" }`.
    /// Dots after a key path extend that key path (one node for `a.b.c`); after anything else,
    /// or after parentheses, they start a key path on that operand.
    ///
    /// The components of the key path being read are collected in one local array and put into
    /// a node only when the path ends: extending a path held in a node copied the whole array
    /// per dot (the node shares it), which made `a.b.b.…` quadratic.
    mutating func parsePostfix(on primary: Parsed, parenthesized: Bool) throws(PredicateFormatError) -> Parsed {
        /// The key path being read: on SELF, or on `e`'s node, with the components so far.
        enum Path { case none, onSelf, on }
        guard current.kind == .dot || current.kind == .leftBracket else {
            // No postfix: the primary as it is (a shared leaf node stays shared).
            try checkHeight(primary.height)
            return primary
        }
        var e = primary
        var path: [String] = []
        var kind = Path.none
        // The primary is the subtree recorded last; everything built here starts with it.
        let (mark, start) = positions.lastSubtree
        if !parenthesized {
            switch e.node {
            case .keyPath(let p):
                path = p; kind = .onSelf; e.node = .evaluatedObject
                positions.drop(since: mark)
            case .keyPathOn(let operand, let p):
                path = p; kind = .on; e.node = operand
                positions.dropLast()
            default: break
            }
        }
        /// `e` with the pending key path applied.
        func finished(_ e: Parsed, _ kind: Path, _ path: [String], _ positions: inout SourceMapRecorder, end: Int) -> Parsed {
            switch kind {
            case .none: return e
            case .onSelf:
                positions.node(from: start, to: end, since: mark)
                return (.keyPath(path), e.height)
            case .on:
                positions.node(from: start, to: end, since: mark)
                return (.keyPathOn(e.node, path), e.height)
            }
        }
        while true {
            switch current.kind {
            case .dot:
                advance()
                let components = try parseKeyComponents()
                if kind == .none {
                    kind = .on
                    e.height += 1
                }
                path.append(contentsOf: components)
            case .leftBracket:
                e = finished(e, kind, path, &positions, end: previousEnd)
                kind = .none
                path = []
                let open = current
                advance()
                let sub: IndexSubscript
                var subHeight = 0
                if current.kind == .keyword, peek().kind == .rightBracket,
                   let k = current.keyword, [.first, .last, .size].contains(k) {
                    sub = k == .first ? .first : (k == .last ? .last : .size)
                    advance()
                } else {
                    let idx = try parseExpression()
                    sub = .expression(idx.node)
                    subHeight = idx.height
                }
                try expect(.rightBracket, "']'", hint: "close the index with ']'")
                let h = max(e.height, subHeight) + 1
                try checkHeight(h, at: open)
                positions.node(from: start, to: previousEnd, since: mark)
                e = (.index(e.node, sub), h)
            default:
                try checkHeight(e.height)
                return finished(e, kind, path, &positions, end: previousEnd)
            }
        }
    }

    /// `key-component = identifier | "#" , word | "@" , identifier`, or `%K` (or `%@` given a
    /// string), whose argument may hold several components (`$x.%K`, common in SUBQUERY templates).
    mutating func parseKeyComponents() throws(PredicateFormatError) -> [String] {
        let t = current
        switch t.kind {
        case .identifier, .collectionOperator:
            advance()
            return [text(of: t)]
        case .formatSpecifier where lexer.bytes[t.end - 1] == UInt8(ascii: "K"):
            advance()
            guard case .keyPath(let components) = try arguments.bind(t, text(of: t), source: source) else { return [] }
            return components
        case .formatSpecifier where lexer.bytes[t.end - 1] == UInt8(ascii: "@"):
            // Apple reads a string `%@` after a dot as a key (`SELF.%@.value`), as `%K`.
            advance()
            switch try arguments.bind(t, text(of: t), source: source) {
            case .constant(.string(let key)):
                let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard !key.isEmpty, !components.contains(where: \.isEmpty) else {
                    throw error(.argumentType, "%@ after '.' needs a key, but its argument \"\(key)\" is not a key path", at: t,
                                hint: "a key path is one or more non-empty keys joined by dots")
                }
                return components
            case .keyPath(let components):
                return components
            default:
                throw error(.argumentType, "%@ after '.' stands for a key, so its argument must be a string", at: t,
                            hint: "pass the key name as a String, or write %K")
            }
        case .keyword:
            let word = text(from: t.start, to: t.end)
            throw error(.reservedWord, "\(t.keyword!.spelling) is a reserved word and cannot be a key as written",
                        hint: "escape it with '#': .#\(word)")
        default:
            throw unexpected(expected: ["a key after '.'"], hint: "key paths are written a.b.c; numbers need a digit after '.', as in 2.5")
        }
    }

    /// `primary`: literals, SELF, variables, format arguments, key paths, aggregates, calls and
    /// the special forms.
    mutating func parsePrimary() throws(PredicateFormatError) -> Parsed {
        let t = current, mark = positions.mark
        let p = try parsePrimaryNode()
        // Leaves are recorded here; nodes with children record themselves, and a parenthesised
        // expression is recorded inside.
        guard positions.mark == mark else { return p }
        switch p.node {
        case .constant, .keyPath, .variable, .evaluatedObject, .anyKey:
            positions.node(from: t.start, to: previousEnd, since: mark)
        default:
            // An expression passed whole as a %@ argument.
            positions.subtree(p.node, from: t.start, to: previousEnd)
        }
        return p
    }

    private mutating func parsePrimaryNode() throws(PredicateFormatError) -> Parsed {
        let t = current
        switch t.kind {
        case .integer, .float, .string, .variable, .collectionOperator:
            advance()
            return (leaf(t), 1)
        case .formatSpecifier:
            advance()
            let node = try arguments.bind(t, text(of: t), source: source)
            // A nested collection argument prints as nested braces, which must read back (D9).
            guard case .constant(let value) = node else { return (node, 1) }
            let h = Self.printedHeight(of: value, limit: Self.maxNestingDepth)
            try checkHeight(h, at: t)
            return (node, h)
        case .leftBrace:
            return try parseAggregate()
        case .leftParen:
            try enter()
            defer { leave() }
            advance()
            let inner = try parseExpression()
            try expect(.rightParen, "')'", hint: "every '(' needs a matching ')'")
            positions.widenLast(from: t.start, to: previousEnd)
            return inner
        case .identifier:
            return try parseIdentifierPrimary()
        case .keyword:
            return try parseKeywordPrimary()
        case .eof:
            throw unexpected(expected: ["an expression"], hint: "the predicate ends too early")
        default:
            throw unexpected(expected: ["an expression"])
        }
    }

    /// A key path, a function call (`sum(x)`, `modulus:by:(a, b)`), or `FUNCTION`/`TERNARY`.
    private mutating func parseIdentifierPrimary() throws(PredicateFormatError) -> Parsed {
        let t = current
        if !t.escaped, peek().kind == .leftParen {
            if lexer.isContextual(t, "FUNCTION") { return try parseFunctionForm() }
            if lexer.isContextual(t, "TERNARY") { return try parseTernary() }
            advance()
            return try parseBuiltinCall(name: text(of: t), nameStart: t.start)
        }
        if !t.escaped, peek().kind == .colon {
            // A selector name: `sum:(…)`, `modulus:by:(…)`.
            var name = ""
            let start = t.start
            while current.kind == .identifier, peek().kind == .colon {
                name += text(of: current) + ":"
                advance()
                advance()
            }
            guard current.kind == .leftParen else {
                throw unexpected(expected: ["'(' after the function name \(name)"],
                                 hint: "functions with several arguments are written with their whole selector, as in modulus:by:(10, 3)")
            }
            return try parseBuiltinCall(name: name, nameStart: start)
        }
        advance()
        return (leaf(t), 1)
    }

    /// The node of a leaf token (a number, string, variable, key or collection operator) the
    /// parser has just passed: the node made before for the same spelling, or a new one.
    /// Inlined: every operand of a comparison is one, most often.
    @inline(__always)
    private mutating func leaf(_ t: Token) -> ExpressionNode {
        if t.kind == .string { noteQuotedSpecifier(t) }
        if let known = leaves.node(for: t, in: lexer.bytes) { return known }
        return newLeaf(t)
    }

    /// The node of a leaf not made before (or no longer kept), kept for the next time. Apart
    /// from ``leaf(_:)``, whose commonest answer, a node made before, then costs a small call.
    @inline(never)
    private mutating func newLeaf(_ t: Token) -> ExpressionNode {
        let node: ExpressionNode
        switch t.kind {
        case .integer:
            if let m = t.integer, m <= UInt64(Int64.max) {
                node = .constant(.int(Int64(m)))
            } else {
                // Integers beyond Int64 become doubles (reference §1.5).
                node = .constant(.double(integerLiteralAsDouble(t)))
            }
        case .float: node = .constant(.double(t.double))
        case .string: node = .constant(.string(text(of: t)))
        case .variable: node = .variable(text(of: t))
        default: node = .keyPath([text(of: t)])
        }
        leaves.remember(node, for: t, in: lexer.bytes)
        return node
    }

    /// The commonest operand, a leaf with nothing after it that could extend it (a `.`, `[`,
    /// `(`, `:`, a binary operator, or a word that may be UNION, INTERSECT or MINUS): its node
    /// without the five rule calls from `set-expression` down to `primary`, which would come
    /// back with the same node, height and source-map entry. Nil for anything else.
    private mutating func parseLeafAlone() -> Parsed? {
        guard Self.isLeaf(current.kind), !Self.extendsLeaf(peek().kind) else { return nil }
        return takeLeaf()
    }

    /// ``parseExpression()`` where a comparison's operand stands: a lone leaf (see
    /// ``parseLeafAlone()``) is read here, inlined into the comparison rules, rather than
    /// through the call to the expression rule. The same levels are entered, so the same
    /// nesting errors are found.
    @inline(__always)
    mutating func parseOperand() throws(PredicateFormatError) -> Parsed {
        if Self.isLeaf(current.kind), !Self.extendsLeaf(peek().kind) {
            try enter()
            defer { leave() }
            return takeLeaf()
        }
        return try parseExpression()
    }

    /// Token kinds that are a whole primary by themselves (``leaf(_:)``).
    @inline(__always)
    private static func isLeaf(_ kind: Token.Kind) -> Bool {
        switch kind {
        case .identifier, .integer, .float, .string, .variable: return true
        default: return false
        }
    }

    /// Whether a token after a leaf may continue the expression it starts: a `.`, `[`, `(`,
    /// `:`, `:=`, a binary operator, or a word that may be UNION, INTERSECT or MINUS.
    @inline(__always)
    private static func extendsLeaf(_ kind: Token.Kind) -> Bool {
        switch kind {
        case .dot, .leftBracket, .leftParen, .colon, .assign, .identifier,
             .pipe, .caret, .ampersand, .shiftLeft, .shiftRight, .plus, .minus, .star, .slash, .starStar:
            return true
        default: return false
        }
    }

    /// The current token, a leaf, as a node of height 1, recorded in the source map.
    @inline(__always)
    private mutating func takeLeaf() -> Parsed {
        let t = current
        let mark = positions.mark
        advance()
        let node = leaf(t)
        positions.node(from: t.start, to: previousEnd, since: mark)
        return (node, 1)
    }

    /// A string literal whose text holds a specifier (`'%@'`): if arguments go unused, it is
    /// why, and the warning points at it. Most strings hold no `%`, seen in their bytes.
    ///
    /// Inlined down to that test; the rest is ``noteSpecifierIfQuoted(_:)``.
    @inline(__always)
    private mutating func noteQuotedSpecifier(_ t: Token) {
        if !t.hasEscapes {
            var percent = false
            for i in t.textStart..<t.textEnd where lexer.bytes[i] == UInt8(ascii: "%") { percent = true; break }
            guard percent else { return }
        }
        noteSpecifierIfQuoted(t)
    }

    @inline(never)
    private mutating func noteSpecifierIfQuoted(_ t: Token) {
        let value = text(of: t)
        if value.utf8.contains(UInt8(ascii: "%")), let spec = ArgumentList.quotedSpecifier(in: value) {
            quotedSpecifiers.append((t.start, t.end, spec))
        }
    }

    /// Keywords that start a primary: literals, SELF, ANYKEY, SUBQUERY, CAST, FETCH.
    private mutating func parseKeywordPrimary() throws(PredicateFormatError) -> Parsed {
        let t = current
        let k = t.keyword!
        switch k {
        case .true, .yes: advance(); return (.constant(.bool(true)), 1)
        case .false, .no: advance(); return (.constant(.bool(false)), 1)
        case .null, .nil: advance(); return (.constant(.null), 1)
        case .self: advance(); return (.evaluatedObject, 1)
        case .anyKey: advance(); return (.anyKey, 1)
        case .subquery: return try parseSubquery()
        case .cast: return try parseCast()
        case .fetch:
            throw error(.unsupported, "FETCH expressions need a Core Data managed object context and are not supported",
                        hint: "run the inner fetch separately and pass its results with %@")
        case .truePredicate, .falsePredicate:
            throw error(.unexpectedToken, "\(k.spelling) is a predicate and cannot be used as a value",
                        hint: "use YES or NO for a Boolean value")
        case .any, .someQuantifier, .all, .noneQuantifier:
            throw error(.unexpectedToken, "\(k.spelling) must stand at the start of a comparison",
                        hint: "write \(k.spelling) collection.key == value")
        case .not:
            throw error(.unexpectedToken, "NOT negates a predicate and cannot be used inside a value",
                        hint: "put NOT before the whole comparison: NOT (a == b)")
        case .and, .or, .in, .like, .matches, .contains, .beginsWith, .endsWith, .between, .utiConformsTo, .utiEquals:
            // `a == 1 AND OR b == 2`, `name == LIKE 'x'`: an operand is missing, most likely.
            let word = text(from: t.start, to: t.end)
            throw unexpected(expected: ["an expression"],
                             hint: "a value or key is missing before \(k.spelling); a key named \(word) is written #\(word)")
        case .caseInsensitive, .ci:
            throw error(.reservedWord, "\(k.spelling) is reserved and has no meaning in the language",
                        hint: "for case-insensitive comparison write the [c] option, as in name ==[c] 'bob'; to use it as a key write #\(text(from: t.start, to: t.end))")
        default:
            let word = text(from: t.start, to: t.end)
            throw error(.reservedWord, "\(k.spelling) is a reserved word and cannot be a key as written",
                        hint: "escape it with '#': #\(word)")
        }
    }

    /// `aggregate = "{" , [ expression , { "," , expression } ] , "}"`. All-constant aggregates
    /// become one array constant, so `{1, 2}` and an array passed as `%@` are the same tree.
    mutating func parseAggregate() throws(PredicateFormatError) -> Parsed {
        let open = current, mark = positions.mark
        try enter()
        defer { leave() }
        advance()
        var elements: [ExpressionNode] = []
        var height = 0
        if current.kind != .rightBrace {
            while true {
                let e = try parseExpression()
                elements.append(e.node)
                height = max(height, e.height)
                if current.kind == .comma {
                    guard elements.count < Self.maxAggregateElements else {
                        throw error(.inputTooLong, "the list has more than \(Self.maxAggregateElements) elements", at: open,
                                    hint: "pass a long list as one argument: x IN %@")
                    }
                    advance()
                    continue
                }
                break
            }
        }
        try expect(.rightBrace, "',' or '}'", hint: "separate elements with commas and close the list with '}'")
        try checkHeight(height + 1, at: open)
        var constants: [PredicateValue] = []
        constants.reserveCapacity(elements.count)
        for e in elements {
            guard case .constant(let v) = e else {
                positions.node(from: open.start, to: previousEnd, since: mark)
                return (.aggregate(elements), height + 1)
            }
            constants.append(v)
        }
        positions.leaf(from: open.start, to: previousEnd, replacing: mark)
        // Still a level: the constant prints with these braces again (D9).
        return (.constant(.array(constants)), height + 1)
    }
}

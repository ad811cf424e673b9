/// ``PredicateLinter``'s checks of one comparison: what its operands' kinds, as far as they are
/// known before evaluation (constants and `%` arguments), say about it.
extension LintWalk {
    mutating func check(_ c: ComparisonNode, at node: SourceMap.Node, lhs: SourceMap.Node, rhs: SourceMap.Node) {
        checkOptions(c, lhs: lhs, rhs: rhs)
        checkLike(c, rhs: rhs)
        switch (c.lhs, c.rhs) {
        case (.constant(let a), .constant(let b)):
            checkConstants(c, a, b, at: node, lhs: lhs, rhs: rhs)
        default:
            checkNeverTrue(c, at: node, rhs: rhs)
        }
    }

    /// `[c]` and `[d]` fold letters; beside a number they change nothing.
    private mutating func checkOptions(_ c: ComparisonNode, lhs: SourceMap.Node, rhs: SourceMap.Node) {
        let folding = c.options.intersection([.caseInsensitive, .diacriticInsensitive])
        guard !folding.isEmpty else { return }
        func numeric(_ e: ExpressionNode) -> Bool {
            guard case .constant(let v) = e else { return false }
            if v.isNumber { return true }
            if let elements = v.collectionElements, !elements.isEmpty { return elements.allSatisfy(\.isNumber) }
            return false
        }
        guard numeric(c.lhs) || numeric(c.rhs) else { return }
        // The options are written between the operands: `[…]` after the operator.
        let lr = map.byteSpan(of: lhs), rr = map.byteSpan(of: rhs)
        var start = min(lr.end, rr.start), end = rr.start
        let utf8 = source.utf8
        let between = Array(utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)])
        if let open = between.firstIndex(of: UInt8(ascii: "[")), let close = between.lastIndex(of: UInt8(ascii: "]")), open < close {
            end = start + close + 1
            start += open
        }
        let number = numeric(c.rhs) ? shown(rhs) : shown(lhs)
        add(.optionsOnNumber, "\(folding.suffix) folds letters, but \(number) is a number: the option changes nothing",
            from: start, to: end, hint: "remove \(folding.suffix)", replacement: "")
    }

    /// `LIKE 'Bob'` is `== 'Bob'`: no `*` or `?`, so probably a pattern without its wildcard.
    /// Only a pattern written in the text: one passed as `%@` is a value of one call, and
    /// `name LIKE[c] %@` is also how code asks for a case-insensitive match of any pattern.
    private mutating func checkLike(_ c: ComparisonNode, rhs: SourceMap.Node) {
        guard c.op == .like, case .constant(.string(let pattern)) = c.rhs,
              !pattern.contains("*"), !pattern.contains("?"), !isArgument(rhs) else { return }
        // SQL's wildcard in a LIKE pattern: the usual reason for none of PQL's.
        let hint = pattern.contains("%")
            ? "LIKE's wildcards are * and ?, not SQL's %: '\(pattern.replacingOccurrences(of: "%", with: "*"))'"
            : "write ==\(c.options.suffix) for an exact match, or add * where any text may stand, as in '\(pattern)*'"
        add(.likeWithoutWildcard, "the LIKE pattern \(shown(rhs)) has no * or ?, so it only matches the whole string", at: rhs, hint: hint)
    }

    /// Both operands are constants: the result is fixed before any object is seen.
    private mutating func checkConstants(_ c: ComparisonNode, _ a: PredicateValue, _ b: PredicateValue,
                                         at node: SourceMap.Node, lhs: SourceMap.Node, rhs: SourceMap.Node) {
        let lhsArg = isArgument(lhs), rhsArg = isArgument(rhs)
        let op = c.op.symbol
        let outcome = (try? PredicateNode.comparison(c).evaluate(on: PredicateValue.null, limits: Self.limits)).map { $0 ? "true" : "false" }
        let always = outcome.map { ", so it is always \($0)" } ?? ""
        // `'story_id' == %d`: a key name in quotes is a string.
        for (side, value, otherIsArgument) in [(lhs, a, rhsArg), (rhs, b, lhsArg)] {
            let written = text(side)
            guard otherIsArgument, case .string(let s) = value, written.first == "'" || written.first == "\"",
                  Self.looksLikeKey(s) else { continue }
            add(.constantComparison, "\(written) is a string in quotes, not a key: \(shown(lhs)) \(op) \(shown(rhs)) compares two constants\(always)",
                at: side, hint: "remove the quotes to compare the key's value: \(s)", replacement: s)
            return
        }
        if lhsArg && rhsArg {
            if case .string(let s) = a {
                add(.constantComparison, "both sides of \(op) are values: %@ gives the string \"\(s)\", not the key \(s)", at: node,
                    hint: "pass key names with %K: %K \(op) %@")
            } else {
                add(.constantComparison, "both sides of \(op) are arguments, constants\(always)", at: node,
                    hint: "pass key names with %K: %K \(op) %@")
            }
            return
        }
        let equalOrOrdering: Set<ComparisonOperator> = [.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        if equalOrOrdering.contains(c.op), Self.neverEqualKinds(a, b) {
            add(.neverTrue, "\(shown(lhs)) \(op) \(shown(rhs)) compares \(a.kindDescription) with \(b.kindDescription)\(always)",
                at: node, hint: "compare a key with the value, as in key \(op) \(shown(rhs))")
            return
        }
        add(.constantPredicate, "\(shown(lhs)) \(op) \(shown(rhs)) compares two constants\(always)", at: node,
            hint: outcome == "false" ? "write FALSEPREDICATE, or compare a key" : "write TRUEPREDICATE, or compare a key")
    }

    /// One side is not a constant: comparisons decidable from the constant side alone.
    private mutating func checkNeverTrue(_ c: ComparisonNode, at node: SourceMap.Node, rhs: SourceMap.Node) {
        let ordering: Set<ComparisonOperator> = [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        if ordering.contains(c.op), c.lhs == .constant(.null) || c.rhs == .constant(.null) {
            add(.neverTrue, "\(c.op.symbol) against nil is never true: nil has no order", at: node,
                hint: "compare with == nil or != nil")
            return
        }
        guard case .constant(let b) = c.rhs else { return }
        switch c.op {
        case .between:
            if case .array(let bounds) = b, bounds.count == 2,
               let upperFirst = try? PredicateNode(format: "%@ > %@", argumentArray: [bounds[0], bounds[1]]).evaluate(on: PredicateValue.null, limits: Self.limits),
               upperFirst {
                add(.neverTrue, "the bounds \(shown(rhs)) are the wrong way round: nothing is between them", at: rhs,
                    hint: "put the lower bound first")
            }
        case .in:
            // An empty list written in the text; one passed as `%@` is one call's value
            // (an empty exclusion list is an ordinary one).
            if let elements = b.collectionElements, elements.isEmpty, c.quantifier != .all, !isArgument(rhs) {
                add(.neverTrue, "nothing is IN an empty collection: the comparison is never true", at: node)
            }
        case .like, .matches, .beginsWith, .endsWith:
            if !b.isNull, b.collectionElements == nil, !Self.isString(b) {
                add(.neverTrue, "\(c.op.symbol) compares strings, but \(shown(rhs)) is \(b.kindDescription)", at: rhs,
                    hint: "write the value in quotes, or use == for a number")
            }
        default: break
        }
    }

    /// Constants are compared to say what a comparison always gives: a hostile `MATCHES`
    /// pattern must not make linting slow, so the work is small and bounded.
    static let limits = EvaluationLimits(maxSteps: 100_000, maxRegexSteps: 1_000_000)

    static func isString(_ v: PredicateValue) -> Bool {
        if case .string = v { return true }
        return false
    }

    /// A string and a number are never equal, and never ordered against each other.
    static func neverEqualKinds(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
        (isString(a) && b.isNumber) || (a.isNumber && isString(b))
    }

    /// A name that reads as a key path: `story_id`, `address.city`.
    static func looksLikeKey(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
        }
    }
}

/// Applies one comparison operator to two evaluated values (reference §3.1, §6.2–§6.7).
/// Constants on the right are prepared once, at compile time, as a ``PreparedOperand``.
enum ComparisonEvaluation {
    /// What compile time can do ahead for a constant right side.
    enum PreparedOperand: @unchecked Sendable {
        case none
        /// A folded needle for BEGINSWITH / ENDSWITH / CONTAINS / IN on strings.
        case needle(String)
        case like(LikePattern)
        case regex(RegexPattern)
        /// Membership set for IN against a constant collection, literal options.
        case members(Set<PredicateValue>)
        /// The same with `[c]`/`[d]`: the strings folded once, so a member is found by folding
        /// the left side and looking it up.
        case foldedMembers(Set<PredicateValue>)
        /// Ordered bounds for BETWEEN.
        case bounds(PredicateValue, PredicateValue)
    }

    static func prepare(_ op: ComparisonOperator, rhs: PredicateValue, options: StringOptions) throws(EvalError) -> PreparedOperand {
        switch (op, rhs) {
        case (.beginsWith, .string(let s)), (.endsWith, .string(let s)), (.contains, .string(let s)):
            return options.localized ? .none : .needle(options.prepare(s))
        case (.like, .string(let s)): return .like(LikePattern(s, options: options))
        case (.matches, .string(let s)): return .regex(try RegexPattern(s, options: options))
        case (.in, .array(let a)), (.in, .set(let a)): return members(a, options)
        case (.in, .dictionary(let d)): return members(Array(d.values), options)
        case (.between, _):
            let (lo, hi) = try betweenBounds(rhs, options: options)
            return .bounds(lo, hi)
        default: return .none
        }
    }

    static func apply(_ op: ComparisonOperator, _ l: PredicateValue, _ r: PredicateValue, _ options: StringOptions,
                      _ prepared: PreparedOperand) throws(EvalError) -> Bool {
        switch op {
        case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            return try ValueComparison.relational(op, l, r, options)
        case .beginsWith, .endsWith:
            guard case .string(let s) = l, case .string(let p) = r else { return try nonString(op, l, r) }
            if options.localized { return StringSearch.localized(s, p, options, anchored: op) }
            let needle: String
            if case .needle(let n) = prepared { needle = n } else { needle = options.prepare(p) }
            return StringSearch.test(op, subject: s, preparedNeedle: needle, options: options)
        case .contains:
            return try contains(l, r, options, prepared)
        case .in:
            return try contains(r, l, options, prepared)
        case .like:
            guard case .string(let s) = l, case .string(let p) = r else { return try nonString(op, l, r) }
            if case .like(let pattern) = prepared { return pattern.matches(s) }
            return LikePattern(p, options: options).matches(s)
        case .matches:
            guard case .string(let s) = l, case .string(let p) = r else { return try nonString(op, l, r) }
            if case .regex(let regex) = prepared { return try regex.matches(s) }
            return try RegexCache.shared.pattern(p, options: options).matches(s)
        case .between:
            if l.isNull { return false }
            let lo: PredicateValue, hi: PredicateValue
            if case .bounds(let a, let b) = prepared { (lo, hi) = (a, b) } else { (lo, hi) = try betweenBounds(r, options: options) }
            guard try ValueComparison.relational(.greaterThanOrEqual, l, lo, options) else { return false }
            return try ValueComparison.relational(.lessThanOrEqual, l, hi, options)
        case .utiEquals, .utiConformsTo:
            guard case .string(let a) = l, case .string(let b) = r else { return try nonString(op, l, r) }
            return op == .utiEquals ? UniformTypes.equal(a, b) : UniformTypes.conforms(a, to: b)
        }
    }

    /// The prepared form of a constant collection IN looks into: its members, strings folded
    /// for `[c]`/`[d]` (nothing prepared for `[l]`, whose equality is Foundation's).
    static func members(_ elements: [PredicateValue], _ options: StringOptions) -> PreparedOperand {
        // Objects equal their keys, which hashing cannot see: such a collection is searched.
        if elements.contains(where: \.isDictionary) { return .none }
        if options.isLiteral { return .members(Set(elements)) }
        if options.localized { return .none }
        return .foldedMembers(Set(elements.map { folded($0, options) }))
    }

    /// A string in the form `[c]`/`[d]` compare it in; any other value as it is.
    @inline(__always)
    static func folded(_ v: PredicateValue, _ options: StringOptions) -> PredicateValue {
        if case .string(let s) = v { return .string(options.prepare(s)) }
        return v
    }

    /// `c CONTAINS x`: membership in a collection or a dictionary's values — some element
    /// `== x` under the options, which apply where both are strings (decision D20: Apple
    /// ignores them) — or a substring (options apply). Nil on either side is false.
    static func contains(_ c: PredicateValue, _ x: PredicateValue, _ options: StringOptions,
                         _ prepared: PreparedOperand) throws(EvalError) -> Bool {
        if c.isNull || x.isNull { return false }
        switch c {
        case .array(let a), .set(let a):
            return try member(x, of: a, options, prepared)
        case .dictionary(let d):
            if let id = c.objectID {
                throw EvalError.notACollection("IN and CONTAINS need a collection, and an object of \(id.entity) is one object",
                                               hint: "compare it with ==, or give an array of objects or keys")
            }
            return try member(x, of: d.values, options, prepared)
        case .string(let s):
            guard case .string(let needle) = x else {
                throw EvalError.typeMismatch("cannot look for \(x.kindDescription) in a string; the value is not a string")
            }
            if options.localized { return StringSearch.localized(s, needle, options, anchored: .contains) }
            if case .needle(let n) = prepared { return StringSearch.test(.contains, subject: s, preparedNeedle: n, options: options) }
            return StringSearch.test(.contains, subject: s, preparedNeedle: options.prepare(needle), options: options)
        default:
            throw EvalError.notACollection("IN and CONTAINS need a collection or a string, not \(c.kindDescription)")
        }
    }

    /// Whether some element of a collection equals `x` under the options.
    static func member<Elements: Collection<PredicateValue>>(_ x: PredicateValue, of elements: Elements, _ options: StringOptions,
                                                             _ prepared: PreparedOperand) throws(EvalError) -> Bool {
        switch prepared {
        case .members(let m) where !x.isDictionary: return m.contains(x)
        case .foldedMembers(let m) where !x.isDictionary: return m.contains(folded(x, options))
        case .needle(let n):
            // `coll CONTAINS[c] 'x'`: the constant on the right came folded.
            if case .string = x {
                let needle = PredicateValue.string(n)
                return elements.contains { folded($0, options) == needle }
            }
        default: break
        }
        if options.isLiteral, !x.isDictionary {
            // Plain equality, but an object among the elements equals its key.
            for e in elements {
                if e == x { return true }
                if e.isDictionary, try ValueComparison.equal(e, x, options) { return true }
            }
            return false
        }
        for e in elements where try ValueComparison.equal(e, x, options) { return true }
        return false
    }

    static func betweenBounds(_ r: PredicateValue, options: StringOptions) throws(EvalError) -> (PredicateValue, PredicateValue) {
        guard case .array(let a) = r, a.count == 2 else { throw badBounds(r.description) }
        // Bounds in reverse order are swapped (Apple does this); nil bounds match nothing.
        if !a[0].isNull, !a[1].isNull, (try? ValueComparison.compare(a[0], a[1], options)) == .orderedDescending {
            return (a[1], a[0])
        }
        return (a[0], a[1])
    }

    static func badBounds(_ found: String) -> EvalError {
        EvalError(kind: .badBetweenBounds, message: "BETWEEN needs an array of exactly two bounds, not \(found)",
                  hint: "write x BETWEEN {low, high}")
    }

    private static func nonString(_ op: ComparisonOperator, _ l: PredicateValue, _ r: PredicateValue) throws(EvalError) -> Bool {
        if l.isNull || r.isNull { return false }
        let bad = { if case .string = l { return r } else { return l } }()
        throw EvalError.typeMismatch("\(op.symbol) needs strings on both sides, not \(bad.kindDescription)",
                                     hint: op == .contains || op == .in ? nil : "use CAST(x, 'NSString') to compare a value as text")
    }
}

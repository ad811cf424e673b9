/// Specialised closures for the commonest comparison shape — one typed key against a
/// constant — that read the key without building a ``PredicateValue``. Each path gives exactly
/// what the general path gives; anything else falls back (returns nil).
enum FastPaths {
    static func comparison<Root>(_ c: ComparisonNode, options: StringOptions,
                                 reader: ValueReader<Root>) throws(EvalError) -> PredicateFunction<Root>? {
        guard case .keyPath(let path) = c.lhs, path.count == 1, !path[0].hasPrefix("@"),
              case .constant(let constant) = c.rhs else { return nil }
        let accessor = try reader.key(path[0])
        switch (accessor, c.quantifier) {
        case (.int(let get), .direct):
            return integer(get, c.op, constant)
        case (.double(let get), .direct):
            return double(get, c.op, constant)
        case (.string(let get), .direct):
            return try string(get, c.op, constant, options)
        case (.strings(let get), .any):
            // ANY tags == 'x' (literal): a scan without boxing.
            guard c.op == .equal, options.isLiteral, case .string(let s) = constant else { return nil }
            return { root, _ in get(root)?.contains { $0.utf8.elementsEqual(s.utf8) } ?? false }
        default:
            return nil
        }
    }

    private static func integer<Root>(_ get: @escaping @Sendable (Root) -> Int?, _ op: ComparisonOperator,
                                      _ constant: PredicateValue) -> PredicateFunction<Root>? {
        if constant.isNull {
            switch op {
            case .equal: return { root, _ in get(root) == nil }
            case .notEqual: return { root, _ in get(root) != nil }
            default: return nil
            }
        }
        if case .array(let bounds) = constant, op == .between, bounds.count == 2,
           case .int(var lo)? = bounds[0].numeric, case .int(var hi)? = bounds[1].numeric {
            if lo > hi { swap(&lo, &hi) }
            let l = Int(lo), h = Int(hi)
            return { root, _ in get(root).map { $0 >= l && $0 <= h } ?? false }
        }
        guard case .int(let c64)? = constant.numeric, let c = Int(exactly: c64) else { return nil }
        switch op {
        case .equal: return { root, _ in get(root) == c }
        case .notEqual: return { root, _ in get(root) != c }
        case .lessThan: return { root, _ in get(root).map { $0 < c } ?? false }
        case .lessThanOrEqual: return { root, _ in get(root).map { $0 <= c } ?? false }
        case .greaterThan: return { root, _ in get(root).map { $0 > c } ?? false }
        case .greaterThanOrEqual: return { root, _ in get(root).map { $0 >= c } ?? false }
        default: return nil
        }
    }

    private static func double<Root>(_ get: @escaping @Sendable (Root) -> Double?, _ op: ComparisonOperator,
                                     _ constant: PredicateValue) -> PredicateFunction<Root>? {
        if constant.isNull {
            switch op {
            case .equal: return { root, _ in get(root) == nil }
            case .notEqual: return { root, _ in get(root) != nil }
            default: return nil
            }
        }
        // Only constants a double represents exactly, so the comparison is the general one.
        guard let n = constant.numeric, case let d = n.doubleValue, !d.isNaN,
              n.compare(.double(d)) == .orderedSame else { return nil }
        switch op {
        case .lessThan: return { root, _ in get(root).map { $0 < d } ?? false }
        case .lessThanOrEqual: return { root, _ in get(root).map { $0 <= d } ?? false }
        case .greaterThan: return { root, _ in get(root).map { $0 > d } ?? false }
        case .greaterThanOrEqual: return { root, _ in get(root).map { $0 >= d } ?? false }
        default: return nil
        }
    }

    private static func string<Root>(_ get: @escaping @Sendable (Root) -> String?, _ op: ComparisonOperator,
                                     _ constant: PredicateValue, _ options: StringOptions) throws(EvalError) -> PredicateFunction<Root>? {
        if constant.isNull {
            switch op {
            case .equal: return { root, _ in get(root) == nil }
            case .notEqual: return { root, _ in get(root) != nil }
            default: return nil
            }
        }
        guard !options.localized else { return nil }
        switch (op, constant) {
        case (.equal, .string(let s)) where options.isLiteral:
            return { root, _ in get(root).map { $0.utf8.elementsEqual(s.utf8) } ?? false }
        case (.notEqual, .string(let s)) where options.isLiteral:
            return { root, _ in get(root).map { !$0.utf8.elementsEqual(s.utf8) } ?? true }
        case (.beginsWith, .string(let s)), (.endsWith, .string(let s)), (.contains, .string(let s)):
            let needle = options.prepare(s)
            return { root, _ in get(root).map { StringSearch.test(op, subject: $0, preparedNeedle: needle, options: options) } ?? false }
        case (.in, .array(let a)), (.in, .set(let a)):
            // Membership ignores options (spec §6.7); only strings can be members.
            let members = Set(a.compactMap { v -> String? in if case .string(let s) = v { return s } else { return nil } })
            return { root, _ in get(root).map { members.contains($0) && Self.literalMember($0, members) } ?? false }
        case (.like, .string(let s)):
            let pattern = LikePattern(s, options: options)
            return { root, _ in get(root).map { pattern.matches($0) } ?? false }
        case (.matches, .string(let s)):
            let regex = try RegexPattern(s, options: options)
            return { root, _ throws(EvalError) in
                guard let v = get(root) else { return false }
                return try regex.matches(v)
            }
        default:
            return nil
        }
    }

    /// Swift's String equality is canonical equivalence; membership must be literal.
    @inline(__always)
    private static func literalMember(_ s: String, _ members: Set<String>) -> Bool {
        guard let i = members.firstIndex(of: s) else { return false }
        return members[i].utf8.elementsEqual(s.utf8) || members.contains { $0.utf8.elementsEqual(s.utf8) }
    }
}

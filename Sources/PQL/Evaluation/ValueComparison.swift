import Foundation

/// Equality and ordering between values, with string options (reference §6.2–§6.5).
enum ValueComparison {
    /// `==` after the nil rules: nil equals only nil; strings honour the options.
    static func equal(_ a: PredicateValue, _ b: PredicateValue, _ options: StringOptions) throws(EvalError) -> Bool {
        if case .string(let x) = a, case .string(let y) = b {
            return try options.equal(x, y)
        }
        if case .dictionary = a { return try ObjectEquality.equal(a, b) ?? (a == b) }
        if case .dictionary = b { return try ObjectEquality.equal(b, a) ?? (a == b) }
        return a == b
    }

    /// Ordering for `<`, `<=`, `>`, `>=`, BETWEEN and sorting. Nil rules are the caller's.
    static func compare(_ a: PredicateValue, _ b: PredicateValue, _ options: StringOptions) throws(EvalError) -> ComparisonResult {
        if let id = a.objectID ?? b.objectID { throw ObjectEquality.unordered(id) }
        switch (a, b) {
        case let (.string(x), .string(y)):
            return try options.compare(x, y)
        case let (.date(x), .date(y)):
            let s = x.timeIntervalSinceReferenceDate, t = y.timeIntervalSinceReferenceDate
            return s < t ? .orderedAscending : (s == t ? .orderedSame : .orderedDescending)
        default:
            if let x = a.numeric, let y = b.numeric {
                if let r = x.compare(y) { return r }
                throw EvalError(kind: .incomparable, message: "NaN has no order")
            }
            throw EvalError(kind: .incomparable, message: "cannot order \(a.kindDescription) against \(b.kindDescription)",
                            hint: "compare values of one kind; use CAST to convert")
        }
    }

    /// Applies a relational operator with the nil rules of §6.2.
    static func relational(_ op: ComparisonOperator, _ a: PredicateValue, _ b: PredicateValue,
                           _ options: StringOptions) throws(EvalError) -> Bool {
        switch op {
        case .equal: return try equal(a, b, options)
        case .notEqual: return try !equal(a, b, options)
        default: break
        }
        if a.isNull || b.isNull {
            // Both nil: <= and >= hold, < and > do not; one nil: nothing holds.
            return a.isNull && b.isNull && (op == .lessThanOrEqual || op == .greaterThanOrEqual)
        }
        // NaN is unordered: every ordering with it is false, as in IEEE arithmetic (and as a
        // typed Double field compares), rather than an error.
        if let x = a.numeric, let y = b.numeric, x.compare(y) == nil { return false }
        let r = try compare(a, b, options)
        switch op {
        case .lessThan: return r == .orderedAscending
        case .lessThanOrEqual: return r != .orderedDescending
        case .greaterThan: return r == .orderedDescending
        case .greaterThanOrEqual: return r != .orderedAscending
        default: return false
        }
    }

    /// A total order over all values for sorting: nil first, then numbers, dates, strings,
    /// data and the rest, so mixed columns sort without error (as SQLite orders its types).
    static func sortOrder(_ a: PredicateValue, _ b: PredicateValue, _ options: StringOptions) -> ComparisonResult {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case let (.data(x), .data(y)):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        default:
            if let x = a.numeric, let y = b.numeric {
                // NaN sorts before every other number.
                return x.compare(y) ?? (x.doubleValue.isNaN ? (y.doubleValue.isNaN ? .orderedSame : .orderedAscending) : .orderedDescending)
            }
            return (try? compare(a, b, options)) ?? .orderedSame
        }
    }

    private static func rank(_ v: PredicateValue) -> Int {
        switch v {
        case .null: return 0
        case .bool, .int, .double, .decimal: return 1
        case .date: return 2
        case .string: return 3
        case .data: return 4
        case .array: return 5
        case .set: return 6
        case .dictionary: return 7
        }
    }
}

import Foundation

/// The aggregate functions over collections (spec §4.3, §4.7).
enum Aggregates {
    static func sum(_ values: [PredicateValue], what: String) throws(EvalError) -> PredicateValue {
        var total: PredicateValue = .int(0)
        for v in values {
            guard v.isNumber else { throw EvalError.aggregate("\(what) found \(v.kindDescription) among the numbers") }
            total = try Arithmetic.binary(.add, total, v)
        }
        return total
    }

    static func average(_ values: [PredicateValue], what: String) throws(EvalError) -> PredicateValue {
        guard !values.isEmpty else { throw EvalError.aggregate("\(what) of an empty collection") }
        var total = 0.0
        for v in values {
            guard let n = v.numeric else { throw EvalError.aggregate("\(what) found \(v.kindDescription) among the numbers") }
            total += n.doubleValue
        }
        return .double(total / Double(values.count))
    }

    static func extreme(_ values: [PredicateValue], max: Bool, what: String) throws(EvalError) -> PredicateValue {
        guard var best = values.first else { throw EvalError.aggregate("\(what) of an empty collection") }
        for v in values.dropFirst() {
            let r = try ValueComparison.compare(v, best, .literal)
            if (max && r == .orderedDescending) || (!max && r == .orderedAscending) { best = v }
        }
        return best
    }

    static func numbers(_ values: [PredicateValue], what: String) throws(EvalError) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(values.count)
        for v in values {
            guard let n = v.numeric else { throw EvalError.aggregate("\(what) found \(v.kindDescription) among the numbers") }
            out.append(n.doubleValue)
        }
        return out
    }

    static func median(_ values: [PredicateValue]) throws(EvalError) -> PredicateValue {
        guard !values.isEmpty else { throw EvalError.aggregate("median: of an empty collection") }
        for v in values where !v.isNumber { throw EvalError.aggregate("median: found \(v.kindDescription) among the numbers") }
        let sorted = values.sorted { ValueComparison.sortOrder($0, $1, .literal) == .orderedAscending }
        let mid = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[mid] }
        return .double((sorted[mid - 1].numeric!.doubleValue + sorted[mid].numeric!.doubleValue) / 2)
    }

    /// The most frequent values, in order of first appearance.
    static func mode(_ values: [PredicateValue]) -> PredicateValue {
        var counts: [PredicateValue: Int] = [:]
        var order: [PredicateValue] = []
        for v in values {
            if counts[v] == nil { order.append(v) }
            counts[v, default: 0] += 1
        }
        let top = counts.values.max() ?? 0
        return .array(order.filter { counts[$0] == top })
    }

    static func stddev(_ values: [PredicateValue]) throws(EvalError) -> PredicateValue {
        let xs = try numbers(values, what: "stddev:")
        guard !xs.isEmpty else { throw EvalError.aggregate("stddev: of an empty collection") }
        let mean = xs.reduce(0, +) / Double(xs.count)
        let variance = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count)
        return .double(variance.squareRoot())
    }

    /// Distinct values in order of first appearance.
    static func distinct(_ values: [PredicateValue]) -> [PredicateValue] {
        var seen = Set<PredicateValue>()
        return values.filter { seen.insert($0).inserted }
    }
}

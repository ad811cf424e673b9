import Foundation

/// The aggregate functions over collections (reference §4.3, §4.7).
enum Aggregates {
    /// The error for an element of a sum or an average that is not a number; a nil in a
    /// function form gets a hint toward the operator, which counts it as 0.
    static func nonNumber(_ v: PredicateValue, what: String) -> EvalError {
        if v.isNull, SharedSemantics.Aggregate.Operation(rawValue: what)?.isCollectionOperator == false {
            let op = what == "average:" ? "@avg" : "@" + what.dropLast()
            return EvalError.aggregate("\(what) found nil among the numbers",
                                       hint: "the collection operator \(op) counts nil as 0: write items.\(op).value")
        }
        return EvalError.aggregate("\(what) found \(v.kindDescription) among the numbers", hint: Self.numbersOnly)
    }

    /// The hint for a sum or an average of something that is no number (the PostgreSQL store
    /// raises the same).
    package static let numbersOnly = "sums and averages take numbers only: aggregate a numeric key"

    static func numbers(_ values: [PredicateValue], what: String) throws(EvalError) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(values.count)
        for v in values {
            guard let n = v.numeric else { throw nonNumber(v, what: what) }
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

/// The sum of numbers as `@sum`, `sum:`, `@avg` and `average:` compute it, in memory and in the
/// store's SQLite aggregates alike: integers (and booleans) add exactly, whatever their order,
/// and an integer total beyond 64 bits is an `integerOverflow` error (never wrapped, never
/// turned into a double); doubles add in order; the total is a double if any element is one,
/// else a decimal if any element is one, else an integer.
package struct NumberSum: Sendable {
    /// The integers' exact total is `wraps * 2^64 + integers` (two's complement words).
    private var integers: Int64 = 0
    private var wraps: Int64 = 0
    private var doubles = 0.0
    private var hasDouble = false
    private var decimals = Decimal(0)
    private var hasDecimal = false
    /// The decimals' total left the decimal range (about 3.4e165): `value` reports it, and the
    /// decimals that no longer fit add up here as doubles for `mean`.
    private var decimalsOverflowed = false
    private var decimalOverflowDoubles = 0.0
    /// How many numbers were added.
    package private(set) var count = 0

    package init() {}

    mutating func add(_ n: PredicateValue.Numeric) {
        count += 1
        switch n {
        case .int(let i):
            let (r, o) = integers.addingReportingOverflow(i)
            integers = r
            if o { wraps += i < 0 ? -1 : 1 }
        case .double(let d):
            doubles += d
            hasDouble = true
        case .decimal(let d):
            if let total = decimals.adding(d) {
                decimals = total
            } else {
                decimalsOverflowed = true
                decimalOverflowDoubles += PredicateValue.Numeric.decimal(d).doubleValue
            }
            hasDecimal = true
        }
    }

    /// Adds a number; false (and nothing added) for any other value.
    package mutating func add(_ v: PredicateValue) -> Bool {
        guard let n = v.numeric else { return false }
        add(n)
        return true
    }

    private static let twoTo64 = 18446744073709551616.0
    private static let twoTo64Decimal = Decimal(UInt64.max) + 1

    private var integerTotalAsDouble: Double { Double(wraps) * Self.twoTo64 + Double(integers) }

    private var integerTotalAsDecimal: Decimal {
        guard wraps != 0 else { return Decimal(integers) }
        return Decimal(wraps) * Self.twoTo64Decimal + Decimal(integers)
    }

    /// The total (`what` names the operator for the overflow error).
    package func value(what: String) throws(PredicateEvaluationError) -> PredicateValue {
        if decimalsOverflowed { throw Arithmetic.decimalOverflow("the \(what) of these decimals") }
        if hasDouble { return .double(doubles + integerTotalAsDouble + (hasDecimal ? PredicateValue.Numeric.decimal(decimals).doubleValue : 0)) }
        if hasDecimal {
            guard let total = decimals.adding(integerTotalAsDecimal) else {
                throw Arithmetic.decimalOverflow("the \(what) of these decimals")
            }
            return .decimal(total)
        }
        guard wraps == 0 else {
            throw Arithmetic.overflow("\(what) of these integers is \(integerTotalAsDecimal), which does not fit in 64 bits")
        }
        return .int(integers)
    }

    /// The mean, as a double (0/0 when nothing was added: callers decide what empty means).
    package var mean: Double {
        var total = integerTotalAsDouble
        if hasDouble { total += doubles }
        if hasDecimal { total += PredicateValue.Numeric.decimal(decimals).doubleValue + decimalOverflowDoubles }
        return total / Double(count)
    }
}

/// The running minimum or maximum of `min:`, `max:`, `@min` and `@max`: the first extreme
/// value in order, compared as `<` compares; nil is an error (the operators drop nils first).
package struct Extreme: Sendable {
    let max: Bool
    let what: String
    package private(set) var value: PredicateValue? = nil

    package init(max: Bool, what: String) {
        self.max = max
        self.what = what
    }

    package mutating func add(_ v: PredicateValue) throws(PredicateEvaluationError) {
        if v.isNull {
            throw EvalError.aggregate("\(what) found nil among the values",
                                      hint: "the collection operator @\(what.dropLast()) skips nil: write items.@\(what.dropLast()).value")
        }
        guard let best = value else { value = v; return }
        let r = try ValueComparison.compare(v, best, .literal)
        if (max && r == .orderedDescending) || (!max && r == .orderedAscending) { value = v }
    }
}

extension SharedSemantics {
    /// The hint of a sum or an average over something that is no number.
    package static var aggregateNumbersOnly: String { Aggregates.numbersOnly }

    /// An aggregate over a collection fed one element at a time: the collection operators
    /// `@sum`, `@avg`, `@min`, `@max` and the functions `sum:`, `average:`, `min:`, `max:`.
    /// The evaluator and the store's SQLite aggregates both run this, so they agree on nil,
    /// empty collections, element kinds and overflow.
    ///
    /// The operators follow Apple's key-value coding guide: `@sum` and `@avg` count a nil
    /// element as 0, `@min` and `@max` skip it; over no elements `@sum` is 0 and the others
    /// nil. The functions take numbers only, as NSExpression documents (a nil element is an
    /// error), and `average:`, `min:`, `max:` of no elements are errors.
    ///
    /// ```swift
    /// var avg = SharedSemantics.Aggregate("@avg")!
    /// for v: PredicateValue in [1, nil, 2] { try avg.add(v) }
    /// try avg.result()   // 1.0
    /// ```
    package struct Aggregate: Sendable {
        package enum Operation: String, CaseIterable, Sendable {
            case sumOperator = "@sum", averageOperator = "@avg", minOperator = "@min", maxOperator = "@max"
            case sum = "sum:", average = "average:", min = "min:", max = "max:"

            /// Whether it is the collection operator's form (`@sum`), not the function's (`sum:`).
            package var isCollectionOperator: Bool { CollectionOperator(component: rawValue) != nil }
        }

        package let operation: Operation
        private var total = NumberSum()
        private var extreme: Extreme

        package init?(_ name: String) {
            guard let operation = Operation(rawValue: name) else { return nil }
            self.init(operation)
        }

        package init(_ operation: Operation) {
            self.operation = operation
            let isMax = operation == .maxOperator || operation == .max
            extreme = Extreme(max: isMax, what: operation.rawValue)
        }

        package mutating func add(_ v: PredicateValue) throws(PredicateEvaluationError) {
            switch operation {
            case .sumOperator where v.isNull, .minOperator where v.isNull, .maxOperator where v.isNull:
                return
            case .averageOperator where v.isNull:
                _ = total.add(PredicateValue.int(0))
            case .sumOperator, .averageOperator, .sum, .average:
                guard total.add(v) else { throw Aggregates.nonNumber(v, what: operation.rawValue) }
            case .minOperator, .maxOperator, .min, .max:
                try extreme.add(v)
            }
        }

        package func result() throws(PredicateEvaluationError) -> PredicateValue {
            switch operation {
            case .sumOperator, .sum:
                return try total.value(what: operation.rawValue)
            case .averageOperator:
                return total.count == 0 ? .null : .double(total.mean)
            case .average:
                guard total.count > 0 else { throw EvalError.aggregate("average: of an empty collection") }
                return .double(total.mean)
            case .minOperator, .maxOperator:
                return extreme.value ?? .null
            case .min, .max:
                guard let v = extreme.value else { throw EvalError.aggregate("\(operation.rawValue) of an empty collection") }
                return v
            }
        }
    }
}

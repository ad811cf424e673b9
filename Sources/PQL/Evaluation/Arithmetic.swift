import Foundation

/// `+ - * / ** %` and the bitwise operators (reference §4.5). Integers stay integers, and a result
/// beyond 64 bits is an `integerOverflow` error, never a wrapped number (decision D23);
/// any double makes the result a double; a decimal (and no double) keeps decimals.
/// Booleans count as 0 and 1 (Apple raises instead; PQL prints YES as 1, so they must agree).
/// nil and non-numbers are errors: there is no SQL-style null propagation in memory.
enum Arithmetic {
    static func binary(_ f: BuiltinFunction, _ a: PredicateValue, _ b: PredicateValue) throws(EvalError) -> PredicateValue {
        // Dates move by seconds, and differ by seconds.
        switch (f, a, b) {
        case let (.add, .date(d), n) where n.isNumber: return .date(d.addingTimeInterval(n.numeric!.doubleValue))
        case let (.add, n, .date(d)) where n.isNumber: return .date(d.addingTimeInterval(n.numeric!.doubleValue))
        case let (.subtract, .date(d), n) where n.isNumber: return .date(d.addingTimeInterval(-n.numeric!.doubleValue))
        case let (.subtract, .date(x), .date(y)): return .double(x.timeIntervalSince(y))
        default: break
        }
        guard let x = a.numeric, let y = b.numeric else {
            let bad = a.numeric == nil ? a : b
            throw EvalError.arithmetic(bad.isNull ? "arithmetic on nil (\(f.infixSymbol ?? f.selector))"
                                       : "arithmetic needs numbers, not \(bad.kindDescription)",
                                       hint: bad.isNull ? "test for nil first: x != nil AND x + 1 > 2" : "use CAST to convert strings to numbers")
        }
        switch f {
        case .power: return .double(pow(x.doubleValue, y.doubleValue))
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift:
            let i = try integer(x), j = try integer(y)
            switch f {
            case .bitwiseAnd: return .int(i & j)
            case .bitwiseOr: return .int(i | j)
            case .bitwiseXor: return .int(i ^ j)
            default:
                // A count outside 0…63 has no portable meaning (C leaves it undefined, x86
                // masks it): an error. Bits shifted out of a left shift are dropped, as every
                // 64-bit bit operation does.
                guard (0...63).contains(j) else {
                    throw overflow("\(i) \(f.infixSymbol ?? f.selector) \(j) shifts by \(j < 0 ? "a negative count" : "more than 63 bits")",
                                   hint: "shift by 0 to 63 bits")
                }
                return .int(f == .leftShift ? i << j : i >> j)
            }
        default: break
        }
        switch (x, y) {
        case let (.int(i), .int(j)):
            let r: (partialValue: Int64, overflow: Bool)
            switch f {
            case .add: r = i.addingReportingOverflow(j)
            case .subtract: r = i.subtractingReportingOverflow(j)
            case .multiply: r = i.multipliedReportingOverflow(by: j)
            // Division by zero gives 0 (Apple's implementation, reference §4.5).
            case .divide: r = j == 0 ? (0, false) : i.dividedReportingOverflow(by: j)
            // The remainder of the smallest integer by -1 is 0, exactly (as in SQLite and
            // PostgreSQL), though Swift's `%` would trap on it.
            case .modulus: r = j == 0 || j == -1 ? (0, false) : i.remainderReportingOverflow(dividingBy: j)
            default: throw EvalError.unsupported("\(f.selector) is not an arithmetic operator")
            }
            if r.overflow { throw overflow("\(i) \(f.infixSymbol ?? f.selector) \(j) does not fit in 64 bits") }
            return .int(r.partialValue)
        case (.double, _), (_, .double):
            let i = x.doubleValue, j = y.doubleValue
            switch f {
            case .add: return .double(i + j)
            case .subtract: return .double(i - j)
            case .multiply: return .double(i * j)
            case .divide: return .double(i / j)
            case .modulus: return .double(fmod(i, j))
            default: break
            }
        default:
            let i = try decimal(x), j = try decimal(y)
            let symbol = f.infixSymbol ?? f.selector
            func checked(_ r: Decimal?) throws(EvalError) -> PredicateValue {
                guard let r else { throw decimalOverflow("\(i.briefDescription) \(symbol) \(j.briefDescription)") }
                return .decimal(r)
            }
            switch f {
            case .add: return try checked(i.adding(j))
            case .subtract: return try checked(i.subtracting(j))
            case .multiply: return try checked(i.multiplying(by: j))
            case .divide:
                if j == 0 { return .int(0) }
                return try checked(i.dividing(by: j))
            case .modulus:
                if j == 0 { return .int(0) }
                // |i mod j| < |j|, so only the quotient can leave the decimal range; then
                // i is tiny beside it and the remainder is i itself when i and j share a sign.
                guard let q = i.dividing(by: j)?.rounded(towardZero: true),
                      let p = q.multiplying(by: j) else { throw decimalOverflow("\(i.briefDescription) \(symbol) \(j.briefDescription)") }
                return try checked(i.subtracting(p))
            default: break
            }
        }
        throw EvalError.unsupported("\(f.selector) is not an arithmetic operator")
    }

    static func negate(_ a: PredicateValue) throws(EvalError) -> PredicateValue {
        switch a.numeric {
        case .int(let i)?:
            if i == .min { throw overflow("-(\(i)) does not fit in 64 bits") }
            return .int(-i)
        case .double(let d)?: return .double(-d)
        case .decimal(let d)?: return .decimal(-d)
        case nil: throw EvalError.arithmetic(a.isNull ? "cannot negate nil" : "cannot negate \(a.kindDescription)")
        }
    }

    static func onesComplement(_ a: PredicateValue) throws(EvalError) -> PredicateValue {
        guard let x = a.numeric else { throw EvalError.arithmetic("bit operators need numbers, not \(a.kindDescription)") }
        return .int(~(try integer(x)))
    }

    static func integer(_ x: PredicateValue.Numeric) throws(EvalError) -> Int64 {
        switch x {
        case .int(let i): return i
        case .double(let d):
            guard d.isFinite, d >= -9.2e18, d <= 9.2e18 else { throw EvalError.arithmetic("bit operators need integers, not \(d)") }
            return Int64(d)
        case .decimal(let d):
            // Int64(truncating:) wraps far-away decimals into arbitrary integers.
            let whole = d.rounded(towardZero: true)
            guard whole >= Decimal(Int64.min), whole <= Decimal(Int64.max) else {
                throw EvalError.arithmetic("bit operators need integers, not \(d)")
            }
            return Int64(truncating: NSDecimalNumber(decimal: whole))
        }
    }

    /// The error for an integer result beyond 64 bits (`what` names the operation).
    static func overflow(_ what: String, hint: String = "compute in floating point: multiply an operand by 1.0") -> EvalError {
        EvalError(kind: .integerOverflow, message: "integer overflow: \(what)", hint: hint)
    }

    /// `x` as a decimal. Foundation's `Decimal(Double)` traps on an infinity or NaN and answers
    /// NaN beyond the decimal's exponent range (about 1e±128 at 38 digits), so those are checked
    /// here: an infinity, NaN or magnitude too large is an error; a magnitude too small is 0.
    static func decimal(_ x: PredicateValue.Numeric) throws(EvalError) -> Decimal {
        switch x {
        case .int(let i): return Decimal(i)
        case .double(let d):
            guard d.isFinite else { throw decimalRange(d) }
            let result = Decimal(d)
            if result.isNaN {
                if Swift.abs(d) < 1 { return 0 }
                throw decimalRange(d)
            }
            return result
        case .decimal(let d): return d
        }
    }

    /// The error for a decimal result outside the decimal's range (38 digits times 10^127 at
    /// most, so 1e130 written as 1 followed by 130 zeros is already out).
    static func decimalOverflow(_ what: String) -> EvalError {
        EvalError(kind: .arithmetic, message: "decimal overflow: \(what) is outside the decimal range",
                  hint: "compute in floating point: CAST the operands to \"NSNumber\"")
    }

    private static func decimalRange(_ d: Double) -> EvalError {
        EvalError.arithmetic("\(d) cannot be a decimal number: decimals reach about 1e165 and have no infinity or NaN",
                             hint: "keep the value a double: CAST(x, \"NSNumber\") instead of \"NSDecimalNumber\"")
    }
}

extension Decimal {
    // Foundation's +, -, * and / trap when the result leaves the decimal's range; these answer
    // nil instead. Underflow rounds toward zero, as the operators do.
    package func adding(_ other: Decimal) -> Decimal? { Self.checked(self, other, NSDecimalAdd) }
    package func subtracting(_ other: Decimal) -> Decimal? { Self.checked(self, other, NSDecimalSubtract) }
    package func multiplying(by other: Decimal) -> Decimal? { Self.checked(self, other, NSDecimalMultiply) }
    package func dividing(by other: Decimal) -> Decimal? { Self.checked(self, other, NSDecimalDivide) }

    private static func checked(
        _ a: Decimal, _ b: Decimal,
        _ op: (UnsafeMutablePointer<Decimal>, UnsafePointer<Decimal>, UnsafePointer<Decimal>, NSDecimalNumber.RoundingMode) -> NSDecimalNumber.CalculationError
    ) -> Decimal? {
        var result = Decimal(), x = a, y = b
        switch op(&result, &x, &y, .plain) {
        case .overflow, .divideByZero: return nil
        default: return result.isNaN ? nil : result
        }
    }

    /// The decimal as written, or in scientific notation when that would run past 24 characters
    /// (messages quote operands; 1e100 written out is 101 digits).
    var briefDescription: String {
        let full = description
        guard full.count > 24, isFinite else { return full }
        var digits = "\(significand.magnitude)", power = Int(exponent)
        while digits.count > 1, digits.hasSuffix("0") { digits.removeLast(); power += 1 }
        power += digits.count - 1
        let head = digits.prefix(1), tail = digits.dropFirst()
        return "\(self < 0 ? "-" : "")\(head)\(tail.isEmpty ? "" : "." + tail)e\(power)"
    }

    package func rounded(towardZero: Bool) -> Decimal {
        var source = self
        var result = Decimal()
        NSDecimalRound(&result, &source, 0, self < 0 ? .up : .down)
        return result
    }
}

extension BuiltinFunction {
    /// The kind of this function's non-nil results for arguments of `arguments`' kinds, as the
    /// evaluator computes them (`Arithmetic`, `SharedSemantics.function`): integers stay
    /// integers, any double makes a double, a decimal (and no double) a decimal; a date moved
    /// by a number is a date, the difference of two dates a double. `unknown` where the kinds
    /// do not decide it (an unknown argument, a function whose result kind depends on values).
    /// One exception the kinds cannot see: a decimal divided by zero, or its remainder by
    /// zero, is the integer 0 (Apple's implementation).
    ///
    /// ```swift
    /// BuiltinFunction.multiply.resultKind([.integer, .decimal])   // .decimal
    /// BuiltinFunction.length.resultKind([.string])                // .integer
    /// ```
    package func resultKind(_ arguments: [ValueKind]) -> ValueKind {
        switch self {
        case .uppercase, .lowercase, .canonical: return .string
        case .length, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement: return .integer
        case .sqrt, .log, .ln, .exp, .floor, .ceiling, .trunc, .power, .random: return .real
        case .now: return .date
        case .add, .subtract:
            if arguments.contains(.date) { return arguments.allSatisfy { $0 == .date } ? .real : .date }
            return Self.numericKind(arguments)
        case .multiply, .divide, .modulus, .abs, .negate:
            return arguments.contains(.date) ? .unknown : Self.numericKind(arguments)
        case .randomn: return .integer
        default: return .unknown
        }
    }

    /// Integer, unless a double or a decimal takes part (booleans count as integers).
    private static func numericKind(_ arguments: [ValueKind]) -> ValueKind {
        arguments.contains(.unknown) ? .unknown : arguments.contains(.real) ? .real : arguments.contains(.decimal) ? .decimal : .integer
    }
}

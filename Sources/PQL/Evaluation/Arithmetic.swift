import Foundation

/// `+ - * / ** %` and the bitwise operators (spec §4.5). Integers stay integers and wrap on
/// overflow; any double makes the result a double; a decimal (and no double) keeps decimals.
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
            case .leftShift: return .int(j < 0 || j > 63 ? 0 : i << j)
            default: return .int(j < 0 || j > 63 ? (i < 0 ? -1 : 0) : i >> j)
            }
        default: break
        }
        switch (x, y) {
        case let (.int(i), .int(j)):
            switch f {
            case .add: return .int(i &+ j)
            case .subtract: return .int(i &- j)
            case .multiply: return .int(i &* j)
            case .divide: return .int(j == 0 ? 0 : (i == .min && j == -1 ? .min : i / j))
            case .modulus: return .int(j == 0 ? 0 : (j == -1 ? 0 : i % j))
            default: break
            }
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
            let i = decimal(x), j = decimal(y)
            switch f {
            case .add: return .decimal(i + j)
            case .subtract: return .decimal(i - j)
            case .multiply: return .decimal(i * j)
            case .divide:
                if j == 0 { return .int(0) }
                return .decimal(i / j)
            case .modulus:
                if j == 0 { return .int(0) }
                let q = (i / j).rounded(towardZero: true)
                return .decimal(i - q * j)
            default: break
            }
        }
        throw EvalError.unsupported("\(f.selector) is not an arithmetic operator")
    }

    static func negate(_ a: PredicateValue) throws(EvalError) -> PredicateValue {
        switch a.numeric {
        case .int(let i)?: return .int(0 &- i)
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
        case .decimal(let d): return Int64(truncating: NSDecimalNumber(decimal: d))
        }
    }

    static func decimal(_ x: PredicateValue.Numeric) -> Decimal {
        switch x {
        case .int(let i): return Decimal(i)
        case .double(let d): return Decimal(d)
        case .decimal(let d): return d
        }
    }
}

extension Decimal {
    package func rounded(towardZero: Bool) -> Decimal {
        var source = self
        var result = Decimal()
        NSDecimalRound(&result, &source, 0, self < 0 ? .up : .down)
        return result
    }
}

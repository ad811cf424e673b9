import Foundation
import PQL

/// What the compiler knows statically about an SQL operand's values: PQL's own ``ValueKind``
/// (`BuiltinFunction.resultKind` gives a function's). SQLite stores dates, booleans and
/// decimals as numbers, so the kind travels with every expression: it decides whether a
/// native SQL comparison means what the evaluator means, or whether the shared `pql_compare`
/// function must decide row by row.
package typealias SQLKind = ValueKind

extension ValueKind {
    enum Domain { case number, string, date, data, null, unknown }

    var domain: Domain {
        switch self {
        case .integer, .real, .decimal, .boolean: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .null: return .null
        case .unknown: return .unknown
        }
    }

    /// Added to a tag: the operand's NULL is NaN, not nil (see `SQLExpression.nullIsNaN`).
    static let nanFlag: Int64 = 8
    /// Added to a tag: the operand is an object, its value the key (see `SQLExpression.isObject`);
    /// the shared functions compare it with the evaluator's object rules.
    static let objectFlag: Int64 = 16

    /// The tag the shared SQLite functions use to rebuild the value: see `SQLiteFunctions`.
    var tag: Int64 {
        switch self {
        case .boolean: return 1
        case .date: return 2
        case .decimal: return 3
        default: return 0
        }
    }

    init(_ type: AttributeType) {
        switch type {
        case .string, .uuid, .uri: self = .string
        case .integer16, .integer32, .integer64: self = .integer
        case .double, .float: self = .real
        case .decimal: self = .decimal
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary: self = .data
        }
    }

    /// The kind of `a`'s values: its type's, or unknown for an untyped column.
    init(_ a: ModelAttribute) {
        self = a.isUntyped ? .unknown : ValueKind(a.type)
    }

    /// The kind a shared function's tag names (see `tag`); other tags read values as stored.
    init(tag: Int32) {
        switch tag {
        case 1: self = .boolean
        case 2: self = .date
        case 3: self = .decimal
        default: self = .unknown
        }
    }

    /// A stored SQLite value read as a value of this kind: dates, booleans and decimals come
    /// back from the numbers they are stored as; an integer in a REAL column is a double.
    func value(_ v: SQLValue) -> PredicateValue {
        switch v {
        case .null: return .null
        case .integer(let n):
            switch self {
            case .boolean: return .bool(n != 0)
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(n)))
            case .real: return .double(Double(n))
            case .decimal: return .decimal(Decimal(n))
            default: return .int(n)
            }
        case .real(let d):
            switch self {
            case .date: return .date(Date(timeIntervalSinceReferenceDate: d))
            case .decimal:
                // A REAL beyond the decimal range (or an infinity, which Decimal(d) traps on)
                // stays the double it is stored as.
                guard d.isFinite, let exact = Decimal(string: String(d), locale: Locale(identifier: "en_US_POSIX")) ?? Optional(Decimal(d)),
                      !exact.isNaN else { return .double(d) }
                return .decimal(exact)
            default: return .double(d)
            }
        case .text(let t): return .string(t)
        case .blob(let b): return .data(b)
        }
    }

    /// Whether SQLite's own comparison of the two agrees with the evaluator's for non-nil values.
    func comparesNatively(with other: SQLKind) -> Bool {
        let a = domain, b = other.domain
        return a == b && a != .unknown && a != .null
    }
}

/// Quoting of identifiers, which always come from the model, never from predicate text: the
/// SQLite dialect's, for the statements the store writes itself (schema, inserts, updates).
enum SQLIdentifier {
    static func quote(_ name: String) -> String { SQLiteDialect().quote(name) }

    /// `alias."column"`.
    static func column(_ name: String, of alias: String) -> String { SQLiteDialect().column(name, of: alias) }
}

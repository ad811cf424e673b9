import Foundation
import PQL

/// One SQLite value, as bound to a parameter or read from a column.
///
/// ```swift
/// let v: SQLValue = .text("José")
/// ```
public enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// An INTEGER.
    case integer(Int64)
    /// A REAL.
    case real(Double)
    /// TEXT.
    case text(String)
    /// A BLOB.
    case blob(Data)

    /// The value as an SQL literal would spell it: `NULL`, `42`, `'text'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let s):
            return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let d): return "x'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

extension SQLValue {
    /// How a predicate value is stored: booleans as 0/1, dates as seconds since 2001 (D8),
    /// decimals as REAL. nil for collections, which have no single SQL value.
    init?(_ v: PredicateValue) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .integer(b ? 1 : 0)
        case .int(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .decimal(let d): self = .real(NSDecimalNumber(decimal: d).doubleValue)
        case .string(let s): self = .text(s)
        case .date(let d): self = .real(d.timeIntervalSinceReferenceDate)
        case .data(let d): self = .blob(d)
        case .array, .set, .dictionary: return nil
        }
    }
}

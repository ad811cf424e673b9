import Foundation

/// One SQLite value, as bound to a parameter or read from a column.
///
/// ```swift
/// let v: SQLValue = .text("José")
/// ```
public enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

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

import Foundation
import PQL

/// Which kinds of JSON values one key held, for its column's type.
struct JSONColumnKinds {
    var null = false, int = false, double = false, bool = false, string = false, date = false
    /// An integer beyond 64 bits (read exactly, as a decimal).
    var bigInteger = false
    /// An integer a double would round.
    var inexactInteger = false
    /// A double that is not a whole number within 64 bits.
    var fraction = false

    mutating func add(_ value: PredicateValue) {
        switch value {
        case .null: null = true
        case .int(let i):
            int = true
            if !ColumnTypeInference.isExactDouble(i) { inexactInteger = true }
        case .double(let d):
            double = true
            if Int64(exactly: d) == nil { fraction = true }
        case .decimal: bigInteger = true
        case .bool: bool = true
        case .string: string = true
        case .date: date = true
        default: string = true
        }
    }

    /// The narrowest type that holds every value exactly. Integers and fractions make a double
    /// column when a double holds each integer exactly, else an integer column when every
    /// number is whole; other mixtures, and integers beyond 64 bits, are text.
    var type: AttributeType {
        if bigInteger { return .string }
        switch (int, double, bool, string, date) {
        case (true, false, false, false, false): return .integer64
        case (_, true, false, false, false):
            if !inexactInteger { return .double }
            return fraction ? .string : .integer64
        case (false, false, true, false, false): return .boolean
        case (false, false, false, false, true): return .date
        default: return .string
        }
    }
}

/// The value a JSON value becomes in a column of `type`, where that loses nothing: whole
/// numbers to and from doubles when exact, numbers, booleans and dates to text for text
/// columns. Anything else is left for the store to accept or refuse.
enum JSONColumnConversion {
    static func convert(_ value: PredicateValue, to type: AttributeType) -> PredicateValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.int(let i), .double) where ColumnTypeInference.isExactDouble(i): return .double(Double(i))
        case (.double(let d), .integer64):
            if let i = Int64(exactly: d) { return .int(i) }
            return value
        case (.int(let i), .string): return .string(String(i))
        case (.double(let d), .string): return .string(String(d))
        case (.decimal(let d), .string): return .string("\(d)")
        case (.bool(let b), .string): return .string(b ? "true" : "false")
        case (.date(let d), .string): return .string(PQL.ISO8601.string(from: d))
        default: return value
        }
    }
}

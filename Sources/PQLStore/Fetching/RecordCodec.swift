import Foundation
import PQL

/// Conversions between predicate values and SQLite values, attribute type by attribute type
/// (dates as seconds since 2001, booleans 0/1, UUIDs and URIs as text, decimals as REAL).
enum RecordCodec {
    /// The value stored for `value` in attribute `a` of `entity`; a value of the wrong kind is an error.
    static func sqlValue(_ value: PredicateValue, for a: ModelAttribute, entity: String) throws(StoreError) -> SQLValue {
        func wrong() -> StoreError {
            StoreError(.invalidValue, "\(entity).\(a.name) is \(a.type.withArticle) attribute; \(value.kindDescription) \(value) does not fit",
                       hint: hint(for: a.type))
        }
        if value.isNull { return .null }
        if a.isUntyped {
            guard let stored = SQLValue(value) else { throw wrong() }
            return stored
        }
        switch a.type {
        case .string:
            guard case .string(let s) = value else { throw wrong() }
            return .text(s)
        case .uuid:
            guard case .string(let s) = value, let u = UUID(uuidString: s) else { throw wrong() }
            return .text(u.uuidString)
        case .uri:
            guard case .string(let s) = value, URL(string: s) != nil else { throw wrong() }
            return .text(s)
        case .integer16, .integer32, .integer64:
            let range: ClosedRange<Int64> = a.type == .integer16 ? Int64(Int16.min)...Int64(Int16.max)
                : a.type == .integer32 ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            let i: Int64
            switch value {
            case .int(let x): i = x
            case .bool(let b): i = b ? 1 : 0
            // 2^63 is the first double past Int64.max; -2^63 is Int64.min itself.
            case .double(let d) where d.rounded() == d && d >= -0x1p63 && d < 0x1p63: i = Int64(d)
            case .decimal(let d) where d == d.rounded(towardZero: true) && Int64("\(d)") != nil: i = Int64("\(d)")!
            // A whole number all the same, only too large: saying "give a whole number" would
            // send the user looking for a fraction that is not there.
            case .double(let d) where d.rounded() == d && d.isFinite: throw beyond64Bits(value, entity: entity, a)
            case .decimal(let d) where d == d.rounded(towardZero: true): throw beyond64Bits(value, entity: entity, a)
            default: throw wrong()
            }
            guard range.contains(i) else {
                throw StoreError(.invalidValue, "\(entity).\(a.name) is \(a.type.withArticle) attribute; \(i) is out of its range",
                                 hint: "use a wider integer type in the model")
            }
            return .integer(i)
        case .boolean:
            switch value {
            case .bool(let b): return .integer(b ? 1 : 0)
            case .int(let i) where i == 0 || i == 1: return .integer(i)
            default: throw wrong()
            }
        case .double, .float, .decimal:
            // A REAL column would round an integer beyond 2^53 silently; refuse it instead.
            if case .int(let i) = value, a.type != .float, Double(exactly: i) == nil {
                throw StoreError(.invalidValue, "\(entity).\(a.name) is \(a.type.withArticle) attribute; the integer \(i) has no exact double (doubles hold integers exactly up to 2^53)",
                                 hint: "store it in an integer64 attribute, or as a string")
            }
            guard let n = value.doubleValue else { throw wrong() }
            return .real(a.type == .float ? Double(Float(n)) : n)
        case .date:
            switch value {
            case .date(let d): return .real(d.timeIntervalSinceReferenceDate)
            // Codable's default date encoding: seconds since 2001, as the store keeps them.
            case .int, .double, .decimal: return .real(value.doubleValue ?? 0)
            case .string(let s):
                guard let d = ISO8601.date(from: s) else { throw wrong() }
                return .real(d.timeIntervalSinceReferenceDate)
            default: throw wrong()
            }
        case .binary:
            switch value {
            case .data(let d): return .blob(d)
            case .string(let s):
                guard let d = Data(base64Encoded: s) else { throw wrong() }
                return .blob(d)
            default: throw wrong()
            }
        }
    }

    /// The error for a whole number no integer attribute can hold, naming the number as given
    /// (a decimal keeps its digits; a double past 2^53 prints without an exponent).
    private static func beyond64Bits(_ value: PredicateValue, entity: String, _ a: ModelAttribute) -> StoreError {
        let number: String
        switch value {
        case .double(let d) where abs(d) < 1e30: number = String(format: "%.0f", d)
        case .decimal(let d): number = "\(d)"
        default: number = "\(value)"
        }
        let range = "\(Int64.min)…\(Int64.max)"
        return StoreError(.invalidValue, "\(entity).\(a.name) is \(a.type.withArticle) attribute; \(number) is outside the 64-bit integer range (\(range))",
                          hint: "give a value within that range, or make \(a.name) a decimal or double attribute to hold it")
    }

    private static func hint(for type: AttributeType) -> String {
        switch type {
        case .string: return "give a string"
        case .uuid: return "give a UUID string like E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        case .uri: return "give a URI string"
        case .integer16, .integer32, .integer64: return "give a whole number"
        case .boolean: return "give true or false"
        case .double, .float, .decimal: return "give a number"
        case .date: return "give a date: {\"$date\": \"2013-01-01T05:00:00Z\"}, an ISO-8601 string, or seconds since 2001"
        case .binary: return "give data, or a base64 string"
        }
    }
}

import Foundation
import PQL

/// How a stored value reads as each type `Decodable` asks for. These are the rules
/// `JSONDecoder` applied to a record's JSON form, which `fetch(_:as:)` went through before it
/// decoded rows directly, so that the same types read the same values and fail on the same ones:
/// numbers convert when exact, dates are seconds since 2001, data is also base64 text. One
/// change: an infinite or NaN double reads as itself (JSON has no such number, so it was nil).
enum ValueConversion {
    static func mismatch(_ type: Any.Type, _ v: PredicateValue, _ path: [any CodingKey]) -> DecodingError {
        if v.isNull { return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found nil")) }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(found(v))"))
    }

    static func corrupted(_ v: PredicateValue, _ what: String, _ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "\(found(v)) \(what)"))
    }

    /// The value as an error message shows it: its kind, and a short spelling.
    static func found(_ v: PredicateValue) -> String {
        switch v {
        case .null: return "nil"
        case .string(let s): return "the string \"\(s.count > 40 ? s.prefix(40) + "…" : s)\""
        case .data(let d): return "binary data of \(d.count) bytes"
        case .array(let a), .set(let a): return "\(v.kindDescription) of \(a.count)"
        case .dictionary: return v.kindDescription
        case .date(let d): return "the date \(d)"
        case .bool(let b): return "the boolean \(b)"
        case .int(let i): return "the number \(i)"
        case .double(let d): return "the number \(d)"
        case .decimal(let d): return "the number \(d)"
        }
    }

    static func bool(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = v else { throw mismatch(Bool.self, v, path) }
        return b
    }

    static func integer<T: FixedWidthInteger>(_ v: PredicateValue, _: T.Type, _ path: [any CodingKey]) throws -> T {
        let exact: T?
        switch v {
        case .int(let i): exact = T(exactly: i)
        case .double(let d): exact = T(exactly: d)
        case .date(let d): exact = T(exactly: d.timeIntervalSinceReferenceDate)
        // JSON spelled a decimal as its digits: whole ones read as integers.
        case .decimal(let d): exact = T("\(d)")
        default: throw mismatch(T.self, v, path)
        }
        guard let exact else { throw corrupted(v, "does not fit in \(T.self)", path) }
        return exact
    }

    static func double(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Double {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .date(let d): return d.timeIntervalSinceReferenceDate
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        default: throw mismatch(Double.self, v, path)
        }
    }

    static func float(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Float {
        let d: Double
        do { d = try double(v, path) } catch { throw mismatch(Float.self, v, path) }
        let f = Float(d)
        if d.isFinite && !f.isFinite { throw corrupted(v, "does not fit in Float", path) }
        return f
    }

    static func string(_ v: PredicateValue, _ path: [any CodingKey]) throws -> String {
        switch v {
        case .string(let s): return s
        case .data(let d): return d.base64EncodedString()
        default: throw mismatch(String.self, v, path)
        }
    }

    static func date(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Date {
        if case .date(let d) = v { return d }
        do { return Date(timeIntervalSinceReferenceDate: try double(v, path)) } catch { throw mismatch(Date.self, v, path) }
    }

    static func data(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Data {
        switch v {
        case .data(let d): return d
        case .string(let s):
            guard let d = Data(base64Encoded: s) else { throw corrupted(v, "is not valid base64", path) }
            return d
        default: throw mismatch(Data.self, v, path)
        }
    }

    static func url(_ v: PredicateValue, _ path: [any CodingKey]) throws -> URL {
        guard case .string(let s) = v else { throw mismatch(URL.self, v, path) }
        guard let url = URL(string: s) else { throw corrupted(v, "is not a valid URL", path) }
        return url
    }

    static func uuid(_ v: PredicateValue, _ path: [any CodingKey]) throws -> UUID {
        guard case .string(let s) = v else { throw mismatch(UUID.self, v, path) }
        guard let uuid = UUID(uuidString: s) else { throw corrupted(v, "is not a valid UUID", path) }
        return uuid
    }

    static func decimal(_ v: PredicateValue, _ path: [any CodingKey]) throws -> Decimal {
        switch v {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        // JSON wrote a double as its shortest spelling, which is what the decimal is parsed from.
        case .double(let d) where d.isFinite:
            // Beyond Decimal's exponents the parse gives NaN, where JSON failed: an error too.
            guard let decimal = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
                throw corrupted(v, "does not fit in Decimal", path)
            }
            return decimal
        case .date(let d): return try decimal(.double(d.timeIntervalSinceReferenceDate), path)
        case .double: throw corrupted(v, "does not fit in Decimal", path)
        default: throw mismatch(Decimal.self, v, path)
        }
    }

    /// The value as `T` when `T` is one of the types with a conversion of their own (those
    /// `JSONDecoder` also singled out); nil for the rest, which decode through their `init(from:)`.
    static func special<T>(_ v: PredicateValue, as _: T.Type, _ path: [any CodingKey]) throws -> T? {
        if T.self == Date.self { return try date(v, path) as? T }
        if T.self == Data.self { return try data(v, path) as? T }
        if T.self == URL.self { return try url(v, path) as? T }
        if T.self == UUID.self { return try uuid(v, path) as? T }
        if T.self == Decimal.self { return try decimal(v, path) as? T }
        return nil
    }

    static func isSpecial<T>(_: T.Type) -> Bool {
        T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == UUID.self || T.self == Decimal.self
    }
}

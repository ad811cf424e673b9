import Foundation
import PQL
import PQLStore

/// Rows in `COPY … FROM STDIN (FORMAT text)`'s form: tab-separated fields, `\N` for NULL,
/// backslash, tab, newline and carriage return escaped, one line per row. Each value is
/// written as the text PostgreSQL reads for the column's type; a value of another kind (text
/// in a number column, as an import passes what did not convert) goes as its text, for the
/// server to accept or refuse with its message.
struct CopyTextEncoder {
    let types: [AttributeType]
    var bytes: [UInt8] = []

    init(types: [AttributeType]) {
        self.types = types
        bytes.reserveCapacity(1 << 20)
    }

    /// One row, its values in the order of `types`.
    mutating func append(_ row: [PredicateValue]) throws(StoreError) {
        for (c, value) in row.enumerated() {
            if c > 0 { bytes.append(0x09) }
            try append(value, as: c < types.count ? types[c] : .string)
        }
        bytes.append(0x0A)
    }

    /// Before every field of a row but the first.
    mutating func separator() { bytes.append(0x09) }

    /// After a row's last field.
    mutating func endRow() { bytes.append(0x0A) }

    /// One field, as the text PostgreSQL reads for a column of `type`.
    mutating func append(_ value: PredicateValue, as type: AttributeType) throws(StoreError) {
        switch value {
        case .null: bytes += [0x5C, 0x4E]   // \N
        case .bool(let b):
            if type.isInteger && type != .boolean { ascii(b ? "1" : "0") } else { ascii(b ? "t" : "f") }
        case .int(let i):
            if type == .boolean && (i == 0 || i == 1) { ascii(i == 1 ? "t" : "f") }
            else if type == .date { try date(Date(timeIntervalSinceReferenceDate: Double(i))) }
            else { integer(i) }
        case .double(let d):
            if type.isInteger, d.rounded() == d, let i = Int64(exactly: d) { integer(i) }
            else if type == .date { try date(Date(timeIntervalSinceReferenceDate: d)) }
            else if d.isNaN { ascii("NaN") }
            else if d.isInfinite { ascii(d < 0 ? "-Infinity" : "Infinity") }
            else { ascii(String(d)) }
        case .decimal(let d): ascii("\(d)")
        case .string(let s): try text(s)
        case .date(let d): try date(d)
        case .data(let data):
            // bytea's hex form, its backslash escaped for COPY: \\x0a1b…
            bytes += [0x5C, 0x5C, 0x78]
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            for b in data { bytes.append(hex[Int(b >> 4)]); bytes.append(hex[Int(b & 0xF)]) }
        case .array, .set, .dictionary:
            throw StoreError(.invalidValue, "a collection cannot be stored in a column",
                             hint: "import scalar values (text, numbers, booleans, dates)")
        }
    }

    private mutating func ascii(_ s: String) { bytes += s.utf8 }

    /// Decimal digits without making a String (most imported cells are integers).
    mutating func integer(_ i: Int64) {
        if i < 0 { bytes.append(0x2D) }
        var m = i.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: m % 10) + 0x30)
            m /= 10
        } while m > 0
        bytes[start...].reverse()
    }

    mutating func text(_ s: String) throws(StoreError) {
        for b in s.utf8 {
            switch b {
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x09: bytes += [0x5C, 0x74]
            case 0x0A: bytes += [0x5C, 0x6E]
            case 0x0D: bytes += [0x5C, 0x72]
            case 0x00:
                throw StoreError(.invalidValue, "the text holds a NUL character, which PostgreSQL text cannot store",
                                 hint: "remove the NUL characters (U+0000) from the data")
            default: bytes.append(b)
            }
        }
    }

    /// A timestamp PostgreSQL reads whatever its DateStyle: `2013-01-01 05:15:00.5+00`.
    private mutating func date(_ d: Date) throws(StoreError) {
        // Rounded as every date PQL sends is (PostgresTimestamp).
        let (s, micros) = try PostgresTimestamp(d).since1970
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let secondOfDay = s - days * 86_400
        let (y, m, d) = ISO8601.civilFromDays(Int(days))
        let (year, month, day) = (Int64(y), Int64(m), Int64(d))
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var out = year <= 0 ? "\(1 - year)-" : "\(year)-"
        if year > 0 && year < 1000 { out = String(repeating: "0", count: 4 - String(year).count) + out }
        out += "\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if micros > 0 {
            var f = String(micros)
            f = String(repeating: "0", count: 6 - f.count) + f
            while f.hasSuffix("0") { f.removeLast() }
            out += "." + f
        }
        out += "+00"
        if year <= 0 { out += " BC" }
        ascii(out)
    }
}

import Foundation
import PQL

/// Picks the narrowest attribute type that holds every cell of a text column exactly, and
/// converts the cells to it.
///
/// The candidates, narrowest first: `integer64` (every cell an integer literal that fits
/// 64 bits), `double` (every cell a decimal number, integers allowed), `boolean` (`true` or
/// `false` in any case; 0 and 1 stay numbers), `date` (ISO-8601 dates and date-times such as
/// `2013-01-01` or `2013-01-01T06:00:00Z`), and `string` for anything else. NULL cells (nil)
/// fit every type, and a column with nothing but NULLs is a string column.
///
/// No number is rounded. A column of integers and fractions is `double` only when a double
/// holds each of its integers exactly (every integer up to 2^53 in magnitude, and some
/// beyond); otherwise it stays `integer64` if its other numbers are whole (`1.0`, `2e3`), and
/// is text if not. Integers with leading zeros (`007`, `02134`) are codes, not quantities, so
/// they make the column a string column; so do integers beyond 64 bits (IDs would lose digits
/// as doubles) and numbers beyond a double's range (`1e400`) or `NaN`/`Inf`.
///
/// ```swift
/// ColumnTypeInference.inferType(of: ["1", "-2", nil])        // .integer64
/// ColumnTypeInference.inferType(of: ["1", "2.5e3"])          // .double
/// ColumnTypeInference.inferType(of: ["02134", "10001"])      // .string
/// ColumnTypeInference.inferType(of: ["9223372036854775807", "1.0"])   // .integer64
/// ColumnTypeInference.inferType(of: ["9223372036854775807", "1.5"])   // .string
/// ColumnTypeInference.value(of: "2.5e3", as: .double)        // .double(2500)
/// ```
package enum ColumnTypeInference {
    /// The types a cell could belong to besides string, as bits. (Not an `OptionSet`: its
    /// generic operations made debug builds, and so the test suite, 20 times slower.)
    typealias Kinds = UInt8
    static let integerKind: Kinds = 1
    static let doubleKind: Kinds = 2
    static let booleanKind: Kinds = 4
    static let dateKind: Kinds = 8
    static let allKinds: Kinds = 15

    /// What the cells of one column have shown so far.
    struct Column {
        var kinds: Kinds = allKinds
        var sawValue = false
        var sawNull = false
        /// An integer a double would round.
        var inexactInteger = false
        /// A number that is not a whole number within 64 bits.
        var fraction = false

        /// Takes one more cell (nil: NULL) into account.
        @inline(__always)
        mutating func add(_ cell: UnsafeBufferPointer<UInt8>?) {
            guard let cell else { sawNull = true; return }
            sawValue = true
            guard kinds != 0 else { return }
            let candidates = kinds
            let fits = ColumnTypeInference.kinds(of: cell, within: candidates, &self)
            kinds = candidates & fits
        }

        /// The narrowest type holding every cell seen exactly.
        var type: AttributeType {
            ColumnTypeInference.type(for: kinds, sawValue: sawValue, inexactInteger: inexactInteger, fraction: fraction)
        }
    }

    /// The type for a column whose cells fit `kinds` (`sawValue` false: all NULL), given
    /// whether a double would round one of its integers and whether an integer would lose one
    /// of its other numbers.
    static func type(for kinds: Kinds, sawValue: Bool, inexactInteger: Bool = false, fraction: Bool = false) -> AttributeType {
        guard sawValue else { return .string }
        if kinds & integerKind != 0 { return .integer64 }
        if kinds & doubleKind != 0 {
            if !inexactInteger { return .double }
            // Integers beyond 2^53 with 1.0 or 2e3: every value is a whole number, kept exactly.
            return fraction ? .string : .integer64
        }
        if kinds & booleanKind != 0 { return .boolean }
        if kinds & dateKind != 0 { return .date }
        return .string
    }

    /// Which of `candidates` the cell's bytes fit; only those are tested. Numbers also tell
    /// `column` whether they are exact as a double and as an integer.
    @inline(__always)
    static func kinds(of cell: UnsafeBufferPointer<UInt8>, within candidates: Kinds, _ column: inout Column) -> Kinds {
        guard cell.count > 0 else { return 0 }
        let first = cell[0]
        let numeric = (first >= 0x30 && first <= 0x39) || first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
        var out: Kinds = 0
        if numeric {
            // Integers are doubles too, so a double column still asks for integer syntax.
            if candidates & (integerKind | doubleKind) != 0, let i = integer(cell) {
                if !isExactDouble(i) { column.inexactInteger = true }
                return integerKind | doubleKind
            }
            if candidates & doubleKind != 0, let d = double(cell) {
                out |= doubleKind
                if Int64(exactly: d) == nil { column.fraction = true }
            }
            if candidates & dateKind != 0, date(cell) != nil { out |= dateKind }
        } else if candidates & booleanKind != 0, boolean(cell) != nil {
            out |= booleanKind
        }
        return out
    }

    /// Whether a double holds `i` exactly (all integers up to 2^53 in magnitude do).
    @inline(__always)
    static func isExactDouble(_ i: Int64) -> Bool {
        (-(1 << 53)...(1 << 53)).contains(i) || Double(exactly: i) != nil
    }

    /// An integer literal: optional sign, digits without a leading zero (except `0` itself),
    /// within 64 bits.
    @inline(__always)
    static func integer(_ p: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if i < p.count, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { negative = p[i] == UInt8(ascii: "-"); i += 1 }
        let digits = p.count - i
        guard digits > 0, digits <= 19 else { return nil }
        if p[i] == 0x30 && digits > 1 { return nil }
        var magnitude: UInt64 = 0
        while i < p.count {
            let d = p[i] &- 0x30
            guard d < 10 else { return nil }
            magnitude = magnitude &* 10 &+ UInt64(d)
            i += 1
        }
        // Nineteen digits cannot overflow UInt64, so only the Int64 range is left to check.
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// A number with a decimal point or an exponent: optional sign, digits (no leading zero
    /// unless the integer part is `0`), finite as a `Double`. Plain digits are left to
    /// ``integer(_:)``, so an integer too long for 64 bits is text rather than a rounded double.
    static func double(_ p: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        if i < p.count, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { i += 1 }
        let intStart = i
        while i < p.count, p[i] &- 0x30 < 10 { i += 1 }
        let intDigits = i - intStart
        if intDigits > 1, p[intStart] == 0x30 { return nil }
        var fractionDigits = 0
        var isDecimal = false
        if i < p.count, p[i] == UInt8(ascii: ".") {
            isDecimal = true
            i += 1
            let fractionStart = i
            while i < p.count, p[i] &- 0x30 < 10 { i += 1 }
            fractionDigits = i - fractionStart
        }
        guard intDigits + fractionDigits > 0 else { return nil }
        if i < p.count, p[i] | 0x20 == UInt8(ascii: "e") {
            isDecimal = true
            i += 1
            if i < p.count, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { i += 1 }
            let exponentStart = i
            while i < p.count, p[i] &- 0x30 < 10 { i += 1 }
            guard i > exponentStart else { return nil }
        }
        guard i == p.count, isDecimal else { return nil }
        // The syntax is checked; Swift's parser (locale-free, correctly rounded) does the value.
        guard let value = Double(String(decoding: p, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// `true` or `false` in any case.
    static func boolean(_ p: UnsafeBufferPointer<UInt8>) -> Bool? {
        func matches(_ word: StaticString) -> Bool {
            guard p.count == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for k in 0..<p.count where p[k] | 0x20 != w[k] { return false }
            return true
        }
        if matches("true") { return true }
        if matches("false") { return false }
        return nil
    }

    /// An ISO-8601 date or date-time (no offset means UTC).
    static func date(_ p: UnsafeBufferPointer<UInt8>) -> Date? {
        // Every ISO date has a '-' after a four-digit year; numbers and words fail fast here.
        guard p.count >= 10 else { return nil }
        return ISO8601.secondsSinceReferenceDate(utf8: p).map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    /// The cell's value as `type`, or nil if it does not fit (text that is not UTF-8 included).
    static func value(of p: UnsafeBufferPointer<UInt8>, as type: AttributeType) -> PredicateValue? {
        switch type {
        case .integer64, .integer32, .integer16:
            if let i = integer(p) { return .int(i) }
            // A whole number written as a double (1.0, 2e3) is that integer, exactly.
            return double(p).flatMap { Int64(exactly: $0) }.map { .int($0) }
        case .double, .float, .decimal:
            if let i = integer(p) { return isExactDouble(i) ? .double(Double(i)) : nil }
            return double(p).map { .double($0) }
        case .boolean:
            if let b = boolean(p) { return .bool(b) }
            // 0 and 1 are numbers to inference, but a boolean attribute takes them.
            if p.count == 1, p[0] == 0x30 || p[0] == 0x31 { return .bool(p[0] == 0x31) }
            return nil
        case .date: return date(p).map { .date($0) }
        default: return string(p).map { .string($0) }
        }
    }

    /// The cell as the narrowest value it reads as on its own: an integer, a double, a
    /// boolean, else text (nil if not UTF-8). For cells that do not fit their column's type.
    static func natural(_ p: UnsafeBufferPointer<UInt8>) -> PredicateValue? {
        if let i = integer(p) { return .int(i) }
        if let d = double(p) { return .double(d) }
        if let b = boolean(p) { return .bool(b) }
        return string(p).map { .string($0) }
    }

    /// The bytes as a `String`, or nil if they are not UTF-8. `String(validating:)` is generic
    /// and unspecialized here, which made it the largest cost of reading flights.csv; ASCII
    /// needs no validation, and other text is valid exactly when decoding changed nothing.
    static func string(_ p: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        var i = 0
        while i < p.count { high |= p[i]; i += 1 }
        let s = String(decoding: p, as: UTF8.self)
        if high < 0x80 { return s }
        return s.utf8.elementsEqual(p) ? s : nil
    }

    /// The narrowest type for a column of text cells (nil is NULL).
    package static func inferType(of cells: [String?]) -> AttributeType {
        var column = Column()
        for case var cell? in cells {
            cell.withUTF8 { column.add($0) }
            if column.kinds == 0 { break }
        }
        return column.type
    }

    /// A text cell converted to `type` (`.null` for nil), or nil if it does not fit the type.
    package static func value(of cell: String?, as type: AttributeType) -> PredicateValue? {
        guard var cell else { return .null }
        return cell.withUTF8 { value(of: $0, as: type) }
    }
}

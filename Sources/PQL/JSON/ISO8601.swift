import Foundation

/// ISO-8601 date-times as JSON carries them in `{"$date": "…"}` (decision D8):
/// `2024-05-01`, `2024-05-01T12:30`, `2024-05-01T12:30:45`, with optional fractional seconds
/// and a `Z` or `±HH:MM` offset (no offset means UTC).
///
/// ```swift
/// ISO8601.date(from: "2001-01-01T00:00:10Z")?.timeIntervalSinceReferenceDate   // 10.0
/// ```
public enum ISO8601 {
    /// The instant an ISO-8601 date or date-time names, or nil if the text is not one.
    public static func date(from text: String) -> Date? {
        var s = text
        return s.withUTF8 { parse($0) }.map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    /// Seconds since 2001-01-01T00:00:00Z (a `Date`'s own measure), or nil if the text is not
    /// a complete ISO-8601 date-time. The whole seconds are counted exactly and the fraction is
    /// read as decimal text, so that the result is the double nearest the instant written:
    /// ``string(from:)`` writes every date in digits that read back as the same double.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        var sign = 1
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: sign * year)
        else { return nil }
        var seconds = 0
        var fraction: Range<Int> = 0..<0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = digits(2), expect(UInt8(ascii: ":")), let m = digits(2), h < 24, m < 60 else { return nil }
            seconds = h * 3600 + m * 60
            if expect(UInt8(ascii: ":")) {
                guard let sec = digits(2), sec < 61 else { return nil }
                seconds += sec
                if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    i += 1
                    let start = i
                    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
                    guard i > start else { return nil }
                    fraction = start..<i
                }
            }
            if i < b.count {
                if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                    i += 1
                } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                    let offsetSign = b[i] == UInt8(ascii: "-") ? -1 : 1
                    i += 1
                    guard let oh = digits(2), oh < 24 else { return nil }
                    _ = expect(UInt8(ascii: ":"))
                    guard let om = digits(2), om < 60 else { return nil }
                    seconds -= offsetSign * (oh * 3600 + om * 60)
                }
            }
        }
        guard i == b.count else { return nil }
        // Years have at most four digits: the whole seconds fit an Int with room to spare.
        let whole = daysFromCivil(year: sign * year, month: month, day: day) * 86400 + seconds - referenceDateSince1970
        var fractionDigits = b[fraction]
        while fractionDigits.last == UInt8(ascii: "0") { fractionDigits = fractionDigits.dropLast() }
        return DecimalSeconds.value(whole: whole, fraction: String(decoding: fractionDigits, as: UTF8.self))
    }

    /// 2001-01-01T00:00:00Z in seconds since 1970.
    static let referenceDateSince1970 = 978_307_200

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// `2024-05-01T12:30:45Z`, in the proleptic Gregorian calendar (ISO 8601's, before 1582
    /// too), with the fraction of a second the instant has: the fewest digits that
    /// ``date(from:)`` reads back as the same `Date` (`2024-05-01T12:30:45.1234567Z`).
    ///
    /// ```swift
    /// ISO8601.string(from: Date(timeIntervalSinceReferenceDate: -0.25))   // 2000-12-31T23:59:59.75Z
    /// ```
    public static func string(from date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        // Beyond ±100 million years (or NaN) there is no calendar date to print; give seconds.
        guard t.isFinite, abs(t) < 3.1e15 else { return "\(t) seconds since 2001-01-01T00:00:00Z" }
        let (whole, fraction) = DecimalSeconds.parts(t)
        let since1970 = whole + referenceDateSince1970
        var days = since1970 / 86400
        var secs = since1970 - days * 86400
        if secs < 0 { secs += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        // A year before 1 is signed, as ISO 8601 writes it and parse(_:) reads it: -0044.
        let year = y < 0 ? "-" + String(format: "%04d", -y) : String(format: "%04d", y)
        let s = year + String(format: "-%02d-%02dT%02d:%02d:%02d", m, d, secs / 3600, secs / 60 % 60, secs % 60)
        return s + (fraction.isEmpty ? "" : "." + fraction) + "Z"
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), year 0 being 1 BC
    /// (Howard Hinnant's algorithm); the PostgreSQL COPY encoder spells dates with it too.
    package static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

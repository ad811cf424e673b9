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
        return s.withUTF8 { parse($0) }.map { Date(timeIntervalSince1970: $0) }
    }

    /// Seconds since 1970, or nil if the text is not a complete ISO-8601 date-time.
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
        var seconds = 0.0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = digits(2), expect(UInt8(ascii: ":")), let m = digits(2), h < 24, m < 60 else { return nil }
            seconds = Double(h * 3600 + m * 60)
            if expect(UInt8(ascii: ":")) {
                guard let sec = digits(2), sec < 61 else { return nil }
                seconds += Double(sec)
                if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                    i += 1
                    var scale = 0.1
                    var any = false
                    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                        seconds += Double(b[i] - 0x30) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            if i < b.count {
                if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                    i += 1
                } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                    let offsetSign = b[i] == UInt8(ascii: "-") ? -1.0 : 1.0
                    i += 1
                    guard let oh = digits(2), oh < 24 else { return nil }
                    _ = expect(UInt8(ascii: ":"))
                    guard let om = digits(2), om < 60 else { return nil }
                    seconds -= offsetSign * Double(oh * 3600 + om * 60)
                }
            }
        }
        guard i == b.count else { return nil }
        return Double(daysFromCivil(year: sign * year, month: month, day: day)) * 86400 + seconds
    }

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

    /// `2024-05-01T12:30:45Z`, or with milliseconds when the instant has them.
    public static func string(from date: Date) -> String {
        let t = date.timeIntervalSince1970
        // Beyond ±100 million years (or NaN) there is no calendar date to print; give seconds.
        guard t.isFinite, abs(t) < 3.1e15 else { return "\(date.timeIntervalSinceReferenceDate) seconds since 2001-01-01T00:00:00Z" }
        // Round to whole microseconds first, so 0.9999996 s carries into the next second.
        let micros = (t * 1_000_000).rounded()
        let wholeSeconds = (micros / 1_000_000).rounded(.down)
        var days = Int(wholeSeconds / 86400)
        var secs = Int(wholeSeconds) - days * 86400
        if secs < 0 { secs += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        var fraction = Int(micros - wholeSeconds * 1_000_000)
        var s = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, secs / 3600, secs / 60 % 60, secs % 60)
        if fraction > 0 {
            var digits = 6
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            s += "." + String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
        }
        return s + "Z"
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

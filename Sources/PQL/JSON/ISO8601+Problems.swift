import Foundation

extension ISO8601 {
    /// What keeps `text` from being a date ``date(from:)`` reads, and the UTF-8 offset in
    /// `text` of the part at fault; nil when it is one. Kept apart from the parser, which
    /// import runs on millions of cells and which needs no words for what it rejects.
    package static func problem(in text: String) -> (message: String, offset: Int)? {
        guard date(from: text) == nil else { return nil }
        let b = Array(text.utf8)
        var i = 0
        func isDigit(_ k: Int) -> Bool { k < b.count && b[k] >= 0x30 && b[k] <= 0x39 }
        func digitRun(from k: Int) -> Int {
            var n = 0
            while isDigit(k + n) { n += 1 }
            return n
        }
        func number(_ from: Int, _ count: Int) -> Int { b[from..<from + count].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        func shown(_ k: Int) -> String {
            guard k < b.count else { return "the end" }
            let rest = String(decoding: b[k...], as: UTF8.self)
            return "\"" + (rest.count > 12 ? String(rest.prefix(10)) + "…" : rest) + "\""
        }
        /// Two digits at `i` within `range`, else the problem with `what`.
        func twoDigits(_ what: String, _ range: ClosedRange<Int>) -> (message: String, offset: Int)? {
            let n = digitRun(from: i)
            let bounds = String(format: "%02d to %02d", range.lowerBound, range.upperBound)
            guard n == 2 else { return ("the \(what) must have two digits, \(bounds); found \(shown(i))", i) }
            let v = number(i, 2)
            guard range.contains(v) else { return ("there is no \(what) \(String(format: "%02d", v)) (\(bounds))", i) }
            i += 2
            return nil
        }
        var sign = 1
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
        }
        let yearDigits = digitRun(from: i)
        guard yearDigits > 0 else {
            return ("it does not start with a year; an ISO-8601 date is written year-month-day, as in 2024-05-01", i)
        }
        guard yearDigits == 4 else {
            let year = String(decoding: b[i..<i + yearDigits], as: UTF8.self)
            return yearDigits > 4
                ? ("the year \(year) is out of range (PQL reads years -9999 through 9999, written with four digits)", i)
                : ("the year \(year) must be written with four digits (0000 to 9999, a minus before years BC)", i)
        }
        let year = sign * number(i, 4)
        i += 4
        guard i < b.count, b[i] == UInt8(ascii: "-") else { return ("expected '-' after the year, as in 2024-05-01; found \(shown(i))", i) }
        i += 1
        if let p = twoDigits("month", 1...12) { return p }
        let month = number(i - 2, 2)
        guard i < b.count, b[i] == UInt8(ascii: "-") else { return ("expected '-' after the month, as in 2024-05-01; found \(shown(i))", i) }
        i += 1
        let days = daysIn(month: month, year: year)
        let dayStart = i
        if let p = twoDigits("day", 1...31) { return p }
        if number(dayStart, 2) > days {
            return ("there is no day \(String(format: "%02d", number(dayStart, 2))) in \(String(format: "%04d-%02d", year, month)), which has \(days) days", dayStart)
        }
        guard i < b.count else { return nil }
        guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else {
            return ("unexpected \(shown(i)) after the date; a time follows a T, as in 2024-05-01T12:00:00Z", i)
        }
        i += 1
        if let p = twoDigits("hour", 0...23) { return p }
        guard i < b.count, b[i] == UInt8(ascii: ":") else { return ("expected ':' after the hour, as in T12:30; found \(shown(i))", i) }
        i += 1
        if let p = twoDigits("minute", 0...59) { return p }
        if i < b.count, b[i] == UInt8(ascii: ":") {
            i += 1
            if let p = twoDigits("second", 0...60) { return p }
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                i += 1
                guard digitRun(from: i) > 0 else { return ("expected the fraction's digits after the seconds' '.'; found \(shown(i))", i) }
                i += digitRun(from: i)
            }
        }
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            i += 1
            if let p = twoDigits("offset hour", 0...23) { return p }
            if i < b.count, b[i] == UInt8(ascii: ":") { i += 1 }
            if let p = twoDigits("offset minute", 0...59) { return p }
        } else {
            return ("unexpected \(shown(i)) after the time; an offset is Z or ±HH:MM, as in 12:00:00+02:00", i)
        }
        guard i == b.count else { return ("unexpected \(shown(i)) after the date", i) }
        return nil
    }
}

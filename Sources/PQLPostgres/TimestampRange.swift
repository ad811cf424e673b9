import Foundation
import NIOCore
import PostgresNIO
import PQL
import PQLStore

/// PostgreSQL's timestamps run from 4713 BC to 294276 AD; PQL's dates (doubles of seconds)
/// run much further. A date outside goes to the server as nothing it can read (PostgresNIO's
/// encoder traps on it, past ±292,000 years), so every date PQL sends passes here first.
enum TimestampRange {
    /// 4714-11-24 00:00:00 UTC (4713 BC), PostgreSQL's first timestamp, in seconds since 1970.
    static let lowest: Double = -210_866_803_200
    /// 294277-01-01 00:00:00 UTC, the first instant past PostgreSQL's last timestamp.
    static let beyond: Double = 9_224_318_016_000

    /// `date` itself when PostgreSQL can hold it, else a typed error naming the range.
    static func checked(_ date: Date) throws(StoreError) -> Date {
        let t = date.timeIntervalSince1970
        guard t >= lowest, t < beyond else {
            // Named as the user wrote it (ISO-8601, as {"$date": …} takes it), not in seconds.
            throw StoreError(.invalidValue, "the date \(ISO8601.string(from: date)) lies outside PostgreSQL's timestamps (4713 BC to 294276 AD)",
                             hint: "give a date within that range: memory and SQLite take any date, PostgreSQL cannot hold this one")
        }
        return date
    }
}

/// A date as PostgreSQL holds it: whole microseconds since 2000-01-01 UTC, the date rounded
/// to the nearest one. Every date PQL sends (an import's COPY text, an inserted value, a
/// predicate's constant) is rounded by this one rule, so that a date compares on the server as
/// it was stored: PostgresNIO's own encoding truncates where PostgreSQL's text input rounds,
/// and an imported `.4999996` then differed from the same date given to compare with
/// (adversarial run, F7).
struct PostgresTimestamp: PostgresNonThrowingEncodable, Sendable {
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    let microseconds: Int64

    /// 2000-01-01 in seconds since 2001-01-01, Foundation's reference date.
    private static let epochInReference: Int64 = -31_622_400

    init(_ date: Date) throws(StoreError) {
        let r = try TimestampRange.checked(date).timeIntervalSinceReferenceDate
        // Whole seconds and the fraction apart, each exact, so that the rounding sees the
        // date's own fraction (seconds × 10⁶ as one double would lose it past 2^53 µs).
        let whole = r.rounded(.down)
        var micros = Int64(((r - whole) * 1_000_000).rounded())
        var seconds = Int64(whole) - Self.epochInReference
        if micros == 1_000_000 { seconds += 1; micros = 0 }
        microseconds = seconds * 1_000_000 + micros
    }

    /// Seconds since 1970 and the microseconds past them (0…999,999), for COPY's text.
    var since1970: (seconds: Int64, micros: Int64) {
        let total = microseconds + 946_684_800 * 1_000_000
        let seconds = total >= 0 ? total / 1_000_000 : (total - 999_999) / 1_000_000
        return (seconds, total - seconds * 1_000_000)
    }

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }
}

import Foundation
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

/// A first look at a range before it is counted: the range tested on 64 rows spread evenly
/// over the table's keys.
///
/// Counting a range (``IndexUse/choose(_:in:reads:sortedBy:bindings:dialect:)``) walks up to
/// a sixteenth of the index, which for a range that keeps half the table is a sixteenth of the
/// scan that follows: `age BETWEEN {18, 65}` on 1,000,000 people ran up to 1.15x its time
/// without indexes, the count being most of the difference. 64 rows read by key cost 64 steps
/// down the table's B-tree, a fraction of a millisecond; a range that keeps a quarter of them
/// or more is scanned without being counted.
///
/// The sample only ever sends a range to the scan, the plan it would have without the index,
/// and it is hard to fool the other way: a range that keeps a sixteenth of the rows (the
/// break-even) keeps 16 of 64 sampled ones about once in 100,000 draws, and a tail such as
/// `dep_delay > 600` (40 flights of 336,776) keeps none, then is counted and searched.
extension IndexUse {
    /// Rows sampled; and the share of them a range must keep to be scanned uncounted, four
    /// times the break-even share (a sixteenth).
    static let sampledRows: Int64 = 64
    static let evidentlyBroad = 0.25

    /// Whether `arms` (an OR's arms; one for a plain range) keep at least ``evidentlyBroad``
    /// of the rows among ``sampledRows`` spread over the keys `first…last`. False when too few
    /// of those keys hold a row (a table with wide gaps in its keys is counted as before).
    func sampleIsBroad(_ arms: [SQLNode], in scope: SQLScope, keys: ClosedRange<Int64>, bindings: [SQLValue],
                       dialect: any SQLDialect) throws(StoreError) -> Bool {
        let n = Self.sampledRows
        guard bindings.count + Int(n) <= connection.variableLimit else { return false }
        let span = keys.upperBound - keys.lowerBound + 1
        let sample = (0..<n).map { j in SQLValue.integer(keys.lowerBound + (j * span + span / 2) / n) }
        let parameters = (0..<Int(n)).map { dialect.parameter(bindings.count + $0) }.joined(separator: ", ")
        let a = scope.alias
        let test = arms.count == 1 ? dialect.render(arms[0]) : arms.map { "(\(dialect.render($0)))" }.joined(separator: " OR ")
        let sql = "SELECT count(*), coalesce(sum(CASE WHEN \(test) THEN 1 ELSE 0 END), 0) FROM \(dialect.table(scope.table)) \(a)"
            + " WHERE \(a).\(dialect.quote(scope.primaryKey)) IN (\(parameters))"
        let s = try connection.prepare(sql, cached: true)
        defer { s.reset() }
        try s.bind(bindings + sample, foldedAllowed: true)
        guard try s.step() else { return false }
        let found = s.int64(0), kept = s.int64(1)
        guard found >= n / 2 else { return false }
        return Double(kept) >= Self.evidentlyBroad * Double(found)
    }
}

import PostgresNIO
import PQLStore

extension PostgresPredicateStore {
    /// Autovacuum's defaults (`autovacuum_analyze_threshold`, `autovacuum_analyze_scale_factor`):
    /// it analyses a table once more rows changed than 50 plus a tenth of those it had.
    static let analyzeThreshold = 50.0, analyzeScale = 0.1

    /// Gathers the planner's statistics of `table` (`ANALYZE`) after a bulk load (`COPY`) added
    /// `added` rows, when they are as many as would make autovacuum analyse it: autovacuum
    /// does so only when its next round comes (a minute by default), and until then the
    /// planner prices every query on the table with the statistics of before the load (none,
    /// for a new table: it then guesses a range matches a third of the rows and an equality
    /// 0.5%, whatever the data). With them it estimates each range and list from its histogram
    /// and chooses between an index and a scan by what they match. ANALYZE reads a sample of
    /// 30,000 rows (at the default statistics target) whatever the table's size.
    ///
    /// The rows are committed already: a failure here (a role that does not own the table may
    /// not analyse it, and PostgreSQL only warns then) leaves the statistics to autovacuum and
    /// is not the load's.
    func analyzeAfterLoad(_ table: String, added: Int) async {
        guard added > 0 else { return }
        let name = qualified(table)
        _ = try? await withConnection("analyzing \(table)") { connection in
            var before = 0.0
            // reltuples: the rows at the last ANALYZE or VACUUM (-1 or 0 when never analysed).
            for try await row in try await connection.statement("SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass(\(name))", logger: self.logger) {
                before = max(0, try row.decode(Double.self))
            }
            if Double(added) < Self.analyzeThreshold + Self.analyzeScale * before { return }
            try await connection.run(PostgresQuery(unsafeSQL: "ANALYZE \(name)"), logger: self.logger)
        }
    }
}

extension PredicateStore {
    /// Gathers statistics about the tables and indexes (SQLite's `ANALYZE`), so the query
    /// planner can choose between indexes by how selective they are. Run it after loading
    /// much data; the statistics are kept in the file. It changes no rows.
    ///
    /// ```swift
    /// try store.importTable(table, into: "Flight")
    /// try store.analyze()
    /// ```
    public func analyze() throws(StoreError) {
        try locked { () throws(StoreError) in try connection.execute("ANALYZE") }
    }
}

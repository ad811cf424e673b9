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

extension PredicateStore {
    /// SQLite's full consistency check of the file (`PRAGMA integrity_check`): `["ok"]` when
    /// the database is sound, otherwise one line per problem found (at most 100).
    ///
    /// ```swift
    /// guard try store.integrityCheck() == ["ok"] else { print("the file is damaged") }
    /// ```
    public func integrityCheck() throws(StoreError) -> [String] {
        try locked { () throws(StoreError) in
            let s = try connection.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try s.step() { lines.append(s.text(0)) }
            return lines
        }
    }
}

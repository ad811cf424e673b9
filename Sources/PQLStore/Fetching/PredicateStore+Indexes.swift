extension PredicateStore {
    /// Drops every index PQL created for the model (declared ones and the foreign-key ones),
    /// for bulk loads: `createIndexes()` builds them again afterwards, faster than keeping them
    /// up to date row by row.
    public func dropIndexes() throws(StoreError) {
        try locked { () throws(StoreError) in
            let s = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
            var names: [String] = []
            while try s.step() { names.append(s.text(0)) }
            try connection.transaction { () throws(StoreError) in
                for n in names { try connection.execute("DROP INDEX IF EXISTS \(SQLIdentifier.quote(n))") }
            }
        }
    }

    /// Creates any index the model declares that the file lacks.
    public func createIndexes() throws(StoreError) {
        try locked { () throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                for sql in try StoreSchema.createStatements(model) where sql.hasPrefix("CREATE") && sql.contains("INDEX") {
                    try connection.execute(sql)
                }
            }
        }
    }

    /// The columns that lead an index with SQLite's BINARY order, which the compiler uses to
    /// choose between a form an index serves and one cheaper to scan, read on `connection`
    /// (the writer's under the lock, or a reader's); the cache has a lock of its own. nil if
    /// SQLite cannot say (the compiler then assumes an index may serve any column).
    func indexedColumns(on connection: SQLiteConnection? = nil) -> Set<IndexedColumn>? {
        let connection = connection ?? self.connection
        guard let v = try? connection.prepare("PRAGMA schema_version", cached: true), (try? v.step()) == true else { return nil }
        let version = v.int64(0)
        v.reset()
        if let c = cachedIndexColumns(), c.version == version { return c.columns }
        let sql = """
            SELECT m.name, x.name FROM sqlite_schema m, pragma_index_list(m.name) l, pragma_index_xinfo(l.name) x
            WHERE m.type = 'table' AND x.seqno = 0 AND x.name IS NOT NULL AND x.coll = 'BINARY'
            """
        guard let s = try? connection.prepare(sql) else { return nil }
        var columns: Set<IndexedColumn> = []
        while (try? s.step()) == true { columns.insert(IndexedColumn(table: s.text(0), column: s.text(1))) }
        s.reset()
        cacheIndexColumns(version: version, columns)
        return columns
    }
}

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

    /// The indexes of the file as `connection` (the writer's under the lock, or a reader's)
    /// sees them, with the connection, for the statements built for it: the compiler's
    /// index-aware forms and the choice between an index search and a scan (`IndexUse`).
    /// The catalog is read again when the schema version changes; the cache has a lock of its
    /// own. Without a catalog (SQLite cannot say) the compiler assumes an index may serve any
    /// column, and SQLite's planner decides alone.
    func indexes(on connection: SQLiteConnection? = nil) -> IndexUse {
        let connection = connection ?? self.connection
        let policy = indexRangePolicy
        guard let v = try? connection.prepare("PRAGMA schema_version", cached: true), (try? v.step()) == true else {
            return IndexUse(indexes: nil, connection: connection, policy: policy)
        }
        let version = v.int64(0)
        v.reset()
        if let c = cachedIndexes(), c.version == version { return IndexUse(indexes: c.indexes, connection: connection, policy: policy) }
        let indexes = SQLiteIndexes.read(on: connection)
        if let indexes { cacheIndexes(version: version, indexes) }
        return IndexUse(indexes: indexes, connection: connection, policy: policy)
    }
}

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
}

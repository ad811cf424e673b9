import PostgresNIO
import PQLStore

extension PostgresPredicateStore {
    /// Creates every index the model declares (indexed and unique attributes, index and
    /// uniqueness groups, the foreign keys of to-one relationships) that the schema lacks, as
    /// ``createTables()`` makes them; one transaction. The indexes PQL's `[c]`/`[d]`/`[cd]`
    /// searches use (expression and trigram indexes over the fold functions) are the
    /// application's choice: create them with `CREATE INDEX` (see the README), then call
    /// ``reloadIndexes()``.
    ///
    /// ```swift
    /// try await store.dropIndexes()
    /// _ = try await store.importFile(try ImportSource(contentsOf: url), into: "Flight")
    /// try await store.createIndexes()
    /// try await store.analyze()
    /// ```
    public func createIndexes() async throws(StoreError) {
        try await prepare()
        try await changingSchema { () throws(StoreError) in
            let tables = try PostgresSchemaDDL.tables(model, schema: schema)
            try await transaction("creating the indexes") { connection in
                let existing = try await self.existingTables(on: connection)
                if let missing = tables.first(where: { !existing.contains($0.name) }) {
                    throw StoreError(.unknownEntity, "the table '\(missing.name)' of the model does not exist in the schema '\(self.schema)'",
                                     hint: "createTables() creates the model's tables with their indexes")
                }
                for t in tables {
                    for ix in t.indexes { try await connection.run(PostgresQuery(unsafeSQL: ix), logger: self.logger) }
                }
            }
        }
    }

    /// Drops the indexes ``createIndexes()`` makes, for bulk loads: building them again
    /// afterwards is faster than keeping them up to date row by row. Until then, lookups scan,
    /// uniqueness is not checked and ``upsert(_:_:onConflict:)`` has no unique index to use.
    /// Primary keys and foreign-key constraints stay. One transaction.
    ///
    /// ```swift
    /// try await store.dropIndexes()
    /// ```
    public func dropIndexes() async throws(StoreError) {
        try await prepare()
        try await changingSchema { () throws(StoreError) in
            let tables = try PostgresSchemaDDL.tables(model, schema: schema)
            try await transaction("dropping the indexes") { connection in
                for name in tables.flatMap(\.indexNames) {
                    try await connection.run(PostgresQuery(unsafeSQL: "DROP INDEX IF EXISTS \(quote(self.schema)).\(quote(name))"), logger: self.logger)
                }
            }
        }
    }

    /// Gathers the statistics PostgreSQL's planner uses to choose between an index and a scan
    /// (`ANALYZE` of the model's tables). PostgreSQL's autovacuum does it too, some time after
    /// large changes; run it after a bulk load to have good plans at once. It changes no rows.
    ///
    /// ```swift
    /// _ = try await store.importFile(try ImportSource(contentsOf: url), into: "Flight")
    /// try await store.analyze()
    /// ```
    public func analyze() async throws(StoreError) {
        try await prepare()
        let tables = try PostgresSchemaDDL.tables(model, schema: schema).map(\.name)
        guard !tables.isEmpty else { return }
        try await withConnection("analyzing the tables") { connection in
            let existing = try await self.existingTables(on: connection)
            let present = tables.filter(existing.contains)
            guard !present.isEmpty else { return }
            try await connection.run(PostgresQuery(unsafeSQL: "ANALYZE \(present.map(self.qualified).joined(separator: ", "))"), logger: self.logger)
        }
    }
}

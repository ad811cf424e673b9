import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Creates the schema and the tables of the store's model that do not exist yet — the
    /// tables the SQLite store would make, in PostgreSQL's types (text, bigint, double
    /// precision, numeric, boolean, timestamp with time zone, bytea, uuid), each with its
    /// `bigint` identity key, foreign keys for to-one relationships and the model's indexes —
    /// and saves the model in the schema (table `Z_PQLMETADATA`), so that opening the store
    /// without a model gets it back. All in one transaction; returns the tables created.
    ///
    /// A table that exists already is left as it is (PQL does not migrate PostgreSQL tables).
    ///
    /// ```swift
    /// let model = try StoreModel([ModelEntity("Tag", attributes: [ModelAttribute("name", .string, isOptional: false)])])
    /// let store = try await PostgresPredicateStore(url: url, model: model)
    /// let created = try await store.createTables()   // ["Tag"]
    /// ```
    @discardableResult
    public func createTables() async throws(StoreError) -> [String] {
        try await prepare()
        return try await changingSchema { () throws(StoreError) -> [String] in
            let model = self.model
            let tables = try PostgresSchemaDDL.tables(model, schema: schema)
            return try await transaction("creating the tables") { connection in
                try await self.createTables(tables, model: model, on: connection)
            }
        }
    }

    /// Creates `tables` that are missing, with their keys and indexes, and saves `model`.
    func createTables(_ tables: [PostgresSchemaDDL.Table], model: StoreModel, on connection: PostgresConnection) async throws -> [String] {
        // One schema change at a time (two stores creating one table would both see it missing).
        try await connection.run("SELECT pg_advisory_xact_lock(hashtext('pql.schema.' || \(schema)))", logger: logger)
        try await connection.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(quote(schema))"), logger: logger)
        let existing = try await existingTables(on: connection)
        var created: [String] = []
        for t in tables where !existing.contains(t.name) {
            try await connection.run(PostgresQuery(unsafeSQL: t.create), logger: logger)
            created.append(t.name)
        }
        // Indexes first: a foreign key to a column other than the key needs its unique index.
        for t in tables {
            for ix in t.indexes { try await connection.run(PostgresQuery(unsafeSQL: ix), logger: logger) }
        }
        for t in tables where created.contains(t.name) {
            for fk in t.foreignKeys { try await connection.run(PostgresQuery(unsafeSQL: fk), logger: logger) }
        }
        try await saveModel(model, on: connection)
        return created
    }

    func existingTables(on connection: PostgresConnection) async throws -> Set<String> {
        var names: Set<String> = []
        let rows = try await connection.statement("""
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(schema) AND c.relkind IN ('r', 'p')
            """, logger: logger)
        for try await row in rows { names.insert(try row.decode(String.self)) }
        return names
    }

    func saveModel(_ model: StoreModel, on connection: PostgresConnection) async throws {
        let table = qualified(StoreSchemaNames.metadataTable)
        try await connection.run(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (name text PRIMARY KEY, value text NOT NULL)"), logger: logger)
        let json = String(decoding: model.jsonData(), as: UTF8.self)
        var binds = PostgresBindings()
        binds.append(json)
        try await connection.run(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (name, value) VALUES ('model', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value", binds: binds), logger: logger)
    }

    /// The model PQL saved in `schema`, or nil when it holds none.
    static func savedModel(_ lease: Lease, schema: String, logger: Logger) async throws(StoreError) -> StoreModel? {
        let json: String?
        do {
            json = try await lease.withConnection("reading the saved model") { connection -> String? in
                try await savedModelText(on: connection, schema: schema, logger: logger)
            }
        } catch {
            throw ServerErrors.storeError(error, doing: "reading the saved model")
        }
        guard let json else { return nil }
        return try StoreModel(json: Data(json.utf8), names: .postgreSQL)
    }

    /// The model PQL saved in the store's schema, read on `connection` (inside a transaction,
    /// as that transaction sees it), or nil when it holds none.
    func savedModel(on connection: PostgresConnection) async throws -> StoreModel? {
        guard let json = try await Self.savedModelText(on: connection, schema: schema, logger: logger) else { return nil }
        return try StoreModel(json: Data(json.utf8), names: .postgreSQL)
    }

    private static func savedModelText(on connection: PostgresConnection, schema: String, logger: Logger) async throws -> String? {
        var exists = false
        for try await row in try await connection.statement("SELECT to_regclass(quote_ident(\(schema)) || '.' || quote_ident(\(StoreSchemaNames.metadataTable))) IS NOT NULL", logger: logger) {
            exists = try row.decode(Bool.self)
        }
        guard exists else { return nil }
        let sql = "SELECT value FROM \(quote(schema)).\(quote(StoreSchemaNames.metadataTable)) WHERE name = 'model'"
        var value: String? = nil
        for try await row in try await connection.statement(PostgresQuery(unsafeSQL: sql), logger: logger) { value = try row.decode(String.self) }
        return value
    }
}

import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Imports a data file (CSV, JSON, JSON Lines, zipped or not: an `ImportSource`, read by
    /// the SQLite store's readers) into `entity` through PostgreSQL's `COPY … FROM STDIN`, and
    /// returns the number of rows.
    ///
    /// As the SQLite store's `importFile`: when the model lacks the entity, it is created from the
    /// file's columns (read in a first pass unless `columns` gives them) with their inferred
    /// types, every attribute optional, in a new table with a `bigint` identity key `Z_PK`;
    /// into an existing entity, values are converted to its attributes' types, and a column
    /// the entity lacks becomes a new optional attribute (a column added to the table). All or
    /// nothing: the table, the saved model and every row are written in one transaction. A
    /// value the server refuses fails the import with PostgreSQL's message naming the line.
    /// An import that adds rows enough to make autovacuum analyse the table analyses it before
    /// returning, so that the queries after it are planned with statistics of the rows.
    ///
    /// `links` turn columns into to-one relationships, as on SQLite (`ImportLink`): each value
    /// must name exactly one object of the destination, or the import fails naming the line
    /// and the value, and nothing is written.
    ///
    /// ```swift
    /// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "flights.csv"))
    /// let n = try await store.importFile(source, into: "Flight", links: [ImportLink("carrier", to: "Airline", by: "carrier")])
    /// ```
    @discardableResult
    public func importFile(_ source: ImportSource, into entity: String, columns: ImportColumns? = nil, links: [ImportLink] = []) async throws(StoreError) -> Int {
        try await prepare()
        let columns = if let columns { columns } else { try await Self.offPool { () throws(StoreError) in try source.inferColumns() } }
        return try await importRows(into: entity, columns: columns, links: links) { (types, emit) throws(StoreError) in
            var given = columns
            given.types = types
            try source.forEachRow(given) { (row, _) throws(StoreError) in try emit(row) }
        }
    }

    /// Loads a table read into memory (`ImportTable`) into `entity`, as
    /// ``importFile(_:into:columns:links:)`` does a file.
    ///
    /// ```swift
    /// let table = try ImportTable.csv(Data("code,name\nUA,United\n".utf8))
    /// try await store.importTable(table, into: "Airline")
    /// ```
    @discardableResult
    public func importTable(_ table: ImportTable, into entity: String, links: [ImportLink] = []) async throws(StoreError) -> Int {
        try await prepare()
        return try await importRows(into: entity, columns: table.importColumns, links: links) { (_, emit) throws(StoreError) in
            for (r, row) in table.rows.enumerated() {
                do throws(StoreError) { try emit(row) } catch { throw error.reworded("row \(r + 1): \(error.message)") }
            }
        }
    }

    /// ``load(into:columns:rows:)``, which may create the table and its indexes, then the
    /// indexes read again.
    private func importRows(into entity: String, columns: ImportColumns, links: [ImportLink],
                            rows: @escaping @Sendable (_ types: [AttributeType], _ emit: ([PredicateValue]) throws(StoreError) -> Void) throws(StoreError) -> Void) async throws(StoreError) -> Int {
        try await changingSchema { () throws(StoreError) -> Int in try await self.load(into: entity, columns: columns, links: links, rows: rows) }
    }

    private func load(into entity: String, columns: ImportColumns, links: [ImportLink],
                      rows: @escaping @Sendable (_ types: [AttributeType], _ emit: ([PredicateValue]) throws(StoreError) -> Void) throws(StoreError) -> Void) async throws(StoreError) -> Int {
        let known = self.model
        let table = known.entities.first { $0.name == entity }.map { known.root($0).table } ?? entity
        for name in columns.names + [entity, table] where name.isEmpty || name.contains("\"") || name.utf8.contains(0) || name.utf8.count > 63 {
            throw StoreError(.importFailed, "'\(name)' cannot name a PostgreSQL \(name == entity ? "table" : "column") PQL imports into",
                             hint: "use a name of 1 to 63 bytes without double quotes")
        }
        // Refused before a connection is taken when the model this store knows refuses it.
        _ = try importModel(known, entity, columns, links: links)
        let schema = self.schema
        let given = modelIsGiven
        let (count, target) = try await transaction("importing into \(entity)") { connection -> (Int, StoreModel) in
            // One schema change at a time; then the model as the database has it now: another
            // import may have saved one since this store read it, and a model saved from the
            // older reading would drop the entities and attributes that import added.
            try await connection.run("SELECT pg_advisory_xact_lock(hashtext('pql.schema.' || \(schema)))", logger: self.logger)
            var model = known
            if !given, let saved = try await self.savedModel(on: connection), saved != known { model = saved }
            let (target, added, linked) = try self.importModel(model, entity, columns, links: links)
            let e = try target.entity(named: entity)
            let root = target.root(e)
            let attributes = target.allAttributes(e)
            var keys: [[PredicateValue]] = []
            for (dest, key) in try ImportLinkResolver.destinations(links, in: target) {
                keys.append(try await self.keyValues(of: dest, key, in: target, on: connection))
            }
            let resolver = try ImportLinkResolver(links: links, model: target, columnNames: columns.names, values: keys)
            // A link column is read as its key attribute's type, and holds the key as it is.
            var types = columns.names.map { name in resolver.keyType(ofColumn: name) ?? attributes.first { $0.name == name }?.type ?? .string }
            var names = columns.names.map { name in attributes.first { $0.name == name }?.column ?? name }
            let entityNumber = target.isInheritanceTree(root) ? target.entityNumber(e) : nil
            if entityNumber != nil {
                names.append(StoreSchemaNames.entityColumn)
                types.append(.integer64)
            }
            let converted = Array(types.prefix(columns.names.count))
            if target != model {
                // A link added to an existing table: its column before the tables' indexes are
                // made (the link's among them), its foreign key after (the destination's key is
                // made unique there).
                for r in linked {
                    let dest = try target.entity(named: r.destination)
                    let type = target.allAttributes(dest).first { $0.column == r.referencedColumn }.map { PostgresSchemaDDL.columnType($0.type) } ?? "bigint"
                    try await connection.run(PostgresQuery(unsafeSQL: "ALTER TABLE \(self.qualified(root.table)) ADD COLUMN \(quote(r.foreignKeyColumn)) \(type)"), logger: self.logger)
                }
                let tables = try PostgresSchemaDDL.tables(target, schema: schema)
                _ = try await self.createTables(tables, model: target, on: connection)
                for a in added {
                    try await connection.run(PostgresQuery(unsafeSQL: "ALTER TABLE \(self.qualified(root.table)) ADD COLUMN \(quote(a.column)) \(PostgresSchemaDDL.columnType(a.type))"), logger: self.logger)
                }
                for r in linked {
                    let dest = try target.entity(named: r.destination)
                    try await connection.run(PostgresQuery(unsafeSQL: "ALTER TABLE \(self.qualified(root.table)) ADD FOREIGN KEY (\(quote(r.foreignKeyColumn))) REFERENCES \(self.qualified(target.root(dest).table)) (\(quote(r.referencedColumn ?? target.root(dest).primaryKey)))"), logger: self.logger)
                }
            }
            // COPY takes an unqualified table name (PostgresNIO quotes it as one identifier).
            try await connection.run(PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(quote(schema))"), logger: self.logger)
            let producer = CopyRowProducer(types: types) { (emit) throws(StoreError) in
                try rows(converted) { (row) throws(StoreError) in
                    try resolver.check(row)
                    if let entityNumber { try emit(row + [.int(Int64(entityNumber))]) } else { try emit(row) }
                }
            }
            defer { producer.stop() }
            try await connection.copy(into: root.table, columns: names, logger: self.logger) { writer in
                for try await chunk in producer.chunks {
                    producer.took()
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            }
            return (producer.rowCount, target)
        }
        if target != known { setModel(target) }
        if let e = try? target.entity(named: entity) { await analyzeAfterLoad(target.root(e).table, added: count) }
        return count
    }

    /// The model an import writes with (`links` made relationships), the attributes it adds to
    /// an existing entity, and the links it adds to one.
    private func importModel(_ model: StoreModel, _ entity: String, _ columns: ImportColumns, links: [ImportLink]) throws(StoreError)
        -> (StoreModel, added: [ModelAttribute], linked: [ModelRelationship]) {
        let (plain, added) = try importModel(model, entity, columns.removing(links.map(\.column)))
        let target = try plain.addingImportLinks(links, to: entity, names: .postgreSQL)
        // Links an existing entity gains (a new entity's table is made with them).
        guard let before = model.entities.first(where: { $0.name == entity }) else { return (target, added, []) }
        let had = Set(model.allRelationships(before).map(\.name))
        let linked = target.allRelationships(try target.entity(named: entity)).filter { !$0.isToMany && !had.contains($0.name) }
        return (target, added, linked)
    }

    /// The key values of every object of `dest` (its sub-entities' too), read as the key's type.
    private func keyValues(of dest: ModelEntity, _ key: ModelAttribute, in model: StoreModel, on connection: PostgresConnection) async throws -> [PredicateValue] {
        let root = model.root(dest)
        let column = quote(key.column)
        let expression: String
        switch key.type {
        case .integer16, .integer32, .integer64: expression = "\(column)::bigint"
        case .double, .float, .decimal: expression = "\(column)::float8"
        case .boolean: expression = "\(column)::boolean"
        // Seconds since 2001, as the stores give dates to Codable.
        case .date: expression = "(EXTRACT(EPOCH FROM \(column)) - 978307200)::float8"
        case .string, .uri, .binary: expression = "\(column)::text"
        case .uuid: expression = "upper(\(column)::text)"
        }
        var sql = "SELECT \(expression) FROM \(qualified(root.table))"
        if model.isInheritanceTree(dest) {
            sql += " WHERE \(quote(StoreSchemaNames.entityColumn)) IN (\(model.descendants(dest).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
        }
        var out: [PredicateValue] = []
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await row in rows {
            switch key.type {
            case .integer16, .integer32, .integer64: out.append(try row.decode(Int64?.self).map(PredicateValue.int) ?? .null)
            case .double, .float, .decimal, .date: out.append(try row.decode(Double?.self).map(PredicateValue.double) ?? .null)
            case .boolean: out.append(try row.decode(Bool?.self).map(PredicateValue.bool) ?? .null)
            case .string, .uuid, .uri, .binary: out.append(try row.decode(String?.self).map(PredicateValue.string) ?? .null)
            }
        }
        return out
    }

    /// The model an import writes with, and the attributes it adds to an existing entity.
    private func importModel(_ model: StoreModel, _ entity: String, _ columns: ImportColumns) throws(StoreError) -> (StoreModel, added: [ModelAttribute]) {
        if let existing = model.entities.first(where: { $0.name == entity }) {
            let attributes = model.allAttributes(existing)
            var added: [ModelAttribute] = []
            for (i, c) in columns.names.enumerated() where !attributes.contains(where: { $0.name == c }) {
                if let r = model.allRelationships(existing).first(where: { $0.name == c }) {
                    throw StoreError(.importFailed, "column '\(c)' names the relationship \(entity).\(r.name); an import sets attributes only",
                                     hint: "link the column to \(r.destination) objects by one of their attributes (pql import --link \(c)=\(r.destination).KEY), or rename it in the file")
                }
                if c == model.root(existing).primaryKey || c == StoreSchemaNames.entityColumn {
                    throw StoreError(.importFailed, "column '\(c)' names the table's key, which the import assigns",
                                     hint: "rename or drop the column '\(c)' in the file")
                }
                added.append(ModelAttribute(c, columns.types[i], isOptional: true))
            }
            if added.isEmpty { return (model, []) }
            var grown = existing
            grown.attributes += added
            return (try StoreModel(model.entities.map { $0.name == existing.name ? grown : $0 }, templates: model.templates, names: .postgreSQL), added)
        }
        if let c = columns.names.first(where: { $0 == "Z_PK" }) {
            throw StoreError(.importFailed, "column '\(c)' names the key of the table the import creates",
                             hint: "rename the column '\(c)' in the file")
        }
        let attributes = columns.names.enumerated().map { ModelAttribute($1, columns.types[$0], isOptional: true) }
        return (try StoreModel(model.entities + [ModelEntity(entity, attributes: attributes)], templates: model.templates, names: .postgreSQL), [])
    }

    /// Runs synchronous work (reading a file) on a dispatch queue, off Swift's cooperative pool.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { c in
            DispatchQueue.global().async { c.resume(returning: Result { () throws(StoreError) in try body() }) }
        }
        return try result.get()
    }
}

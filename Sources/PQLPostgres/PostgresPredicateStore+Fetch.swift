import Foundation
import PostgresNIO
import PQL
import PQLStore
import Synchronization

extension PostgresPredicateStore {
    /// The records an `EntityQuery` matches — predicate (with `%@` arguments and
    /// `$variables`), sort rules, offset and limit — the same rows, in the same order, as the
    /// SQLite `PredicateStore` and the in-memory evaluator give for the same data.
    ///
    /// The predicate is compiled by PQL's one SQL compiler in native-only mode: what
    /// PostgreSQL answers as PQL does (comparisons of one kind with PQL's nil rules, BETWEEN,
    /// IN, BEGINSWITH/ENDSWITH/CONTAINS/LIKE, `[c]`/`[d]`/`[cd]` through the installed
    /// `pql.fold_*` functions, to-one key paths, ANY/ALL/NONE, SUBQUERY, `@count`, `@min`,
    /// `@max`, and `@sum`/`@avg` of non-optional numbers) runs on the server, values bound as
    /// parameters. Anything else (MATCHES, `[l]`, functions and arithmetic on key paths,
    /// comparisons of mixed kinds, NaN constants, case-insensitive sorts) throws a
    /// `StoreError` of kind `.unsupported` naming it, before any statement runs. `[c]`/`[d]`
    /// need ``installFunctions()`` first. Cancelling the task cancels the statement on the server.
    ///
    /// ```swift
    /// let late = try EntityQuery("flights", where: "dep_delay > %@ AND dest ==[c] %@", [600, "hnl"],
    ///                            sort: [SortRule("dep_delay", ascending: false)], limit: 10)
    /// for flight in try await store.fetch(late) { print(flight.id, flight["dep_delay"]) }
    /// ```
    public func fetch(_ query: EntityQuery) async throws(StoreError) -> [StoreRecord] {
        let out = Locked<[StoreRecord]>([])
        try await forEachBatch(query, size: 1024) { records in out.withLock { $0 += records } }
        return out.withLock { $0 }
    }

    /// Runs a fetch of `query` and hands its records to `body` in batches of `size` as the
    /// rows arrive (``fetch(_:)-(EntityQuery)`` and ``records(matching:)``). When the task is cancelled, or
    /// `body` throws, while rows still come, the statement is cancelled on the server and the
    /// connection is kept until the server has stopped it: PostgresNIO itself only discards
    /// the rest of the rows, which the server would go on computing.
    func forEachBatch(_ query: EntityQuery, size: Int, _ body: @escaping @Sendable ([StoreRecord]) async throws -> Void) async throws(StoreError) {
        do throws(StoreError) {
            let model = try await prepare()
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let statement = try builder.records(links: true)
            let sql = try postgresQuery(statement.compiled, typed: builder.typedBindings)
            let reader = try RowLayout(model: model, entity: query.entity, hasEntityColumn: statement.hasEntityColumn, links: true)
            if let pinned {
                try await forEachBatch(of: sql, through: pinned, entity: query.entity, reader: reader, size: size, body)
                return
            }
            try await withConnection("fetching \(query.entity)") { connection in
                var complete = false
                do {
                    var pending: [StoreRecord] = []
                    pending.reserveCapacity(size)
                    for try await row in try await connection.statement(sql, logger: self.logger) {
                        pending.append(try reader.record(row))
                        if pending.count == size {
                            try await body(pending)
                            pending.removeAll(keepingCapacity: true)
                        }
                    }
                    complete = true
                    if !pending.isEmpty { try await body(pending) }
                } catch {
                    if !complete { try await self.stop(statementOn: connection, cancelling: error) }
                    throw error
                }
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// In a transaction: the fetch through a cursor, `size` rows per `FETCH`, so that the
    /// transaction's one connection is free between batches for the calls `body` makes (a
    /// loop over ``records(matching:)`` that updates what it reads), and a stream left early
    /// only closes its cursor.
    private func forEachBatch(of sql: PostgresQuery, through pinned: PinnedConnection, entity: String, reader: RowLayout, size: Int,
                              _ body: @escaping @Sendable ([StoreRecord]) async throws -> Void) async throws(StoreError) {
        let cursor = pinned.cursorName()
        let what = "fetching \(entity)"
        try await withConnection(what) { connection in
            try await connection.run(PostgresQuery(unsafeSQL: "DECLARE \(cursor) NO SCROLL CURSOR FOR \(sql.sql)", binds: sql.binds), logger: self.logger)
        }
        do {
            while true {
                let batch = try await withConnection(what) { connection in
                    var records: [StoreRecord] = []
                    records.reserveCapacity(size)
                    for try await row in try await connection.statement(PostgresQuery(unsafeSQL: "FETCH FORWARD \(size) FROM \(cursor)"), logger: self.logger) {
                        records.append(try reader.record(row))
                    }
                    return records
                }
                if !batch.isEmpty { try await body(batch) }
                if batch.count < size { break }
            }
        } catch {
            await pinned.close(cursor, logger: logger)
            throw ServerErrors.storeError(error, doing: what)
        }
        await pinned.close(cursor, logger: logger)
    }

    /// The keys of the records an `EntityQuery` matches, in its order: the cheapest fetch.
    ///
    /// ```swift
    /// let ids = try await store.fetchIDs(try EntityQuery("flights", where: "dest == 'HNL'"))
    /// ```
    public func fetchIDs(_ query: EntityQuery) async throws(StoreError) -> [Int64] {
        try await prepare()
        do throws(StoreError) {
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let compiled = try builder.keys()
            let sql = try postgresQuery(compiled, typed: builder.typedBindings)
            return try await withConnection("fetching \(query.entity)") { connection in
                var out: [Int64] = []
                for try await row in try await connection.statement(sql, logger: self.logger) { out.append(try row.decode(Int64.self)) }
                return out
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// How many records an `EntityQuery` matches (after its offset and limit, when given),
    /// counted by the server.
    ///
    /// ```swift
    /// let n = try await store.count(try EntityQuery("flights", where: "origin == %@", ["JFK"]))
    /// ```
    public func count(_ query: EntityQuery) async throws(StoreError) -> Int {
        try await prepare()
        do throws(StoreError) {
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let compiled = try builder.count()
            let sql = try postgresQuery(compiled, typed: builder.typedBindings)
            return try await withConnection("counting \(query.entity)") { connection in
                var n = 0
                for try await row in try await connection.statement(sql, logger: self.logger) { n = Int(try row.decode(Int64.self)) }
                return n
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// The SQL a fetch of `query` runs, with its parameters (`$1`, `$2`…) and their values:
    /// to read, or to `EXPLAIN`. Throws what ``fetch(_:)-(EntityQuery)`` would throw before running.
    /// Written with the indexes the store last read: a fetch reads them again when that
    /// reading is ten seconds old, so call ``reloadIndexes()`` first to see what the next
    /// fetch runs after indexes changed outside PQL (only `BEGINSWITH[c]` depends on them).
    ///
    /// ```swift
    /// let compiled = try store.sql(for: EntityQuery("flights", where: "dest == %@", ["SFO"]))
    /// print(compiled.sql)   // SELECT t0."id", … FROM "public"."flights" t0 WHERE t0."dest" = $1
    /// ```
    public func sql(for query: EntityQuery) throws(StoreError) -> CompiledSQL {
        try requireModel("showing the SQL of a fetch")
        var builder = try selectBuilder(query, model: model)
        return UnusedParameters.dropped(from: try builder.records().compiled).compiled
    }

    /// The SQL ``count(_:)-(EntityQuery)`` runs for `query`, with its parameters, as the SQLite
    /// store's `countSQL(for:)` gives its own. Throws what the count would throw before running.
    ///
    /// ```swift
    /// let compiled = try store.countSQL(for: EntityQuery("flights", where: "dest == %@", ["SFO"]))
    /// print(compiled.sql)   // SELECT count(*) FROM "public"."flights" t0 WHERE t0."dest" = $1
    /// ```
    public func countSQL(for query: EntityQuery) throws(StoreError) -> CompiledSQL {
        try requireModel("showing the SQL of a count")
        var builder = try selectBuilder(query, model: model)
        return UnusedParameters.dropped(from: try builder.count()).compiled
    }

    /// The server's plan for a fetch of `query` (`EXPLAIN`, one line per row), to see which
    /// indexes it uses.
    ///
    /// ```swift
    /// let plan = try await store.explain(try EntityQuery("flights", where: "tailnum == 'N14228'"))
    /// print(plan.joined(separator: "\n"))   // Index Scan using flights_tailnum on flights t0 …
    /// ```
    public func explain(_ query: EntityQuery) async throws(StoreError) -> [String] {
        try await prepare()
        await readIndexesIfOld()
        var builder = try selectBuilder(query, model: model)
        let compiled = try builder.records().compiled
        let sql = try postgresQuery(CompiledSQL(sql: "EXPLAIN " + compiled.sql, bindings: compiled.bindings), typed: builder.typedBindings)
        return try await withConnection("explaining a fetch of \(query.entity)") { connection in
            var out: [String] = []
            for try await row in try await connection.statement(sql, logger: self.logger) { out.append(try row.decode(String.self)) }
            return out
        }
    }

    /// The dialect of this store's schemas.
    var dialect: PostgresDialect { PostgresDialect(schema: schema, functionSchema: functionSchema) }

    /// The statement with its values bound: the predicate's own values as themselves (a date as
    /// `timestamptz`, a boolean as `boolean`), the compiler's as SQLite would take them. The
    /// parameters the SQL does not use are left out, the others renumbered (see
    /// `UnusedParameters`), as ``sql(for:)-(EntityQuery)`` shows the statement.
    func postgresQuery(_ statement: CompiledSQL, typed: [PredicateValue?]) throws(StoreError) -> PostgresQuery {
        let (compiled, kept) = UnusedParameters.dropped(from: statement)
        var binds = PostgresBindings()
        for (value, slot) in zip(compiled.bindings, kept) {
            if case .text(let t) = value, t.utf8.contains(0) {
                throw StoreError(.unsupported, "text with the character U+0000 cannot be sent to PostgreSQL",
                                 hint: "PostgreSQL's text holds no U+0000 (no stored value has one): leave it out of the value")
            }
            if slot < typed.count, let original = typed[slot] {
                try Self.bind(original, to: &binds)
                continue
            }
            switch value {
            case .null: binds.appendNull()
            case .integer(let n): binds.append(n)
            case .real(let d): binds.append(d)
            case .text(let t): binds.append(t)
            case .blob(let b): binds.append(ByteBuffer(bytes: b))
            }
        }
        return PostgresQuery(unsafeSQL: compiled.sql, binds: binds)
    }
}

/// How a fetched row's columns become a `StoreRecord`: the key, the entity number when
/// entities share the table, then every attribute of the entity and its sub-entities in model
/// order (as `SelectBuilder.records` selects them), each decoded by its attribute type.
struct RowLayout: Sendable {
    struct Column: Sendable {
        var name: String
        var type: AttributeType
        /// A many-to-many's keys, as one text (see `SelectBuilder.keyArray`).
        var isKeyList = false
    }

    let entity: String
    let hasEntityColumn: Bool
    let columns: [Column]
    /// The entity's name and attribute names by entity number (inheritance trees only).
    let entities: [Int64: (name: String, attributes: Set<String>, keys: [String])]

    /// With `links`, each to-one relationship's key column after the attributes (as
    /// `SelectBuilder.records(links: true)` selects them), read as the key of the linked object.
    init(model: StoreModel, entity name: String, hasEntityColumn: Bool, links: Bool = false) throws(StoreError) {
        let entity = try model.entity(named: name)
        self.entity = name
        self.hasEntityColumn = hasEntityColumn
        var seen: Set<String> = [], columns: [Column] = []
        for e in model.descendants(entity) {
            for a in model.allAttributes(e) where seen.insert(a.name).inserted { columns.append(Column(name: a.name, type: a.type)) }
        }
        let attributeCount = columns.count
        if links {
            for e in model.descendants(entity) {
                for r in model.allRelationships(e) where !r.isToMany && seen.insert(r.name).inserted {
                    let dest = try model.entity(named: r.destination)
                    let key = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c } }
                    columns.append(Column(name: r.name, type: key?.type ?? .integer64))
                }
            }
            for e in model.descendants(entity) {
                for r in model.allRelationships(e) where r.isManyToMany && seen.insert(r.name).inserted {
                    columns.append(Column(name: r.name, type: .string, isKeyList: true))
                }
            }
        }
        self.columns = columns
        let attributeNames = columns.prefix(attributeCount).map(\.name)
        var entities: [Int64: (name: String, attributes: Set<String>, keys: [String])] = [:]
        if hasEntityColumn {
            for e in model.entities {
                let names = model.allAttributes(e).map(\.name)
                let own = Set(names + model.allRelationships(e).map(\.name))
                entities[Int64(model.entityNumber(e))] = (e.name, own, attributeNames.filter(Set(names).contains))
            }
        }
        self.entities = entities
        self.attributeKeys = attributeNames
        linkEntities = links ? model.linkEntities(of: entity) : [:]
    }

    /// Where each link leads, for the records' object semantics in memory.
    let linkEntities: [String: String]

    /// The record's keys when entities do not share the table: the attributes, in model order.
    let attributeKeys: [String]

    func record(_ row: PostgresRow) throws -> StoreRecord {
        let cells = Array(row)
        let id = try cells[0].decode(Int64.self)
        var first = 1
        var name = entity, own: Set<String>? = nil, keys = attributeKeys
        if hasEntityColumn {
            first = 2
            if let e = entities[try cells[1].decode(Int64.self)] { (name, own, keys) = (e.name, e.attributes, e.keys) }
        }
        var values: [String: PredicateValue] = [:]
        for (i, c) in columns.enumerated() where own?.contains(c.name) ?? true {
            values[c.name] = c.isKeyList ? SelectBuilder.keyArray(try cells[first + i].decode(String?.self))
                                         : try Self.value(cells[first + i], c.type)
        }
        return StoreRecord(entity: name, id: id, values: values, keys: keys, linkEntities: linkEntities)
    }

    static func value(_ cell: PostgresCell, _ type: AttributeType) throws -> PredicateValue {
        switch type {
        case .string, .uri: return try cell.decode(String?.self).map(PredicateValue.string) ?? .null
        // PostgreSQL writes a uuid lower case; memory and SQLite hold Foundation's upper-case uuidString.
        case .uuid: return try cell.decode(String?.self).map { .string($0.uppercased()) } ?? .null
        case .integer16, .integer32, .integer64: return try cell.decode(Int64?.self).map(PredicateValue.int) ?? .null
        case .double, .float: return try cell.decode(Double?.self).map(PredicateValue.double) ?? .null
        case .decimal: return try cell.decode(Decimal?.self).map(PredicateValue.decimal) ?? .null
        case .boolean: return try cell.decode(Bool?.self).map(PredicateValue.bool) ?? .null
        case .date: return try cell.decode(Date?.self).map(PredicateValue.date) ?? .null
        case .binary: return try cell.decode(ByteBuffer?.self).map { .data(Data($0.readableBytesView)) } ?? .null
        }
    }
}

import PostgresNIO
import PQLStore
import Synchronization

/// The indexes a store last read from PostgreSQL's catalog, with when: shared by a store and
/// the stores its transactions hand their bodies. Only `BEGINSWITH[c]` compiles by them (see
/// `PrefixIndexes`); every form gives the same rows, so an old reading costs speed, never
/// correctness.
final class IndexCatalog: Sendable {
    struct Reading {
        /// nil when the catalog could not be read (an engine without `pg_depend`): the
        /// compiler then writes the forms an index serves.
        var indexes: PrefixIndexes?
        /// nil when the catalog could not be read: every sort then writes PQL's full order.
        var sortedColumns: SortedColumns?
        var read: ContinuousClock.Instant
    }

    private let reading = Locked<Reading?>(nil)

    /// How long a reading is used: an index made or dropped outside PQL is seen by the
    /// calls that start this long afterwards (or at once after ``PostgresPredicateStore/reloadIndexes()``).
    static let lifetime: Duration = .seconds(10)

    /// The last reading's indexes, however old.
    var current: PrefixIndexes? { reading.withLock { $0?.indexes } }

    /// What the last reading found of the columns a fetch may sort by, however old.
    var sortedColumns: SortedColumns? { reading.withLock { $0?.sortedColumns } }

    /// True when there is no reading younger than ``lifetime``, and then dates the reading
    /// now, so that the calls that start while one reads the catalog keep the old reading
    /// rather than read it too.
    func claimIfOld() -> Bool {
        reading.withLock { r in
            let now = ContinuousClock.now
            if let old = r, now - old.read < Self.lifetime { return false }
            r?.read = now
            return true
        }
    }

    func store(_ indexes: PrefixIndexes?, sortedColumns: SortedColumns?, readAt instant: ContinuousClock.Instant) {
        reading.withLock { $0 = Reading(indexes: indexes, sortedColumns: sortedColumns, read: instant) }
    }

    /// Drops the reading, after PQL changed the schema: the next call reads the catalog.
    func forget() { reading.withLock { $0 = nil } }
}

extension PostgresPredicateStore {
    /// Reads again which columns have the indexes PQL's `name BEGINSWITH[c] 'a'` chooses its
    /// SQL by (a B-tree on `name COLLATE "C"`, an index on `pql.fold_c(name)`), so that the
    /// next fetch uses an index made or dropped outside PQL at once. Without it, the store
    /// reads them when it opens, after its own ``createTables()``, ``createIndexes()``,
    /// ``dropIndexes()``, imports and ``installFunctions()``, and when its last reading is
    /// ten seconds old. The SQL differs only in speed: every form gives the same rows.
    ///
    /// ```swift
    /// try await store.client.query(#"CREATE INDEX people_name_c ON people (name COLLATE "C")"#)
    /// try await store.reloadIndexes()
    /// ```
    public func reloadIndexes() async throws(StoreError) {
        let now = ContinuousClock.now
        let (indexes, sorted) = try await withConnection("reading the indexes of the schema '\(schema)'") { connection in
            (try await Self.prefixIndexes(on: connection, schema: self.schema, functionSchema: self.functionSchema, logger: self.logger),
             try await Self.sortedColumns(on: connection, schema: self.schema, logger: self.logger))
        }
        indexCatalog.store(indexes, sortedColumns: sorted, readAt: now)
    }

    /// After the store changed the schema (tables, indexes, functions): reads the catalog now,
    /// so that ``sql(for:)-(EntityQuery)`` shows what the next fetch runs; a transaction's
    /// store drops the reading instead (the store that began it reads it at its next call).
    func indexesChanged() async {
        guard pinned == nil else { indexCatalog.forget(); return }
        do { try await reloadIndexes() } catch { indexCatalog.forget() }
    }

    /// Runs `change`, which changes the schema, then reads the indexes again (drops the
    /// reading when it fails: a part of the change may have stayed).
    func changingSchema<T>(_ change: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: T
        do { result = try await change() } catch {
            indexCatalog.forget()
            throw error
        }
        await indexesChanged()
        return result
    }

    /// Reads the catalog when the last reading is older than `IndexCatalog.lifetime`. A
    /// transaction's store keeps the reading it has: a statement of its own would hold the
    /// transaction's connection. A catalog that cannot be read leaves the indexes unknown.
    func readIndexesIfOld() async {
        guard pinned == nil, indexCatalog.claimIfOld() else { return }
        let now = ContinuousClock.now
        do {
            try await reloadIndexes()
        } catch {
            // A cancelled call says nothing of the catalog: the next call reads it.
            if error.kind == .cancelled { indexCatalog.forget() } else { indexCatalog.store(nil, sortedColumns: nil, readAt: now) }
        }
    }

    /// `query`'s statement builder, knowing the indexes the store last read.
    func selectBuilder(_ query: EntityQuery, model: StoreModel) throws(StoreError) -> SelectBuilder {
        var builder = try SelectBuilder(query, model: model, dialect: dialect, prefixIndexes: indexCatalog.current)
        builder.sortedColumns = indexCatalog.sortedColumns
        return builder
    }

    /// The columns of `schema`'s tables that hold no NULL (`NOT NULL`) and the floating-point
    /// ones a `CHECK` keeps from holding NaN (a constraint on the column alone whose expression
    /// PostgreSQL prints as `(price <> 'NaN'::double precision)` or `(NOT (price = 'NaN'::…))`),
    /// so that sorts on them are written as an index serves them (see `SortedColumns`). Columns
    /// whose names differ only in case, which the compiler tells apart no better than SQLite
    /// does, count only when all of them hold no NULL (no NaN).
    static func sortedColumns(on connection: PostgresConnection, schema: String, logger: Logger) async throws -> SortedColumns {
        let sql = """
            SELECT c.relname::text, a.attname::text, a.attnotnull,
                   EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c' AND k.conkey = ARRAY[a.attnum]
                           AND regexp_replace(pg_get_expr(k.conbin, k.conrelid), '::(double precision|real|numeric)(\\)+)$', '\\2')
                               IN ('(' || quote_ident(a.attname) || ' <> ''NaN'')', '(NOT (' || quote_ident(a.attname) || ' = ''NaN''))'))
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND c.relkind IN ('r', 'p')
              AND a.attnum > 0 AND NOT a.attisdropped
            """
        var query = PostgresQuery(unsafeSQL: sql)
        query.binds.append(schema)
        var noNull: [IndexedColumn: Bool] = [:], noNaN: [IndexedColumn: Bool] = [:]
        for try await (table, column, notNull, checked) in try await connection.statement(query, logger: logger).decode((String, String, Bool, Bool).self) {
            let c = IndexedColumn(table: table, column: column)
            noNull[c] = (noNull[c] ?? true) && notNull
            noNaN[c] = (noNaN[c] ?? true) && checked
        }
        return SortedColumns(holdingNoNull: Set(noNull.filter(\.value).keys), holdingNoNaN: Set(noNaN.filter(\.value).keys))
    }

    /// The columns of `schema`'s tables that lead a B-tree in `COLLATE "C"` order, and those
    /// whose `functionSchema.fold_c` is an index's first key (an expression index that depends
    /// on the column and on the function, whose first key PostgreSQL prints as the call on the
    /// column), partial indexes left out; nil when the installed functions predate
    /// `fold_c_like` (a database an older PQL set up, read by a role that cannot install
    /// them): the forms that need only `fold_c` then.
    static func prefixIndexes(on connection: PostgresConnection, schema: String, functionSchema: String, logger: Logger) async throws -> PrefixIndexes? {
        // Schema names are compared as names: to_regnamespace would parse them as SQL (folding
        // capitals, failing on quotes).
        let sql = """
            WITH s AS (SELECT oid FROM pg_namespace WHERE nspname = $1)
            SELECT 'ordered', c.relname::text, a.attname::text
            FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class x ON x.oid = i.indexrelid
            JOIN pg_am m ON m.oid = x.relam JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
            WHERE c.relnamespace IN (SELECT oid FROM s) AND i.indpred IS NULL AND m.amname = 'btree'
              AND i.indcollation[0] = (SELECT oid FROM pg_collation WHERE collname = 'C' AND collnamespace = 'pg_catalog'::regnamespace)
            UNION ALL
            SELECT 'folded', c.relname::text, a.attname::text
            FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
            JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = i.indexrelid
              AND d.refclassid = 'pg_class'::regclass AND d.refobjid = c.oid AND d.refobjsubid > 0
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.refobjsubid
            WHERE c.relnamespace IN (SELECT oid FROM s) AND i.indpred IS NULL AND i.indkey[0] = 0
              AND EXISTS (SELECT 1 FROM pg_depend f WHERE f.classid = 'pg_class'::regclass AND f.objid = i.indexrelid
                          AND f.refclassid = 'pg_proc'::regclass AND f.refobjid = to_regprocedure(quote_ident($2) || '.fold_c(text)'))
              AND pg_get_indexdef(i.indexrelid, 1, false) IN (quote_ident($2) || '.fold_c(' || quote_ident(a.attname) || ')',
                                                              'fold_c(' || quote_ident(a.attname) || ')')
            UNION ALL
            SELECT 'like', '', '' WHERE to_regprocedure(quote_ident($2) || '.fold_c_like(text, text)') IS NOT NULL
            """
        var query = PostgresQuery(unsafeSQL: sql)
        query.binds.append(schema)
        query.binds.append(functionSchema)
        var indexes = PrefixIndexes(ordered: [], caseFolded: [])
        var canScan = false
        for try await (kind, table, column) in try await connection.statement(query, logger: logger).decode((String, String, String).self) {
            let c = IndexedColumn(table: table, column: column)
            switch kind {
            case "ordered": indexes.ordered.insert(c)
            case "folded": indexes.caseFolded.insert(c)
            default: canScan = true
            }
        }
        return canScan ? indexes : nil
    }
}

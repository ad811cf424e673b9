import CSQLite
import Foundation
import PQL

/// An SQLite store of a model's entities: create, insert, update, delete, and fetch with
/// predicates compiled to SQL that gives exactly the rows the in-memory evaluator gives.
///
/// Safe to share between threads. A store PQL created uses WAL: writes run one at a time on one
/// connection, while fetches and counts run in parallel on read-only connections of their own,
/// each seeing the last committed state (inside `transaction`, reads on the writing
/// thread see its uncommitted changes). An in-memory store runs every call on its one
/// connection, one at a time. Other processes may read the file while it is written. A file
/// another program made keeps its journal mode (in rollback-journal mode, reads run on the
/// writer's connection); opened `readOnly`, nothing on disk changes.
///
/// ```swift
/// let store = try PredicateStore(path: "flights.sqlite", model: model)
/// let id = try store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
/// let united = try store.fetch(EntityQuery("Airline", where: "name BEGINSWITH[c] 'united'"))
/// ```
public final class PredicateStore: @unchecked Sendable {
    // @unchecked: `connection` and `lockDepth` are used under `lock` (the writer's lock, held
    // through a whole transaction); `model` changes under both locks and is read under either;
    // `owner` and `indexCache` live under `stateLock`, which is only ever held for a moment, so
    // readers never wait for a writer. Reader connections go to one thread at a time.
    let connection: SQLiteConnection
    private let lock = NSRecursiveLock()
    private let stateLock = NSLock()
    /// How many `locked` calls are open on the thread that holds `lock`.
    private var lockDepth = 0
    /// The thread holding `lock`, so that its reads see its own uncommitted writes.
    private var owner: pthread_t?
    /// Read-only connections for parallel reads of a file store; nil in memory.
    let readers: ReaderPool?
    /// The existing file the store opened, as it was found (nil for a store it created).
    private let file: DatabaseFile?
    /// The model the store was opened with, created from, or inferred.
    public private(set) var model: StoreModel
    /// The tables model inference left out, each with the reason: a table without an integer
    /// key (a `WITHOUT ROWID` table keyed otherwise), one with a column the model cannot name,
    /// an FTS5 table's internal tables. Empty when the model was given or saved by PQL.
    ///
    /// ```swift
    /// for (table, reason) in store.skippedTables { print("left out \(table): \(reason)") }
    /// ```
    public let skippedTables: [String: String]
    /// The saved model's version (see ``modelVersion``), under `stateLock`.
    private var version = 0
    /// The file's indexes, read again when the schema version changes.
    private var indexCache: (version: Int64, indexes: SQLiteIndexes)? = nil
    /// See ``indexRangePolicy``, under `stateLock`.
    private var rangePolicy = IndexRangePolicy.measured
    /// Where the async API (``AsyncPredicateStore``) runs the store's synchronous work.
    let queues = StoreQueues()

    /// Opens (or creates) the store at `path` for `model`, creating any missing tables and
    /// indexes and remembering the model in the file. `":memory:"` makes an in-memory store.
    ///
    /// A store saved with another version of the model is migrated first, in one transaction
    /// with the rest, as Core Data's lightweight migration does: entities, optional attributes
    /// (or ones with a default, which existing objects take), relationships and indexes are
    /// added; indexes dropped; entities, attributes and relationships renamed when the new
    /// model names their old name as `renamingIdentifier`; entities and attributes dropped when
    /// they hold no data. Any other change (a type change, an attribute made required without
    /// a default, data that would be lost) throws a ``StoreError/Kind/modelMismatch`` error
    /// naming each difference, and leaves the file as it was, unless `migration` is given: that
    /// step then runs inside the migration's transaction (see ``StoreMigration``) to move the
    /// data, and the new model is saved after it. ``modelVersion`` counts the versions.
    ///
    /// ```swift
    /// let v2 = try StoreModel([ModelEntity("Person", attributes: [
    ///     ModelAttribute("name", .string),
    ///     ModelAttribute("nickname", .string, renamingIdentifier: "nick"),   // was "nick"
    ///     ModelAttribute("score", .integer64, isOptional: false, defaultValue: .int(0)),   // new
    /// ])])
    /// let store = try PredicateStore(path: "app.sqlite", model: v2)
    /// ```
    public init(path: String, model: StoreModel, migration: MigrationStep? = nil) throws(StoreError) {
        // A model checked by PostgreSQL's rules may hold names SQLite takes for one another.
        try model.checkSQLNames()
        connection = try SQLiteConnection(path: path, access: .readWrite(create: true))
        readers = Self.isInMemory(path) ? nil : ReaderPool(path: path, access: .readOnly)
        file = nil
        self.model = model
        skippedTables = [:]
        try Self.configure(connection)
        try connection.transaction { () throws(StoreError) in
            if let saved = try Self.readableSavedModel(on: connection), saved != model {
                version = try Self.savedVersion(on: connection)
                try migrateSchema(from: saved, to: model, step: migration)
            }
            try createSchema(model)
            version = try saveModel(model)
        }
    }

    /// Opens the store at `path` for `model`; read-only (`readOnly: true`), it never migrates:
    /// a store saved with a model that differs from `model` is a ``StoreError/Kind/modelMismatch``
    /// error naming each difference, and nothing on disk changes. `readOnly: false` is
    /// ``init(path:model:migration:)``.
    ///
    /// ```swift
    /// let store = try PredicateStore(path: "app.sqlite", model: model, readOnly: true)
    /// ```
    public convenience init(path: String, model: StoreModel, readOnly: Bool) throws(StoreError) {
        guard readOnly else {
            try self.init(path: path, model: model, migration: nil)
            return
        }
        try self.init(path: path, readOnly: true)
        let diff = ModelDiff(from: self.model, to: model)
        if !diff.isEmpty { throw Self.mismatch(diff.changes, version: modelVersion, readOnly: true) }
    }

    /// Opens an existing database: the model PQL saved in it, or one inferred from its tables,
    /// columns and foreign keys when another program made it.
    ///
    /// A missing or empty file, or one that is not an SQLite database, is an error (never a
    /// new database). `readOnly` opens it with `SQLITE_OPEN_READONLY` and changes nothing on
    /// disk: not the file, not its journal mode, and no files left beside it (the `-wal` and
    /// `-shm` files SQLite makes for reading a WAL database are removed again when the store
    /// closes, unless another process still uses them). A WAL database in a directory PQL
    /// cannot write is opened `immutable` when no write-ahead log lies beside it (changes
    /// another process makes while it is open are then not seen). Opened for writing, a file
    /// another program made keeps its journal mode; PQL's own stores use WAL.
    ///
    /// ```swift
    /// let store = try PredicateStore(path: "app.sqlite", readOnly: true)
    /// let n = try store.count(EntityQuery("ZPERSON", where: "ZAGE > 30"))
    /// ```
    public init(path: String, readOnly: Bool = false) throws(StoreError) {
        var access: SQLiteConnection.Access = readOnly ? .readOnly : .readWrite(create: false)
        let inspected = Self.isInMemory(path) ? nil : try DatabaseFile.inspect(path)
        var opened: SQLiteConnection? = nil
        do throws(StoreError) {
            do { opened = try SQLiteConnection(path: path, access: access) } catch {
                guard readOnly, let inspected, inspected.canOpenImmutable(after: error) else {
                    throw inspected?.explain(error, readOnly: readOnly) ?? error
                }
                access = .immutable
                opened = try SQLiteConnection(path: path, access: access)
            }
            guard let connection = opened else { throw StoreError(.sqlite, "no connection") }
            let saved = try Self.savedModel(on: connection)
            if saved != nil && !readOnly { try Self.configure(connection) }
            // Parallel readers need WAL when this store also writes (in rollback-journal mode a
            // reader would wait for the writer): a foreign file keeps its mode and reads on the writer.
            let parallel = readOnly || inspected?.isWAL == true || saved != nil
            readers = inspected == nil || !parallel ? nil : ReaderPool(path: path, access: access)
            if let saved {
                model = saved
                skippedTables = [:]
            } else {
                let inferred = try SchemaInference.inferred(from: connection)
                model = inferred.model
                skippedTables = inferred.skipped
            }
            version = saved == nil ? 0 : try Self.savedVersion(on: connection)
            self.connection = connection
        } catch {
            // Whatever a failed open left beside the file goes too.
            opened?.close()
            inspected?.tidy()
            throw error
        }
        file = inspected
    }

    deinit {
        // Readers first, so the writer (if any) is the last connection and SQLite removes the
        // -wal and -shm files; after a read-only store, `tidy` does.
        readers?.closeAll()
        connection.close()
        file?.tidy()
    }

    /// The model inferred from the database's tables, columns and foreign keys (ignoring the
    /// model PQL may have saved in it).
    public func inferModel() throws(StoreError) -> StoreModel {
        try locked { () throws(StoreError) in try SchemaInference.model(of: connection) }
    }

    /// An empty in-memory store for `model`.
    ///
    /// ```swift
    /// let scratch = try PredicateStore.inMemory(model)
    /// ```
    public static func inMemory(_ model: StoreModel) throws(StoreError) -> PredicateStore {
        try PredicateStore(path: ":memory:", model: model)
    }

    private static func configure(_ connection: SQLiteConnection) throws(StoreError) {
        if !isInMemory(connection.path) {
            try connection.execute("PRAGMA journal_mode=WAL", what: "switching the store to WAL")
            try connection.execute("PRAGMA synchronous=NORMAL")
        }
    }

    /// A private in-memory or temporary database exists only on its one connection.
    private static func isInMemory(_ path: String) -> Bool {
        path.isEmpty || path == ":memory:" || path.contains("mode=memory")
    }

    func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        lockDepth += 1
        if lockDepth == 1 { setOwner(pthread_self()) }
        defer {
            if lockDepth == 1 { setOwner(nil) }
            lockDepth -= 1
            lock.unlock()
        }
        return try body()
    }

    private func setOwner(_ thread: pthread_t?) {
        stateLock.lock()
        owner = thread
        stateLock.unlock()
    }

    /// Runs a read: on a pooled read-only connection of its own when the store has them,
    /// without waiting for a writer (even one in a long transaction); on the writing
    /// connection when this thread is the writer (so it sees its own uncommitted changes), or
    /// when the store lives in memory.
    func reading<T>(_ body: (SQLiteConnection, StoreModel, IndexUse) throws(StoreError) -> T) throws(StoreError) -> T {
        stateLock.lock()
        let isWriter = owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        let snapshot = model
        stateLock.unlock()
        guard let readers, !isWriter else {
            return try locked { () throws(StoreError) in try body(connection, model, indexes()) }
        }
        return try readers.withReader { (reader) throws(StoreError) in
            try body(reader, snapshot, indexes(on: reader))
        }
    }

    func cachedIndexes() -> (version: Int64, indexes: SQLiteIndexes)? {
        stateLock.lock()
        defer { stateLock.unlock() }
        return indexCache
    }

    func cacheIndexes(version: Int64, _ indexes: SQLiteIndexes) {
        stateLock.lock()
        indexCache = (version, indexes)
        stateLock.unlock()
    }

    /// Whether statements measure their ranges before SQLite searches an index for them
    /// (`IndexUse`); tests compare the rows under each policy.
    package var indexRangePolicy: IndexRangePolicy {
        get {
            stateLock.lock()
            defer { stateLock.unlock() }
            return rangePolicy
        }
        set {
            stateLock.lock()
            rangePolicy = newValue
            stateLock.unlock()
        }
    }

    /// Runs `body` as one transaction: everything it wrote is kept if it returns, nothing if it throws.
    /// This overload is for bodies that throw only ``StoreError`` (write them
    /// `{ () throws(StoreError) in … }`); a body that throws errors of its own gets the
    /// generic overload, which passes them through unchanged.
    public func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try locked { () throws(StoreError) in
            let before = model, versionBefore = currentVersion()
            do throws(StoreError) {
                return try connection.transaction(body)
            } catch {
                // Entities added inside (addEntities, an import) were rolled back with the rest.
                if model != before { setModel(before) }
                setVersion(versionBefore)
                throw error
            }
        }
    }

    /// Replaces the model readers see (under both locks: the caller holds the writer's).
    func setModel(_ new: StoreModel) {
        stateLock.lock()
        model = new
        stateLock.unlock()
    }

    func currentVersion() -> Int {
        stateLock.lock()
        defer { stateLock.unlock() }
        return version
    }

    func setVersion(_ v: Int) {
        stateLock.lock()
        version = v
        stateLock.unlock()
    }

    /// Stops the statements running now (from another thread): each fails with `.cancelled`.
    public func interrupt() {
        connection.interrupt()
        readers?.interrupt()
    }

    // MARK: schema and model

    /// Creates what the file lacks of `model`'s tables and indexes. An object the file already
    /// has under the same name is kept (reopening a store); one whose name differs only in case,
    /// or of another kind or table, would be silently taken for the model's (SQLite matches
    /// names ignoring case, and `IF NOT EXISTS` skips), so it is an error.
    func createSchema(_ model: StoreModel) throws(StoreError) {
        let existing = try connection.prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE name = ?1 COLLATE NOCASE", cached: true)
        for object in try StoreSchema.objects(model) {
            try existing.bind([.text(object.name)])
            let found = try existing.step() ? (type: existing.text(0), name: existing.text(1), table: existing.text(2)) : nil
            existing.reset()
            if let (type, name, table) = found {
                if type != object.kind.rawValue || !SQLName.identical(name, object.name) || !SQLName.identical(table, object.table) {
                    let what = type == "index" ? "an index '\(name)' on '\(table)'" : "a \(type) '\(name)'"
                    throw StoreError(.invalidModel, "the database already has \(what), which SQLite would take for the \(object.kind.rawValue) '\(object.name)' the model needs",
                                     hint: object.kind == .table ? "use the entity name '\(name)' as the file spells it, or choose a name that differs in more than case"
                                                                 : "rename the entity or attribute, or drop that index")
                }
            }
            try connection.execute(object.sql)
        }
    }

    /// Saves `model` in the file, counting a new version when it differs from the saved one,
    /// and returns the version (for the caller to show once the transaction commits).
    @discardableResult
    func saveModel(_ model: StoreModel) throws(StoreError) -> Int {
        let table = SQLIdentifier.quote(StoreSchema.metadataTable)
        try connection.execute("CREATE TABLE IF NOT EXISTS \(table) (key TEXT PRIMARY KEY, value BLOB)")
        let data = model.jsonData()
        let read = try connection.prepare("SELECT value FROM \(table) WHERE key = 'model'")
        let saved: Data? = if try read.step(), case .blob(let d) = read.value(0) { d } else { nil }
        let stored = try Self.savedVersion(on: connection)
        let v = saved == data ? max(stored, 1) : max(stored, saved == nil ? 0 : 1) + 1
        if saved != data || stored != v {
            let s = try connection.prepare("INSERT OR REPLACE INTO \(table) (key, value) VALUES ('model', ?1), ('version', ?2)")
            try s.run([.blob(data), .integer(Int64(v))])
        }
        return v
    }

    /// The version saved beside the model (0 when there is none).
    static func savedVersion(on connection: SQLiteConnection) throws(StoreError) -> Int {
        let exists = try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1")
        try exists.bind([.text(StoreSchema.metadataTable)])
        guard try exists.step() else { return 0 }
        let s = try connection.prepare("SELECT value FROM \(SQLIdentifier.quote(StoreSchema.metadataTable)) WHERE key = 'version'")
        guard try s.step(), case .integer(let v) = s.value(0) else { return 0 }
        return Int(clamping: v)
    }

    /// The saved model, nil when there is none or it cannot be read (the caller's model replaces it).
    private static func readableSavedModel(on connection: SQLiteConnection) throws(StoreError) -> StoreModel? {
        do throws(StoreError) { return try savedModel(on: connection) } catch {
            guard error.kind == .modelFile else { throw error }
            return nil
        }
    }

    static func savedModel(on connection: SQLiteConnection) throws(StoreError) -> StoreModel? {
        let exists = try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1")
        try exists.bind([.text(StoreSchema.metadataTable)])
        guard try exists.step() else { return nil }
        let s = try connection.prepare("SELECT value FROM \(SQLIdentifier.quote(StoreSchema.metadataTable)) WHERE key = 'model'")
        guard try s.step(), case .blob(let data) = s.value(0) else { return nil }
        do { return try StoreModel(json: data) } catch {
            // An earlier PQL saved models whose names SQLite cannot tell apart (Person, person).
            throw StoreError(.modelFile, "the model saved in this store cannot be read: \(error.message)",
                             hint: error.kind == .invalidModel
                                 ? "the saved model is inconsistent (an earlier PQL may have saved it); open the file with a model of your own, PredicateStore(path:model:)"
                                 : "the file may come from a newer PQL")
        }
    }

    /// Adds entities to the model (and their tables to the file), keeping the existing ones. An
    /// entity given again replaces the model's, its table migrated as an open migrates it
    /// (``init(path:model:migration:)``): a change the store cannot make by itself throws
    /// ``StoreError/Kind/modelMismatch`` and changes nothing.
    ///
    /// ```swift
    /// try store.addEntities([ModelEntity("Tag", attributes: [ModelAttribute("name", .string)])])
    /// ```
    public func addEntities(_ entities: [ModelEntity]) throws(StoreError) {
        try locked { () throws(StoreError) in
            var merged = model
            let v = try connection.transaction { () throws(StoreError) in
                // From the model the file has now (another process may have added to it).
                try adoptSavedModel()
                merged = try StoreModel(model.entities.filter { e in !entities.contains { $0.name == e.name } } + entities,
                                        templates: model.templates)
                try migrateSchema(from: model, to: merged, step: nil)
                try createSchema(merged)
                return try saveModel(merged)
            }
            setModel(merged)
            setVersion(v)
        }
    }

    // MARK: compiling

    /// The SQL and parameters a query runs as (what `pql query --sql` prints): by default the
    /// records `fetch` reads, or the statement of `fetchIDs` or `count` (``QueryStatement``).
    /// The SQL is written for the file's indexes and, for a range over an indexed column,
    /// for what the range matches now (README, "Indexes and plans"), as the call would run it.
    ///
    /// ```swift
    /// print(try store.sql(for: EntityQuery("Flight", where: "dest == %@", ["SFO"])))
    /// // SELECT … FROM "Flight" t0 WHERE t0."dest" = ?1
    /// // -- bindings: ?1 = 'SFO'
    /// print(try store.sql(for: EntityQuery("Flight", where: "dep_delay > 0"), as: .keys))
    /// // SELECT t0."Z_PK" FROM "Flight" t0 WHERE t0."dep_delay" > ?1
    /// ```
    public func sql(for query: EntityQuery, as statement: QueryStatement = .records) throws(StoreError) -> CompiledSQL {
        try locked { () throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes())
            return try builder.statement(statement)
        }
    }

    /// The SQL and parameters `count(_:)` runs (``sql(for:as:)`` with `.count`).
    public func countSQL(for query: EntityQuery) throws(StoreError) -> CompiledSQL {
        try sql(for: query, as: .count)
    }

    /// SQLite's plan (`EXPLAIN QUERY PLAN`) for the statement a query runs as, one line per
    /// step, indented by depth: by default the records `fetch` reads, or the statement of
    /// `fetchIDs` or `count`. It is planned on a connection such as the call would run on,
    /// with the schema and statistics the file has now.
    ///
    /// ```swift
    /// for step in try store.queryPlan(for: EntityQuery("Flight", where: "dep_delay > 600")) { print(step) }
    /// // SEARCH t0 USING INDEX Flight_dep_delay_index (dep_delay>?)
    /// print(try store.queryPlan(for: EntityQuery("Flight", where: "dep_delay > 0"), as: .keys))
    /// ```
    public func queryPlan(for query: EntityQuery, as statement: QueryStatement = .records) throws(StoreError) -> [String] {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            // EXPLAIN plans with the schema the connection last loaded, and only a statement
            // that reads the file notices that another connection has changed it (an index
            // made or dropped): one such read first.
            try connection.execute("SELECT count(*) FROM sqlite_schema")
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let c = try builder.statement(statement)
            let s = try connection.prepare("EXPLAIN QUERY PLAN " + c.sql)
            try s.bind(c.bindings, foldedAllowed: true)
            var depth: [Int64: Int] = [0: 0]
            var lines: [String] = []
            while try s.step() {
                let id = s.int64(0), parent = s.int64(1)
                let d = (depth[parent] ?? 0) + (parent == 0 ? 0 : 1)
                depth[id] = d
                lines.append(String(repeating: "  ", count: d) + s.text(3))
            }
            return lines
        }
    }
}

/// Which of the statements a query runs as ``PredicateStore/sql(for:as:)`` and
/// ``PredicateStore/queryPlan(for:as:)`` show.
///
/// ```swift
/// let plan = try store.queryPlan(for: EntityQuery("Person", where: "age > 30"), as: .keys)
/// ```
public enum QueryStatement: Sendable, Hashable {
    /// The records `fetch`, `forEach` and `records(matching:)` read: every attribute (a fetch
    /// also reads the keys its to-one and many-to-many relationships link to, which changes
    /// neither its WHERE nor its plan's search).
    case records
    /// The keys `fetchIDs` reads, which also select the rows of `batchUpdate` and `batchDelete`.
    case keys
    /// The `SELECT count(*)` of `count`.
    case count
}

extension SelectBuilder {
    mutating func statement(_ kind: QueryStatement) throws(StoreError) -> CompiledSQL {
        switch kind {
        case .records: return try records().compiled
        case .keys: return try keys()
        case .count: return try count()
        }
    }
}

extension PredicateStore {
    /// Copies the write-ahead log into the database file and closes it off, so the file alone
    /// holds everything (before copying or moving it).
    public func checkpoint() throws(StoreError) {
        try locked { () throws(StoreError) in
            if connection.path != ":memory:" {
                readers?.closeIdle()
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try connection.execute("PRAGMA journal_mode=DELETE")
            }
        }
    }
}

import CSQLite
import Foundation
import PQL

/// SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite database connection. Not thread-safe by itself: ``PredicateStore`` confines it.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    /// Keyed by the SQL's bytes: under `String` equality two statements naming identifiers that
    /// differ only in Unicode normalization (a table "é" precomposed and another "e" + U+0301)
    /// would share one prepared statement.
    private var statementCache: [ExactText: SQLiteStatement] = [:]
    /// Virtual machine instructions between cancellation checks (a few microseconds of work).
    static let progressInterval: Int32 = 4_096

    init(path: String, readOnly: Bool = false, create: Bool = true) throws(StoreError) {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(.sqlite, "cannot open database '\(path)': \(message)",
                             hint: readOnly || !create ? "check that the file exists and is an SQLite database" : "check the directory exists and is writable")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        SQLiteFunctions.register(on: db)
        sqlite3_busy_timeout(db, 5_000)
        // Swift task cancellation reaches a running statement: every few thousand virtual
        // machine steps SQLite asks, and a cancelled task's statement stops with
        // SQLITE_INTERRUPT (a `.cancelled` StoreError). The check reads the current task from
        // the thread the statement runs on, which is the task's own. The same steps count
        // against the limits of the fetch running on that thread (EvaluationLimits.maxSteps).
        sqlite3_progress_handler(db, Self.progressInterval, { _ in
            EvaluationBudget.sqliteProgress(Int(SQLiteConnection.progressInterval)) ? 0 : 1
        }, nil)
        // A file that is not a database fails here rather than at the first query.
        do { try execute("SELECT count(*) FROM sqlite_schema") } catch {
            sqlite3_close_v2(db)
            throw StoreError(.sqlite, "'\(path)' is not a usable SQLite database: \(error.message)",
                             hint: "open an SQLite 3 database file, or a new path to create one")
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ rc: Int32, _ what: String) -> StoreError {
        let message = lastError
        switch rc & 0xFF {
        case SQLITE_INTERRUPT:
            if let e = EvaluationBudget.current?.exceeded { return StoreError(.evaluation, e.message, hint: e.hint) }
            return StoreError(.cancelled, "\(what) was interrupted")
        case SQLITE_CONSTRAINT:
            return StoreError(.constraint, "\(what) violates a constraint: \(message)",
                              hint: "check unique attributes, non-optional attributes and relationships")
        default:
            if message.hasPrefix(SQLiteFunctions.errorPrefix) {
                let parts = message.dropFirst(SQLiteFunctions.errorPrefix.count)
                    .split(separator: SQLiteFunctions.hintSeparator, maxSplits: 1, omittingEmptySubsequences: false)
                return StoreError(.evaluation, String(parts[0]), hint: parts.count > 1 ? String(parts[1]) : nil)
            }
            return StoreError(.sqlite, "\(what) failed: \(message)")
        }
    }

    /// Runs SQL without results (DDL, pragmas, transaction control).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            if rc & 0xFF == SQLITE_INTERRUPT { throw error(rc, "the statement") }
            throw StoreError(.sqlite, "SQL failed: \(text)", source: sql)
        }
    }

    /// The version of the SQLite library PQL runs on, such as "3.40.1".
    static let libraryVersion = String(cString: sqlite3_libversion())

    /// A prepared statement; `cached` statements are kept and reset for reuse.
    func prepare(_ sql: String, cached: Bool = false) throws(StoreError) -> SQLiteStatement {
        let key = ExactText(sql)
        if cached, let s = statementCache[key] {
            s.reset()
            return s
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            let message = lastError
            // SQLite before 3.46 parses with a fixed stack of 100 entries, which nested calls
            // and operators fill at about 17 levels; its expression depth limit is 1,000.
            if message.contains("parser stack overflow") || message.contains("Expression tree is too large") {
                throw StoreError(.unsupported, "the predicate nests too deeply for SQLite \(SQLiteConnection.libraryVersion) (\(message))",
                                 hint: "flatten it: fewer nested functions, operators and TERNARYs (AND and OR take any number of operands); SQLite 3.46 and later parse deeper SQL",
                                 source: sql)
            }
            throw StoreError(.sqlite, "cannot prepare SQL: \(message)", source: sql)
        }
        let s = SQLiteStatement(stmt, connection: self)
        if cached { statementCache[key] = s }
        return s
    }

    /// The most parameters one statement may bind: SQLite's default SQLITE_MAX_VARIABLE_NUMBER,
    /// or the library's own limit if lower. (Debian builds SQLite with 250,000, but SQLite looks
    /// numbered parameters up one by one while parsing, so preparing a statement with n of them
    /// takes time in n²: 250,000 would take minutes.)
    var variableLimit: Int { min(32_766, Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))) }

    var changes: Int { Int(sqlite3_changes64(handle)) }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws, so
    /// nothing is ever half written. Nested calls use savepoints.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let nested = isInTransaction
        let name = "pql_\(UInt32.random(in: 0...UInt32.max))"
        try execute(nested ? "SAVEPOINT \(name)" : "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute(nested ? "RELEASE \(name)" : "COMMIT")
            return result
        } catch {
            // Even when the transaction stopped at a limit of its query, undoing it must run.
            EvaluationBudget.outside {
                if nested {
                    try? execute("ROLLBACK TO \(name)")
                    try? execute("RELEASE \(name)")
                } else if isInTransaction {
                    try? execute("ROLLBACK")
                }
            }
            throw error
        }
    }

    /// Stops the statement running on this connection (from any thread).
    func interrupt() { sqlite3_interrupt(handle) }
}

/// A prepared statement with typed binding and column access.
final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        // Compiled fragments that folded away (a member of another kind) leave unused slots.
        let count = Int(sqlite3_bind_parameter_count(handle))
        for (i, v) in values.enumerated() where i < count { try bind(v, at: Int32(i + 1)) }
    }

    func bind(_ value: SQLValue, at index: Int32) throws(StoreError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        // By length, not as a C string: a NUL inside the text must not cut it short.
        case .text(let s): return try bindText(s, at: index)
        case .blob(let d):
            // An empty blob has no base address, and a NULL pointer would bind NULL, not empty data.
            if d.isEmpty { rc = sqlite3_bind_zeroblob(handle, index, 0); break }
            rc = d.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), sqliteTransient) }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding parameter \(index)") }
    }

    /// Resets for another run; every parameter is bound again before it.
    func resetKeepingBindings() { sqlite3_reset(handle) }

    /// Binds text from the string's own UTF-8 storage (no terminating NUL needed).
    func bindText(_ text: String, at index: Int32) throws(StoreError) {
        var t = text
        let rc = t.withUTF8 { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return sqlite3_bind_text(handle, index, "", 0, sqliteTransient) }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(buffer.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, "binding parameter \(index)") }
    }

    /// Advances to the next row; false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let e = connection.error(rc, "the query")
            sqlite3_reset(handle)
            throw e
        }
    }

    /// Runs a statement without results.
    func run(_ values: [SQLValue] = []) throws(StoreError) {
        sqlite3_reset(handle)
        try bind(values)
        while try step() {}
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }
    func columnName(_ i: Int32) -> String { sqlite3_column_name(handle, i).map { String(cString: $0) } ?? "" }
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    func value(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(int64(i))
        case SQLITE_FLOAT: return .real(double(i))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, i))
            guard n > 0, let p = sqlite3_column_blob(handle, i) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: n))
        default: return .null
        }
    }
}

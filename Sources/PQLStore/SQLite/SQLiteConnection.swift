import CSQLite
import Foundation
import PQL

/// SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite database connection. Not thread-safe by itself: ``PredicateStore`` confines it.
final class SQLiteConnection {
    /// How a connection opens its file.
    enum Access: Equatable {
        /// Reads and writes; `create` makes the file when it is missing.
        case readWrite(create: Bool)
        /// `SQLITE_OPEN_READONLY`: never writes the database. (On a WAL database SQLite still
        /// creates the `-wal` and `-shm` files beside it when the directory is writable; see
        /// ``DatabaseFile/tidy()``.)
        case readOnly
        /// `immutable=1`: no locks and no `-shm`, for a WAL database with no write-ahead log in a
        /// directory PQL cannot write (SQLite could not open it otherwise). Changes another
        /// process makes while it is open are not seen.
        case immutable

        var isReadOnly: Bool { self != .readWrite(create: true) && self != .readWrite(create: false) }
    }

    let handle: OpaquePointer
    /// The path as the user gave it (messages show it).
    let path: String
    let access: Access
    /// Keyed by the SQL's bytes: under `String` equality two statements naming identifiers that
    /// differ only in Unicode normalization (a table "é" precomposed and another "e" + U+0301)
    /// would share one prepared statement.
    private var statementCache: [ExactText: SQLiteStatement] = [:]
    private var isClosed = false
    /// Virtual machine instructions between cancellation checks (a few microseconds of work).
    static let progressInterval: Int32 = 4_096

    init(path: String, access: Access = .readWrite(create: true)) throws(StoreError) {
        var db: OpaquePointer?
        var flags: Int32
        var filename = path
        switch access {
        case .readWrite(let create): flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .immutable:
            flags = SQLITE_OPEN_READONLY
            filename = Self.immutableURI(path)
        }
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(filename, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // SQLite falls back to opening a file it cannot create read-only, and reports that
            // open's ENOENT: "no such file or directory" for a directory the user cannot write.
            let creating = if case .readWrite(true) = access { true } else { false }
            let error = (creating && rc & 0xFF == SQLITE_CANTOPEN ? DatabaseFile.creationProblem(path) : nil) ?? db.map { SQLiteErrors.storeError(code: sqlite3_extended_errcode($0), message: String(cString: sqlite3_errmsg($0)),
                                                         systemError: sqlite3_system_errno($0), path: path, what: "opening the database") }
                ?? StoreError(.sqlite, "SQLite ran out of memory while opening \(SQLiteErrors.display(path))")
            if let db { sqlite3_close_v2(db) }
            throw error
        }
        handle = db
        self.path = path
        self.access = access
        sqlite3_extended_result_codes(db, 1)
        do { try SQLiteFunctions.register(on: db) } catch {
            close()
            throw error
        }
        sqlite3_busy_timeout(db, SQLiteErrors.busyTimeoutMilliseconds)
        // Swift task cancellation reaches a running statement: every few thousand virtual
        // machine steps SQLite asks, and a cancelled task's statement stops with
        // SQLITE_INTERRUPT (a `.cancelled` StoreError). The check reads the current task from
        // the thread the statement runs on, which is the task's own. The same steps count
        // against the limits of the fetch running on that thread (EvaluationLimits.maxSteps).
        // A record stream's fetch runs on a dispatch queue, off its consumer's task: its
        // cancellation is the thread's StatementCancellation.
        sqlite3_progress_handler(db, Self.progressInterval, { _ in
            EvaluationBudget.sqliteProgress(Int(SQLiteConnection.progressInterval))
                && StatementCancellation.current?.isCancelled != true ? 0 : 1
        }, nil)
        // A file that is not a database fails here rather than at the first query.
        do { try execute("SELECT count(*) FROM sqlite_schema", what: "opening the database") } catch {
            close()
            throw error
        }
    }

    /// `file:` URI for `immutable=1` (an absolute path, percent-encoded as SQLite's URI rules need).
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file://" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    deinit { close() }

    /// Finalizes the cached statements and closes the connection (also at deinit).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// The error for a failed call, in plain words (see ``SQLiteErrors``).
    func error(_ rc: Int32, _ what: String, message: String? = nil) -> StoreError {
        SQLiteErrors.storeError(code: rc, message: message ?? lastError, systemError: sqlite3_system_errno(handle),
                                path: path, what: what, readOnly: access.isReadOnly)
    }

    /// Runs SQL without results (DDL, pragmas, transaction control).
    func execute(_ sql: String, what: String = "the change") throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            // sqlite3_exec returns the primary code; the connection keeps the extended one.
            let code = sqlite3_extended_errcode(handle) & 0xFF == rc & 0xFF ? sqlite3_extended_errcode(handle) : rc
            throw error(code, what, message: text)
        }
    }

    /// The version of the SQLite library PQL runs on, such as "3.40.1".
    static let libraryVersion = String(cString: sqlite3_libversion())

    /// A prepared statement; `cached` statements are kept and reset for reuse.
    ///
    /// A cached statement still stepping (a fetch whose `forEach` body runs the same query on
    /// the same connection, as inside a transaction or on an in-memory store) is not reset
    /// under its reader: the inner call gets a statement of its own, finalized after use.
    func prepare(_ sql: String, cached: Bool = false) throws(StoreError) -> SQLiteStatement {
        let key = ExactText(sql)
        var cached = cached
        if cached, let s = statementCache[key] {
            if !s.isBusy {
                s.reset()
                return s
            }
            cached = false
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
            throw error(sqlite3_extended_errcode(handle), "the query", message: message)
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

    /// Whether it has stepped and has neither finished nor been reset: someone is reading its rows.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to ?1, ?2, …: as many as the statement takes, so that a value never goes
    /// missing (SQLite would read NULL) or is left over unnoticed.
    ///
    /// `foldedAllowed`: SQL compiled from a predicate may have values to spare, after its last
    /// placeholder: the compiler binds each constant as it meets it, and a term that then folds
    /// away (an `IN` member of another kind than the key) leaves its value unused.
    func bind(_ values: [SQLValue], foldedAllowed: Bool = false) throws(StoreError) {
        let count = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == count || (foldedAllowed && values.count > count) else {
            throw StoreError(.sqlite, "internal error: a statement takes \(count) values but \(values.count) were given",
                             hint: "please report this with the predicate", source: sql)
        }
        for (i, v) in values.prefix(count).enumerated() { try bind(v, at: Int32(i + 1)) }
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
            let e = connection.error(rc, sqlite3_stmt_readonly(handle) != 0 ? "the query" : "the change")
            sqlite3_reset(handle)
            throw e
        }
    }

    /// Runs a statement without results.
    func run(_ values: [SQLValue] = [], foldedAllowed: Bool = false) throws(StoreError) {
        sqlite3_reset(handle)
        try bind(values, foldedAllowed: foldedAllowed)
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

import CSQLite
import Foundation
import PQL

/// SQLite's result codes in plain words. What reaches a user is a ``StoreError`` whose kind
/// says what went wrong and whose hint says what to do; SQLite's own text appears only for
/// failures PQL has no better words for (kind `.sqlite`).
enum SQLiteErrors {
    /// How long a connection waits for another connection's lock before it gives up.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// SQLite's extended result codes (C macros Swift does not import).
    enum Extended {
        static let busyRecovery = SQLITE_BUSY | 1 << 8
        static let busySnapshot = SQLITE_BUSY | 2 << 8
        static let constraintCheck = SQLITE_CONSTRAINT | 1 << 8
        static let constraintForeignKey = SQLITE_CONSTRAINT | 3 << 8
        static let constraintNotNull = SQLITE_CONSTRAINT | 5 << 8
        static let constraintPrimaryKey = SQLITE_CONSTRAINT | 6 << 8
        static let constraintTrigger = SQLITE_CONSTRAINT | 7 << 8
        static let constraintUnique = SQLITE_CONSTRAINT | 8 << 8
        static let readOnlyRecovery = SQLITE_READONLY | 1 << 8
        static let readOnlyCantLock = SQLITE_READONLY | 2 << 8
        static let readOnlyRollback = SQLITE_READONLY | 3 << 8
        static let readOnlyDBMoved = SQLITE_READONLY | 4 << 8
        static let readOnlyCantInit = SQLITE_READONLY | 5 << 8
        static let readOnlyDirectory = SQLITE_READONLY | 6 << 8
    }

    /// What the user is told about a failed call on the connection to `path`.
    ///
    /// - Parameters:
    ///   - code: the extended result code.
    ///   - message: SQLite's message (`sqlite3_errmsg` or the one `sqlite3_exec` returned).
    ///   - systemError: `errno` of the failed system call, when SQLite saw one (0 otherwise).
    ///   - what: the operation, as the user would name it ("the query", "opening the database").
    ///   - readOnly: whether the connection was opened read-only.
    static func storeError(code: Int32, message: String, systemError: Int32 = 0, path: String, what: String,
                           readOnly: Bool = false) -> StoreError {
        let file = display(path)
        let reason = systemError == 0 ? nil : String(cString: strerror(systemError))
        switch code & 0xFF {
        case SQLITE_INTERRUPT:
            // The progress handler stops a statement that ran past its query's step limit.
            if let e = EvaluationBudget.current?.exceeded { return StoreError(evaluation: e) }
            return StoreError(.cancelled, "\(what) was interrupted")
        case SQLITE_CONSTRAINT:
            return constraint(code: code, message: message, what: what)
        case SQLITE_BUSY:
            let waited = "PQL waited \(busyTimeoutMilliseconds / 1_000) s for it"
            if code == Extended.busyRecovery {
                return StoreError(.busy, "another process is recovering \(file) after a crash and holds its lock (\(waited))",
                                  hint: "try again in a moment")
            }
            if code == Extended.busySnapshot {
                return StoreError(.busy, "another process changed \(file) after this transaction began reading it",
                                  hint: "run the change again")
            }
            return StoreError(.busy, "another process holds the write lock on \(file) (\(waited)); \(what) did not run",
                              hint: "try again when the other program has finished writing, or stop it")
        case SQLITE_LOCKED:
            return StoreError(.busy, "a table \(what) needs is in use by another statement of this program that has not finished",
                              hint: "finish the running fetch (or leave its forEach) before changing the tables it reads")
        case SQLITE_FULL:
            return diskFull(file, what, readOnly: readOnly)
        case SQLITE_IOERR:
            if systemError == ENOSPC || systemError == EDQUOT { return diskFull(file, what, readOnly: readOnly) }
            return StoreError(.fileAccess, "\(what) failed: reading or writing \(file) gave an I/O error" + (reason.map { " (\($0))" } ?? ""),
                              hint: "check the disk and the file system holding the file")
        case SQLITE_READONLY:
            return readOnlyError(code: code, file: file, what: what, connectionReadOnly: readOnly)
        case SQLITE_CANTOPEN:
            let because = reason.map { ": \($0.prefix(1).lowercased() + $0.dropFirst())" } ?? ""
            return StoreError(.fileAccess, "cannot open \(file)\(because)",
                              hint: systemError == ENOENT ? "check the path" : "check that the file and its directory exist and are readable (and writable, to write)")
        case SQLITE_PERM, SQLITE_AUTH:
            return StoreError(.fileAccess, "access to \(file) was denied; \(what) was not completed", hint: "check the file's permissions")
        case SQLITE_NOTADB:
            return StoreError(.notADatabase, "\(file) is not an SQLite database",
                              hint: "PQL opens SQLite 3 files; `pql import` loads JSON or CSV into a store")
        case SQLITE_CORRUPT:
            return StoreError(.corrupt, "\(file) is damaged: SQLite found malformed data; \(what) was not completed",
                              hint: "restore it from a backup; `sqlite3 FILE .recover` can save what is still readable")
        case SQLITE_TOOBIG:
            return StoreError(.invalidValue, "a value is too large for SQLite (one string or blob may hold at most about 1 GB)",
                              hint: "store large contents in files and keep their paths in the store")
        case SQLITE_NOMEM:
            return StoreError(.sqlite, "SQLite ran out of memory; \(what) was not completed")
        default:
            return plainError(message, what: what)
        }
    }

    /// SQLITE_ERROR: a message PQL can read (a model that does not match the file, a function
    /// of PQL's that raised), or SQLite's own words.
    static func plainError(_ message: String, what: String) -> StoreError {
        // A pql_* function's error (or SQLite's own sum() overflow): the evaluator's kind,
        // message and hint, as memory raises them.
        if let (e, node) = SQLiteFunctions.evaluationError(message) {
            var error = StoreError(evaluation: e)
            error.sourceNode = node
            return error
        }
        if let column = after("no such column: ", in: message) {
            // The compiler names columns as t0."name": show the column alone.
            let name = column.split(separator: ".").last.map(String.init) ?? column
            return StoreError(.invalidModel, "the database has no column '\(name)', which its model names",
                              hint: "the file was changed by another program after its model was saved or given; open it without a model to infer one from its tables")
        }
        if let table = after("no such table: ", in: message) {
            return StoreError(.invalidModel, "the database has no table '\(table)', which its model names",
                              hint: "the file was changed by another program after its model was saved or given; open it without a model to infer one from its tables")
        }
        if let column = after("duplicate column name: ", in: message) {
            return StoreError(.invalidModel, "two attributes of one entity would be stored in the same column '\(column)' (SQLite's column names ignore case)",
                              hint: "rename one of them so the names differ in more than case")
        }
        if message.contains("too many SQL variables") {
            return StoreError(.unsupported, "\(what) binds more values than SQLite allows in one statement",
                              hint: "split a long IN list over several fetches")
        }
        return StoreError(.sqlite, "SQLite could not complete \(what): \(message)")
    }

    private static func constraint(code: Int32, message: String, what: String) -> StoreError {
        let detail = after(": ", in: message) ?? message
        switch code {
        case Extended.constraintUnique, Extended.constraintPrimaryKey:
            let columns = detail.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let table = columns.first.flatMap { $0.split(separator: ".").first.map(String.init) } ?? "the table"
            let names = columns.map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            return StoreError(.constraint, "\(what) would give two \(table) objects the same \(names.joined(separator: " and ")), which must be unique",
                              hint: "change the value, or update the object that has it")
        case Extended.constraintNotNull:
            return StoreError(.constraint, "\(detail) needs a value: it is not optional", hint: "give it a value")
        case Extended.constraintForeignKey:
            return StoreError(.constraint, "\(what) would leave a link to an object that does not exist",
                              hint: "create the related object first, or link to an existing one")
        case Extended.constraintCheck:
            return StoreError(.constraint, "the database's CHECK constraint \(detail) refused the value", hint: "give a value the table accepts")
        case Extended.constraintTrigger:
            return StoreError(.constraint, "a trigger of the database refused the change: \(message)")
        default:
            return StoreError(.constraint, "\(what) violates a rule of the database: \(message)",
                              hint: "check unique attributes, non-optional attributes and relationships")
        }
    }

    private static func diskFull(_ file: String, _ what: String, readOnly: Bool) -> StoreError {
        StoreError(.diskFull, "the disk holding \(file) is full (or the database reached its size limit); \(what) was not completed",
                   hint: readOnly ? "free some space and try again" : "free some space and try again: nothing of the change was written")
    }

    private static func readOnlyError(code: Int32, file: String, what: String, connectionReadOnly: Bool) -> StoreError {
        switch code {
        case Extended.readOnlyRollback:
            return StoreError(.fileAccess, "\(file) holds a transaction a program left unfinished (a hot journal), which only a program that can write the file may roll back",
                              hint: "open it once with write access, e.g. `sqlite3 FILE 'PRAGMA quick_check'`")
        case Extended.readOnlyRecovery, Extended.readOnlyCantInit, Extended.readOnlyCantLock, Extended.readOnlyDirectory:
            return StoreError(.fileAccess, "\(file) is in WAL mode and SQLite cannot set up its shared-memory file beside it (the directory or the file is read-only)",
                              hint: "open it where the directory is writable, or have its owner run `sqlite3 FILE 'PRAGMA journal_mode=DELETE'`")
        case Extended.readOnlyDBMoved:
            return StoreError(.fileAccess, "\(file) was moved or deleted while it was open", hint: "open it again at its new path")
        default:
            if connectionReadOnly {
                return StoreError(.fileAccess, "\(file) is open read-only: \(what) cannot write to it",
                                  hint: "open the store for writing (PredicateStore(path:) without readOnly)")
            }
            return StoreError(.fileAccess, "\(file) is read-only: \(what) cannot write to it",
                              hint: "check the permissions of the file and its directory")
        }
    }

    /// The text after `prefix` when `message` starts with it.
    private static func after(_ prefix: String, in message: String) -> String? {
        guard let r = message.range(of: prefix) else { return nil }
        let rest = message[r.upperBound...].trimmingCharacters(in: .whitespaces)
        return rest.isEmpty ? nil : rest
    }

    /// A path as messages show it: quoted, or "the in-memory store".
    static func display(_ path: String) -> String {
        path.isEmpty || path == ":memory:" || path.contains("mode=memory") ? "the in-memory store" : "'\(path)'"
    }
}

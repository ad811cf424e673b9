import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An existing database file as PQL finds it before opening it: checked to be an SQLite
/// database (so that a missing, empty or foreign file is an error, never a new database), and
/// what lies beside it, so that reading leaves the directory as it was.
struct DatabaseFile {
    let path: String
    /// The header says WAL mode (file format versions 2).
    let isWAL: Bool
    /// Whether `-wal` and `-shm` files were there before PQL opened the file.
    let hadWAL: Bool
    let hadSharedMemory: Bool
    /// Whether a `-wal` file with content was there (changes not yet copied into the file).
    let walHasContent: Bool

    var walPath: String { path + "-wal" }
    var sharedMemoryPath: String { path + "-shm" }

    /// Checks `path` names a readable SQLite database file.
    static func inspect(_ path: String) throws(StoreError) -> DatabaseFile {
        let shown = SQLiteErrors.display(path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR {
                throw StoreError(.fileAccess, "no database at \(shown)", hint: "check the path; `pql import` creates a store from JSON or CSV")
            }
            throw StoreError(.fileAccess, "cannot reach \(shown): \(systemMessage(e))", hint: "check the permissions of the directories on the path")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            throw StoreError(.fileAccess, "\(shown) is a directory, not a database", hint: "give the path of a database file")
        default:
            throw StoreError(.fileAccess, "\(shown) is not a regular file (\(fileKind(info.st_mode))), so it cannot hold an SQLite database",
                             hint: "SQLite reads databases from files: copy the data into a file first")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StoreError(.fileAccess, "cannot read \(shown): \(systemMessage(errno))", hint: "check the file's permissions")
        }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        guard n >= 0 else {
            throw StoreError(.fileAccess, "cannot read \(shown): \(systemMessage(errno))", hint: "check the file and the disk")
        }
        if n == 0 {
            throw StoreError(.notADatabase, "\(shown) is empty: it holds no SQLite database",
                             hint: "give an SQLite database file; `pql import` creates one from JSON or CSV")
        }
        guard n >= 16, header[0..<16].elementsEqual("SQLite format 3\u{0}".utf8) else {
            throw StoreError(.notADatabase, "\(shown) is not an SQLite database (it does not start with SQLite's header)",
                             hint: "PQL opens SQLite 3 files; `pql import` loads JSON or CSV into a store")
        }
        let wal = path + "-wal"
        var walInfo = stat()
        let hadWAL = stat(wal, &walInfo) == 0
        return DatabaseFile(path: path, isWAL: n >= 20 && header[18] == 2 && header[19] == 2,
                            hadWAL: hadWAL, hadSharedMemory: access(path + "-shm", F_OK) == 0,
                            walHasContent: hadWAL && walInfo.st_size > 0)
    }

    /// Whether SQLite could not open the WAL database read-only because it cannot create the
    /// shared-memory file beside it (a directory PQL cannot write, a full disk), and opening it
    /// immutable would miss nothing: there is no write-ahead log with changes.
    func canOpenImmutable(after error: StoreError) -> Bool {
        guard isWAL, !walHasContent else { return false }
        return error.kind == .fileAccess || error.kind == .diskFull
    }

    /// The error opening the file gave, explained where the file says more: a WAL database
    /// whose write-ahead log holds changes cannot be read without the `-shm` file beside it
    /// (SQLite reports the missing file, not why it needed it).
    func explain(_ error: StoreError, readOnly: Bool) -> StoreError {
        guard readOnly, isWAL, walHasContent, !hadSharedMemory, error.kind == .fileAccess else { return error }
        let shown = SQLiteErrors.display(path)
        return StoreError(.fileAccess, "\(shown) is in WAL mode and its write-ahead log '\(walPath)' holds changes not yet in the file; reading them needs '\(sharedMemoryPath)', which cannot be created in this directory",
                          hint: "open it once where the directory is writable, or have its owner run `sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)'`")
    }

    /// After every connection PQL opened on the file has closed: removes the `-wal` and `-shm`
    /// files that reading created. A read-only connection to a WAL database creates them and
    /// cannot delete them (only a connection that can write may); so a connection that can
    /// write opens, reads, and closes, and SQLite deletes them if it is the last connection
    /// to the file (the same rule by which it deletes them after any writer). With the
    /// write-ahead log empty, the database file is not written. Files that were there
    /// before, or that another process still uses, stay.
    func tidy() {
        guard isWAL, !hadWAL, !hadSharedMemory,
              access(walPath, F_OK) == 0 || access(sharedMemoryPath, F_OK) == 0 else { return }
        var db: OpaquePointer?
        defer { if let db { sqlite3_close_v2(db) } }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else { return }
        sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nil, nil, nil)
    }

    /// Why a new database file cannot be made at `path` when its directory is to blame
    /// (missing, not writable, on a read-only file system); nil otherwise.
    static func creationProblem(_ path: String) -> StoreError? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"), access(path, F_OK) != 0 else { return nil }
        let shown = SQLiteErrors.display(path)
        let directory = (path as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        var info = stat()
        guard stat(dir, &info) == 0 else {
            return StoreError(.fileAccess, "cannot create \(shown): the directory '\(dir)' \(errno == ENOENT ? "does not exist" : "cannot be reached (\(systemMessage(errno)))")",
                              hint: "create the directory first, or check the path")
        }
        guard access(dir, W_OK | X_OK) != 0 else { return nil }
        let reason = systemMessage(errno)
        return StoreError(.fileAccess, "cannot create \(shown): the directory '\(dir)' is not writable (\(reason))",
                          hint: errno == EROFS ? "choose a directory on a writable file system" : "choose a directory you can write to, or ask its owner for write permission")
    }

    static func systemMessage(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a pipe"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}

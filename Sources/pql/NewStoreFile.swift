import Foundation
import PQLStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store `pql import` creates, built under a name of its own beside the path it is for and
/// put in place only when complete. Another process may create the same store meanwhile (two
/// imports started together): were both to build it at the path itself, the one that failed
/// would remove the file with the rows the other committed. Built aside, a failed import
/// removes only its own file, and the finished one is put in place by `link(2)`, which fails
/// when the path exists: the import then goes into the store that process made.
///
/// An empty file at the path (`touch s.sqlite` first) is replaced the same way, under an
/// exclusive lock on it, and only while the path still names that empty file.
enum NewStoreFile {
    /// Creates an empty file for the new store in `path`'s directory, under a name no other
    /// process uses (O_EXCL), and returns its path.
    static func create(beside path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        for _ in 0..<8 {
            let temporary = directory + "/." + url.lastPathComponent + ".pql-import-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                close(fd)
                return temporary
            }
            if errno == EEXIST { continue }
            throw cannotCreate(path, directory: directory, errno)
        }
        throw UserFacingError(text: "error: cannot create \(path): no free name for a file beside it\nhint: remove the .\(url.lastPathComponent).pql-import-* files in \(directory)")
    }

    private static func cannotCreate(_ path: String, directory: String, _ code: Int32) -> UserFacingError {
        let reason = String(cString: strerror(code)).lowercased()
        let hint = switch code {
        case EACCES, EPERM: "choose a directory you can write to, or ask its owner for write permission"
        case EROFS: "choose a directory on a writable file system"
        case ENOENT, ENOTDIR: "create the directory first, or check the path"
        default: "check the directory '\(directory)' and the disk"
        }
        return UserFacingError(text: "error: cannot create \(path) in '\(directory)': \(reason)\nhint: \(hint)")
    }

    /// Puts the finished store `temporary` at `path`: true when it is there, false when
    /// another process put a store there first (the import then goes into that one).
    /// `replacingEmpty`: the path held an empty file when the import began.
    static func publish(_ temporary: String, at path: String, replacingEmpty: Bool) throws -> Bool {
        defer { remove(temporary) }
        guard replacingEmpty else {
            if link(temporary, path) == 0 { return true }
            if errno == EEXIST { return false }
            // A file system without hard links: a rename that checks first is the next best.
            if errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP {
                guard access(path, F_OK) != 0 else { return false }
                if rename(temporary, path) == 0 { return true }
            }
            throw cannotCreate(path, directory: URL(fileURLWithPath: path).deletingLastPathComponent().path, errno)
        }
        // Another pql replacing the same empty file holds this lock while it checks and renames.
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { return false }
        var held = stat(), named = stat()
        guard fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev,
              named.st_size == 0 else { return false }
        guard rename(temporary, path) == 0 else {
            throw cannotCreate(path, directory: URL(fileURLWithPath: path).deletingLastPathComponent().path, errno)
        }
        return true
    }

    /// Removes a store file and SQLite's companions of it.
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}

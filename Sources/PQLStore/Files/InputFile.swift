import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file the user named, read whole: a regular file, or a stream — a pipe, a FIFO, process
/// substitution's `/dev/fd/N` — read to its end. A directory, a missing or unreadable file, or
/// one past the size limit is a ``StoreError`` (`.fileAccess`) in plain words, never
/// Foundation's ("The operation could not be completed. (NSCocoaErrorDomain error 256.)").
///
/// ```swift
/// let data = try InputFile.read("/dev/fd/63")      // pql filter 'age > 3' <(gunzip -c people.json.gz)
/// ```
public enum InputFile {
    /// The most bytes ``read(_:limit:)`` reads by default: 1 GiB (a device like /dev/zero
    /// never ends).
    public static let defaultLimit = 1 << 30

    /// The file's contents.
    public static func read(_ path: String, limit: Int = defaultLimit) throws(StoreError) -> Data {
        let shown = "'\(path)'"
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path, errno) }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw StoreError(.fileAccess, "\(shown) is a directory", hint: "name a file in it")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, errno) }
        defer { close(fd) }
        let regular = info.st_mode & S_IFMT == S_IFREG
        if regular && Int(info.st_size) > limit { throw tooLarge(path, limit) }
        var data = Data(capacity: regular ? Int(info.st_size) : 1 << 16)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            #if canImport(Glibc)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            #else
            let n = chunk.withUnsafeMutableBytes { Darwin.read(fd, $0.baseAddress, $0.count) }
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path, errno)
            }
            if n == 0 { return data }
            if data.count + n > limit { throw tooLarge(path, limit) }
            data.append(contentsOf: chunk[0..<n])
        }
    }

    /// What `path` is when it is neither a regular file nor a directory — "a pipe" (a FIFO,
    /// process substitution's `/dev/fd/N`), "a character device", "a block device", "a
    /// socket" — and whether it is a pipe; nil for a file, a directory or a path that names
    /// nothing. Commands that read a file twice, or forever (`/dev/zero`), ask first.
    package static func special(_ path: String) -> (kind: String, isPipe: Bool)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG, type != S_IFDIR else { return nil }
        return (DatabaseFile.fileKind(info.st_mode), type == S_IFIFO)
    }

    /// The error for a file Foundation failed on, in plain words: what the path is (a
    /// directory, a pipe), else the system's reason.
    public static func problem(_ path: String, _ error: any Error) -> StoreError {
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: return StoreError(.fileAccess, "'\(path)' is a directory", hint: "name a file in it")
            case S_IFREG: break
            default: return StoreError(.fileAccess, "'\(path)' is \(DatabaseFile.fileKind(info.st_mode)), which cannot be read here",
                                       hint: "copy the data into a file first")
            }
        } else {
            return failure(path, errno)
        }
        return StoreError(.fileAccess, "cannot read '\(path)': \(reason(error))", hint: "check the file and its permissions")
    }

    /// The system's reason for a Foundation or POSIX file error ("permission denied").
    public static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return DatabaseFile.systemMessage(Int32(underlying.code))
        }
        if ns.domain == NSPOSIXErrorDomain { return DatabaseFile.systemMessage(Int32(ns.code)) }
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileWriteOutOfSpace: return "no space left on device"
        case .fileWriteVolumeReadOnly: return "read-only file system"
        case .fileWriteFileExists: return "a file of that name exists"
        case .fileReadTooLarge: return "the file is too large"
        default: return "the system reported an error it did not explain"
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> StoreError {
        let hint = code == ENOENT || code == ENOTDIR ? "check the path" : "check the file's permissions"
        return StoreError(.fileAccess, "cannot read '\(path)': \(DatabaseFile.systemMessage(code))", hint: hint)
    }

    private static func tooLarge(_ path: String, _ limit: Int) -> StoreError {
        StoreError(.fileAccess, "'\(path)' holds more than \(limit / (1 << 20)) MiB, more than PQL reads into memory",
                   hint: "filter or split it first")
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes read front to back in pieces: a file, data in memory, or a ZIP entry unzipped on the
/// fly. Imports read through one, so their memory does not grow with the file.
package class ByteStream {
    /// Reads up to `count` bytes into `buffer` and returns how many; 0 at the end.
    package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int { 0 }
}

/// A file read with `read(2)` into the caller's buffer: nothing of it is mapped or kept.
package final class FileByteStream: ByteStream {
    private let fd: Int32
    private let path: String

    package init(path: String) throws(StoreError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.cannotRead(path, errno) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw StoreError(.importFailed, "cannot read '\(path)': it is a directory", hint: "give the path of a data file")
        }
    }

    deinit { close(fd) }

    override package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
        while true {
            #if canImport(Glibc)
            let n = Glibc.read(fd, buffer, count)
            #else
            let n = Darwin.read(fd, buffer, count)
            #endif
            if n >= 0 { return n }
            if errno != EINTR { throw Self.cannotRead(path, errno) }
        }
    }

    static func cannotRead(_ path: String, _ code: Int32) -> StoreError {
        StoreError(.importFailed, "cannot read '\(path)': \(String(cString: strerror(code)))",
                   hint: "check the path and that the file is readable")
    }
}

/// Data already in memory, handed out in pieces.
package final class DataByteStream: ByteStream {
    private let data: Data
    private var offset = 0

    package init(_ data: Data) { self.data = data }

    override package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
        let n = min(count, data.count - offset)
        guard n > 0 else { return 0 }
        let from = data.startIndex + offset
        data.copyBytes(to: buffer, from: from..<(from + n))
        offset += n
        return n
    }
}

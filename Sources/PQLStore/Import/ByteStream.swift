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
            let n = Glibc.read(fd, buffer, count)
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

/// A window onto a byte stream for readers that take it record by record: the bytes from
/// `start` to `end` have been read and not yet consumed. A record that does not fit yet makes
/// its reader call ``fill(tooLong:)``, which moves the unconsumed bytes to the front and reads
/// more, growing the window up to the record limit; readers keep their positions relative to
/// `start`, which fill moves.
final class ReadBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// The first byte not yet consumed.
    var start = 0
    /// One past the last byte read.
    private(set) var end = 0
    /// True once the stream has nothing more.
    private(set) var isAtEnd = false
    private let stream: ByteStream
    private let maxRecordBytes: Int

    static let chunk = 1 << 20

    init(_ stream: ByteStream, maxRecordBytes: Int) {
        self.stream = stream
        self.maxRecordBytes = max(16, maxRecordBytes)
        capacity = min(Self.chunk, self.maxRecordBytes)
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// Reads more of the stream after `end`, first dropping the bytes before `start`; false at
    /// the end of the stream. `tooLong` is the error when the unconsumed bytes (one unfinished
    /// record) would pass the record limit.
    func fill(tooLong: () -> StoreError) throws(StoreError) -> Bool {
        guard !isAtEnd else { return false }
        if start > 0 {
            if end > start { memmove(base, base + start, end - start) }
            end -= start
            start = 0
        }
        if end == capacity {
            // The window is one unfinished record: it may grow to the record limit.
            guard capacity < maxRecordBytes else { throw tooLong() }
            let grown = min(capacity * 2, maxRecordBytes)
            let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            new.update(from: base, count: end)
            base.deallocate()
            base = new
            capacity = grown
        }
        let n = try stream.read(into: base + end, count: capacity - end)
        if n == 0 { isAtEnd = true; return false }
        end += n
        return true
    }
}

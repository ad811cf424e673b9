import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive's bytes, in memory or in a file read with `pread(2)`.
final class RandomAccessBytes: @unchecked Sendable {
    // @unchecked: immutable; pread on a shared descriptor is thread-safe.
    private let data: Data?
    private let fd: Int32
    private let path: String
    let count: Int

    init(_ data: Data) {
        self.data = data
        fd = -1
        path = ""
        count = data.count
    }

    init(path: String) throws(StoreError) {
        data = nil
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileByteStream.cannotRead(path, errno) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            close(fd)
            throw StoreError(.importFailed, "cannot read '\(path)': it is a directory", hint: "give the path of a ZIP archive")
        }
        count = Int(info.st_size)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Every offset comes from the file, so none is trusted.
    func has(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= count && length <= count - offset
    }

    /// Up to `length` bytes at `offset` into `buffer`; how many there were.
    func read(at offset: Int, into buffer: UnsafeMutablePointer<UInt8>, count length: Int) throws(StoreError) -> Int {
        let n = max(0, min(length, count - offset))
        guard n > 0 else { return 0 }
        if let data {
            let from = data.startIndex + offset
            data.copyBytes(to: buffer, from: from..<(from + n))
            return n
        }
        var done = 0
        while done < n {
            let r = pread(fd, buffer + done, n - done, off_t(offset + done))
            if r < 0 {
                if errno == EINTR { continue }
                throw FileByteStream.cannotRead(path, errno)
            }
            if r == 0 { break }
            done += r
        }
        return done
    }

    /// Exactly `length` bytes at `offset` (the caller checked they exist).
    func read(at offset: Int, count length: Int) throws(StoreError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let n = try out.withUnsafeMutableBufferPointer { (p) throws(StoreError) -> Int in
            guard let base = p.baseAddress else { return 0 }
            return try read(at: offset, into: base, count: length)
        }
        guard n == length else { throw ZipArchive.corrupt("the file ended while it was read (it may have changed)") }
        return out
    }
}

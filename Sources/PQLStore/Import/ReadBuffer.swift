#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

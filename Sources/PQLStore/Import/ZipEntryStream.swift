import CZlib
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One entry's bytes, stored or inflated piece by piece, checked against the recorded size and
/// CRC-32 as they pass.
final class ZipEntryStream: ByteStream {
    private let file: RandomAccessBytes
    private let entry: ZipArchive.Entry
    private var next: Int
    private var compressedLeft: Int
    private var produced = 0
    private var crc: uLong = crc32(0, nil, 0)
    private var finished = false
    private var z = z_stream()
    private var input: UnsafeMutablePointer<UInt8>
    private static let inputSize = 1 << 18

    init(_ file: RandomAccessBytes, entry: ZipArchive.Entry, dataStart: Int) throws(StoreError) {
        self.file = file
        self.entry = entry
        next = dataStart
        compressedLeft = entry.compressedSize
        input = .allocate(capacity: Self.inputSize)
        super.init()
        if entry.method == 8 {
            guard inflateInit2_(&z, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw StoreError(.importFailed, "zlib could not start inflating '\(entry.name)'")
            }
        }
    }

    deinit {
        if entry.method == 8 { inflateEnd(&z) }
        input.deallocate()
    }

    override package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
        guard !finished, count > 0 else { return 0 }
        let n = entry.method == 0 ? try stored(into: buffer, count: count) : try inflated(into: buffer, count: count)
        if n > 0 {
            produced += n
            crc = crc32(crc, buffer, uInt(n))
        }
        if finished || n == 0 {
            finished = true
            guard produced == entry.uncompressedSize else {
                throw ZipArchive.corrupt("'\(entry.name)' inflates to \(produced) bytes, but the archive records \(entry.uncompressedSize)")
            }
            let sum = UInt32(truncatingIfNeeded: crc)
            guard sum == entry.crc32 else {
                throw ZipArchive.corrupt("the CRC-32 of '\(entry.name)' is \(Self.hex(sum)), but the archive records \(Self.hex(entry.crc32))")
            }
        }
        return n
    }

    private func stored(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
        let want = min(count, compressedLeft)
        guard want > 0 else { return 0 }
        let n = try file.read(at: next, into: buffer, count: want)
        guard n == want else { throw ZipArchive.corrupt("the file ended while '\(entry.name)' was read (it may have changed)") }
        next += n
        compressedLeft -= n
        if compressedLeft == 0 { finished = true }
        return n
    }

    private func inflated(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(StoreError) -> Int {
        z.next_out = buffer
        z.avail_out = uInt(min(count, Int(UInt32.max)))
        while true {
            if z.avail_in == 0, compressedLeft > 0 {
                let want = min(Self.inputSize, compressedLeft)
                let n = try file.read(at: next, into: input, count: want)
                guard n == want else { throw ZipArchive.corrupt("the file ended while '\(entry.name)' was read (it may have changed)") }
                next += n
                compressedLeft -= n
                z.next_in = input
                z.avail_in = uInt(n)
            }
            let before = (z.avail_in, z.avail_out)
            let r = inflate(&z, Z_NO_FLUSH)
            let n = count - Int(z.avail_out)
            if produced + n > entry.uncompressedSize {
                throw ZipArchive.corrupt("'\(entry.name)' inflates to more than the \(entry.uncompressedSize) bytes the archive records")
            }
            switch r {
            case Z_STREAM_END:
                finished = true
                return n
            case Z_OK, Z_BUF_ERROR:
                if n > 0 { return n }
                // No output: zlib needs input that is not there, or made no progress at all.
                if (z.avail_in == 0 && compressedLeft == 0) || (z.avail_in, z.avail_out) == before {
                    throw ZipArchive.corrupt("the compressed data of '\(entry.name)' ends early")
                }
            default:
                let reason = z.msg.map { String(cString: $0) } ?? "error \(r)"
                throw ZipArchive.corrupt("the compressed data of '\(entry.name)' is invalid (\(reason))")
            }
        }
    }

    private static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
    }
}

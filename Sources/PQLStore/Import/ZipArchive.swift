import CZlib
import Foundation

/// The entries of a ZIP file held in memory, found through its central directory.
///
/// The central directory is the only trustworthy index: archivers that stream (as the one that
/// made the shipped `flights.csv.zip` did) leave the sizes and checksum in a local header at
/// zero and write them after the data. Entries may be stored (method 0) or deflated (method 8);
/// every extraction is checked against the recorded size and CRC-32, so a damaged archive is
/// an error rather than silently wrong rows. ZIP64, encryption and other methods are refused
/// with a hint.
///
/// ```swift
/// let zip = try ZipArchive(data: Data(contentsOf: DemoData.directory.appendingPathComponent("flights.csv.zip")))
/// let csv = try zip.extract("flights.csv")   // 31,053,850 bytes
/// ```
package struct ZipArchive: Sendable {
    /// One file in the archive, as its central directory entry describes it.
    package struct Entry: Sendable, Hashable {
        package var name: String
        /// 0 stored, 8 deflated.
        package var method: UInt16
        package var flags: UInt16
        package var crc32: UInt32
        package var compressedSize: Int
        package var uncompressedSize: Int
        package var localHeaderOffset: Int
        /// Directories are entries too; a name ending in `/` marks one.
        package var isDirectory: Bool { name.hasSuffix("/") }
    }

    package let entries: [Entry]
    private let data: Data

    /// Names in central-directory order.
    package var entryNames: [String] { entries.map(\.name) }

    /// Reads the central directory; entry contents are only inflated by ``extract(_:)``.
    package init(data: Data) throws(StoreError) {
        self.data = data
        let r: Result<[Entry], StoreError> = data.withUnsafeBytes { raw in
            do throws(StoreError) { return .success(try Self.readDirectory(Bytes(raw))) } catch { return .failure(error) }
        }
        entries = try r.get()
    }

    /// The contents of the first entry named `name`, inflated and checked.
    package func extract(_ name: String) throws(StoreError) -> Data {
        guard let entry = entries.first(where: { $0.name == name }) else {
            throw StoreError(.importFailed, "the ZIP archive has no entry named '\(name)'",
                             hint: "its entries are: \(entryNames.prefix(12).joined(separator: ", "))")
        }
        return try extract(entry)
    }

    /// The contents of `entry`, inflated and checked against its size and CRC-32.
    package func extract(_ entry: Entry) throws(StoreError) -> Data {
        let r: Result<Data, StoreError> = data.withUnsafeBytes { raw in
            do throws(StoreError) { return .success(try Self.extract(entry, from: Bytes(raw))) } catch { return .failure(error) }
        }
        return try r.get()
    }

    // MARK: - Reading

    /// Bounds-checked little-endian reads; every offset comes from the file, so none is trusted.
    private struct Bytes {
        let p: UnsafeRawBufferPointer
        init(_ p: UnsafeRawBufferPointer) { self.p = p }
        var count: Int { p.count }

        func has(_ offset: Int, _ length: Int) -> Bool {
            offset >= 0 && length >= 0 && offset <= p.count && length <= p.count - offset
        }
        func u16(_ o: Int) -> UInt16 { UInt16(p[o]) | UInt16(p[o + 1]) << 8 }
        func u32(_ o: Int) -> UInt32 { UInt32(u16(o)) | UInt32(u16(o + 2)) << 16 }
    }

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50
    private static let localSignature: UInt32 = 0x0403_4B50

    private static func corrupt(_ what: String) -> StoreError {
        StoreError(.importFailed, "the ZIP archive is damaged: \(what)",
                   hint: "download or copy the file again, or unzip it with another tool and import the CSV")
    }

    private static var zip64: StoreError {
        StoreError(.importFailed, "the ZIP archive uses ZIP64 (for files over 4 GB or 65,535 entries), which is not supported",
                   hint: "unzip it with another tool and import the extracted file")
    }

    private static func readDirectory(_ b: Bytes) throws(StoreError) -> [Entry] {
        // The end record is 22 bytes plus a comment of up to 65,535 bytes, at the very end.
        guard b.count >= 22 else {
            throw StoreError(.importFailed, "the file is not a ZIP archive (it is only \(b.count) bytes long)",
                             hint: "a ZIP archive ends with a central directory; the file may be truncated")
        }
        var end = -1
        var o = b.count - 22
        let lowest = max(0, b.count - 22 - 65_535)
        while o >= lowest {
            if b.u32(o) == endSignature, o + 22 + Int(b.u16(o + 20)) == b.count { end = o; break }
            o -= 1
        }
        if end < 0 {
            // A comment that does not reach the end means trailing bytes; still take the last record.
            o = b.count - 22
            while o >= lowest { if b.u32(o) == endSignature { end = o; break }; o -= 1 }
        }
        guard end >= 0 else {
            throw StoreError(.importFailed, "the file is not a ZIP archive (no end of central directory record)",
                             hint: "the file may be truncated, or be another format with a .zip name")
        }
        if end >= 20, b.u32(end - 20) == zip64LocatorSignature { throw zip64 }
        let disk = b.u16(end + 4), cdDisk = b.u16(end + 6)
        let count = Int(b.u16(end + 10))
        let cdSize = b.u32(end + 12), cdOffset = b.u32(end + 16)
        if count == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF { throw zip64 }
        guard disk == 0, cdDisk == 0 else {
            throw StoreError(.importFailed, "the ZIP archive spans several files (a split or multi-volume archive)",
                             hint: "join the parts into one archive, or unzip them with another tool")
        }
        guard b.has(Int(cdOffset), Int(cdSize)), Int(cdOffset) + Int(cdSize) <= end else {
            throw corrupt("the central directory lies outside the file (the file is probably truncated)")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var p = Int(cdOffset)
        for _ in 0..<count {
            guard b.has(p, 46), b.u32(p) == centralSignature else { throw corrupt("a central directory entry is missing") }
            let nameLength = Int(b.u16(p + 28)), extraLength = Int(b.u16(p + 30)), commentLength = Int(b.u16(p + 32))
            guard b.has(p + 46, nameLength + extraLength + commentLength) else { throw corrupt("a central directory entry is cut short") }
            let flags = b.u16(p + 8)
            let nameBytes = UnsafeRawBufferPointer(rebasing: b.p[(p + 46)..<(p + 46 + nameLength)])
            // Bit 11 promises UTF-8; older archivers wrote CP437, which is ASCII for ordinary names.
            let name = String(decoding: nameBytes, as: UTF8.self)
            let compressed = b.u32(p + 20), uncompressed = b.u32(p + 24), local = b.u32(p + 42)
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || local == 0xFFFF_FFFF { throw zip64 }
            entries.append(Entry(name: name, method: b.u16(p + 10), flags: flags, crc32: b.u32(p + 16),
                                 compressedSize: Int(compressed), uncompressedSize: Int(uncompressed),
                                 localHeaderOffset: Int(local)))
            p += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }

    private static func extract(_ e: Entry, from b: Bytes) throws(StoreError) -> Data {
        if e.flags & 1 != 0 {
            throw StoreError(.importFailed, "the ZIP entry '\(e.name)' is encrypted",
                             hint: "decrypt it with another tool and import the extracted file")
        }
        let h = e.localHeaderOffset
        guard b.has(h, 30), b.u32(h) == localSignature else {
            throw corrupt("the local header of '\(e.name)' is missing (the file is probably truncated)")
        }
        let start = h + 30 + Int(b.u16(h + 26)) + Int(b.u16(h + 28))
        guard b.has(start, e.compressedSize) else {
            throw corrupt("the data of '\(e.name)' runs past the end of the file (the file is probably truncated)")
        }
        let input = UnsafeRawBufferPointer(rebasing: b.p[start..<(start + e.compressedSize)])
        var output: Data
        switch e.method {
        case 0:
            guard e.compressedSize == e.uncompressedSize else { throw corrupt("the stored entry '\(e.name)' has two different sizes") }
            output = Data(input)
        case 8:
            output = try inflate(input, size: e.uncompressedSize, name: e.name)
        default:
            throw StoreError(.importFailed, "the ZIP entry '\(e.name)' uses compression method \(e.method), which is not supported",
                             hint: "only stored (0) and deflated (8) entries can be read; re-create the archive with an ordinary zip tool")
        }
        let crc = output.withUnsafeBytes { checksum($0) }
        guard crc == e.crc32 else {
            throw corrupt("the CRC-32 of '\(e.name)' is \(hex(crc)), but the archive records \(hex(e.crc32))")
        }
        return output
    }

    private static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    /// zlib's CRC-32, fed in pieces because its length parameter is 32-bit.
    private static func checksum(_ p: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc32(0, nil, 0)
        guard let base = p.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return UInt32(truncatingIfNeeded: crc) }
        var offset = 0
        while offset < p.count {
            let n = min(p.count - offset, 1 << 30)
            crc = crc32(crc, base + offset, uInt(n))
            offset += n
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// Raw deflate (no zlib header: window bits -15) into exactly `size` bytes.
    private static func inflate(_ input: UnsafeRawBufferPointer, size: Int, name: String) throws(StoreError) -> Data {
        // Deflate cannot expand data more than about 1032:1; a larger claim is a damaged (or
        // hostile) header, refused before allocating for it.
        guard size <= input.count &* 1032 &+ 1024 else {
            throw corrupt("'\(name)' claims \(size) bytes from only \(input.count) compressed bytes")
        }
        var output = Data(count: size)
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StoreError(.importFailed, "zlib could not start inflating '\(name)'")
        }
        defer { inflateEnd(&stream) }
        let status: Int32 = output.withUnsafeMutableBytes { out -> Int32 in
            // An empty buffer still needs a valid pointer for zlib.
            var dummy: UInt8 = 0
            return withUnsafeMutablePointer(to: &dummy) { dummyPointer -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self)) ?? dummyPointer
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self) ?? dummyPointer
                stream.avail_out = uInt(out.count)
                while true {
                    let before = (stream.avail_in, stream.avail_out)
                    let r = CZlib.inflate(&stream, Z_FINISH)
                    if r != Z_OK { return r }
                    // Z_OK without progress cannot end; report it as a buffer error.
                    if (stream.avail_in, stream.avail_out) == before { return Z_BUF_ERROR }
                }
            }
        }
        switch status {
        case Z_STREAM_END:
            guard Int(stream.total_out) == size else {
                throw corrupt("'\(name)' inflates to \(stream.total_out) bytes, but the archive records \(size)")
            }
            return output
        case Z_BUF_ERROR:
            if stream.avail_out == 0 && stream.avail_in > 0 {
                throw corrupt("'\(name)' inflates to more than the \(size) bytes the archive records")
            }
            throw corrupt("the compressed data of '\(name)' ends early")
        default:
            let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
            throw corrupt("the compressed data of '\(name)' is invalid (\(reason))")
        }
    }
}

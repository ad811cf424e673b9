import Foundation

/// The entries of a ZIP file, found through its central directory and unzipped as streams.
///
/// The central directory is the only trustworthy index: archivers that stream (as the one that
/// made the shipped `flights.csv.zip` did) leave the sizes and checksum in a local header at
/// zero and write them after the data. Entries may be stored (method 0) or deflated (method 8);
/// every entry is checked against its recorded size and CRC-32 as it is read, so a damaged
/// archive is an error rather than silently wrong rows. ZIP64, encryption and other methods
/// are refused with a hint.
///
/// A file archive is read with `pread(2)` piece by piece, never whole, and an entry is
/// inflated into the reader's buffer as it is consumed, so memory stays flat however large the
/// entry; ``ImportLimits`` bound how large (and how much larger than its compressed data) an
/// entry may be, which stops ZIP bombs before they start.
///
/// ```swift
/// let zip = try ZipArchive(path: DemoData.directory.appendingPathComponent("flights.csv.zip").path)
/// let csv = try zip.extract("flights.csv")   // 31,053,850 bytes
/// ```
package final class ZipArchive: @unchecked Sendable {
    // @unchecked: immutable after init; the file is only read with pread, which is thread-safe.

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
    private let bytes: RandomAccessBytes

    /// Names in central-directory order.
    package var entryNames: [String] { entries.map(\.name) }

    /// Reads the central directory of an archive in memory.
    package convenience init(data: Data) throws(StoreError) {
        try self.init(RandomAccessBytes(data))
    }

    /// Reads the central directory of the archive file at `path`; entries are read from the
    /// file as they are unzipped.
    package convenience init(path: String) throws(StoreError) {
        try self.init(RandomAccessBytes(path: path))
    }

    private init(_ bytes: RandomAccessBytes) throws(StoreError) {
        self.bytes = bytes
        entries = try Self.readDirectory(bytes)
    }

    /// The contents of the first entry named `name`, unzipped and checked.
    package func extract(_ name: String, limits: ImportLimits = ImportLimits()) throws(StoreError) -> Data {
        guard let entry = entries.first(where: { $0.name == name }) else {
            throw StoreError(.importFailed, "the ZIP archive has no entry named '\(name)'",
                             hint: "its entries are: \(entryNames.prefix(12).joined(separator: ", "))")
        }
        return try extract(entry, limits: limits)
    }

    /// The contents of `entry`, unzipped and checked against its size and CRC-32.
    package func extract(_ entry: Entry, limits: ImportLimits = ImportLimits()) throws(StoreError) -> Data {
        let stream = try self.stream(entry, limits: limits)
        var out = Data()
        let chunk = 1 << 16
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { buffer.deallocate() }
        while true {
            let n = try stream.read(into: buffer, count: chunk)
            if n == 0 { return out }
            out.append(buffer, count: n)
        }
    }

    /// `entry`'s contents as a stream, unzipped as it is read and checked against its size and
    /// CRC-32 (the last read before the end fails if either is wrong). Entries larger than
    /// `limits` allow, in size or in growth over their compressed data, are refused first.
    package func stream(_ e: Entry, limits: ImportLimits = ImportLimits()) throws(StoreError) -> ByteStream {
        if e.flags & 1 != 0 {
            throw StoreError(.importFailed, "the ZIP entry '\(e.name)' is encrypted",
                             hint: "decrypt it with another tool and import the extracted file")
        }
        let h = e.localHeaderOffset
        guard bytes.has(h, 30) else {
            throw Self.corrupt("the local header of '\(e.name)' is missing (the file is probably truncated)")
        }
        let header = try bytes.read(at: h, count: 30)
        guard Self.u32(header, 0) == Self.localSignature else {
            throw Self.corrupt("the local header of '\(e.name)' is missing (the file is probably truncated)")
        }
        let start = h + 30 + Int(Self.u16(header, 26)) + Int(Self.u16(header, 28))
        guard bytes.has(start, e.compressedSize) else {
            throw Self.corrupt("the data of '\(e.name)' runs past the end of the file (the file is probably truncated)")
        }
        switch e.method {
        case 0:
            guard e.compressedSize == e.uncompressedSize else { throw Self.corrupt("the stored entry '\(e.name)' has two different sizes") }
        case 8:
            // Deflate cannot expand data more than about 1032:1; a larger claim is a damaged (or
            // hostile) header.
            guard e.uncompressedSize <= e.compressedSize &* 1032 &+ 1024 else {
                throw Self.corrupt("'\(e.name)' claims \(e.uncompressedSize) bytes from only \(e.compressedSize) compressed bytes")
            }
        default:
            throw StoreError(.importFailed, "the ZIP entry '\(e.name)' uses compression method \(e.method), which is not supported",
                             hint: "only stored (0) and deflated (8) entries can be read; re-create the archive with an ordinary zip tool")
        }
        guard e.uncompressedSize <= limits.maxUnzippedBytes else {
            throw StoreError(.importFailed, "'\(e.name)' unzips to \(e.uncompressedSize.formatted()) bytes, more than the \(limits.maxUnzippedBytes.formatted()) an import unzips",
                             hint: "unzip it with another tool and import the extracted file (which is read as a stream), or raise ImportLimits.maxUnzippedBytes")
        }
        // Small entries may compress very well without harm; the ratio guards the large ones.
        if e.uncompressedSize > 1 << 20, e.uncompressedSize / max(1, e.compressedSize) >= limits.maxCompressionRatio {
            throw StoreError(.importFailed, "'\(e.name)' would grow \((e.uncompressedSize / max(1, e.compressedSize)).formatted())-fold when unzipped (\(e.uncompressedSize.formatted()) bytes from \(e.compressedSize.formatted())), beyond the \(limits.maxCompressionRatio)-fold an import allows",
                             hint: "an archive that grows this much is usually a ZIP bomb; if you trust it, unzip it with another tool and import the extracted file, or raise ImportLimits.maxCompressionRatio")
        }
        return try ZipEntryStream(bytes, entry: e, dataStart: start)
    }

    // MARK: - Reading the directory

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let centralSignature: UInt32 = 0x0201_4B50
    private static let localSignature: UInt32 = 0x0403_4B50
    /// The most central directory PQL reads: ample for the 65,535 entries a ZIP without ZIP64
    /// can hold with ordinary names, and a bound on what a hostile directory can make it hold.
    private static let maxDirectoryBytes = 32 << 20

    static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 { UInt32(u16(b, o)) | UInt32(u16(b, o + 2)) << 16 }

    static func corrupt(_ what: String) -> StoreError {
        StoreError(.importFailed, "the ZIP archive is damaged: \(what)",
                   hint: "download or copy the file again, or unzip it with another tool and import the CSV")
    }

    private static var zip64: StoreError {
        StoreError(.importFailed, "the ZIP archive uses ZIP64 (for files over 4 GB or 65,535 entries), which is not supported",
                   hint: "unzip it with another tool and import the extracted file")
    }

    private static func readDirectory(_ file: RandomAccessBytes) throws(StoreError) -> [Entry] {
        // The end record is 22 bytes plus a comment of up to 65,535 bytes, at the very end.
        guard file.count >= 22 else {
            throw StoreError(.importFailed, "the file is not a ZIP archive (it is only \(file.count) bytes long)",
                             hint: "a ZIP archive ends with a central directory; the file may be truncated")
        }
        // The tail, with 20 bytes more for a ZIP64 locator just before the end record.
        let tailStart = max(0, file.count - 22 - 65_535 - 20)
        let b = try file.read(at: tailStart, count: file.count - tailStart)
        var end = -1
        var o = b.count - 22
        let lowest = max(0, b.count - 22 - 65_535)
        while o >= lowest {
            if u32(b, o) == endSignature, o + 22 + Int(u16(b, o + 20)) == b.count { end = o; break }
            o -= 1
        }
        if end < 0 {
            // A comment that does not reach the end means trailing bytes; still take the last record.
            o = b.count - 22
            while o >= lowest { if u32(b, o) == endSignature { end = o; break }; o -= 1 }
        }
        guard end >= 0 else {
            throw StoreError(.importFailed, "the file is not a ZIP archive (no end of central directory record)",
                             hint: "the file may be truncated, or be another format with a .zip name")
        }
        if end >= 20, u32(b, end - 20) == zip64LocatorSignature { throw zip64 }
        let disk = u16(b, end + 4), cdDisk = u16(b, end + 6)
        let count = Int(u16(b, end + 10))
        let cdSize = u32(b, end + 12), cdOffset = u32(b, end + 16)
        if count == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF { throw zip64 }
        guard disk == 0, cdDisk == 0 else {
            throw StoreError(.importFailed, "the ZIP archive spans several files (a split or multi-volume archive)",
                             hint: "join the parts into one archive, or unzip them with another tool")
        }
        guard file.has(Int(cdOffset), Int(cdSize)), Int(cdOffset) + Int(cdSize) <= tailStart + end else {
            throw corrupt("the central directory lies outside the file (the file is probably truncated)")
        }
        guard Int(cdSize) <= maxDirectoryBytes else {
            throw corrupt("the central directory claims \(Int(cdSize).formatted()) bytes, more than an archive of 65,535 entries needs")
        }
        let cd = try file.read(at: Int(cdOffset), count: Int(cdSize))
        func has(_ offset: Int, _ length: Int) -> Bool { offset >= 0 && length >= 0 && offset <= cd.count && length <= cd.count - offset }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var p = 0
        for _ in 0..<count {
            guard has(p, 46), u32(cd, p) == centralSignature else { throw corrupt("a central directory entry is missing") }
            let nameLength = Int(u16(cd, p + 28)), extraLength = Int(u16(cd, p + 30)), commentLength = Int(u16(cd, p + 32))
            guard has(p + 46, nameLength + extraLength + commentLength) else { throw corrupt("a central directory entry is cut short") }
            let flags = u16(cd, p + 8)
            // Bit 11 promises UTF-8; older archivers wrote CP437, which is ASCII for ordinary names.
            let name = String(decoding: cd[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            let compressed = u32(cd, p + 20), uncompressed = u32(cd, p + 24), local = u32(cd, p + 42)
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || local == 0xFFFF_FFFF { throw zip64 }
            entries.append(Entry(name: name, method: u16(cd, p + 10), flags: flags, crc32: u32(cd, p + 16),
                                 compressedSize: Int(compressed), uncompressedSize: Int(uncompressed),
                                 localHeaderOffset: Int(local)))
            p += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }
}

/// Up to eight bytes of the source as one integer, so that a short word is compared (with a
/// keyword, with a leaf seen before) in one comparison rather than byte by byte.
enum PackedBytes {
    /// `bytes[start..<end]`, at most eight, little-endian with zeros above them: one load
    /// where eight bytes are there to read.
    @inline(__always)
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        let n = end - start
        if start + 8 <= bytes.count {
            let v = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt64.self))
            return n >= 8 ? v : v & ((1 << (UInt64(truncatingIfNeeded: n) &* 8)) &- 1)
        }
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(bytes[start + i]) << (8 * UInt64(i)) }
        return v
    }
}

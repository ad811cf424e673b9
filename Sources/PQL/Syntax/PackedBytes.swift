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

    /// The eight bytes `bytes[start..<start + 8]`, little-endian; the caller has checked that
    /// they lie inside the buffer.
    @inline(__always)
    static func load8(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt64 {
        precondition(start >= 0 && start &+ 8 <= bytes.count)
        return UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt64.self))
    }

    /// The bytes of `w` that are no identifier byte (`A`–`Z`, `a`–`z`, `0`–`9`, `_`): 0x80 in
    /// each such byte, 0 in the others. Eight bytes are classified at once, so that a word's
    /// end is found in one step rather than one test per letter: the lexer's commonest work.
    ///
    /// Each test adds a constant to the low seven bits of every byte, which never carries into
    /// the next byte (no sum reaches 0x100), and reads the top bit: it is set exactly when the
    /// byte was at least the bound the constant stands for.
    @inline(__always)
    static func nonIdentifierBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let top: UInt64 = 0x8080_8080_8080_8080
        let low7 = w & ~top
        // Setting 0x20 maps `A`–`Z` onto `a`–`z`, and no other byte into that range.
        let folded = low7 | (ones &* 0x20)
        let letter = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x80 - 0x7B))
        let digit = (low7 &+ ones &* (0x80 - 0x30)) & ~(low7 &+ ones &* (0x80 - 0x3A))
        let notUnderscore = low7 ^ (ones &* 0x5F)
        let underscore = ~((notUnderscore &+ ones &* 0x7F) | notUnderscore)
        // Bytes of 0x80 and above (UTF-8 beyond ASCII) are no ASCII identifier byte either.
        return (~(letter | digit | underscore) | w) & top
    }
}

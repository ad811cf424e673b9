/// The nodes of leaves already parsed, so that a key or literal written many times is one
/// node in the tree, shared, rather than an allocation (two for a key path) per occurrence: a
/// long predicate repeats a handful of keys and constants.
///
/// A leaf is found by its token's kind and spelling, the bytes of the source it was read
/// from, which decide its node: no `String` is made or hashed to find it. Two spellings of
/// one value (`1` and `01`, `'a'` and `"a"`) get nodes of their own, equal ones.
///
/// A short predicate has little to share and does not pay for the table: the first
/// ``tableThreshold`` leaves of a parse are made without it.
struct LeafNodes {
    static let tableThreshold = 32
    /// Slots of the table, direct-mapped: a leaf whose slot holds another replaces it, so the
    /// table never grows or probes, and a long run of distinct leaves costs one slot write each.
    static let slotCount = 512
    /// Leaves spelt longer than this are not kept: they rarely repeat.
    static let maxSpellingLength = 64

    /// What identifies a slot's leaf; its node is in ``nodes`` at the same index. Kept apart so
    /// that a probe compares plain values and touches (retains) a node only on a hit.
    ///
    /// A spelling of up to sixteen bytes is all in `low` and `high` (its first eight bytes and
    /// the rest), so that a probe compares two words rather than bytes; a longer one keeps its
    /// first and last eight there, and its bytes are compared on a hit.
    private struct Slot {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var start: Int32 = 0
        var length: Int32 = -1
        var kind: Token.Kind = .eof
    }

    private var seen = 0
    private var slots: [Slot] = []
    private var nodes: [ExpressionNode?] = []

    /// The node made before for a leaf spelt as `t`, if it is still kept. Inlined into the
    /// parser's one caller: asked for every leaf.
    @inline(__always)
    mutating func node(for t: Token, in bytes: UnsafeBufferPointer<UInt8>) -> ExpressionNode? {
        seen += 1
        guard !slots.isEmpty else { return nil }
        let length = t.end - t.start
        guard length <= Self.maxSpellingLength else { return nil }
        let (low, high) = Self.key(t, bytes)
        let i = Self.index(low, high, length, t.kind)
        let slot = slots[i]
        guard slot.low == low, slot.high == high, Int(slot.length) == length, slot.kind == t.kind else { return nil }
        if length > 16 {
            let kept = Int(slot.start)
            for k in 8..<(length - 8) where bytes[kept + k] != bytes[t.start + k] { return nil }
        }
        return nodes[i]
    }

    /// Keeps `node` as the leaf spelt as `t`.
    mutating func remember(_ node: ExpressionNode, for t: Token, in bytes: UnsafeBufferPointer<UInt8>) {
        let length = t.end - t.start
        guard seen > Self.tableThreshold, length <= Self.maxSpellingLength else { return }
        if slots.isEmpty {
            slots = Array(repeating: Slot(), count: Self.slotCount)
            nodes = Array(repeating: nil, count: Self.slotCount)
        }
        let (low, high) = Self.key(t, bytes)
        let i = Self.index(low, high, length, t.kind)
        slots[i] = Slot(low: low, high: high, start: Int32(truncatingIfNeeded: t.start), length: Int32(length), kind: t.kind)
        nodes[i] = node
    }

    /// The first eight bytes of the spelling, and the rest (up to sixteen) or else its last eight.
    @inline(__always)
    private static func key(_ t: Token, _ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let length = t.end - t.start
        let low = PackedBytes.load(bytes, t.start, t.start + min(length, 8))
        let high = length > 8 ? PackedBytes.load(bytes, max(t.start + 8, t.end - 8), t.end) : 0
        return (low, high)
    }

    /// A multiplicative hash of the key, the length and the kind.
    @inline(__always)
    private static func index(_ low: UInt64, _ high: UInt64, _ length: Int, _ kind: Token.Kind) -> Int {
        var h = (low ^ (high &* 0xC2B2_AE3D_27D4_EB4F)) &+ UInt64(truncatingIfNeeded: length << 8 | Int(kind.rawValue))
        h = h &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 55) & (slotCount - 1)
    }
}

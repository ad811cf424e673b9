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
    private struct Slot {
        var hash: UInt32 = 0
        var kind: Token.Kind = .eof
        var start: Int32 = 0
        var length: Int32 = -1
    }

    private var seen = 0
    private var slots: [Slot] = []
    private var nodes: [ExpressionNode?] = []

    /// The node made before for a leaf spelt as `t`, if it is still kept.
    mutating func node(for t: Token, in bytes: UnsafeBufferPointer<UInt8>) -> ExpressionNode? {
        seen += 1
        guard !slots.isEmpty else { return nil }
        let length = t.end - t.start
        guard length <= Self.maxSpellingLength else { return nil }
        let h = Self.hash(t, bytes)
        let i = Self.index(h)
        let slot = slots[i]
        guard slot.hash == h, slot.kind == t.kind, Int(slot.length) == length else { return nil }
        let kept = Int(slot.start)
        for k in 0..<length where bytes[kept + k] != bytes[t.start + k] { return nil }
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
        let h = Self.hash(t, bytes)
        let i = Self.index(h)
        slots[i] = Slot(hash: h, kind: t.kind, start: Int32(truncatingIfNeeded: t.start), length: Int32(length))
        nodes[i] = node
    }

    /// FNV-1a over the kind and the spelling.
    private static func hash(_ t: Token, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt32 = 2_166_136_261 ^ UInt32(t.kind.rawValue)
        for i in t.start..<t.end { h = (h ^ UInt32(bytes[i])) &* 16_777_619 }
        return h
    }

    private static func index(_ h: UInt32) -> Int { Int((h ^ (h >> 16)) & UInt32(slotCount - 1)) }
}

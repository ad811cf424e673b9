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

    private struct Slot {
        var hash: UInt32 = 0
        var kind: Token.Kind = .eof
        var start = 0
        var length = 0
        var node: ExpressionNode? = nil
    }

    private var seen = 0
    private var slots: [Slot] = []

    /// The node made before for a leaf spelt as `t`, if it is still kept.
    mutating func node(for t: Token, in bytes: UnsafeBufferPointer<UInt8>) -> ExpressionNode? {
        seen += 1
        guard !slots.isEmpty else { return nil }
        let length = t.end - t.start
        guard length <= Self.maxSpellingLength else { return nil }
        let h = Self.hash(t, bytes)
        let slot = slots[Self.index(h)]
        guard let node = slot.node, slot.hash == h, slot.kind == t.kind, slot.length == length else { return nil }
        for i in 0..<length where bytes[slot.start + i] != bytes[t.start + i] { return nil }
        return node
    }

    /// Keeps `node` as the leaf spelt as `t`.
    mutating func remember(_ node: ExpressionNode, for t: Token, in bytes: UnsafeBufferPointer<UInt8>) {
        let length = t.end - t.start
        guard seen > Self.tableThreshold, length <= Self.maxSpellingLength else { return }
        if slots.isEmpty { slots = Array(repeating: Slot(), count: Self.slotCount) }
        let h = Self.hash(t, bytes)
        slots[Self.index(h)] = Slot(hash: h, kind: t.kind, start: t.start, length: length, node: node)
    }

    /// FNV-1a over the kind and the spelling.
    private static func hash(_ t: Token, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt32 = 2_166_136_261 ^ UInt32(t.kind.rawValue)
        for i in t.start..<t.end { h = (h ^ UInt32(bytes[i])) &* 16_777_619 }
        return h
    }

    private static func index(_ h: UInt32) -> Int { Int((h ^ (h >> 16)) & UInt32(slotCount - 1)) }
}

/// Where every node of a parsed tree was written in its format string, so that an error about
/// a sub-expression (an unknown key, a type mismatch, an overflow) can point at that
/// sub-expression rather than at the whole predicate.
///
/// The map is kept beside the tree, not in it: trees compare, hash and print the same however
/// they were written, and a tree built in code costs no memory for positions. A node is found
/// by walking the map the way one walks the tree: ``root`` is the predicate's node, and
/// ``children(of:)`` lists a node's children in the tree's order — a comparison's left then
/// right operand, the parts of AND and OR, the arguments of a function, an index's collection
/// then its subscript expression, TERNARY's condition then its two values, SUBQUERY's
/// collection then its predicate, CAST's value then its type, FUNCTION's target then its
/// arguments. A key path `a.b.c` is one node; a parenthesised operand's range takes in its
/// parentheses.
///
/// ```swift
/// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND nosuch.key > 2")
/// let second = map.children(of: map.root)[1]            // nosuch.key > 2
/// let key = map.children(of: second)[0]                 // nosuch.key
/// print(map.range(of: key))                             // line 1, column 12
/// print(tree)                                           // a == 1 AND nosuch.key > 2
/// ```
public struct SourceMap: Hashable, Sendable, Codable {
    /// One node: its byte range and the number of map entries its subtree holds (itself
    /// included). Entries are in post-order, the order the parser completes nodes in, so a
    /// node's subtree is the `size` entries ending at it. Twelve bytes a node.
    struct Entry: Hashable, Sendable, Codable {
        var start: UInt32
        var end: UInt32
        var size: UInt32
    }

    /// A node of the tree, as a place in the map.
    ///
    /// ```swift
    /// let (_, map) = try PredicateNode.parse(format: "x > 1")
    /// print(map.range(of: map.root).length)   // 5
    /// ```
    public struct Node: Hashable, Sendable, Codable {
        let index: Int
    }

    /// The format string the ranges point into.
    public let source: String
    var entries: [Entry]

    init(source: String, entries: [Entry]) {
        self.source = source
        self.entries = entries
    }

    /// The node of the whole parsed tree.
    ///
    /// ```swift
    /// let (_, map) = try PredicateNode.parse(format: "a > 1 OR b < 2")
    /// print(map.range(of: map.root).length)   // 14
    /// ```
    public var root: Node { Node(index: max(0, entries.count - 1)) }

    /// Where `node` was written: its first and last token and everything between them.
    ///
    /// ```swift
    /// let (_, map) = try PredicateNode.parse(format: "a > 1 OR b < 2")
    /// print(map.range(of: map.children(of: map.root)[1]))   // line 1, column 10
    /// ```
    public func range(of node: Node) -> SourceRange {
        guard entries.indices.contains(node.index) else { return SourceRange(offset: 0, length: 0, in: source) }
        let e = entries[node.index]
        return SourceRange(offset: Int(e.start), length: Int(e.end) - Int(e.start), in: source)
    }

    /// Where `node` was written, as byte offsets only: a ``SourceRange`` also counts the lines
    /// and columns up to it, which is linear in the offset, so code that asks for many nodes'
    /// text (the linter) would be quadratic in the input through it.
    func byteSpan(of node: Node) -> (start: Int, end: Int) {
        guard entries.indices.contains(node.index) else { return (0, 0) }
        return (Int(entries[node.index].start), Int(entries[node.index].end))
    }

    /// The children of `node`, in the order of the tree's own children (see the type's
    /// description).
    ///
    /// ```swift
    /// let (_, map) = try PredicateNode.parse(format: "a > 1 OR b < 2 OR c == 3")
    /// map.children(of: map.root).count   // 3
    /// ```
    public func children(of node: Node) -> [Node] {
        guard entries.indices.contains(node.index) else { return [] }
        let first = node.index - Int(entries[node.index].size) + 1
        var out: [Node] = []
        var c = node.index - 1
        while c >= first {
            out.append(Node(index: c))
            c -= max(1, Int(entries[c].size))
        }
        return out.reversed()
    }

    /// The `i`th child of `node`, or nil.
    ///
    /// ```swift
    /// let (_, map) = try PredicateNode.parse(format: "price * 2 > 10")
    /// let lhs = map.child(0, of: map.root)!   // price * 2
    /// ```
    public func child(_ i: Int, of node: Node) -> Node? {
        let all = children(of: node)
        return all.indices.contains(i) ? all[i] : nil
    }

    /// Whether the map describes `tree`: the same shape, node for node. A tree changed after
    /// parsing (substituted with expressions, edited) no longer fits, and its positions must
    /// not be used. Checked without recursion.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == $X")
    /// map.fits(tree.substituting(["X": 1]))   // true: a value for a variable keeps the shape
    /// ```
    public func fits(_ tree: PredicateNode) -> Bool { fits(.predicate(tree)) }

    /// Whether the map describes `tree` (see ``fits(_:)-(PredicateNode)``).
    ///
    /// ```swift
    /// let (tree, map) = try ExpressionNode.parse(format: "a + 1")
    /// map.fits(tree)   // true
    /// ```
    public func fits(_ tree: ExpressionNode) -> Bool { fits(.expression(tree)) }

    private func fits(_ tree: TreeItem) -> Bool {
        guard !entries.isEmpty else { return false }
        var stack: [(item: TreeItem, node: Int)] = [(tree, entries.count - 1)]
        var visited = 0
        while let (item, node) = stack.popLast() {
            visited += 1
            let kids = children(of: Node(index: node))
            var i = 0
            while let child = item.child(i) {
                guard i < kids.count else { return false }
                stack.append((child, kids[i].index))
                i += 1
            }
            guard i == kids.count else { return false }
        }
        return visited == entries.count
    }
}

/// The parser's side of the map: entries appended as nodes complete.
struct SourceMapRecorder {
    /// Off for parses nobody asked positions of: no memory, one branch a node.
    let isOn: Bool
    var entries: [SourceMap.Entry] = []

    /// Where the next subtree will begin.
    var mark: Int {
        @inline(__always) get { isOn ? entries.count : 0 }
    }

    /// Where the last completed subtree begins, and its start offset.
    var lastSubtree: (mark: Int, start: Int) {
        @inline(__always) get {
            guard isOn, let last = entries.last else { return (0, 0) }
            return (entries.count - Int(last.size), Int(last.start))
        }
    }

    /// A node from `start` to `end` whose children are the subtrees recorded since `mark`.
    ///
    /// Inlined down to the test of ``isOn``, as are the other recording calls the parser makes
    /// for every node: a parse without a map pays a branch for them, not a call.
    @inline(__always)
    mutating func node(from start: Int, to end: Int, since mark: Int) {
        if isOn { append(from: start, to: end, since: mark) }
    }

    @inline(never)
    private mutating func append(from start: Int, to end: Int, since mark: Int) {
        entries.append(.init(start: UInt32(clamping: start), end: UInt32(clamping: max(start, end)),
                             size: UInt32(clamping: entries.count - mark + 1)))
    }

    /// A leaf that replaces whatever was recorded since `mark` (folded constants, key paths
    /// extended by dots).
    mutating func leaf(from start: Int, to end: Int, replacing mark: Int) {
        guard isOn else { return }
        entries.removeSubrange(min(mark, entries.count)...)
        node(from: start, to: end, since: entries.count)
    }

    /// Makes the last node's range run from `start` to `end`: a parenthesised operand's range
    /// takes in its parentheses, so `(a + b).@count` starts at its `(`.
    @inline(__always)
    mutating func widenLast(from start: Int, to end: Int) {
        guard isOn, !entries.isEmpty else { return }
        entries[entries.count - 1].start = UInt32(clamping: start)
        entries[entries.count - 1].end = UInt32(clamping: end)
    }

    /// Forgets the subtrees recorded since `mark`.
    mutating func drop(since mark: Int) {
        guard isOn, mark < entries.count else { return }
        entries.removeSubrange(mark...)
    }

    /// Forgets the last node (not its children).
    mutating func dropLast() {
        guard isOn, !entries.isEmpty else { return }
        entries.removeLast()
    }

    /// Drops the `i`th of the subtrees recorded since `mark` (FUNCTION's selector string,
    /// which is no node of the tree).
    mutating func dropSubtree(_ i: Int, since mark: Int) {
        guard isOn else { return }
        var roots: [Int] = []
        var c = entries.count - 1
        while c >= mark {
            roots.append(c)
            c -= max(1, Int(entries[c].size))
        }
        roots.reverse()
        guard roots.indices.contains(i) else { return }
        let r = roots[i]
        entries.removeSubrange((r - Int(entries[r].size) + 1)...r)
    }

    /// A subtree that came whole from outside the text (an `ExpressionNode` passed as `%@`):
    /// every node of it gets the specifier's range.
    mutating func subtree(_ e: ExpressionNode, from start: Int, to end: Int) {
        guard isOn else { return }
        // Post-order with an explicit stack: the argument may be a deep tree built in code.
        var stack: [(item: TreeItem, next: Int, mark: Int)] = [(.expression(e), 0, entries.count)]
        while !stack.isEmpty {
            let top = stack.count - 1
            if let child = stack[top].item.child(stack[top].next) {
                stack[top].next += 1
                stack.append((child, 0, entries.count))
            } else {
                node(from: start, to: end, since: stack[top].mark)
                stack.removeLast()
            }
        }
    }

    func map(_ source: String) -> SourceMap { SourceMap(source: source, entries: entries) }
}

extension SourceMap {
    /// A node of either half of a tree, for naming the nodes an error passed through.
    ///
    /// ```swift
    /// let item = SourceMap.Item.expression(.keyPath(["nosuch", "key"]))
    /// ```
    public enum Item: Hashable, Sendable {
        /// A predicate node: a comparison, a compound, a constant truth value.
        case predicate(PredicateNode)
        /// An expression node: a key path, a constant, arithmetic, a call.
        case expression(ExpressionNode)

        var treeItem: TreeItem {
            switch self {
            case .predicate(let p): return .predicate(p)
            case .expression(let e): return .expression(e)
            }
        }

        init(_ t: TreeItem) {
            switch t {
            case .predicate(let p): self = .predicate(p)
            case .expression(let e): self = .expression(e)
            }
        }
    }

    /// Where the innermost of `path` was written in `tree` (which the map must fit): `path`
    /// lists nodes a compiler was working on when it failed, outermost first, each inside the
    /// one before. Each is looked for among the nodes inside the last one found (itself
    /// included), first in the tree's order; a node not found (one the compiler made itself)
    /// is passed over. Nil when the map does not fit `tree` or nothing was found.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND nosuch.key > 2")
    /// let key = ExpressionNode.keyPath(["nosuch", "key"])
    /// map.range(ofInnermost: [.predicate(tree), .expression(key)], in: tree)?.column   // 12
    /// ```
    public func range(ofInnermost path: [Item], in tree: PredicateNode) -> SourceRange? {
        guard fits(tree) else { return nil }
        var current: (item: TreeItem, node: Int) = (.predicate(tree), entries.count - 1)
        var found = false
        for wanted in path {
            if let hit = first(wanted, inside: current) {
                current = hit
                found = true
            }
        }
        return found ? range(of: Node(index: current.node)) : nil
    }

    /// The first node equal to `wanted` inside `start` (itself included), in pre-order.
    private func first(_ wanted: Item, inside start: (item: TreeItem, node: Int)) -> (item: TreeItem, node: Int)? {
        firstInPreOrder(from: start) { $0 == wanted }
    }

    /// The first node inside `start` (itself included) that `matches`, in pre-order.
    func firstInPreOrder(from start: (item: TreeItem, node: Int), where matches: (Item) -> Bool) -> (item: TreeItem, node: Int)? {
        var stack = [start]
        while let (item, node) = stack.popLast() {
            if matches(Item(item)) { return (item, node) }
            let kids = children(of: Node(index: node))
            var pairs: [(TreeItem, Int)] = []
            var i = 0
            while let child = item.child(i), i < kids.count {
                pairs.append((child, kids[i].index))
                i += 1
            }
            stack.append(contentsOf: pairs.reversed())
        }
        return nil
    }

    /// Where the first node equal to `wanted` was written in `tree`, in the tree's order.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == $MIN OR b == $MAX")
    /// map.range(ofFirst: .expression(.variable("MAX")), in: tree)?.column   // 19
    /// ```
    public func range(ofFirst wanted: Item, in tree: PredicateNode) -> SourceRange? {
        range(ofInnermost: [wanted], in: tree)
    }

    /// Where the first node that `matches` was written in `tree`, in the tree's order.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "x > 1 OR nosuch.key == 2")
    /// map.range(ofFirstWhere: { if case .expression(.keyPath(let p)) = $0 { p.first == "nosuch" } else { false } },
    ///           in: tree)?.column   // 10
    /// ```
    public func range(ofFirstWhere matches: (Item) -> Bool, in tree: PredicateNode) -> SourceRange? {
        guard fits(tree), let hit = firstInPreOrder(from: (.predicate(tree), entries.count - 1), where: matches) else { return nil }
        return range(of: Node(index: hit.node))
    }
}

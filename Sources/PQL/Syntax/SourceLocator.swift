/// Follows another compiler's walk of a parsed tree (the store's SQL compiler) to the
/// ``SourceMap`` node of what it is compiling, so that code it generates can carry that node
/// and an error raised when the code runs points where memory's error would.
///
/// The walker says which node it enters and leaves; the locator finds it among the children of
/// the node entered last, trying them from after the last one found (a walk in the tree's
/// order costs one comparison per node), then deeper. A node the walker made itself, found
/// nowhere, stands for the node it was made inside.
package struct SourceLocator {
    private let map: SourceMap
    private var stack: [Level]

    private struct Level {
        var item: TreeItem
        var node: Int
        /// The node's children, listed when first searched.
        var children: [Int]? = nil
        /// Where to start looking for the next child entered.
        var cursor = 0
    }

    /// A locator at the root of `tree`; nil when there is no map or it does not fit the tree.
    package init?(map: SourceMap?, tree: PredicateNode) {
        guard let map, map.fits(tree) else { return nil }
        self.map = map
        stack = [Level(item: .predicate(tree), node: map.entries.count - 1)]
    }

    /// The index, in the map, of the node entered last.
    package var node: Int { stack[stack.count - 1].node }

    /// Where `node` was written in the map's source (see ``node``).
    package static func range(ofNode node: Int, in map: SourceMap) -> SourceRange? {
        guard map.entries.indices.contains(node) else { return nil }
        return map.range(of: SourceMap.Node(index: node))
    }

    /// Enters `wanted`, a node inside the one entered last (or that node again).
    package mutating func enter(_ wanted: SourceMap.Item) {
        let top = stack.count - 1
        let item = wanted.treeItem
        if stack[top].children == nil {
            stack[top].children = map.children(of: SourceMap.Node(index: stack[top].node)).map(\.index)
        }
        let children = stack[top].children ?? []
        let parent = stack[top].item
        for step in 0..<children.count {
            let i = (stack[top].cursor + step) % children.count
            if let child = parent.child(i), SourceMap.Item(child) == wanted {
                stack[top].cursor = i + 1
                stack.append(Level(item: item, node: children[i]))
                return
            }
        }
        if let hit = map.firstNode(equalTo: wanted, inside: (parent, stack[top].node)) {
            stack.append(Level(item: item, node: hit))
        } else {
            // The same node again (an operand compiled as a scalar), or one the walker made.
            stack.append(Level(item: parent, node: stack[top].node))
        }
    }

    /// Leaves the node entered last.
    package mutating func leave() {
        if stack.count > 1 { stack.removeLast() }
    }
}

extension SourceMap {
    /// The first node equal to `wanted` inside `start` (itself included), in pre-order.
    func firstNode(equalTo wanted: Item, inside start: (item: TreeItem, node: Int)) -> Int? {
        firstInPreOrder(from: start) { $0 == wanted }?.node
    }
}

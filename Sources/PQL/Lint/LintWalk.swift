/// One walk over a parsed tree and its ``SourceMap`` side by side, collecting
/// ``PredicateLinter``'s findings with the place each node was written.
struct LintWalk {
    let source: String
    let map: SourceMap
    private(set) var findings: [PredicateDiagnostic] = []

    init(source: String, map: SourceMap) {
        self.source = source
        self.map = map
    }

    /// Visits `item`, written at `node`, then its children. `parent` is the predicate the item
    /// is a direct part of (for TRUEPREDICATE inside AND). The parser bounds the tree's height,
    /// so the recursion is bounded too.
    mutating func visit(_ item: TreeItem, _ node: SourceMap.Node, parent: PredicateNode?) {
        // Each finding's place is counted from the start of the text: a bounded number of them
        // keeps a long predicate with a repeated mistake linear.
        guard findings.count < PredicateLinter.maxFindings else { return }
        switch item {
        case .predicate(.constant(let truth)):
            if let parent { constantInside(parent, truth, at: node) }
        case .predicate(.comparison(let c)):
            let kids = map.children(of: node)
            if kids.count == 2 { check(c, at: node, lhs: kids[0], rhs: kids[1]) }
        default: break
        }
        let kids = map.children(of: node)
        var i = 0
        while i < kids.count, let child = item.child(i) {
            var nextParent: PredicateNode? = nil
            if case .predicate(let p) = item {
                switch p {
                case .and, .or, .not: nextParent = p
                default: break
                }
            }
            visit(child, kids[i], parent: nextParent)
            i += 1
        }
    }

    // MARK: - Text of nodes

    /// The text `node` was written as.
    func text(_ node: SourceMap.Node) -> String {
        let span = map.byteSpan(of: node)
        let utf8 = source.utf8
        let s = utf8.index(utf8.startIndex, offsetBy: min(max(0, span.start), utf8.count))
        let e = utf8.index(s, offsetBy: min(max(0, span.end - span.start), utf8.distance(from: s, to: utf8.endIndex)))
        return String(decoding: utf8[s..<e], as: UTF8.self)
    }

    /// Written as a `%` specifier: an argument, not a literal.
    func isArgument(_ node: SourceMap.Node) -> Bool { text(node).hasPrefix("%") }

    /// Text shown in a message: short operands as written, long ones cut.
    func shown(_ node: SourceMap.Node) -> String {
        let t = text(node)
        return t.count <= 30 ? t : String(t.prefix(25)) + "…"
    }

    mutating func add(_ kind: PredicateDiagnostic.Kind, _ message: String, at node: SourceMap.Node,
                      hint: String? = nil, replacement: String? = nil) {
        guard findings.count < PredicateLinter.maxFindings else { return }
        let r = map.range(of: node)
        findings.append(.warning(kind, message, start: r.offset, end: r.offset + r.length, source: source,
                                 hint: hint, replacement: replacement))
    }

    mutating func add(_ kind: PredicateDiagnostic.Kind, _ message: String, from start: Int, to end: Int,
                      hint: String? = nil, replacement: String? = nil) {
        guard findings.count < PredicateLinter.maxFindings else { return }
        findings.append(.warning(kind, message, start: start, end: end, source: source, hint: hint, replacement: replacement))
    }

    // MARK: - Constant truth values

    /// `TRUEPREDICATE` or `FALSEPREDICATE` as a part of AND, OR or NOT.
    private mutating func constantInside(_ parent: PredicateNode, _ truth: Bool, at node: SourceMap.Node) {
        let word = truth ? "TRUEPREDICATE" : "FALSEPREDICATE"
        switch (parent, truth) {
        case (.and, true), (.or, false):
            add(.constantPredicate, "\(word) inside \(truth ? "AND" : "OR") changes nothing", at: node,
                hint: "remove it")
        case (.and, false):
            add(.constantPredicate, "FALSEPREDICATE inside AND makes the whole AND always false", at: node,
                hint: "write FALSEPREDICATE alone, or remove it")
        case (.or, true):
            add(.constantPredicate, "TRUEPREDICATE inside OR makes the whole OR always true", at: node,
                hint: "write TRUEPREDICATE alone, or remove it")
        default:
            add(.constantPredicate, "NOT \(word) is always \(truth ? "false" : "true")", at: node,
                hint: "write \(truth ? "FALSEPREDICATE" : "TRUEPREDICATE")")
        }
    }
}

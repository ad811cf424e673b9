/// Parsing that keeps where each node was written (``SourceMap``), for errors that point at
/// the sub-expression they are about.
extension PredicateNode {
    /// Parses a predicate format string as ``init(format:argumentArray:)`` does, and returns the
    /// place of every node of the tree beside it.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND nosuch.key > %@", argumentArray: [2])
    /// let compiled = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
    /// ```
    /// - Throws: ``PredicateFormatError``, as ``init(format:argumentArray:)``.
    public static func parse(format: String, argumentArray: [Any?] = []) throws(PredicateFormatError)
        -> (tree: PredicateNode, sourceMap: SourceMap)
    {
        let (node, map, _) = try Parser.parsePredicate(format, arguments: ArgumentList(argumentArray), recordsPositions: true)
        return (node, map)
    }
}

extension ExpressionNode {
    /// Parses an expression format string as ``init(format:argumentArray:)`` does, and returns
    /// the place of every node of the tree beside it.
    ///
    /// ```swift
    /// let (tree, map) = try ExpressionNode.parse(format: "price * (1 + tax)")
    /// print(map.range(of: map.children(of: map.root)[1]))   // line 1, column 9: (1 + tax)
    /// ```
    /// - Throws: ``PredicateFormatError``, as ``init(format:argumentArray:)``.
    public static func parse(format: String, argumentArray: [Any?] = []) throws(PredicateFormatError)
        -> (tree: ExpressionNode, sourceMap: SourceMap)
    {
        let (node, map, _) = try Parser.parseExpression(format, arguments: ArgumentList(argumentArray), recordsPositions: true)
        return (node, map)
    }
}

/// Parsing that returns its warnings: what `NSPredicate` accepts without a word but is probably
/// a mistake, such as arguments no specifier takes (decision D15).
extension PredicateNode {
    /// Parses a predicate format string as ``init(format:argumentArray:)`` does, and returns
    /// the warnings beside the tree: each argument left over, and each quoted specifier
    /// (`'%@'`) that explains one. The throwing initialisers accept the same input and drop
    /// the warnings; ``PredicateLinter`` adds checks of the tree's meaning.
    ///
    /// ```swift
    /// let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "SELF MATCHES %@", argumentArray: ["a.*", "b"])
    /// print(tree)                      // SELF MATCHES "a.*"
    /// print(warnings.map(\.kind))      // [surplusArgument]
    /// ```
    /// - Throws: ``PredicateFormatError`` for a syntax error or a missing or mistyped argument.
    public static func parseWithWarnings(format: String, argumentArray: [Any?] = []) throws(PredicateFormatError)
        -> (tree: PredicateNode, warnings: [PredicateDiagnostic])
    {
        let parsed = try Parser.parsePredicate(format, arguments: ArgumentList(argumentArray), recordsPositions: false)
        return (parsed.node, parsed.warnings)
    }
}

extension ExpressionNode {
    /// Parses an expression format string as ``init(format:argumentArray:)`` does, and returns
    /// the warnings beside the tree (arguments left over, quoted specifiers).
    ///
    /// ```swift
    /// let (tree, warnings) = try ExpressionNode.parseWithWarnings(format: "price * 2", argumentArray: [3])
    /// print(warnings.count)   // 1: argument 1 is ignored
    /// ```
    /// - Throws: ``PredicateFormatError`` for a syntax error or a missing or mistyped argument.
    public static func parseWithWarnings(format: String, argumentArray: [Any?] = []) throws(PredicateFormatError)
        -> (tree: ExpressionNode, warnings: [PredicateDiagnostic])
    {
        let parsed = try Parser.parseExpression(format, arguments: ArgumentList(argumentArray), recordsPositions: false)
        return (parsed.node, parsed.warnings)
    }
}

extension PredicateNode {
    /// The tree, the place of its nodes and the parse's warnings in one parse: for `pql`, whose
    /// commands point errors at nodes and print the warnings on standard error.
    package static func parseWithPositionsAndWarnings(format: String, argumentArray: [Any?]) throws(PredicateFormatError)
        -> (tree: PredicateNode, sourceMap: SourceMap, warnings: [PredicateDiagnostic])
    {
        let parsed = try Parser.parsePredicate(format, arguments: ArgumentList(argumentArray), recordsPositions: true)
        return (parsed.node, parsed.map, parsed.warnings)
    }
}

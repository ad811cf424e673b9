import Foundation

/// Parsing format strings into trees: the `NSPredicate(format:)` of PQL.
extension PredicateNode {
    /// Parses a predicate format string, binding `%` specifiers to `arguments` in order.
    ///
    /// ```swift
    /// let p = try PredicateNode(format: "%K BEGINSWITH[c] %@ AND age BETWEEN {18, 65}", "name", "a")
    /// print(p)   // name BEGINSWITH[c] "a" AND age BETWEEN {18, 65}
    /// ```
    /// - Throws: ``PredicateFormatError`` for a syntax error, or for a missing or mistyped
    ///   argument. Surplus arguments are ignored, as Apple ignores them (decision D15);
    ///   ``parseWithWarnings(format:argumentArray:)`` reports them.
    public init(format: String, _ arguments: Any?...) throws(PredicateFormatError) {
        self = try Parser.parsePredicate(format, arguments: ArgumentList(arguments))
    }

    /// Parses a predicate format string with its arguments in an array.
    ///
    /// ```swift
    /// let p = try PredicateNode(format: "city IN %@", argumentArray: [["Paris", "Lima"]])
    /// ```
    public init(format: String, argumentArray: [Any?]) throws(PredicateFormatError) {
        self = try Parser.parsePredicate(format, arguments: ArgumentList(argumentArray))
    }

    /// Parses UTF-8 bytes; invalid UTF-8 is an error at the first bad byte.
    ///
    /// ```swift
    /// let p = try PredicateNode(utf8: Array("age > 30".utf8))
    /// ```
    public init(utf8 bytes: some Collection<UInt8>, argumentArray: [Any?] = []) throws(PredicateFormatError) {
        self = try Parser.parsePredicate(try Self.decode(bytes), arguments: ArgumentList(argumentArray))
    }

    static func decode(_ bytes: some Collection<UInt8>) throws(PredicateFormatError) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        // Report the first invalid byte, with the valid text before it as context.
        let array = Array(bytes)
        var offset = 0
        var iterator = array.makeIterator()
        var decoder = UTF8()
        loop: while true {
            let before = offset
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): offset += UTF8.width(s)
            case .emptyInput: break loop
            case .error: offset = before; break loop
            }
        }
        let context = String(decoding: array[..<offset], as: UTF8.self)
        let shown = array[offset...].prefix(1).map { String(format: "0x%02X", $0) }.first ?? "?"
        throw Diagnostics.error(.invalidUTF8, "the format string is not valid UTF-8 (byte \(shown))",
                                start: context.utf8.count, end: context.utf8.count, source: context,
                                found: "byte \(shown)", hint: "save the text as UTF-8")
    }
}

extension ExpressionNode {
    /// Parses an expression format string (`NSExpression(format:)`).
    ///
    /// ```swift
    /// let e = try ExpressionNode(format: "%K.@sum.price * 1.2", "orders")
    /// print(e)   // orders.@sum.price * 1.2
    /// ```
    public init(format: String, _ arguments: Any?...) throws(PredicateFormatError) {
        self = try Parser.parseExpression(format, arguments: ArgumentList(arguments))
    }

    /// Parses an expression format string with its arguments in an array.
    ///
    /// ```swift
    /// let e = try ExpressionNode(format: "%K * %@", argumentArray: ["price", 2])   // price * 2
    /// ```
    public init(format: String, argumentArray: [Any?]) throws(PredicateFormatError) {
        self = try Parser.parseExpression(format, arguments: ArgumentList(argumentArray))
    }
}

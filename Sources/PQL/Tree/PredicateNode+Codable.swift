/// Trees encode as their canonical text (spec §7), which parses back to an equal tree.
extension PredicateNode: Codable {
    /// Encodes the predicate's canonical text as a single string.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(try PredicateNode(format: "age > %@", 30))   // "age > 30"
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Parses the predicate from a string; text that does not parse is a
    /// `DecodingError.dataCorrupted` carrying the ``PredicateFormatError`` and its message.
    ///
    /// ```swift
    /// let p = try JSONDecoder().decode(PredicateNode.self, from: Data(#""name BEGINSWITH 'a'""#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        do { self = try PredicateNode(format: text) } catch {
            throw DecodingError.parseFailure(error, in: decoder.codingPath, what: "predicate")
        }
    }
}

/// Expressions encode as their canonical text, like predicates.
extension ExpressionNode: Codable {
    /// Encodes the expression's canonical text as a single string.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(try ExpressionNode(format: "price * 2"))   // "price * 2"
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Parses the expression from a string; text that does not parse is a
    /// `DecodingError.dataCorrupted` carrying the ``PredicateFormatError`` and its message.
    ///
    /// ```swift
    /// let e = try JSONDecoder().decode(ExpressionNode.self, from: Data(#""kids.@count""#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        do { self = try ExpressionNode(format: text) } catch {
            throw DecodingError.parseFailure(error, in: decoder.codingPath, what: "expression")
        }
    }
}

extension KeyedDecodingContainer {
    /// The predicate text under `key` parsed with its ``SourceMap`` (so errors of a decoded
    /// query keep their caret), or `TRUEPREDICATE` and no text when the key is absent.
    package func decodePredicateIfPresent(forKey key: Key) throws -> (tree: PredicateNode, text: String?, sourceMap: SourceMap?) {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return (.constant(true), nil, nil) }
        do {
            let (tree, map) = try PredicateNode.parse(format: text)
            return (tree, text, map)
        } catch {
            throw DecodingError.parseFailure(error, in: codingPath + [key], what: "predicate")
        }
    }
}

extension DecodingError {
    /// The error a decoder reports for predicate text that does not parse.
    package static func parseFailure(_ error: PredicateFormatError, in path: [any CodingKey], what: String) -> DecodingError {
        .dataCorrupted(Context(codingPath: path, debugDescription: "the \(what) does not parse: \(error.message)",
                               underlyingError: error))
    }
}

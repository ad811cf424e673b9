/// Queries encode as plain objects, their predicate as its canonical text:
///
/// ```json
/// {"predicate": "age >= 18", "sort": [{"keyPath": "name", "ascending": true, "comparison": "caseInsensitive"}],
///  "offset": 0, "limit": 20, "variables": {}, "limits": {"maxSteps": 10000000000, "maxRegexSteps": 10000000000}}
/// ```
///
/// Decoding takes every key but the predicate as optional, with the initializer's defaults, so
/// hand-written JSON may say only what it needs. The limits travel with the query: a server
/// that decodes queries from clients should set its own `limits` after decoding.
extension PredicateQuery: Codable {
    enum CodingKeys: String, CodingKey {
        case predicate, sort, offset, limit, variables, limits
    }

    /// Encodes the query as described above.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(PredicateQuery(try PredicateNode(format: "age >= 18"), limit: 20))
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(predicate, forKey: .predicate)
        try c.encode(sort, forKey: .sort)
        try c.encode(offset, forKey: .offset)
        try c.encode(limit, forKey: .limit)
        try c.encode(variables, forKey: .variables)
        try c.encode(limits, forKey: .limits)
    }

    /// Decodes a query; a predicate that does not parse is a `DecodingError` with the parser's message.
    ///
    /// ```swift
    /// let q = try JSONDecoder().decode(PredicateQuery.self, from: Data(#"{"predicate": "age >= 18", "limit": 20}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Parsed here rather than through PredicateNode's Decodable, to keep the positions:
        // errors of the decoded query put their caret under the sub-expression that failed.
        let predicate = try c.decodePredicateIfPresent(forKey: .predicate)
        self.init(predicate.tree,
                  sort: try c.decodeIfPresent([SortRule].self, forKey: .sort) ?? [],
                  offset: try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0,
                  limit: try c.decodeIfPresent(Int.self, forKey: .limit),
                  variables: try c.decodeIfPresent([String: PredicateValue].self, forKey: .variables) ?? [:],
                  limits: try c.decodeIfPresent(EvaluationLimits.self, forKey: .limits) ?? .default)
        sourceMap = predicate.sourceMap
    }
}

/// A sort rule encodes as `{"keyPath": "airline.name", "ascending": false, "comparison": "literal"}`;
/// a key path whose keys hold dots encodes as an array of them.
extension SortRule: Codable {
    enum CodingKeys: String, CodingKey {
        case keyPath, ascending, comparison
    }

    /// Encodes the rule as described above.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(SortRule("age", ascending: false))
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if keyPath.contains(where: { $0.contains(".") }) {
            try c.encode(keyPath, forKey: .keyPath)
        } else {
            try c.encode(keyPath.joined(separator: "."), forKey: .keyPath)
        }
        try c.encode(ascending, forKey: .ascending)
        try c.encode(comparison, forKey: .comparison)
    }

    /// Decodes a rule; `ascending` defaults to true and `comparison` to `"literal"`.
    ///
    /// ```swift
    /// let rule = try JSONDecoder().decode(SortRule.self, from: Data(#"{"keyPath": "name"}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init("", ascending: try c.decodeIfPresent(Bool.self, forKey: .ascending) ?? true,
                  comparison: try c.decodeIfPresent(Comparison.self, forKey: .comparison) ?? .literal)
        if let path = try? c.decode([String].self, forKey: .keyPath) {
            keyPath = path
        } else {
            keyPath = SortRule(try c.decode(String.self, forKey: .keyPath)).keyPath
        }
    }
}

/// Encodes as `"literal"`, `"caseInsensitive"` or `"localized"`.
extension SortRule.Comparison: Codable {
    /// Encodes the case's name.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(SortRule.Comparison.localized)   // "localized"
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .literal: try c.encode("literal")
        case .caseInsensitive: try c.encode("caseInsensitive")
        case .localized: try c.encode("localized")
        }
    }

    /// Decodes a case's name; any other string is an error listing the names.
    ///
    /// ```swift
    /// let c = try JSONDecoder().decode(SortRule.Comparison.self, from: Data(#""caseInsensitive""#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        switch try c.decode(String.self) {
        case "literal": self = .literal
        case "caseInsensitive": self = .caseInsensitive
        case "localized": self = .localized
        case let other:
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown sort comparison '\(other)'; use literal, caseInsensitive or localized")
        }
    }
}

/// Encodes as `{"maxSteps": 10000000, "maxRegexSteps": null}` (null for no limit).
extension EvaluationLimits: Codable {
    enum CodingKeys: String, CodingKey {
        case maxSteps, maxRegexSteps
    }

    /// Encodes both limits, null for none.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(EvaluationLimits.interactive)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxSteps, forKey: .maxSteps)
        try c.encode(maxRegexSteps, forKey: .maxRegexSteps)
    }

    /// Decodes the limits: null is no limit, and a missing key keeps the ``default``'s value.
    ///
    /// ```swift
    /// let l = try JSONDecoder().decode(EvaluationLimits.self, from: Data(#"{"maxSteps": 1000000}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func limit(_ key: CodingKeys, _ otherwise: Int?) throws -> Int? {
            guard c.contains(key) else { return otherwise }
            return try c.decodeNil(forKey: key) ? nil : c.decode(Int.self, forKey: key)
        }
        self.init(maxSteps: try limit(.maxSteps, Self.default.maxSteps),
                  maxRegexSteps: try limit(.maxRegexSteps, Self.default.maxRegexSteps))
    }
}

import PQL

/// A query encodes as a plain object, its predicate as its canonical text (`%@` arguments are
/// already bound into it):
///
/// ```json
/// {"entity": "Flight", "predicate": "dep_delay > 60", "sort": [{"keyPath": "dep_delay", "ascending": false, "comparison": "literal"}],
///  "offset": 0, "limit": 10, "variables": {}, "limits": {"maxSteps": 10000000000, "maxRegexSteps": 10000000000}}
/// ```
///
/// Decoding requires `entity`; the other keys default as in the initializer. The decoded
/// query's ``EntityQuery/predicateText`` is the text it was decoded from, so that errors point
/// into it. The limits travel with the query: a server that decodes queries from clients
/// should set its own `limits` after decoding.
extension EntityQuery: Codable {
    enum CodingKeys: String, CodingKey {
        case entity, predicate, sort, offset, limit, variables, limits
    }

    /// Encodes the query as described above.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode(try EntityQuery("Flight", where: "dep_delay > %@", [60], limit: 10))
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entity, forKey: .entity)
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
    /// let q = try JSONDecoder().decode(EntityQuery.self, from: Data(#"{"entity": "Flight", "predicate": "dep_delay > 60"}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let predicate = try c.decodePredicateIfPresent(forKey: .predicate)
        self.init(try c.decode(String.self, forKey: .entity), predicate: predicate.tree,
                  sort: try c.decodeIfPresent([SortRule].self, forKey: .sort) ?? [],
                  offset: try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0,
                  limit: try c.decodeIfPresent(Int.self, forKey: .limit),
                  variables: try c.decodeIfPresent([String: PredicateValue].self, forKey: .variables) ?? [:],
                  limits: try c.decodeIfPresent(EvaluationLimits.self, forKey: .limits) ?? .default)
        predicateText = predicate.text
        sourceMap = predicate.sourceMap
    }
}

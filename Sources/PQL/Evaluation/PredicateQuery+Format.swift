extension PredicateQuery {
    /// A query whose predicate is parsed from `format`, with `%@`/`%K` arguments: the same
    /// arguments, in the same order, as the store's `EntityQuery(_:where:_:sort:offset:limit:variables:limits:)`.
    ///
    /// ```swift
    /// let page = try PredicateQuery(where: "age >= %@", [18], sort: [SortRule("name")], offset: 20, limit: 10)
    /// ```
    /// - Throws: ``PredicateFormatError`` when `format` does not parse or the arguments do not fit it.
    public init(where format: String, _ arguments: [Any?] = [], sort: [SortRule] = [], offset: Int = 0,
                limit: Int? = nil, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) throws(PredicateFormatError) {
        self.init(try PredicateNode(format: format, argumentArray: arguments), sort: sort, offset: offset,
                  limit: limit, variables: variables, limits: limits)
    }
}

extension EncodableValues {
    /// One `Encodable` value as the ``PredicateValue`` a predicate reads: what
    /// ``reader(for:)`` evaluates, for code that holds the value as `any Encodable` (a value of
    /// no type known when compiling, as NSPredicate's `evaluate(with:)` receives it).
    ///
    /// ```swift
    /// struct Item: Codable { var price: Double }
    /// try EncodableValues.value(of: Item(price: 2))   // ["price": 2.0]
    /// ```
    public static func value<T: Encodable>(of value: T) throws(PredicateEvaluationError) -> PredicateValue {
        try encode(value)
    }
}

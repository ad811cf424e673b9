extension PredicateQuery {
    /// The matching elements of any `Encodable` type, sorted, then paged: each element is
    /// encoded and read as JSON (through ``EncodableValues``), which is several times slower
    /// than a ``PredicateReadable`` type's declared keys, but needs no code.
    ///
    /// ```swift
    /// struct Item: Codable { var name: String; var price: Double }
    /// let cheap = try PredicateQuery(where: "price < 10", sort: [SortRule("price")])
    ///     .run(on: [Item(name: "pen", price: 2.5), Item(name: "lamp", price: 30)])   // [pen]
    /// ```
    public func run<S: Sequence>(on elements: S, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [S.Element]
        where S.Element: Encodable & SendableMetatype
    {
        let array = Array(elements)
        return try indices(in: array, reader: EncodableValues.reader(for: S.Element.self), functions: functions).map { array[$0] }
    }

    /// The fast path for types that are both ``PredicateEvaluable`` and `Encodable`
    /// (``PredicateValue``, `String`, a ``PredicateReadable`` type that is also `Codable`): their
    /// own reader, with no encoding.
    ///
    /// ```swift
    /// let big = try PredicateQuery(where: "SELF > 2").run(on: [1, 5, 3])   // [5, 3]
    /// ```
    public func run<S: Sequence>(on elements: S, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [S.Element]
        where S.Element: PredicateEvaluable & Encodable
    {
        let array = Array(elements)
        return try indices(in: array, reader: S.Element.predicateReader, functions: functions).map { array[$0] }
    }
}

/// One sort key: a key path, a direction and how strings compare.
///
/// Nil sorts first ascending and last descending, and values of different kinds sort in a
/// fixed order (nil, numbers, dates, strings, data, collections), as the SQL store orders them.
///
/// ```swift
/// let byName = SortRule("name", comparison: .caseInsensitive)
/// let oldestFirst = SortRule("age", ascending: false)
/// ```
public struct SortRule: Hashable, Sendable {
    /// How string values compare when sorting; other kinds always compare by value.
    ///
    /// ```swift
    /// let byTitle = SortRule("title", comparison: .localized)
    /// ```
    public enum Comparison: Hashable, Sendable {
        /// Code-unit order, as NSString's literal compare.
        case literal
        /// Case-insensitive (`[c]` folding).
        case caseInsensitive
        /// The current locale's collation (Foundation's localized compare).
        case localized
    }

    /// The components of the key path to sort by (`["airline", "name"]` for `airline.name`).
    public var keyPath: [String]
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Creates a sort rule for a dotted key path.
    ///
    /// ```swift
    /// let newestFirst = SortRule("released", ascending: false)
    /// ```
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .literal) {
        self.keyPath = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        self.ascending = ascending
        self.comparison = comparison
    }

    var options: StringOptions {
        switch comparison {
        case .literal: return .literal
        case .caseInsensitive: return StringOptions(caseInsensitive: true, diacriticInsensitive: false, localized: false)
        case .localized: return StringOptions(caseInsensitive: false, diacriticInsensitive: false, localized: true)
        }
    }
}

/// An in-memory fetch: predicate, sort rules, offset and limit, with the meaning the SQL
/// store gives the same request.
///
/// ```swift
/// let query = try PredicateQuery(PredicateNode(format: "age >= 18"),
///                                sort: [SortRule("name")], offset: 10, limit: 20)
/// let page = try query.run(on: people)
/// ```
///
/// `limits` bound the work of a run (the filter and the sort keys together); an error names
/// the element it happened on (``PredicateEvaluationError/elementIndex``).
public struct PredicateQuery: Sendable {
    /// Which elements the query keeps.
    public var predicate: PredicateNode
    /// The sort keys, most significant first; empty to keep the input order.
    public var sort: [SortRule]
    /// How many sorted matches to skip before the first result (a negative one counts as 0).
    public var offset: Int
    /// nil for no limit (a negative one counts as 0; `Int.max` is no limit).
    public var limit: Int?
    /// Values for the `$variables` the predicate reads.
    public var variables: [String: PredicateValue]
    /// The work budget of one run: the filter and the sort keys together.
    public var limits: EvaluationLimits
    /// Where each node of ``predicate`` was written, from ``PredicateNode/parse(format:argumentArray:)``:
    /// with it, errors carry the range of the sub-expression that failed.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "age + 1 > 2")
    /// var query = PredicateQuery(tree)
    /// query.sourceMap = map
    /// ```
    public var sourceMap: SourceMap?

    /// Creates a query; a negative offset or limit counts as 0.
    ///
    /// ```swift
    /// let firstTen = PredicateQuery(try PredicateNode(format: "age >= 18"), sort: [SortRule("name")], limit: 10)
    /// ```
    public init(_ predicate: PredicateNode = .constant(true), sort: [SortRule] = [], offset: Int = 0,
                limit: Int? = nil, variables: [String: PredicateValue] = [:], limits: EvaluationLimits = .default) {
        self.predicate = predicate
        self.sort = sort
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) }
        self.variables = variables
        self.limits = limits
    }

    /// The matching elements, sorted (stably: ties keep input order), then paged.
    ///
    /// ```swift
    /// let youngestFirst = try PredicateQuery(sort: [SortRule("age")]).run(on: people)
    /// ```
    public func run<S: Sequence>(on elements: S, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [S.Element]
        where S.Element: PredicateEvaluable
    {
        let array = Array(elements)
        return try indices(in: array, reader: S.Element.predicateReader, functions: functions).map { array[$0] }
    }

    /// The positions of the result elements in `elements`, in result order.
    public func indices<Element>(in elements: [Element], reader: ValueReader<Element>,
                                 functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [Int] {
        let compiled = try CompiledPredicate(predicate, reader: reader, functions: functions, sourceMap: sourceMap)
        var matches = try elements.indices(matching: compiled, variables: variables, limits: limits)
        if !sort.isEmpty {
            // Read every sort key once, then sort indices.
            var keys: [[PredicateValue]] = []
            keys.reserveCapacity(matches.count)
            let compiler = EvaluatorCompiler(reader: reader, functions: functions)
            let readers = try sort.map { (rule) throws(EvalError) in try compiler.compileKeyPath(rule.keyPath) }
            var state = EvaluationState(variables: variables, limits: limits)
            try EvaluationBudget.run(limits, about: predicate) { () throws(EvalError) in
                for i in matches {
                    var row: [PredicateValue] = []
                    do throws(EvalError) {
                        try state.charge(readers.count)
                        for r in readers { row.append(try r(elements[i], &state)) }
                    } catch {
                        throw error.on(element: i)
                    }
                    keys.append(row)
                }
            }
            let rules = sort
            let order = Array(keys.indices).sorted { a, b in
                for (k, rule) in rules.enumerated() {
                    var r = ValueComparison.sortOrder(keys[a][k], keys[b][k], rule.options)
                    if !rule.ascending { r = r.reversed }
                    if r != .orderedSame { return r == .orderedAscending }
                }
                return a < b
            }
            matches = order.map { matches[$0] }
        }
        return Array(matches[Self.page(of: matches.count, offset: offset, limit: limit)])
    }
}

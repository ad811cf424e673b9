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
    public enum Comparison: Hashable, Sendable {
        /// Code-unit order, as NSString's literal compare.
        case literal
        /// Case-insensitive (`[c]` folding).
        case caseInsensitive
        /// The current locale's collation (Foundation's localized compare).
        case localized
    }

    public var keyPath: [String]
    public var ascending: Bool
    public var comparison: Comparison

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
    public var predicate: PredicateNode
    public var sort: [SortRule]
    public var offset: Int
    /// nil for no limit.
    public var limit: Int?
    public var variables: [String: PredicateValue]
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
            try EvaluationBudget.run(limits) { () throws(EvalError) in
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
        let start = min(offset, matches.count)
        let end = limit.map { min(matches.count, start + $0) } ?? matches.count
        return Array(matches[start..<end])
    }
}

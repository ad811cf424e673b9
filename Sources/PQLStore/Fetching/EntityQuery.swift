import PQL

/// A fetch request: which entity, which rows (a predicate), in which order, how many.
///
/// ```swift
/// let late = try EntityQuery("Flight", where: "dep_delay > %@ AND airline.name BEGINSWITH 'United'", [60],
///                            sort: [SortRule("dep_delay", ascending: false)], limit: 10)
/// let flights = try store.fetch(late)
/// ```
public struct EntityQuery: Hashable, Sendable {
    public var entity: String
    public var predicate: PredicateNode
    /// The predicate's text, when it was parsed from one: errors point into it.
    public var predicateText: String?
    /// Where each node of ``predicate`` was written in ``predicateText``, as the parser
    /// recorded it: store errors put their caret under the sub-expression they are about. Set
    /// by ``init(_:where:_:sort:limit:offset:variables:limits:)``; ignored once it no longer
    /// fits the predicate.
    ///
    /// ```swift
    /// let q = try EntityQuery("Flight", where: "dep_delay > 5 AND nosuch == 1")
    /// q.sourceMap?.source   // "dep_delay > 5 AND nosuch == 1"
    /// ```
    public var sourceMap: SourceMap?
    public var sort: [SortRule]
    public var limit: Int?
    public var offset: Int
    /// Values for the predicate's `$variables`.
    public var variables: [String: PredicateValue]
    /// The work one fetch (count, batch update…) of this query may do: SQLite's
    /// virtual-machine instructions count as steps, and every MATCHES the store's functions
    /// run counts toward the regex steps. Past a limit the fetch fails with a `.evaluation`
    /// error that names the limit.
    public var limits: EvaluationLimits

    public init(_ entity: String, predicate: PredicateNode = .constant(true), sort: [SortRule] = [],
                limit: Int? = nil, offset: Int = 0, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit.map { max(0, $0) }
        self.offset = max(0, offset)
        self.variables = variables
        self.limits = limits
    }

    /// A query whose predicate is parsed from `format`, with `%@`/`%K` arguments.
    public init(_ entity: String, where format: String, _ arguments: [Any?] = [], sort: [SortRule] = [],
                limit: Int? = nil, offset: Int = 0, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) throws(StoreError) {
        let parsed: (tree: PredicateNode, sourceMap: SourceMap)
        do { parsed = try PredicateNode.parse(format: format, argumentArray: arguments) } catch {
            throw StoreError(.syntax, error.message, hint: error.hint, source: format, range: error.range)
        }
        self.init(entity, predicate: parsed.tree, sort: sort, limit: limit, offset: offset, variables: variables, limits: limits)
        predicateText = format
        sourceMap = parsed.sourceMap
    }
}

/// A fetched object: its entity, its key, its attribute values and its to-one links.
///
/// ```swift
/// for flight in try store.fetch(EntityQuery("Flight", limit: 3)) {
///     print(flight.id, flight["dep_delay"], flight["carrier"])
/// }
/// ```
public struct StoreRecord: Hashable, Sendable {
    public let entity: String
    /// The primary key (`Z_PK`, or the table's own key for inferred models).
    public let id: Int64
    /// Every attribute of the entity, nil ones as `.null`.
    public let values: [String: PredicateValue]
    /// The attribute names in model order.
    public let keys: [String]

    public init(entity: String, id: Int64, values: [String: PredicateValue], keys: [String]) {
        self.entity = entity
        self.id = id
        self.values = values
        self.keys = keys
    }

    public subscript(key: String) -> PredicateValue { values[key] ?? .null }

    /// The record as one JSON object value, keys in model order.
    public var dictionary: PredicateValue { .dictionary(values) }
}

import PQL

/// A fetch request: which entity, which rows (a predicate), in which order, how many.
///
/// Its initializers take their arguments in the order of `PredicateQuery`'s and of SQL's
/// clauses: predicate, sort, offset, limit, then variables and limits.
///
/// ```swift
/// let late = try EntityQuery("Flight", where: "dep_delay > %@ AND airline.name BEGINSWITH 'United'", [60],
///                            sort: [SortRule("dep_delay", ascending: false)], limit: 10)
/// let flights = try store.fetch(late)
/// ```
public struct EntityQuery: Hashable, Sendable {
    /// The name of the entity to fetch, as the model spells it.
    public var entity: String
    /// Which records match; `TRUEPREDICATE` for all.
    public var predicate: PredicateNode {
        // A predicate replaced by another: the text and its map describe the old one, and a
        // caret placed through them would point at the wrong sub-expression.
        didSet { if predicate != oldValue { predicateText = nil; sourceMap = nil } }
    }
    /// The predicate's text, when it was parsed from one: errors point into it.
    public var predicateText: String?
    /// Where each node of ``predicate`` was written in ``predicateText``, as the parser
    /// recorded it: store errors put their caret under the sub-expression they are about. Set
    /// by ``init(_:where:_:sort:offset:limit:variables:limits:)``; cleared, with
    /// ``predicateText``, when ``predicate`` is set to another tree, and ignored when it does
    /// not fit the predicate.
    ///
    /// ```swift
    /// let q = try EntityQuery("Flight", where: "dep_delay > 5 AND nosuch == 1")
    /// q.sourceMap?.source   // "dep_delay > 5 AND nosuch == 1"
    /// ```
    public var sourceMap: SourceMap?
    /// The sort keys, most significant first; ties are broken by primary key.
    public var sort: [SortRule]
    /// The most records to return; nil for no limit.
    public var limit: Int?
    /// How many sorted matches to skip before the first result.
    public var offset: Int
    /// Values for the predicate's `$variables`.
    public var variables: [String: PredicateValue]
    /// The work one fetch (count, batch update…) of this query may do: SQLite's
    /// virtual-machine instructions count as steps, and every MATCHES the store's functions
    /// run counts toward the regex steps. Past a limit the fetch fails with a `.evaluation`
    /// error that names the limit.
    public var limits: EvaluationLimits

    /// A query with a predicate already parsed or built in code; a negative limit or offset counts as 0.
    ///
    /// ```swift
    /// let all = EntityQuery("Airline", sort: [SortRule("name")])
    /// ```
    public init(_ entity: String, predicate: PredicateNode = .constant(true), sort: [SortRule] = [],
                offset: Int = 0, limit: Int? = nil, variables: [String: PredicateValue] = [:],
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
                offset: Int = 0, limit: Int? = nil, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) throws(StoreError) {
        let parsed: (tree: PredicateNode, sourceMap: SourceMap)
        do { parsed = try PredicateNode.parse(format: format, argumentArray: arguments) } catch {
            throw StoreError(.syntax, error.message, hint: error.hint, source: format, range: error.range)
        }
        self.init(entity, predicate: parsed.tree, sort: sort, offset: offset, limit: limit, variables: variables, limits: limits)
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
    /// The entity the record belongs to.
    public let entity: String
    /// The primary key (`Z_PK`, or the table's own key for inferred models).
    public let id: Int64
    /// Every attribute of the entity, nil ones as `.null`, and its links: each to-one as the
    /// linked object's key (`.null` for none), each many-to-many as the array of linked keys,
    /// ascending. Inserts take links in the same form.
    public let values: [String: PredicateValue]
    /// The attribute names in model order (the links follow in ``values``, not here).
    public let keys: [String]

    /// The entity each link in ``values`` leads to, by relationship name: predicates in
    /// memory read a link as the linked object (an `ObjectID`), as the store does.
    public let linkEntities: [String: String]

    /// Creates a record; the store makes these when it fetches.
    public init(entity: String, id: Int64, values: [String: PredicateValue], keys: [String], linkEntities: [String: String] = [:]) {
        self.entity = entity
        self.id = id
        self.values = values
        self.keys = keys
        self.linkEntities = linkEntities
    }

    /// The value of an attribute or to-one key, `.null` when it is nil or not there.
    ///
    /// ```swift
    /// let delay = flight["dep_delay"]   // .int(95)
    /// ```
    public subscript(key: String) -> PredicateValue { values[key] ?? .null }

    /// The record as one JSON object value, keys in model order.
    public var dictionary: PredicateValue { .dictionary(values) }
}

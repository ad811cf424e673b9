/// A grouping fetch, as Core Data's `propertiesToGroupBy`, `NSExpressionDescription` and
/// `havingPredicate`: the elements matching ``predicate`` are grouped by the values of the
/// ``groupBy`` key paths, each ``GroupAggregate`` is computed over a group, ``having`` keeps the
/// groups it is true for, then the groups are sorted and paged. One row per group: the group
/// keys (named by their key paths) and the aggregates (named by their aliases).
///
/// The aggregates are the predicate language's functions `count:`, `sum:`, `average:`, `min:`
/// and `max:` with their evaluator semantics: `count:` counts the group's elements; the others
/// take the argument's value for each element, leave nils out (as SQL's and Core Data's
/// grouped aggregates do; a group with no value gives nil) and raise on a non-number value
/// (`min:`/`max:` also order strings and dates). The same query gives the same rows run on
/// an array (``run(on:functions:)``) and on a store (`PredicateStore.fetch(_:)`).
///
/// ```swift
/// let perAirline = try GroupQuery("Flight", where: "dep_delay != nil", groupBy: ["airline.name"],
///                                 select: ["avg": "average:(dep_delay)", "n": "count:(dep_delay)"],
///                                 having: "n > 100", sort: [SortRule("avg", ascending: false)])
/// ```
///
/// Without sort rules, or for ties, groups come in ascending order of their keys. Without
/// group keys, all matching elements make one group (even when none match).
public struct GroupQuery: Hashable, Sendable {
    /// The entity a store groups (running on an array ignores it).
    public var entity: String
    /// Which elements are grouped.
    public var predicate: PredicateNode
    /// The key paths whose values make a group (to-one paths such as `airline.name` too).
    public var groupBy: [String]
    /// The values computed for each group, in the order they were given.
    public var select: [GroupAggregate]
    /// Which groups are kept: a predicate over the group keys (by key path) and the aggregates
    /// (by alias).
    public var having: PredicateNode
    /// The order of the groups: each rule names a group key path or an aggregate's alias.
    public var sort: [SortRule]
    /// nil for no limit.
    public var limit: Int?
    /// How many sorted groups to skip.
    public var offset: Int
    /// Values for the `$variables` of the predicate, the aggregates and `having`.
    public var variables: [String: PredicateValue]
    /// The work budget of one run.
    public var limits: EvaluationLimits

    /// A query with its predicate, aggregates and `having` in the predicate language; a negative
    /// offset or limit counts as 0.
    ///
    /// ```swift
    /// let q = try GroupQuery("Flight", groupBy: ["origin"], select: ["n": "count:(id)"])
    /// ```
    /// - Throws: ``PredicateFormatError`` for text that does not parse.
    public init(_ entity: String = "", where predicate: String = "TRUEPREDICATE", groupBy: [String],
                select: KeyValuePairs<String, String>, having: String? = nil, sort: [SortRule] = [],
                limit: Int? = nil, offset: Int = 0, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) throws(PredicateFormatError) {
        var aggregates: [GroupAggregate] = []
        for (name, text) in select { aggregates.append(GroupAggregate(name, try ExpressionNode(format: text))) }
        self.init(entity, predicate: try PredicateNode(format: predicate), groupBy: groupBy, select: aggregates,
                  having: try having.map { (t) throws(PredicateFormatError) in try PredicateNode(format: t) } ?? .constant(true),
                  sort: sort, limit: limit, offset: offset, variables: variables, limits: limits)
    }

    /// A query from trees.
    ///
    /// ```swift
    /// let q = GroupQuery("Flight", groupBy: ["origin"],
    ///                    select: [GroupAggregate("n", .function(.count, [.keyPath(["id"])]))])
    /// ```
    public init(_ entity: String = "", predicate: PredicateNode = .constant(true), groupBy: [String],
                select: [GroupAggregate], having: PredicateNode = .constant(true), sort: [SortRule] = [],
                limit: Int? = nil, offset: Int = 0, variables: [String: PredicateValue] = [:],
                limits: EvaluationLimits = .default) {
        self.entity = entity
        self.predicate = predicate
        self.groupBy = groupBy
        self.select = select
        self.having = having
        self.sort = sort
        self.limit = limit.map { max(0, $0) }
        self.offset = max(0, offset)
        self.variables = variables
        self.limits = limits
    }
}

/// One value computed for each group of a ``GroupQuery``: an alias and an aggregate call,
/// `count:(x)`, `sum:(x)`, `average:(x)`, `min:(x)` or `max:(x)`, whose argument is evaluated for
/// each element of the group (to-many aggregates such as `flights.@count` included).
///
/// ```swift
/// let avg = GroupAggregate("avg", try ExpressionNode(format: "average:(dep_delay)"))
/// ```
public struct GroupAggregate: Hashable, Sendable {
    /// The name of the value in each row, and in ``GroupQuery/having`` and its sort rules.
    public var name: String
    /// The aggregate call.
    public var expression: ExpressionNode

    /// An aggregate named `name`.
    ///
    /// ```swift
    /// let n = GroupAggregate("n", .function(.count, [.keyPath(["id"])]))
    /// ```
    public init(_ name: String, _ expression: ExpressionNode) {
        self.name = name
        self.expression = expression
    }
}

/// A ``GroupQuery`` checked and taken apart, as memory and the store both run it.
package struct GroupPlan: Sendable {
    /// Each aggregate: its function and the per-element argument.
    package struct Item: Sendable {
        package var name: String
        package var function: BuiltinFunction
        package var argument: ExpressionNode
        /// The evaluator's aggregate, nil for `count:`.
        package var operation: SharedSemantics.Aggregate.Operation?
    }

    package var keys: [[String]]
    package var items: [Item]
    /// `having` with every group key and alias read from a variable (see ``variableName(_:)``).
    package var having: PredicateNode
    /// Each sort rule as a column of the row: group keys first, then aggregates.
    package var sort: [(column: Int, rule: SortRule)]

    /// The variable that stands for row column `i` in ``having``.
    package static func variableName(_ i: Int) -> String { "__pql_group_\(i)" }

    package init(_ q: GroupQuery) throws(PredicateEvaluationError) {
        keys = q.groupBy.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        for k in keys where k.contains(where: \.isEmpty) {
            throw .unsupported("'\(k.joined(separator: "."))' is not a key path", hint: "group by attributes, or to-one key paths such as airline.name")
        }
        items = []
        var names = Set(q.groupBy)
        for a in q.select {
            guard names.insert(a.name).inserted else {
                throw .unsupported("the name '\(a.name)' is used twice", hint: "give each aggregate its own name, other than the group keys")
            }
            guard case .function(let f, let args) = a.expression, [.count, .sum, .average, .min, .max].contains(f), args.count == 1 else {
                throw .unsupported("'\(a.expression)' is not an aggregate of the group",
                                   hint: "write count:(x), sum:(x), average:(x), min:(x) or max:(x), x a key path or expression of each element")
            }
            items.append(Item(name: a.name, function: f, argument: args[0],
                              operation: f == .count ? nil : SharedSemantics.Aggregate.Operation(rawValue: f.selector)))
        }
        let columns = q.groupBy + q.select.map(\.name)
        var index: [String: Int] = [:]
        for (i, c) in columns.enumerated() { index[c] = i }
        having = try GroupRewriter(index: index).apply(q.having)
        sort = []
        for rule in q.sort {
            let name = rule.keyPath.joined(separator: ".")
            guard let i = index[name] else {
                throw .unsupported("cannot sort groups by '\(name)'", hint: "sort by a group key or an aggregate's name: \(columns.joined(separator: ", "))")
            }
            sort.append((i, rule))
        }
    }

    /// The row of one group as the caller sees it.
    package func row(_ values: [PredicateValue]) -> [String: PredicateValue] {
        var out: [String: PredicateValue] = [:]
        for (i, k) in keys.enumerated() { out[k.joined(separator: ".")] = values[i] }
        for (i, a) in items.enumerated() { out[a.name] = values[keys.count + i] }
        return out
    }

    /// `having`'s variables for one row.
    package func variables(_ values: [PredicateValue], _ base: [String: PredicateValue]) -> [String: PredicateValue] {
        var v = base
        for (i, x) in values.enumerated() { v[Self.variableName(i)] = x }
        return v
    }
}

/// Rewrites `having`'s key paths (group keys and aliases) into the variables of the row's columns.
private struct GroupRewriter {
    let index: [String: Int]

    func apply(_ p: PredicateNode) throws(PredicateEvaluationError) -> PredicateNode {
        switch p {
        case .constant: return p
        case .and(let ps): return .and(try ps.map { (q) throws(PredicateEvaluationError) in try apply(q) })
        case .or(let ps): return .or(try ps.map { (q) throws(PredicateEvaluationError) in try apply(q) })
        case .not(let q): return .not(try apply(q))
        case .comparison(var c):
            c.lhs = try apply(c.lhs)
            c.rhs = try apply(c.rhs)
            return .comparison(c)
        }
    }

    func apply(_ e: ExpressionNode) throws(PredicateEvaluationError) -> ExpressionNode {
        switch e {
        case .constant, .variable: return e
        case .keyPath(let path):
            guard let i = index[path.joined(separator: ".")] else {
                throw PredicateEvaluationError(kind: .unknownKey, message: "having names '\(path.joined(separator: "."))', which is neither a group key nor an aggregate",
                                  hint: "name one of: \(index.sorted { $0.value < $1.value }.map(\.key).joined(separator: ", "))")
            }
            return .variable(GroupPlan.variableName(i))
        case .aggregate(let es): return .aggregate(try es.map { (x) throws(PredicateEvaluationError) in try apply(x) })
        case .function(let f, let args): return .function(f, try args.map { (x) throws(PredicateEvaluationError) in try apply(x) })
        case .cast(let v, let t): return .cast(try apply(v), type: try apply(t))
        case .ternary(let p, let a, let b): return .ternary(try apply(p), try apply(a), try apply(b))
        default:
            throw .unsupported("having cannot use '\(e)'", hint: "compare group keys and aggregate names with values, arithmetic and functions")
        }
    }
}

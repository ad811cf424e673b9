/// A subquery: `SELECT columns FROM scope WHERE conditions` (the conditions joined by AND).
package struct SQLSelect {
    var columns: [SQLNode]
    /// The FROM clause: the scope's table and the joins its key paths added.
    var from: SQLScope
    var conditions: [SQLNode]

    var canRaise: Bool {
        columns.contains { $0.canRaise } || conditions.contains { $0.canRaise } || from.joins.contains { $0.on.canRaise }
    }

    /// The aliases of enclosing queries it reads (empty: it is uncorrelated).
    var freeAliases: Set<String> {
        var read: Set<String> = []
        for n in columns + conditions + from.joins.map(\.on) { read.formUnion(n.freeAliases) }
        return read.subtracting([from.alias] + from.joins.map(\.alias))
    }
}

/// A subquery: `SELECT columns FROM scope WHERE conditions` (the conditions joined by AND).
package struct SQLSelect {
    var columns: [SQLNode]
    /// The FROM clause: the scope's table and the joins its key paths added.
    var from: SQLScope
    var conditions: [SQLNode]

    var canRaise: Bool {
        columns.contains { $0.canRaise } || conditions.contains { $0.canRaise } || from.joins.contains { $0.on.canRaise }
    }
}

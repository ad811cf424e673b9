/// One FROM clause under construction: the entity's table under an alias, and the LEFT JOINs
/// that to-one key paths added to it. A subquery gets a scope of its own whose `outer` is the
/// enclosing one.
package final class SQLScope {
    let entity: ModelEntity
    /// The table and key of the entity's inheritance root, which stores it.
    let table: String
    let primaryKey: String
    let alias: String
    private(set) var joins: [SQLJoin] = []
    /// In the scope of a to-many's elements: the column holding the key of the object each
    /// element belongs to (the inverse's foreign key, or a join table's column), which ANY's
    /// key lists select and correlated subqueries compare with the outer row's key.
    var ownerKey: SQLNode?
    private var joined: [String: (alias: String, entity: ModelEntity)] = [:]

    init(entity: ModelEntity, storage: ModelEntity, alias: String) {
        self.entity = entity
        self.table = storage.table
        self.primaryKey = storage.primaryKey
        self.alias = alias
    }

    /// This scope's row key, `alias."Z_PK"`.
    var keyColumn: SQLNode { .column(alias: alias, name: primaryKey) }

    /// Joins a many-to-many's join table to the destination rows of this scope (an inner join:
    /// an element is a destination row with a link), and makes its source column the owner key.
    func joinLinks(_ link: StoreModel.JoinLink, alias a: String) {
        joins.append(SQLJoin(table: link.table, alias: a, isInner: true,
                             on: .binary(.column(alias: a, name: link.destinationColumn), .equal, keyColumn)))
        ownerKey = .column(alias: a, name: link.sourceColumn)
    }

    /// The alias of `relationship`'s destination reached from `from`, joining it once.
    func join(_ relationship: ModelRelationship, from: String, destinationTable: String, destination: ModelEntity,
              localColumn: String, remoteColumn: String, nextAlias: () -> String) -> String {
        let key = "\(from).\(relationship.name)"
        if let j = joined[key] { return j.alias }
        let a = nextAlias()
        joins.append(SQLJoin(table: destinationTable, alias: a,
                             on: .binary(.column(alias: a, name: remoteColumn), .equal, .column(alias: from, name: localColumn))))
        joined[key] = (a, destination)
        return a
    }
}

/// `LEFT JOIN table alias ON condition` (`JOIN` when `isInner`).
package struct SQLJoin {
    var table: String
    var alias: String
    /// An inner join (a many-to-many's join table); to-one key paths are LEFT JOINs.
    var isInner = false
    var on: SQLNode
}

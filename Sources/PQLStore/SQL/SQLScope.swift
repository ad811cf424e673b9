/// One FROM clause under construction: the entity's table under an alias, and the LEFT JOINs
/// that to-one key paths added to it. A subquery gets a scope of its own whose `outer` is the
/// enclosing one.
final class SQLScope {
    let entity: ModelEntity
    /// The table and key of the entity's inheritance root, which stores it.
    let table: String
    let primaryKey: String
    let alias: String
    private(set) var joins: [String] = []
    private var joined: [String: (alias: String, entity: ModelEntity)] = [:]

    init(entity: ModelEntity, storage: ModelEntity, alias: String) {
        self.entity = entity
        self.table = storage.table
        self.primaryKey = storage.primaryKey
        self.alias = alias
    }

    /// This scope's row key, `alias."Z_PK"`.
    var keyColumn: String { SQLIdentifier.column(primaryKey, of: alias) }

    /// The alias of `relationship`'s destination reached from `from`, joining it once.
    func join(_ relationship: ModelRelationship, from: String, destinationTable: String, destination: ModelEntity,
              localColumn: String, remoteColumn: String, nextAlias: () -> String) -> String {
        let key = "\(from).\(relationship.name)"
        if let j = joined[key] { return j.alias }
        let a = nextAlias()
        joins.append("LEFT JOIN \(SQLIdentifier.quote(destinationTable)) \(a) ON \(SQLIdentifier.column(remoteColumn, of: a)) = \(SQLIdentifier.column(localColumn, of: from))")
        joined[key] = (a, destination)
        return a
    }

    /// `FROM table alias JOIN …`
    var fromClause: String {
        ([SQLIdentifier.quote(table) + " " + alias] + joins).joined(separator: " ")
    }
}

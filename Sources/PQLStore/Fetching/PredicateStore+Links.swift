import PQL

/// The checks that keep every to-one link pointing at an object that exists: a write may not
/// set a link (or the attribute holding its key, like the demo's `Flight.carrier`) to a key no
/// object has, nor change the key attribute of objects others link to. Bulk imports
/// (`insertRows`, `importTable`) do not check: data may name objects it does not contain (the
/// demo's flights to airports missing from airports.csv), and such links read as nil.
extension PredicateStore {
    /// Refuses `value` in the key column of `r` (a to-one of `entity`) when no object has it.
    func checkLinkTarget(_ r: ModelRelationship, from entity: ModelEntity, value: SQLValue) throws(StoreError) {
        guard value != .null else { return }
        let q = SQLIdentifier.quote
        let dest = try model.entity(named: r.destination)
        let destRoot = model.root(dest)
        let referenced = r.referencedColumn ?? destRoot.primaryKey
        var sql = "SELECT 1 FROM \(q(destRoot.table)) WHERE \(q(referenced)) = ?1"
        if dest.parent != nil {
            // The link names a sub-entity: a row of another entity in the shared table does not count.
            sql += " AND \(q(StoreSchema.entityColumn)) IN (\(model.descendants(dest).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
        }
        let s = try connection.prepare(sql + " LIMIT 1", cached: true)
        try s.bind([value])
        defer { s.reset() }
        guard try s.step() else {
            let keyName = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c }?.name } ?? "key"
            throw StoreError(.constraint, "\(entity.name).\(r.name) would link to no \(dest.name): none has \(keyName) \(value)",
                             hint: "insert that \(dest.name) first, or give the \(keyName) of an existing one")
        }
    }

    /// Before an update of the objects `keys` selects: the new values of key columns must
    /// name existing objects, and a changed attribute that other objects' links refer to must
    /// not leave them linking to nothing.
    func checkLinks(of entity: ModelEntity, assignments: [(column: String, value: SQLValue)], keys: CompiledSQL) throws(StoreError) {
        let q = SQLIdentifier.quote
        let root = model.root(entity)
        for (column, value) in assignments {
            for r in model.allRelationships(entity) where !r.isToMany && r.foreignKeyColumn == column {
                try checkLinkTarget(r, from: entity, value: value)
            }
            // Links from anywhere whose key is this column of this table.
            for source in model.entities {
                for r in source.relationships where !r.isToMany {
                    guard let dest = try? model.entity(named: r.destination), model.root(dest).name == root.name,
                          (r.referencedColumn ?? root.primaryKey) == column else { continue }
                    let sourceRoot = model.root(source)
                    let changed = "SELECT \(q(column)) FROM \(q(root.table)) WHERE \(q(root.primaryKey)) IN (\(keys.sql)) AND \(q(column)) IS NOT ?\(keys.bindings.count + 1)"
                    let s = try connection.prepare("SELECT 1 FROM \(q(sourceRoot.table)) WHERE \(q(r.foreignKeyColumn)) IN (\(changed)) LIMIT 1")
                    try s.bind(keys.bindings + [value], foldedAllowed: true)
                    if try s.step() {
                        let name = model.allAttributes(entity).first { $0.column == column }?.name ?? column
                        throw StoreError(.constraint, "changing \(entity.name).\(name) would leave \(source.name) objects linking to no \(dest.name) through \(source.name).\(r.name), which refers to \(name)",
                                         hint: "relink or delete those \(source.name) objects first")
                    }
                }
            }
        }
    }
}

/// The tables, columns and indexes PQL creates for a model (Core Data's conventions, spec §8.1:
/// one table per inheritance root, `Z_PK` keys, an entity column where entities share a table,
/// a foreign-key column per to-one relationship).
enum StoreSchema {
    /// The column telling apart the entities that share an inheritance root's table.
    static let entityColumn = "Z_ENT"
    /// Where PQL keeps the model of a store it created.
    static let metadataTable = "Z_PQLMETADATA"

    /// The statements that create `model`'s schema (idempotent: IF NOT EXISTS).
    static func createStatements(_ model: StoreModel) throws(StoreError) -> [String] {
        var out: [String] = []
        let q = SQLIdentifier.quote
        for root in model.entities where root.parent == nil {
            let tree = model.descendants(root)
            var columns = ["\(q(root.primaryKey)) INTEGER PRIMARY KEY"]
            if model.isInheritanceTree(root) { columns.append("\(q(entityColumn)) INTEGER NOT NULL") }
            var seen: Set<String> = [root.primaryKey, entityColumn]
            var indexes: [(name: String, columns: [String], unique: Bool)] = []
            for e in tree {
                for a in e.attributes where seen.insert(a.column).inserted {
                    // Only the root's own attributes can be NOT NULL: other entities' rows share the table.
                    let notNull = !a.isOptional && e.name == root.name ? " NOT NULL" : ""
                    columns.append("\(q(a.column)) \(a.type.columnType)\(notNull)")
                    if a.isUnique { indexes.append(("\(root.table)_\(a.column)_unique", [a.column], true)) }
                    else if a.isIndexed { indexes.append(("\(root.table)_\(a.column)_index", [a.column], false)) }
                }
                for r in e.relationships where !r.isToMany {
                    // The key a to-many's subqueries probe, so ANY and @count stay index lookups.
                    indexes.append(("\(root.table)_\(r.foreignKeyColumn)_fk", [r.foreignKeyColumn], false))
                    // A key column that is also an attribute (carrier) exists already.
                    guard seen.insert(r.foreignKeyColumn).inserted else { continue }
                    let dest = try model.entity(named: r.destination)
                    let destRoot = model.root(dest)
                    let referenced = r.referencedColumn ?? destRoot.primaryKey
                    let type = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c }?.type.columnType } ?? "INTEGER"
                    columns.append("\(q(r.foreignKeyColumn)) \(type) REFERENCES \(q(destRoot.table))(\(q(referenced)))")
                }
                let columnOf = { (name: String) -> String in
                    model.allAttributes(e).first { $0.name == name }?.column
                        ?? model.allRelationships(e).first { $0.name == name }?.foreignKeyColumn ?? name
                }
                for group in e.indexes { indexes.append(("\(root.table)_\(group.map(columnOf).joined(separator: "_"))_index", group.map(columnOf), false)) }
                for group in e.uniqueness { indexes.append(("\(root.table)_\(group.map(columnOf).joined(separator: "_"))_unique", group.map(columnOf), true)) }
            }
            out.append("CREATE TABLE IF NOT EXISTS \(q(root.table)) (\(columns.joined(separator: ", ")))")
            var names: Set<String> = []
            for ix in indexes where names.insert(ix.name).inserted {
                out.append("CREATE \(ix.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(q(ix.name)) ON \(q(root.table)) (\(ix.columns.map(q).joined(separator: ", ")))")
            }
        }
        return out
    }
}

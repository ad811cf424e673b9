import PQL

/// The tables, columns and indexes PQL creates for a model (Core Data's conventions, reference §8.1:
/// one table per inheritance root, `Z_PK` keys, an entity column where entities share a table,
/// a foreign-key column per to-one relationship).
enum StoreSchema {
    /// The column telling apart the entities that share an inheritance root's table.
    static let entityColumn = "Z_ENT"
    /// Where PQL keeps the model of a store it created.
    static let metadataTable = "Z_PQLMETADATA"

    /// One table or index the schema creates.
    struct Object {
        enum Kind: String { case table, index }
        var kind: Kind
        var name: String
        /// The table an index is on (for a table, its own name).
        var table: String
        var sql: String
        /// For a table: each column and its definition (what follows the name in CREATE TABLE).
        var columns: [(name: String, definition: String)] = []
        /// For a table: the entity number its existing rows take when the entity column is added.
        var rootNumber: Int = 0
        /// Whether the table is a many-to-many's join table (no entity's: migrations keep it
        /// while the model has the relationship, and drop it with the relationship).
        var isJoinTable = false
    }

    /// The statements that create `model`'s schema (idempotent: IF NOT EXISTS).
    static func createStatements(_ model: StoreModel) throws(StoreError) -> [String] {
        try objects(model).map(\.sql)
    }

    /// The tables and indexes of `model`'s schema, each with the statement creating it.
    ///
    /// Index names are made from table and column names, so two of them can be one name to
    /// SQLite (`A` + `b_c`, `A_b` + `c`), or an index can take a table's name; both are refused,
    /// since `IF NOT EXISTS` would silently skip the second object (a missing UNIQUE index
    /// would stop enforcing uniqueness).
    static func objects(_ model: StoreModel) throws(StoreError) -> [Object] {
        var out: [Object] = []
        let q = SQLIdentifier.quote
        for root in model.entities where root.parent == nil {
            let tree = model.descendants(root)
            var defs: [(name: String, definition: String)] = [(root.primaryKey, "INTEGER PRIMARY KEY")]
            // Folded as SQLite compares column names; the model has refused case-only variants.
            var seen: Set<ExactText> = [SQLName.key(root.primaryKey)]
            if model.isInheritanceTree(root) {
                defs.append((entityColumn, "INTEGER NOT NULL"))
                seen.insert(SQLName.key(entityColumn))
            }
            var indexes: [(name: String, columns: [String], unique: Bool)] = []
            for e in tree {
                for a in e.attributes where seen.insert(SQLName.key(a.column)).inserted {
                    // Only the root's own attributes can be NOT NULL: other entities' rows share the table.
                    let notNull = !a.isOptional && e.name == root.name ? " NOT NULL" : ""
                    defs.append((a.column, "\(a.type.columnType)\(notNull)"))
                    if a.isUnique { indexes.append(("\(root.table)_\(a.column)_unique", [a.column], true)) }
                    else if a.isIndexed { indexes.append(("\(root.table)_\(a.column)_index", [a.column], false)) }
                }
                for r in e.relationships where !r.isToMany {
                    // The key a to-many's subqueries probe, so ANY and @count stay index lookups.
                    indexes.append(("\(root.table)_\(r.foreignKeyColumn)_fk", [r.foreignKeyColumn], false))
                    // A key column that is also an attribute (carrier) exists already.
                    guard seen.insert(SQLName.key(r.foreignKeyColumn)).inserted else { continue }
                    let dest = try model.entity(named: r.destination)
                    let destRoot = model.root(dest)
                    let referenced = r.referencedColumn ?? destRoot.primaryKey
                    let type = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c }?.type.columnType } ?? "INTEGER"
                    defs.append((r.foreignKeyColumn, "\(type) REFERENCES \(q(destRoot.table))(\(q(referenced)))"))
                }
                let columnOf = { (name: String) -> String in
                    model.allAttributes(e).first { $0.name == name }?.column
                        ?? model.allRelationships(e).first { $0.name == name }?.foreignKeyColumn ?? name
                }
                for group in e.indexes { indexes.append(("\(root.table)_\(group.map(columnOf).joined(separator: "_"))_index", group.map(columnOf), false)) }
                for group in e.uniqueness { indexes.append(("\(root.table)_\(group.map(columnOf).joined(separator: "_"))_unique", group.map(columnOf), true)) }
            }
            // SQLite's own error would come from inside a migration or an import's transaction.
            guard defs.count <= ImportTable.maxColumns else {
                throw StoreError(.invalidModel, "the table '\(root.table)' would have \(defs.count) columns (its key and its entities' attributes and to-one relationships); SQLite allows at most \(ImportTable.maxColumns)",
                                 hint: "split the entity into entities of fewer attributes, linked by a relationship").about(entity: root.name)
            }
            let columns = defs.map { "\(q($0.name)) \($0.definition)" }
            out.append(Object(kind: .table, name: root.table, table: root.table,
                              sql: "CREATE TABLE IF NOT EXISTS \(q(root.table)) (\(columns.joined(separator: ", ")))",
                              columns: defs, rootNumber: model.entityNumber(root)))
            var made: [ExactText: (columns: [String], unique: Bool)] = [:]
            for ix in indexes {
                // The same index asked for twice (two to-ones on one key column) is made once.
                if let earlier = made[ExactText(ix.name)], earlier.columns.elementsEqual(ix.columns, by: SQLName.identical),
                   earlier.unique == ix.unique { continue }
                made[ExactText(ix.name)] = (ix.columns, ix.unique)
                let sql = "CREATE \(ix.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(q(ix.name)) ON \(q(root.table)) (\(ix.columns.map(q).joined(separator: ", ")))"
                out.append(Object(kind: .index, name: ix.name, table: root.table, sql: sql))
            }
        }
        out += try joinTableObjects(model)
        var byName: [ExactText: Object] = [:]
        for o in out {
            let f = SQLName.key(o.name)
            if let other = byName[f] {
                throw StoreError(.invalidModel, "the schema needs \(other.kind.rawValue) '\(other.name)' and \(o.kind.rawValue) '\(o.name)'\(o.kind == .index ? " (on \(o.table))" : ""), which SQLite takes for one name",
                                 hint: "rename an entity or attribute so that the table and index names (TABLE_COLUMN_index, _unique, _fk) differ")
            }
            byName[f] = o
        }
        return out
    }

    /// Each many-to-many's join table: its two key columns, the pair its primary key (one link
    /// per pair; the index ANY and @count use from the first side) and an index on the pair
    /// reversed, `TABLE_second_first_index` (what they use from the other side). `WITHOUT
    /// ROWID`: the primary key is the table, so a link costs one b-tree entry, not two.
    static func joinTableObjects(_ model: StoreModel) throws(StoreError) -> [Object] {
        let q = SQLIdentifier.quote
        var out: [Object] = []
        for j in model.joinTables {
            let source = model.root(try model.entity(named: j.source)), destination = model.root(try model.entity(named: j.destination))
            let (a, b) = (j.link.sourceColumn, j.link.destinationColumn)
            let defs: [(name: String, definition: String)] = [(a, "INTEGER NOT NULL REFERENCES \(q(source.table))(\(q(source.primaryKey)))"),
                        (b, "INTEGER NOT NULL REFERENCES \(q(destination.table))(\(q(destination.primaryKey)))")]
            let table = j.link.table
            out.append(Object(kind: .table, name: table, table: table,
                              sql: "CREATE TABLE IF NOT EXISTS \(q(table)) (\(defs.map { "\(q($0.0)) \($0.1)" }.joined(separator: ", ")), PRIMARY KEY (\(q(a)), \(q(b)))) WITHOUT ROWID",
                              columns: defs, isJoinTable: true))
            let index = "\(table)_\(b)_\(a)_index"
            out.append(Object(kind: .index, name: index, table: table, sql: "CREATE INDEX IF NOT EXISTS \(q(index)) ON \(q(table)) (\(q(b)), \(q(a)))"))
        }
        return out
    }
}

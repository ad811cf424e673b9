import Foundation

/// A model read from an SQLite database PQL did not create: one entity per table, one
/// attribute per column (typed by its declared type's affinity), the integer primary key (or
/// rowid) as the key, and each foreign key as a to-one relationship with a to-many inverse.
/// A join table (two foreign keys to the keys of two tables, and at most its own integer key
/// besides) is a many-to-many relationship pair instead (see ``JoinTableInference``).
///
/// A table PQL cannot make an entity of is left out with the reason (``Inferred/skipped``),
/// as the PostgreSQL store's inference does, rather than making the whole file unreadable: a
/// `WITHOUT ROWID` table without an integer key, one whose columns hide its rowid, one with a
/// column the model cannot name (`""`, `@count`), the internal ("shadow") tables of a virtual
/// table such as FTS5's, and a virtual table whose module this SQLite lacks.
package enum SchemaInference {
    /// An inferred model, and the tables left out of it, each with the reason.
    struct Inferred {
        var model: StoreModel
        var skipped: [String: String]
    }

    static func model(of db: SQLiteConnection) throws(StoreError) -> StoreModel { try inferred(from: db).model }

    static func inferred(from db: SQLiteConnection) throws(StoreError) -> Inferred {
        let tables = try strings(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> ?1 ORDER BY name",
                                 [.text(StoreSchema.metadataTable)])
        let isCoreData = tables.contains("Z_PRIMARYKEY") && tables.contains("Z_METADATA")
        let shadows = try shadowTables(db)
        var entities: [ModelEntity] = []
        var skipped: [String: String] = [:]
        var foreignKeys: [JoinTableInference.ForeignKey] = []
        // Tables that are no entity but may be join tables (`WITHOUT ROWID`, keyed by both columns).
        var keyless: [ModelEntity] = []
        for table in tables where !(isCoreData && (table == "Z_PRIMARYKEY" || table == "Z_METADATA" || table == "Z_MODELCACHE")) {
            if shadows.contains(table) {
                skipped[table] = "it is an internal table of a virtual table (such as FTS5's), read through that table"
                continue
            }
            let entity: ModelEntity?
            do throws(StoreError) { entity = try self.entity(table, db, coreData: isCoreData) } catch {
                // A file's other tables stay readable; an error of the file itself (damaged, locked) does not.
                guard error.kind == .invalidModel || error.message.contains("no such module") else { throw error }
                skipped[table] = error.kind == .invalidModel ? error.message : "it is a virtual table whose module this SQLite lacks (\(error.message))"
                if error.kind == .invalidModel {
                    let columns = try strings(db, "SELECT name FROM pragma_table_info(?1)", [.text(table)])
                    keyless.append(ModelEntity(table, attributes: columns.map { ModelAttribute($0, .integer64) }, table: table, primaryKey: ""))
                    try appendForeignKeys(of: table, db, to: &foreignKeys)
                }
                continue
            }
            guard let entity else { continue }
            entities.append(entity)
            try appendForeignKeys(of: table, db, to: &foreignKeys)
        }
        // Join tables become many-to-many pairs; their foreign keys are no to-ones then.
        let joins = JoinTableInference.joinTables(entities + keyless, linking: entities, foreignKeys,
                                                  sameTable: { $0.caseInsensitiveCompare($1) == .orderedSame })
        for j in joins { skipped[j.table] = nil }
        entities.removeAll { e in joins.contains { $0.table == e.name } }
        foreignKeys.removeAll { fk in joins.contains { $0.table == fk.table } }
        // Foreign keys become to-one relationships and their to-many inverses (of the tables kept).
        for fk in foreignKeys {
            guard let si = entities.firstIndex(where: { $0.name == fk.table }),
                  let ti = entities.firstIndex(where: { $0.name.caseInsensitiveCompare(fk.target) == .orderedSame }) else { continue }
            let target = entities[ti]
            let referenced = fk.targetColumn.flatMap { $0 == target.primaryKey ? nil : $0 }
            let taken = { (e: ModelEntity, n: String) in e.hasProperty(named: n) }
            var name = relationshipName(column: fk.column, target: target.name)
            if taken(entities[si], name) { name = fk.column + "_" + target.name }
            var inverse = fk.table
            if taken(entities[ti], inverse) || si == ti { inverse = "\(fk.table)_by_\(fk.column)" }
            guard !taken(entities[si], name), !taken(entities[ti], inverse) else { continue }
            entities[si].relationships.append(ModelRelationship(name, to: target.name, inverse: inverse, foreignKeyColumn: fk.column,
                                                                referencedColumn: referenced))
            entities[ti].relationships.append(ModelRelationship(inverse, toMany: fk.table, inverse: name, deleteRule: deleteRule(fk.onDelete)))
        }
        for table in JoinTableInference.addPairs(joins, to: &entities, sameTable: { $0.caseInsensitiveCompare($1) == .orderedSame }) { skipped[table] = JoinTableInference.unnamedReason }
        return Inferred(model: try StoreModel(entities), skipped: skipped)
    }

    /// The single-column foreign keys of `table` (a composite key's columns share a constraint number).
    private static func appendForeignKeys(of table: String, _ db: SQLiteConnection, to out: inout [JoinTableInference.ForeignKey]) throws(StoreError) {
        for fk in try rows(db, "SELECT \"table\", \"from\", \"to\", on_delete, id FROM pragma_foreign_key_list(?1)", [.text(table)]) {
            guard case .text(let target) = fk[0], case .text(let from) = fk[1] else { continue }
            var to: String? = nil
            if case .text(let t) = fk[2] { to = t }
            var onDelete = "NO ACTION"
            if case .text(let t) = fk[3] { onDelete = t.uppercased() }
            var id: Int64 = 0
            if case .integer(let n) = fk[4] { id = n }
            out.append(.init(table: table, column: from, target: target, targetColumn: to, onDelete: onDelete, constraint: id))
        }
    }

    /// The internal tables of the file's virtual tables (FTS5's `_data`, `_idx`, `_config`…),
    /// which SQLite lists as `shadow` (3.37 and later; earlier ones list none).
    private static func shadowTables(_ db: SQLiteConnection) throws(StoreError) -> Set<String> {
        do throws(StoreError) {
            return Set(try strings(db, "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'", []))
        } catch {
            return []
        }
    }

    /// The entity for `table`, nil for a table with no columns PQL reads; an `invalidModel`
    /// error saying why PQL cannot make one.
    private static func entity(_ table: String, _ db: SQLiteConnection, coreData isCoreData: Bool) throws(StoreError) -> ModelEntity? {
        let info = try db.prepare("SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?1)")
        try info.bind([.text(table)])
        var attributes: [ModelAttribute] = []
        var pkColumns: [(name: String, type: String)] = []
        while try info.step() {
            let name = info.text(0), declared = info.text(1)
            if info.int64(4) != 0 && info.int64(4) != 2 && info.int64(4) != 3 { continue }
            let type = attributeType(declared, coreData: isCoreData)
            if info.int64(3) > 0 { pkColumns.append((name, declared)) }
            var attribute = ModelAttribute(name, type, isOptional: info.int64(2) == 0)
            // No declared type is SQLite's BLOB affinity: the column keeps integers, reals and
            // text as given, so no one kind describes it.
            attribute.isUntyped = declared.trimmingCharacters(in: .whitespaces).isEmpty
            attributes.append(attribute)
        }
        guard !attributes.isEmpty else { return nil }
        let withoutRowID = try strings(db, "SELECT sql FROM sqlite_schema WHERE name = ?1", [.text(table)]).first?
            .uppercased().replacingOccurrences(of: " ", with: "").hasSuffix("WITHOUTROWID") ?? false
        let key: String
        if pkColumns.count == 1, pkColumns[0].type.uppercased() == "INTEGER" { key = pkColumns[0].name }
        else if !withoutRowID {
            // A column named rowid (in any case) hides SQLite's rowid behind it: take the
            // first of its three names that no column uses.
            let taken = Set(attributes.map { SQLName.key($0.column) })
            guard let alias = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains(SQLName.key($0)) }) else {
                throw StoreError(.invalidModel, "table '\(table)' has columns named rowid, _rowid_ and oid, which hide its row key",
                                 hint: "PQL needs an INTEGER PRIMARY KEY or a rowid to identify rows; rename one of those columns")
            }
            key = alias
        }
        else {
            throw StoreError(.invalidModel, "table '\(table)' has no integer key PQL can use (a WITHOUT ROWID table keyed by \(pkColumns.map(\.name).joined(separator: ", ")))",
                             hint: "PQL needs an INTEGER PRIMARY KEY or a rowid to identify rows")
        }
        // Indexed and unique columns, so the model says what the file already has.
        for ix in try rows(db, "SELECT name, \"unique\" FROM pragma_index_list(?1)", [.text(table)]) {
            let cols = try strings(db, "SELECT name FROM pragma_index_info(?1)", [ix[0]])
            if cols.count == 1, let i = attributes.firstIndex(where: { $0.column == cols[0] }) {
                if case .integer(1) = ix[1] { attributes[i].isUnique = true } else { attributes[i].isIndexed = true }
            }
        }
        let entity = ModelEntity(table, attributes: attributes, table: table, primaryKey: key)
        // What the model refuses of one table alone (a column named "" or "@count", the key
        // named like a column) is that table's reason to be left out.
        _ = try StoreModel([entity])
        return entity
    }

    /// The delete rule a foreign key's ON DELETE action asks for. NO ACTION and RESTRICT (what
    /// SQLite enforces when its foreign keys are on) refuse to delete a row others still link to.
    package static func deleteRule(_ onDelete: String) -> ModelRelationship.DeleteRule {
        switch onDelete {
        case "CASCADE": .cascade
        case "SET NULL": .nullify
        default: .deny
        }
    }

    /// `customer_id` → `customer`; otherwise the target table's name.
    package static func relationshipName(column: String, target: String) -> String {
        for suffix in ["_id", "_ID", "Id", "ID"] where column.hasSuffix(suffix) && column.count > suffix.count {
            return String(column.dropLast(suffix.count))
        }
        return target.prefix(1).lowercased() + target.dropFirst()
    }

    /// SQLite's affinity rules (§3.1 of its datatype page), with the names that say more.
    static func attributeType(_ declared: String, coreData: Bool) -> AttributeType {
        let t = declared.uppercased()
        if t.contains("BOOL") { return .boolean }
        if coreData && t == "TIMESTAMP" { return .date }
        if t.contains("INT") { return .integer64 }
        if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") { return .string }
        if t.contains("BLOB") { return .binary }
        if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") { return .double }
        if t.contains("NUM") || t.contains("DEC") { return .double }
        if t.contains("DATE") || t.contains("TIME") { return .string }
        return .string
    }

    private static func strings(_ db: SQLiteConnection, _ sql: String, _ args: [SQLValue]) throws(StoreError) -> [String] {
        try rows(db, sql, args).compactMap { if case .text(let s) = $0.first { return s } else { return nil } }
    }

    private static func rows(_ db: SQLiteConnection, _ sql: String, _ args: [SQLValue]) throws(StoreError) -> [[SQLValue]] {
        let s = try db.prepare(sql)
        try s.bind(args)
        var out: [[SQLValue]] = []
        while try s.step() { out.append((0..<s.columnCount).map { s.value($0) }) }
        return out
    }
}

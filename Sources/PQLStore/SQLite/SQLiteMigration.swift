import Foundation
import PQL

/// Applies a ``ModelDiff`` to an SQLite store, inside the caller's transaction: renamed tables
/// and columns, added columns (with their defaults filled in), entity numbers moved where
/// entities share a table, a table rebuilt when columns go or lose NOT NULL (SQLite can drop
/// neither in place), stale indexes dropped. Tables and indexes the new model adds are left to
/// `createSchema`.
struct SQLiteMigrator {
    let connection: SQLiteConnection
    let diff: ModelDiff
    private var old: StoreModel { diff.old }
    private var new: StoreModel { diff.new }
    private let q = SQLIdentifier.quote

    init(connection: SQLiteConnection, diff: ModelDiff) {
        self.connection = connection
        self.diff = diff
    }

    // MARK: checking

    /// The changes that stop the migration without a step: those that always need one, and
    /// those allowed only on empty data whose data is there (each saying how much).
    func refusals() throws(StoreError) -> [ModelChange] {
        var out: [ModelChange] = []
        for c in diff.changes {
            switch c.migration {
            case .lightweight: continue
            case .needsStep: out.append(c)
            case .whenEmpty:
                let (n, what) = try dataCount(c)
                if n > 0 {
                    out.append(ModelChange(c.kind, entity: c.entity, property: c.property, old: c.old,
                                           new: (c.new.map { $0 + "; " } ?? "") + "\(n) \(n == 1 ? "object holds" : "objects hold") \(what)",
                                           migration: .needsStep, hint: c.hint))
                }
            }
        }
        return out
    }

    /// How many rows hold the data a `whenEmpty` change would lose or leave invalid.
    private func dataCount(_ c: ModelChange) throws(StoreError) -> (Int64, String) {
        switch c.kind {
        case .entityRemoved:
            guard let o = try? old.entity(named: c.entity) else { return (0, "") }
            return (try rows(of: o, own: true), "data")
        case .entityChanged:
            guard let e = try? new.entity(named: c.entity), let o = diff.oldEntity(of: e) else { return (0, "") }
            return (try rows(of: o, own: true), "data")
        case .attributeRemoved, .relationshipRemoved:
            guard let e = try? new.entity(named: c.entity), let o = diff.oldEntity(of: e), let name = c.property else { return (0, "") }
            let column = o.attributes.first { $0.name == name }?.column ?? o.relationships.first { $0.name == name && !$0.isToMany }?.foreignKeyColumn
            guard let column, !stillUsed(column, root: old.root(o)) else { return (0, "") }
            return (try rows(of: o, own: false, nonNull: column), c.kind == .attributeRemoved ? "a value" : "a link")
        case .attributeAdded, .relationshipAdded:
            guard let e = try? new.entity(named: c.entity), let o = diff.oldEntity(of: e) else { return (0, "") }
            return (try rows(of: o, own: false), "no value for it")
        default:
            return (0, "")
        }
    }

    /// Whether the new model still stores something in the old table's `column` (a to-one's key
    /// kept as an attribute), so that its values are not lost.
    private func stillUsed(_ column: String, root: ModelEntity) -> Bool {
        guard let table = try? newTable(forOldRoot: root) else { return false }
        return table.columns.contains { SQLName.same($0.name, renamedColumns(table: table.name)[column] ?? column) }
    }

    /// Rows of the old entity `o` (its own, or with its sub-entities), optionally only those
    /// with a value in `nonNull`.
    private func rows(of o: ModelEntity, own: Bool, nonNull column: String? = nil) throws(StoreError) -> Int64 {
        let root = old.root(o)
        guard try tableExists(root.table) else { return 0 }
        var conditions: [String] = [], bindings: [SQLValue] = []
        if let column { conditions.append("\(q(column)) IS NOT NULL") }
        if old.isInheritanceTree(o) {
            let numbers = (own ? [o] : old.descendants(o)).map { old.entityNumber($0) }
            conditions.append("\(q(StoreSchema.entityColumn)) IN (\(numbers.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))")
            bindings = numbers.map { .integer(Int64($0)) }
        }
        let s = try connection.prepare("SELECT count(*) FROM \(q(root.table))" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")))
        try s.bind(bindings)
        return try s.step() ? s.int64(0) : 0
    }

    // MARK: applying

    /// Everything before a migration step: stale indexes dropped, tables and columns renamed,
    /// columns added (defaults filled in), entity numbers moved.
    func prepareSchema() throws(StoreError) {
        let oldObjects = try StoreSchema.objects(old), newObjects = try StoreSchema.objects(new)
        let kept = Set(newObjects.filter { $0.kind == .index }.map { $0.name + "\u{0}" + $0.sql })
        for ix in oldObjects where ix.kind == .index && !kept.contains(ix.name + "\u{0}" + ix.sql) {
            try connection.execute("DROP INDEX IF EXISTS \(q(ix.name))", what: "dropping index \(ix.name)")
        }
        for table in newObjects where table.kind == .table {
            guard let root = try oldRoot(ofNewTable: table.name) else { continue }
            if !SQLName.identical(root.table, table.name) { try rename(table: root.table, to: table.name) }
            for (from, to) in renamedColumns(table: table.name) {
                try renameColumn(from, to: to, in: table.name)
            }
            let existing = try columns(of: table.name)
            for c in table.columns where !existing.keys.contains(SQLName.key(c.name)) {
                let definition = c.name == StoreSchema.entityColumn ? "INTEGER NOT NULL DEFAULT \(table.rootNumber)"
                    : c.definition.hasSuffix(" NOT NULL") ? String(c.definition.dropLast(" NOT NULL".count)) : c.definition
                try connection.execute("ALTER TABLE \(q(table.name)) ADD COLUMN \(q(c.name)) \(definition)",
                                       what: "adding column \(c.name) to \(table.name)")
            }
            if existing.keys.contains(SQLName.key(StoreSchema.entityColumn)) { try renumber(table: table.name, oldRoot: root) }
        }
        try fillDefaults()
    }

    /// Everything after a migration step: tables rebuilt that lose columns or NOT NULL or change
    /// a column's type, tables of removed entities dropped.
    func finishSchema() throws(StoreError) {
        let oldObjects = try StoreSchema.objects(old), newObjects = try StoreSchema.objects(new)
        let oldTables = oldObjects.filter { $0.kind == .table && !$0.isJoinTable }
        // A join table the new model still has keeps its links; one it lost goes.
        let joins = Set(newObjects.filter(\.isJoinTable).map { SQLName.key($0.name) })
        for t in oldObjects where t.isJoinTable && !joins.contains(SQLName.key(t.name)) {
            try connection.execute("DROP TABLE IF EXISTS \(q(t.name))", what: "dropping join table \(t.name)")
        }
        var reused: Set<ExactText> = []
        for table in newObjects where table.kind == .table {
            guard let root = try oldRoot(ofNewTable: table.name), let before = oldTables.first(where: { $0.name == root.table }) else { continue }
            reused.insert(SQLName.key(root.table))
            if try columns(of: table.name).keys.contains(SQLName.key(StoreSchema.entityColumn)) {
                try connection.execute("DELETE FROM \(q(table.name)) WHERE \(q(StoreSchema.entityColumn)) < 0", what: "deleting the objects of removed entities")
            }
            let renames = renamedColumns(table: table.name)
            let was = Dictionary(before.columns.map { (SQLName.key(renames[$0.name] ?? $0.name), $0.definition) }) { a, _ in a }
            let now = Dictionary(table.columns.map { (SQLName.key($0.name), $0.definition) }) { a, _ in a }
            let lost = was.contains { key, definition in now[key].map { !Self.keepsValues(definition, $0) } ?? true }
            if lost { try rebuild(table) }
        }
        for t in oldTables where !reused.contains(SQLName.key(t.name)) {
            try connection.execute("DROP TABLE IF EXISTS \(q(t.name))", what: "dropping table \(t.name)")
        }
    }

    /// Whether a column defined `old` can stay as it is for `new`: the same type, and NOT NULL
    /// only where the new one has it (a column gaining NOT NULL keeps it off: the store checks
    /// required values on every write).
    private static func keepsValues(_ old: String, _ new: String) -> Bool {
        let type = { (d: String) in d.split(separator: " ").first.map(String.init) ?? "" }
        return type(old) == type(new) && (!old.contains("NOT NULL") || new.contains("NOT NULL"))
    }

    /// The old model's root entity whose table becomes `table` (nil for a new table).
    private func oldRoot(ofNewTable table: String) throws(StoreError) -> ModelEntity? {
        for e in new.entities where e.parent == nil && e.table == table {
            if let o = diff.oldEntity(of: e), o.parent == nil, try tableExists(o.table) { return o }
        }
        return nil
    }

    /// The new table the old root's rows live in.
    private func newTable(forOldRoot root: ModelEntity) throws(StoreError) -> StoreSchema.Object? {
        for t in try StoreSchema.objects(new) where t.kind == .table {
            if try oldRoot(ofNewTable: t.name)?.name == root.name { return t }
        }
        return nil
    }

    /// Old column → new column, for the attributes and to-one keys of `table`'s entities that
    /// were renamed or mapped to another column.
    private func renamedColumns(table: String) -> [String: String] {
        var out: [String: String] = [:]
        for e in new.entities where new.root(e).table == table {
            guard let o = diff.oldEntity(of: e) else { continue }
            for a in e.attributes {
                if let name = diff.oldProperty(a.name, of: e.name), let was = o.attributes.first(where: { $0.name == name }),
                   was.column != a.column { out[was.column] = a.column }
            }
            for r in e.relationships where !r.isToMany {
                if let name = diff.oldProperty(r.name, of: e.name), let was = o.relationships.first(where: { $0.name == name && !$0.isToMany }),
                   was.foreignKeyColumn != r.foreignKeyColumn { out[was.foreignKeyColumn] = r.foreignKeyColumn }
            }
        }
        return out
    }

    private func rename(table: String, to name: String) throws(StoreError) {
        // SQLite refuses a new name equal to the old one ignoring case: go through another.
        if SQLName.same(table, name) {
            try connection.execute("ALTER TABLE \(q(table)) RENAME TO \(q(name + "_pql_renaming"))")
            try connection.execute("ALTER TABLE \(q(name + "_pql_renaming")) RENAME TO \(q(name))", what: "renaming table \(table) to \(name)")
        } else {
            try connection.execute("ALTER TABLE \(q(table)) RENAME TO \(q(name))", what: "renaming table \(table) to \(name)")
        }
    }

    private func renameColumn(_ column: String, to name: String, in table: String) throws(StoreError) {
        let existing = try columns(of: table)
        guard existing.keys.contains(SQLName.key(column)) else { return }
        if SQLName.same(column, name) {
            try connection.execute("ALTER TABLE \(q(table)) RENAME COLUMN \(q(column)) TO \(q(name + "_pql_renaming"))")
            try connection.execute("ALTER TABLE \(q(table)) RENAME COLUMN \(q(name + "_pql_renaming")) TO \(q(name))", what: "renaming column \(table).\(column)")
        } else {
            try connection.execute("ALTER TABLE \(q(table)) RENAME COLUMN \(q(column)) TO \(q(name))", what: "renaming column \(table).\(column) to \(name)")
        }
    }

    /// Moves the entity numbers of a shared table's rows to the new model's (they follow the
    /// entities' declaration order, which adding or removing an entity shifts).
    private func renumber(table: String, oldRoot: ModelEntity) throws(StoreError) {
        guard old.isInheritanceTree(oldRoot) else { return }
        var pairs: [(Int64, Int64)] = []
        for e in new.entities where new.root(e).table == table {
            if let o = diff.oldEntity(of: e), old.entityNumber(o) != new.entityNumber(e) {
                pairs.append((Int64(old.entityNumber(o)), Int64(new.entityNumber(e))))
            }
        }
        // Rows of a removed entity (a migration step let it go with its data) take a number no
        // entity has, so that they are not read as another entity's; they are deleted after the step.
        let kept = Set(diff.oldEntityName.values)
        for o in old.descendants(oldRoot) where !kept.contains(o.name) {
            pairs.append((Int64(old.entityNumber(o)), -Int64(old.entityNumber(o))))
        }
        guard !pairs.isEmpty else { return }
        let cases = pairs.indices.map { "WHEN ?\(2 * $0 + 1) THEN ?\(2 * $0 + 2)" }.joined(separator: " ")
        let column = q(StoreSchema.entityColumn)
        let s = try connection.prepare("UPDATE \(q(table)) SET \(column) = CASE \(column) \(cases) ELSE \(column) END")
        try s.run(pairs.flatMap { [SQLValue.integer($0.0), .integer($0.1)] })
    }

    /// Existing objects take the default of an attribute added with one (as Core Data fills
    /// them), and of one made required, where they have no value.
    private func fillDefaults() throws(StoreError) {
        for e in new.entities {
            guard let o = diff.oldEntity(of: e) else { continue }
            for a in e.attributes {
                guard let d = a.defaultValue, !d.isNull else { continue }
                let was = diff.oldProperty(a.name, of: e.name).flatMap { n in o.attributes.first { $0.name == n } }
                guard was == nil || (was?.isOptional == true && !a.isOptional) else { continue }
                let root = new.root(e)
                var sql = "UPDATE \(q(root.table)) SET \(q(a.column)) = ?1 WHERE \(q(a.column)) IS NULL"
                var bindings = [try RecordCodec.sqlValue(d, for: a, entity: e.name)]
                if new.isInheritanceTree(e) {
                    let numbers = new.descendants(e).map { Int64(new.entityNumber($0)) }
                    sql += " AND \(q(StoreSchema.entityColumn)) IN (\(numbers.indices.map { "?\($0 + 2)" }.joined(separator: ", ")))"
                    bindings += numbers.map(SQLValue.integer)
                }
                try connection.prepare(sql).run(bindings)
            }
        }
    }

    /// Recreates `table` with the new model's columns, copying the values of those it keeps.
    private func rebuild(_ table: StoreSchema.Object) throws(StoreError) {
        let existing = try columns(of: table.name)
        let copied = table.columns.filter { existing.keys.contains(SQLName.key($0.name)) }.map { q($0.name) }.joined(separator: ", ")
        let temporary = table.name + "_pql_migrating"
        try connection.execute("CREATE TABLE \(q(temporary)) (\(table.columns.map { "\(q($0.name)) \($0.definition)" }.joined(separator: ", ")))")
        do throws(StoreError) {
            try connection.execute("INSERT INTO \(q(temporary)) (\(copied)) SELECT \(copied) FROM \(q(table.name))", what: "copying \(table.name) to its new columns")
        } catch {
            throw StoreError(error.kind, "the rows of table \(table.name) do not fit the new model: \(error.message)",
                             hint: "a migration step must give every required attribute a value (or the attribute a default)")
        }
        try connection.execute("DROP TABLE \(q(table.name))")
        try connection.execute("ALTER TABLE \(q(temporary)) RENAME TO \(q(table.name))", what: "rebuilding table \(table.name)")
    }

    private func tableExists(_ table: String) throws(StoreError) -> Bool {
        let s = try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE", cached: true)
        defer { s.reset() }
        try s.bind([.text(table)])
        return try s.step()
    }

    /// The table's columns as they are now (folded names → name).
    private func columns(of table: String) throws(StoreError) -> [ExactText: String] {
        let s = try connection.prepare("SELECT name FROM pragma_table_info(?1)")
        try s.bind([.text(table)])
        var out: [ExactText: String] = [:]
        while try s.step() { out[SQLName.key(s.text(0))] = s.text(0) }
        return out
    }
}

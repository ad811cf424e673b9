import Foundation
import PostgresNIO
import PQL
import PQLStore

/// A model read from a PostgreSQL schema PQL did not create, as the SQLite store infers one
/// (`SchemaInference`): one entity per table, one attribute per column typed by its PostgreSQL
/// type, the single-column integer primary key as the key, single-column indexes and unique
/// constraints marked, and each single-column foreign key to a table of the model as a to-one
/// relationship (named after the column without `_id`) with a to-many inverse (named after the
/// referencing table). A join table (two such foreign keys and at most its own key besides) is a
/// many-to-many pair instead (`JoinTableInference`). Other tables without such a key are left
/// out, with the reason.
enum PostgresSchemaInference {
    /// An attribute type for a PostgreSQL type name (the base type's, for a domain). Types PQL
    /// has no attribute type for (json, arrays, intervals, geometric types…) read as strings.
    static func attributeType(_ typeName: String) -> AttributeType {
        switch typeName {
        case "int2": .integer16
        case "int4": .integer32
        case "int8": .integer64
        case "float4": .float
        case "float8": .double
        case "numeric", "money": .decimal
        case "bool": .boolean
        case "timestamptz", "timestamp", "date": .date
        case "bytea": .binary
        case "uuid": .uuid
        default: .string
        }
    }

    struct Column {
        var table: String; var name: String; var type: String; var notNull: Bool
        /// False for text under a nondeterministic collation (case- or accent-insensitive ICU).
        var deterministic = true
        /// Whether the server fills it when an insert leaves it out (a default, an identity).
        var hasDefault = false
    }

    /// Why a column is left out of an inferred model: text PostgreSQL compares otherwise than
    /// PQL does even for `==`, so that no predicate on it could give memory's rows.
    static func unsupportedReason(_ c: Column) -> String? {
        switch c.type {
        case "bpchar": return "char(n) compares without its trailing spaces, where PQL compares the text as stored"
        case "citext": return "citext compares case-insensitively, where PQL's == is exact (==[c] is PQL's case-insensitive test)"
        default:
            return c.deterministic ? nil
                : "its collation is nondeterministic: PostgreSQL's = takes different text as equal, and its LIKE refuses the column"
        }
    }
    struct Constraint { var table: String; var kind: String; var columns: [String]; var target: String?; var targetColumns: [String]; var onDelete: String }

    static func model(_ lease: Lease, schema: String, logger: Logger) async throws(StoreError)
        -> (model: StoreModel, skipped: [String: String], skippedColumns: [String: String]) {
        let columns: [Column], constraints: [Constraint], indexed: [(table: String, column: String, unique: Bool)]
        do {
            (columns, constraints, indexed) = try await lease.withConnection("reading the tables of the schema '\(schema)'") { connection in
                var columns: [Column] = []
                for try await (table, name, type, notNull, deterministic, hasDefault) in try await connection.statement("""
                    SELECT c.relname, a.attname,
                           CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END, a.attnotnull,
                           coalesce((SELECT co.collisdeterministic FROM pg_collation co WHERE co.oid = a.attcollation), true),
                           a.atthasdef OR a.attidentity IN ('a', 'd')
                    FROM pg_attribute a
                    JOIN pg_class c ON c.oid = a.attrelid
                    JOIN pg_namespace n ON n.oid = c.relnamespace
                    JOIN pg_type t ON t.oid = a.atttypid
                    LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
                    WHERE n.nspname = \(schema) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                      AND a.attnum > 0 AND NOT a.attisdropped AND c.relname <> \(StoreSchemaNames.metadataTable)
                    ORDER BY c.relname, a.attnum
                    """, logger: logger).decode((String, String, String, Bool, Bool, Bool).self) {
                    columns.append(Column(table: table, name: name, type: type, notNull: notNull, deterministic: deterministic, hasDefault: hasDefault))
                }
                var constraints: [Constraint] = []
                for try await (table, kind, cols, target, targetCols, onDelete) in try await connection.statement("""
                    SELECT c.relname, con.contype::text,
                           ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
                                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord),
                           CASE WHEN tn.nspname = \(schema) THEN tc.relname::text END,
                           ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord),
                           con.confdeltype::text
                    FROM pg_constraint con
                    JOIN pg_class c ON c.oid = con.conrelid
                    JOIN pg_namespace n ON n.oid = c.relnamespace
                    LEFT JOIN pg_class tc ON tc.oid = con.confrelid
                    LEFT JOIN pg_namespace tn ON tn.oid = tc.relnamespace
                    WHERE n.nspname = \(schema) AND con.contype IN ('p', 'u', 'f')
                    ORDER BY c.relname, con.conname
                    """, logger: logger).decode((String, String, [String], String?, [String], String).self) {
                    constraints.append(Constraint(table: table, kind: kind, columns: cols, target: target, targetColumns: targetCols, onDelete: onDelete))
                }
                var indexed: [(String, String, Bool)] = []
                for try await (table, column, unique) in try await connection.statement("""
                    SELECT c.relname, a.attname, i.indisunique
                    FROM pg_index i
                    JOIN pg_class c ON c.oid = i.indrelid
                    JOIN pg_namespace n ON n.oid = c.relnamespace
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                    WHERE n.nspname = \(schema) AND i.indnkeyatts = 1 AND NOT i.indisprimary AND i.indpred IS NULL
                    """, logger: logger).decode((String, String, Bool).self) {
                    indexed.append((table, column, unique))
                }
                return (columns, constraints, indexed)
            }
        } catch {
            throw ServerErrors.storeError(error, doing: "reading the tables of schema '\(schema)'")
        }
        var entities: [ModelEntity] = []
        var skipped: [String: String] = [:], skippedColumns: [String: String] = [:]
        var order: [String] = []
        // Tables that are no entity but may be join tables (keyed by both their columns).
        var keyless: [ModelEntity] = []
        var byTable: [String: [Column]] = [:]
        for c in columns {
            if byTable[c.table] == nil { order.append(c.table) }
            byTable[c.table, default: []].append(c)
        }
        for table in order {
            let cols = byTable[table] ?? []
            let pk = constraints.first { $0.table == table && $0.kind == "p" }
            guard let pk, pk.columns.count == 1, let keyColumn = cols.first(where: { $0.name == pk.columns[0] }),
                  ["int2", "int4", "int8"].contains(keyColumn.type) else {
                skipped[table] = pk == nil ? "it has no primary key" : "its primary key is not one integer column"
                keyless.append(ModelEntity(table, attributes: cols.map { ModelAttribute($0.name, .integer64) }, table: table, primaryKey: ""))
                continue
            }
            var kept: [Column] = []
            for c in cols {
                if let reason = unsupportedReason(c) { skippedColumns["\(table).\(c.name)"] = reason } else { kept.append(c) }
            }
            // The key is an attribute too, as on SQLite: it shows in rows and predicates
            // (`person_id == 2`); optional where the server assigns it, so an insert may leave it out.
            var attributes = kept.map {
                ModelAttribute($0.name, attributeType($0.type), isOptional: !$0.notNull || ($0.name == keyColumn.name && $0.hasDefault))
            }
            for ix in indexed where ix.table == table {
                guard let i = attributes.firstIndex(where: { $0.column == ix.column }) else { continue }
                if ix.unique { attributes[i].isUnique = true } else { attributes[i].isIndexed = true }
            }
            for u in constraints where u.table == table && u.kind == "u" && u.columns.count == 1 {
                if let i = attributes.firstIndex(where: { $0.column == u.columns[0] }) { attributes[i].isUnique = true }
            }
            entities.append(ModelEntity(table, attributes: attributes, table: table, primaryKey: keyColumn.name))
        }
        // Join tables become many-to-many pairs; their foreign keys are no to-ones then.
        let foreignKeys = constraints.enumerated().compactMap { (i, c) -> JoinTableInference.ForeignKey? in
            guard c.kind == "f", c.columns.count == 1, c.targetColumns.count == 1, let target = c.target else { return nil }
            let onDelete = switch c.onDelete { case "c": "CASCADE"; case "n": "SET NULL"; case "r": "RESTRICT"; default: "NO ACTION" }
            return .init(table: c.table, column: c.columns[0], target: target, targetColumn: c.targetColumns[0], onDelete: onDelete, constraint: Int64(i))
        }
        let joins = JoinTableInference.joinTables(entities + keyless, linking: entities, foreignKeys, sameTable: ==)
        for j in joins { skipped[j.table] = nil }
        entities.removeAll { e in joins.contains { $0.table == e.name } }
        // Foreign keys become to-one relationships and their to-many inverses.
        for fk in constraints where fk.kind == "f" && fk.columns.count == 1 && fk.targetColumns.count == 1 && !joins.contains(where: { $0.table == fk.table }) {
            guard let target = fk.target, let si = entities.firstIndex(where: { $0.name == fk.table }),
                  let ti = entities.firstIndex(where: { $0.name == target }) else { continue }
            let column = fk.columns[0]
            let referenced = fk.targetColumns[0] == entities[ti].primaryKey ? nil : fk.targetColumns[0]
            let taken = { (e: ModelEntity, n: String) in e.hasProperty(named: n) }
            var name = SchemaInference.relationshipName(column: column, target: target)
            if taken(entities[si], name) { name = column + "_" + target }
            var inverse = fk.table
            if taken(entities[ti], inverse) || si == ti { inverse = "\(fk.table)_by_\(column)" }
            guard !taken(entities[si], name), !taken(entities[ti], inverse) else { continue }
            let onDelete = switch fk.onDelete { case "c": "CASCADE"; case "n": "SET NULL"; default: "NO ACTION" }
            entities[si].relationships.append(ModelRelationship(name, to: target, inverse: inverse, foreignKeyColumn: column,
                                                                referencedColumn: referenced))
            entities[ti].relationships.append(ModelRelationship(inverse, toMany: fk.table, inverse: name,
                                                                deleteRule: SchemaInference.deleteRule(onDelete)))
        }
        for table in JoinTableInference.addPairs(joins, to: &entities, sameTable: ==) { skipped[table] = JoinTableInference.unnamedReason }
        return (try StoreModel(entities, names: .postgreSQL), skipped, skippedColumns)
    }
}

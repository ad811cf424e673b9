/// Join tables in a database PQL did not create, for the SQLite and PostgreSQL inferences: a
/// table whose columns are exactly two single-column foreign keys to the keys of two tables of
/// the model (plus, optionally, its own single integer key) is a many-to-many pair rather than
/// an entity of its own, as an ORM's "has many through" reads it.
///
/// Each side is named after the other table (`note.tag`, `tag.note`), as an inferred to-many
/// is named after its source table; where that name is taken, `tag_by_note_tag` (the other
/// table, `_by_`, the join table), then `note_tag_by_tag_id` (the join table, `_by_`, the column
/// holding the other side's key); a join table whose sides find no free names is left out, with
/// that reason.
/// A table linking rows of one table (`person_friend(person_id, friend_id)`) names its sides
/// after the columns instead (`friend`, `person`).
package enum JoinTableInference {
    /// One single-column foreign key, as read from the database.
    package struct ForeignKey: Sendable {
        package var table: String
        package var column: String
        package var target: String
        /// The referenced column; nil for the target's primary key.
        package var targetColumn: String?
        /// `CASCADE`, `SET NULL`, `NO ACTION`, `RESTRICT`, `SET DEFAULT`.
        package var onDelete: String
        /// Which constraint it belongs to: a composite key's columns share one.
        package var constraint: Int64

        package init(table: String, column: String, target: String, targetColumn: String?, onDelete: String, constraint: Int64) {
            self.table = table
            self.column = column
            self.target = target
            self.targetColumn = targetColumn
            self.onDelete = onDelete
            self.constraint = constraint
        }
    }

    /// A join table found, with its two foreign keys (in column order).
    package struct Join: Sendable {
        package var table: String
        package var first: ForeignKey
        package var second: ForeignKey
    }

    /// The tables of `candidates` that are join tables by the rule above, linking tables of
    /// `entities`. A candidate may be a table that is no entity (an SQLite `WITHOUT ROWID`
    /// table keyed by its two columns: its primary key is then ""). `sameTable` compares a
    /// foreign key's target with a table name by the database's rules.
    package static func joinTables(_ candidates: [ModelEntity], linking entities: [ModelEntity], _ foreignKeys: [ForeignKey],
                                   sameTable: (String, String) -> Bool) -> [Join] {
        var out: [Join] = []
        for e in candidates {
            let fks = foreignKeys.filter { $0.table == e.name }
            guard fks.count == 2, fks[0].constraint != fks[1].constraint, fks[0].column != fks[1].column else { continue }
            // Its columns: the two keys, and its own key column when it has one besides them.
            var columns = Set(e.attributes.map(\.column))
            columns.remove(e.primaryKey)
            guard columns == Set(fks.map(\.column)), !fks.map(\.column).contains(e.primaryKey) else { continue }
            // Both lead to the key of another table that stays an entity.
            let targetsOK = fks.allSatisfy { fk in
                guard let target = entities.first(where: { sameTable($0.name, fk.target) }), target.name != e.name else { return false }
                return fk.targetColumn == nil || fk.targetColumn == target.primaryKey
            }
            guard targetsOK else { continue }
            out.append(Join(table: e.name, first: fks[0], second: fks[1]))
        }
        // A join table linking a join table stays an entity: its target is not one any more.
        return out.filter { j in !out.contains { o in sameTable(o.table, j.first.target) || sameTable(o.table, j.second.target) } }
    }

    /// Adds each join's pair of many-to-many relationships to its two entities; returns the
    /// join tables that found no free names (left out of the model, with that reason).
    @discardableResult
    package static func addPairs(_ joins: [Join], to entities: inout [ModelEntity], sameTable: (String, String) -> Bool) -> [String] {
        var unnamed: [String] = []
        let taken = { (e: ModelEntity, n: String) in e.hasProperty(named: n) }
        for j in joins {
            guard let ai = entities.firstIndex(where: { sameTable($0.name, j.first.target) }),
                  let bi = entities.firstIndex(where: { sameTable($0.name, j.second.target) }) else { continue }
            let a = entities[ai].name, b = entities[bi].name
            // a's side leads to b through (first.column → second.column); b's back.
            var aName = ai == bi ? SchemaInference.relationshipName(column: j.second.column, target: b) : b
            var bName = ai == bi ? SchemaInference.relationshipName(column: j.first.column, target: a) : a
            let aFallbacks = ai == bi ? ["\(j.table)_by_\(j.second.column)"] : ["\(b)_by_\(j.table)", "\(j.table)_by_\(j.second.column)"]
            let bFallbacks = ai == bi ? ["\(j.table)_by_\(j.first.column)"] : ["\(a)_by_\(j.table)", "\(j.table)_by_\(j.first.column)"]
            for f in aFallbacks where taken(entities[ai], aName) { aName = f }
            for f in bFallbacks where taken(entities[bi], bName) || (ai == bi && bName == aName) { bName = f }
            if taken(entities[ai], aName) || taken(entities[bi], bName) || (ai == bi && bName == aName) {
                unnamed.append(j.table)
                continue
            }
            entities[ai].relationships.append(ModelRelationship(aName, toMany: b, inverse: bName, deleteRule: deleteRule(j.first.onDelete),
                                                                joinTable: j.table, joinColumn: j.first.column, inverseJoinColumn: j.second.column))
            entities[bi].relationships.append(ModelRelationship(bName, toMany: a, inverse: aName, deleteRule: deleteRule(j.second.onDelete),
                                                                joinTable: j.table, joinColumn: j.second.column, inverseJoinColumn: j.first.column))
        }
        return unnamed
    }

    /// Why a join table is not in the model when its sides found no free names.
    package static let unnamedReason = "it is a join table, but the names for its many-to-many relationships are taken on the tables it links"

    /// What deleting an object does to its links, from the foreign key's ON DELETE: CASCADE
    /// and SET NULL drop the join rows (nullify: the linked objects stay); NO ACTION and
    /// RESTRICT refuse while links exist, as the database itself would with its foreign keys on.
    package static func deleteRule(_ onDelete: String) -> ModelRelationship.DeleteRule {
        switch onDelete {
        case "CASCADE", "SET NULL": .nullify
        default: .deny
        }
    }
}

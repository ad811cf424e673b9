import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Sets attributes (or to-one links) on every object an `EntityQuery` matches and returns
    /// how many changed, as the SQLite store's `batchUpdate(_:set:)` does: the values are
    /// checked by the rules `insert` applies in the SQLite store (an unknown key, a value of the
    /// wrong kind, nil for a non-optional attribute, a link to no object are errors), bound as
    /// parameters, and written by one `UPDATE` in one transaction. A predicate PostgreSQL
    /// cannot answer as PQL does is refused (`.unsupported`) before anything is written.
    ///
    /// ```swift
    /// let n = try await store.batchUpdate(try EntityQuery("flights", where: "dep_delay > 120"), set: ["cancelled": true])
    /// ```
    @discardableResult
    public func batchUpdate(_ query: EntityQuery, set values: [String: PredicateValue]) async throws(StoreError) -> Int {
        try await prepare()
        do throws(StoreError) {
            let model = self.model
            let e = try model.entity(named: query.entity)
            let plan = try InsertPlan(model: model, entity: e)
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let keys = BoundSQL(try postgresQuery(try builder.keys(), typed: builder.typedBindings))
            let assignments = try plan.assignments(values)
            guard !assignments.isEmpty else { throw StoreError(.invalidValue, "a batch update needs at least one value to set") }
            let root = model.root(e)
            var update = keys
            let sets = try assignments.map { (a) throws(StoreError) in
                "\(quote(a.column)) = \(try update.bind(a.value, column: a.column, of: root, model: model, given: values))"
            }
            let sql = "WITH changed AS (UPDATE \(qualified(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(quote(root.primaryKey)) IN (\(keys.sql)) RETURNING 1) SELECT count(*) FROM changed"
            return try await transaction("updating \(query.entity)") { connection in
                try await self.checkLinks(of: e, assignments: assignments, keys: keys, given: values, model: model, on: connection)
                return try await self.count(BoundSQL(sql: sql, binds: update.binds), on: connection)
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// Deletes every object an `EntityQuery` matches and returns how many, applying the delete
    /// rules of their relationships (nullify, cascade, deny) in the same transaction, as the
    /// SQLite store's `batchDelete(_:)` does: all or nothing, with the SQLite store's errors
    /// (kind `.constraint`) when a deny rule or a non-optional inverse stops it. Cascades end
    /// where nothing is left to delete, so a model that cascades to its own entity (a tree)
    /// deletes whole subtrees, which the SQLite store refuses at its depth limit.
    ///
    /// ```swift
    /// let n = try await store.batchDelete(try EntityQuery("flights", where: "year < 2013"))
    /// ```
    @discardableResult
    public func batchDelete(_ query: EntityQuery) async throws(StoreError) -> Int {
        try await prepare()
        do throws(StoreError) {
            let model = self.model
            let e = try model.entity(named: query.entity)
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let keys = BoundSQL(try postgresQuery(try builder.keys(), typed: builder.typedBindings))
            return try await transaction("deleting from \(query.entity)") { connection in
                try await self.deleteRows(of: e, keys: keys, model: model, on: connection)
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// Changes attributes (or to-one links) of one object, as the SQLite store's
    /// `update(_:id:_:)`: an object that does not exist is an error.
    ///
    /// ```swift
    /// try await store.update("airlines", id: ua, ["name": "United Airlines"])
    /// ```
    public func update(_ entity: String, id: Int64, _ values: [String: PredicateValue]) async throws(StoreError) {
        try await prepare()
        let model = self.model
        let e = try model.entity(named: entity)
        let plan = try InsertPlan(model: model, entity: e)
        let (values, joined) = try plan.manyToManyLinks(values)
        let assignments = try plan.assignments(values)
        guard !assignments.isEmpty || !joined.isEmpty else { return }
        let root = model.root(e)
        var binds = PostgresBindings()
        binds.append(id)
        let keys = BoundSQL(sql: "SELECT \(quote(root.primaryKey)) FROM \(qualified(root.table)) WHERE \(quote(root.primaryKey)) = $1", binds: binds)
        var update = keys
        let sets = try assignments.map { (a) throws(StoreError) in
            "\(quote(a.column)) = \(try update.bind(a.value, column: a.column, of: root, model: model, given: values))"
        }
        let sql = "WITH changed AS (UPDATE \(qualified(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(quote(root.primaryKey)) = $1 RETURNING 1) SELECT count(*) FROM changed"
        try await transaction("updating \(entity)") { connection in
            if assignments.isEmpty {
                try await self.requireObjects(e, [id], as: "there is no \(entity) with key", kind: .invalidValue, model: model, on: connection)
            } else {
                try await self.checkLinks(of: e, assignments: assignments, keys: keys, given: values, model: model, on: connection)
                guard try await self.count(BoundSQL(sql: sql, binds: update.binds), on: connection) == 1 else {
                    throw StoreError(.invalidValue, "there is no \(entity) with key \(id)")
                }
            }
            // A many-to-many given to an update is the object's whole set of links.
            for (r, join, keys) in joined { try await self.setLinks(r, join, from: e, id: id, to: keys, model: model, on: connection) }
        }
    }

    /// Deletes one object, applying its relationships' delete rules, as the SQLite store's
    /// `delete(_:id:)`: an object that does not exist is an error.
    ///
    /// ```swift
    /// try await store.delete("airlines", id: ua)   // its flights go too if the rule is .cascade
    /// ```
    public func delete(_ entity: String, id: Int64) async throws(StoreError) {
        try await prepare()
        let model = self.model
        let e = try model.entity(named: entity)
        let root = model.root(e)
        var binds = PostgresBindings()
        binds.append(id)
        let keys = BoundSQL(sql: "SELECT \(quote(root.primaryKey)) FROM \(qualified(root.table)) WHERE \(quote(root.primaryKey)) = $1", binds: binds)
        try await transaction("deleting from \(entity)") { connection in
            guard try await self.deleteRows(of: e, keys: keys, model: model, on: connection) == 1 else {
                throw StoreError(.invalidValue, "there is no \(entity) with key \(id)")
            }
        }
    }

    /// The one number a `SELECT count(*)` gives.
    func count(_ statement: BoundSQL, on connection: PostgresConnection) async throws -> Int {
        var n = 0
        for try await row in try await connection.statement(statement.query, logger: logger) { n = Int(try row.decode(Int64.self)) }
        return n
    }

    /// Whether a statement gives any row.
    func exists(_ statement: BoundSQL, on connection: PostgresConnection) async throws -> Bool {
        var found = false
        for try await _ in try await connection.statement(statement.query, logger: logger) { found = true }
        return found
    }

    /// A temporary table of rows to delete from `table` (see `deleteRows`).
    struct SlatedRows: Sendable {
        var table: String
        var temp: String
        var key: String
        /// The join tables' columns holding these rows' keys: their links go with them.
        var links: [JoinRows] = []
    }

    /// The rows of a many-to-many's join table whose `column` holds a deleted object's key.
    struct JoinRows: Sendable {
        var table: String
        var column: String
    }

    /// Deletes the rows of `entity` that `keys` selects and returns how many, with everything
    /// their delete rules take along (`slate`), in one statement at the end: PostgreSQL checks
    /// foreign keys at the end of each statement, and rows that link to each other (a tree
    /// cascading both ways) can only go together.
    private func deleteRows(of entity: ModelEntity, keys: BoundSQL, model: StoreModel, on connection: PostgresConnection) async throws -> Int {
        var slated: [SlatedRows] = []
        try await slate(entity, keys: keys, depth: 0, slated: &slated, model: model, on: connection)
        // The first table slated holds the rows `keys` selects, or none was: nothing matched.
        guard !slated.isEmpty else { return 0 }
        var parts: [String] = []
        for (i, s) in slated.enumerated() {
            parts.append("d\(i) AS (DELETE FROM \(qualified(s.table)) WHERE \(quote(s.key)) IN (SELECT \(quote(s.key)) FROM pg_temp.\(quote(s.temp))) RETURNING 1)")
            // Their many-to-many links, in the same statement: the join table's foreign keys
            // are checked at its end.
            for (k, j) in s.links.enumerated() {
                parts.append("l\(i)_\(k) AS (DELETE FROM \(qualified(j.table)) WHERE \(quote(j.column)) IN (SELECT \(quote(s.key)) FROM pg_temp.\(quote(s.temp))))")
            }
        }
        let deleted = try await count(BoundSQL(sql: "WITH \(parts.joined(separator: ", ")) SELECT count(*) FROM d0"), on: connection)
        for s in slated { try await connection.run(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS pg_temp.\(quote(s.temp))"), logger: logger) }
        return deleted
    }

    /// Copies the rows of `entity` that `keys` selects (but no row slated already) to a
    /// temporary table added to `slated`, then follows their delete rules as the SQLite store
    /// does (same order of checks, same errors): deny refuses, nullify unlinks (refusing when
    /// the inverse is not optional), cascade slates the related rows. A row slated already is
    /// not slated again, which ends cascades that loop back; an empty set ends a cascade.
    private func slate(_ entity: ModelEntity, keys: BoundSQL, depth: Int, slated: inout [SlatedRows],
                       model: StoreModel, on connection: PostgresConnection) async throws {
        let root = model.root(entity)
        let temp = "pql_deleted_\(slated.count)"
        let tempTable = "pg_temp.\(quote(temp))"
        let relationships = model.descendants(entity).flatMap { model.allRelationships($0) }
            .reduce(into: [ModelRelationship]()) { acc, r in if !acc.contains(r) { acc.append(r) } }
        var columns = [root.primaryKey]
        var links: [String: (local: String, remote: String, destination: ModelEntity)] = [:]
        for r in relationships where !r.isManyToMany {
            let l = try Self.link(r, from: entity, model: model)
            links[r.name] = l
            if r.deleteRule != .noAction && !columns.contains(l.local) { columns.append(l.local) }
        }
        let unguarded = model.linksWithoutRule(into: entity)
        for (_, r) in unguarded {
            let referenced = r.referencedColumn ?? root.primaryKey
            if !columns.contains(referenced) { columns.append(referenced) }
        }
        /// ` AND key NOT IN (…)` for the rows of `table` deleted further up.
        func notSlated(_ table: String, key: String, in list: [SlatedRows]) -> String {
            list.filter { $0.table == table }.map { " AND \(key) NOT IN (SELECT \(quote($0.key)) FROM pg_temp.\(quote($0.temp)))" }.joined()
        }
        let selected = columns.map(quote).joined(separator: ", ")
        try await connection.run(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(tempTable)"), logger: logger)
        try await connection.run(PostgresQuery(unsafeSQL: "CREATE TEMP TABLE \(quote(temp)) AS SELECT \(selected) FROM \(qualified(root.table)) WITH NO DATA"), logger: logger)
        var copy = keys
        copy.sql = "WITH copied AS (INSERT INTO \(tempTable) SELECT \(selected) FROM \(qualified(root.table)) WHERE \(quote(root.primaryKey)) IN (\(keys.sql))"
            + notSlated(root.table, key: quote(root.primaryKey), in: slated) + " RETURNING 1) SELECT count(*) FROM copied"
        // Nothing to delete ends the cascade here (a model that cascades to its own entity,
        // a tree, would otherwise recurse on empty sets to the depth limit).
        guard try await count(copy, on: connection) > 0 else {
            try await connection.run(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(tempTable)"), logger: logger)
            return
        }
        slated.append(SlatedRows(table: root.table, temp: temp, key: root.primaryKey))
        let mine = slated.count - 1

        // Many-to-many links: deny refuses while there are any, cascade slates the linked
        // objects, and under every rule the deleted objects' join rows go (see `deleteRows`).
        for r in relationships where r.isManyToMany {
            let join = try model.joinLink(of: r, on: entity)
            if !slated[mine].links.contains(where: { $0.table == join.table && $0.column == join.sourceColumn }) {
                slated[mine].links.append(JoinRows(table: join.table, column: join.sourceColumn))
            }
            let dest = try model.entity(named: r.destination)
            let destRoot = model.root(dest)
            let related = "SELECT \(quote(destRoot.primaryKey)) FROM \(qualified(destRoot.table)) WHERE \(quote(destRoot.primaryKey)) IN "
                + "(SELECT \(quote(join.destinationColumn)) FROM \(qualified(join.table)) WHERE \(quote(join.sourceColumn)) IN (SELECT \(quote(root.primaryKey)) FROM \(tempTable)))"
                + notSlated(destRoot.table, key: quote(destRoot.primaryKey), in: slated)
            switch r.deleteRule {
            case .deny:
                if try await exists(BoundSQL(sql: related + " LIMIT 1"), on: connection) {
                    throw StoreError(.constraint, "cannot delete \(entity.name): its relationship '\(r.name)' has the deny rule and still links \(r.destination) objects",
                                     hint: "unlink the related \(r.destination) objects first (unlink), or delete them")
                }
            case .cascade:
                try await slate(dest, keys: BoundSQL(sql: related), depth: depth + 1, slated: &slated, model: model, on: connection)
            case .nullify, .noAction:
                break
            }
        }

        for r in relationships where r.deleteRule != .noAction {
            guard let l = links[r.name] else { continue }
            let destRoot = model.root(l.destination)
            let related = "SELECT \(quote(destRoot.primaryKey)) FROM \(qualified(destRoot.table)) WHERE \(quote(l.remote)) IN (SELECT \(quote(l.local)) FROM \(tempTable))"
                + notSlated(destRoot.table, key: quote(destRoot.primaryKey), in: slated)
            switch r.deleteRule {
            case .noAction:
                continue
            case .deny:
                if try await exists(BoundSQL(sql: related + " LIMIT 1"), on: connection) {
                    throw StoreError(.constraint, "cannot delete \(entity.name): its relationship '\(r.name)' has the deny rule and still has \(r.destination) objects",
                                     hint: "delete or unlink the related \(r.destination) objects first")
                }
            case .nullify:
                // A to-one's link is in the deleted row itself; a to-many's is on the other side.
                guard r.isToMany else { continue }
                let inverse = try model.storingInverse(of: r, on: entity)
                if !inverse.isOptional, try await exists(BoundSQL(sql: related + " LIMIT 1"), on: connection) {
                    throw StoreError(.constraint, "cannot delete \(entity.name): the nullify rule of '\(r.name)' would leave \(r.destination) objects without \(inverse.name), which is not optional",
                                     hint: "delete or relink those \(r.destination) objects first, or give '\(r.name)' the cascade rule")
                }
                try await connection.run(PostgresQuery(unsafeSQL: "UPDATE \(qualified(destRoot.table)) SET \(quote(l.remote)) = NULL WHERE \(quote(l.remote)) IN (SELECT \(quote(l.local)) FROM \(tempTable))"), logger: logger)
            case .cascade:
                try await slate(l.destination, keys: BoundSQL(sql: related), depth: depth + 1, slated: &slated, model: model, on: connection)
            }
        }
        // Links no delete rule covers (a to-one without an inverse) must not be left dangling.
        for (source, r) in unguarded {
            let sourceRoot = model.root(source)
            let referenced = r.referencedColumn ?? root.primaryKey
            let sql = "SELECT 1 FROM \(qualified(sourceRoot.table)) WHERE \(quote(r.foreignKeyColumn)) IN (SELECT \(quote(referenced)) FROM \(tempTable))"
                + notSlated(sourceRoot.table, key: quote(sourceRoot.primaryKey), in: slated) + " LIMIT 1"
            if try await exists(BoundSQL(sql: sql), on: connection) {
                throw StoreError(.constraint, "cannot delete \(entity.name): \(source.name) objects still link to it through \(source.name).\(r.name), which has no inverse to carry a delete rule",
                                 hint: "delete or relink those \(source.name) objects first, or give \(source.name).\(r.name) an inverse with a delete rule")
            }
        }
    }

    /// The columns a relationship joins on: for a to-one its key column here and the column
    /// it refers to there; for a to-many the column its inverse refers to here and the
    /// inverse's key column there.
    static func link(_ r: ModelRelationship, from entity: ModelEntity, model: StoreModel) throws(StoreError) -> (local: String, remote: String, destination: ModelEntity) {
        let dest = try model.entity(named: r.destination)
        if r.isToMany {
            let inverse = try model.storingInverse(of: r, on: entity)
            return (inverse.referencedColumn ?? model.root(entity).primaryKey, inverse.foreignKeyColumn, dest)
        }
        return (r.foreignKeyColumn, r.referencedColumn ?? model.root(dest).primaryKey, dest)
    }

    /// Before an update of the objects `keys` selects: the new values of key columns must name
    /// existing objects, and a changed attribute that other objects' links refer to must not
    /// leave them linking to nothing (the SQLite store's checks and errors).
    func checkLinks(of entity: ModelEntity, assignments: [(column: String, value: SQLValue)], keys: BoundSQL,
                    given: [String: PredicateValue], model: StoreModel, on connection: PostgresConnection) async throws {
        let root = model.root(entity)
        for (column, value) in assignments {
            for r in model.allRelationships(entity) where !r.isToMany && r.foreignKeyColumn == column {
                try await checkLinkTarget(r, from: entity, value: value, model: model, on: connection)
            }
            for source in model.entities {
                for r in source.relationships where !r.isToMany {
                    guard let dest = try? model.entity(named: r.destination), model.root(dest).name == root.name,
                          (r.referencedColumn ?? root.primaryKey) == column else { continue }
                    let sourceRoot = model.root(source)
                    var check = keys
                    let placeholder = try check.bind(value, column: column, of: root, model: model, given: given)
                    check.sql = "SELECT 1 FROM \(qualified(sourceRoot.table)) WHERE \(quote(r.foreignKeyColumn)) IN (SELECT \(quote(column)) FROM \(qualified(root.table)) WHERE \(quote(root.primaryKey)) IN (\(keys.sql)) AND \(quote(column)) IS DISTINCT FROM \(placeholder)) LIMIT 1"
                    if try await exists(check, on: connection) {
                        let name = model.allAttributes(entity).first { $0.column == column }?.name ?? column
                        throw StoreError(.constraint, "changing \(entity.name).\(name) would leave \(source.name) objects linking to no \(dest.name) through \(source.name).\(r.name), which refers to \(name)",
                                         hint: "relink or delete those \(source.name) objects first")
                    }
                }
            }
        }
    }

    /// Refuses `value` in the key column of `r` (a to-one of `entity`) when no object has it.
    func checkLinkTarget(_ r: ModelRelationship, from entity: ModelEntity, value: SQLValue,
                                 model: StoreModel, on connection: PostgresConnection) async throws {
        guard value != .null else { return }
        let dest = try model.entity(named: r.destination)
        let destRoot = model.root(dest)
        let referenced = r.referencedColumn ?? destRoot.primaryKey
        var check = BoundSQL(sql: "")
        let placeholder = try check.bind(value, column: referenced, of: destRoot, model: model, given: [:])
        check.sql = "SELECT 1 FROM \(qualified(destRoot.table)) WHERE \(quote(referenced)) = \(placeholder)"
        if dest.parent != nil {
            // The link names a sub-entity: a row of another entity in the shared table does not count.
            check.sql += " AND \(quote(StoreSchemaNames.entityColumn)) IN (\(model.descendants(dest).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
        }
        check.sql += " LIMIT 1"
        guard try await exists(check, on: connection) else {
            let keyName = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c }?.name } ?? "key"
            throw StoreError(.constraint, "\(entity.name).\(r.name) would link to no \(dest.name): none has \(keyName) \(value)",
                             hint: "insert that \(dest.name) first, or give the \(keyName) of an existing one")
        }
    }
}

/// SQL with its parameters bound, to which more parameters can be added (`$n` counts on).
struct BoundSQL: Sendable {
    var sql: String
    var binds: PostgresBindings

    init(sql: String, binds: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.binds = binds
    }

    init(_ query: PostgresQuery) {
        self.init(sql: query.sql, binds: query.binds)
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }

    /// Binds a value the SQLite store's rules checked for `column` of `root`'s table (a date as
    /// seconds since 2001, a boolean as 0 or 1) as the column's PostgreSQL type, and returns
    /// its placeholder with the cast. A decimal given as such keeps its digits.
    mutating func bind(_ value: SQLValue, column: String, of root: ModelEntity, model: StoreModel,
                       given: [String: PredicateValue]) throws(StoreError) -> String {
        let attributes = model.descendants(root).flatMap { model.allAttributes($0) }
        var type = AttributeType.integer64
        var original: PredicateValue? = nil
        if let a = attributes.first(where: { $0.column == column }) {
            type = a.type
            original = given[a.name]
        } else if let r = model.descendants(root).flatMap({ model.allRelationships($0) }).first(where: { !$0.isToMany && $0.foreignKeyColumn == column }),
                  let referenced = r.referencedColumn, let dest = try? model.entity(named: r.destination),
                  let a = model.allAttributes(dest).first(where: { $0.column == referenced }) {
            type = a.type
        }
        switch (value, type) {
        case (.null, _): binds.appendNull()
        case (.real(let d), .date): binds.append(try PostgresTimestamp(Date(timeIntervalSinceReferenceDate: d)))
        case (.integer(let i), .date): binds.append(try PostgresTimestamp(Date(timeIntervalSinceReferenceDate: Double(i))))
        case (.integer(let i), .boolean): binds.append(i != 0)
        case (_, .decimal) where original?.decimalValue != nil:
            do { try binds.append(original!.decimalValue!) } catch {
                throw StoreError(.invalidValue, "the decimal \(original!) cannot be sent to PostgreSQL", hint: "give a finite decimal")
            }
        case (.integer(let i), _): binds.append(i)
        case (.real(let d), _): binds.append(d)
        case (.text(let t), _):
            if t.utf8.contains(0) {
                throw StoreError(.unsupported, "text with the character U+0000 cannot be sent to PostgreSQL",
                                 hint: "PostgreSQL's text holds no U+0000 (no stored value has one): leave it out of the value")
            }
            binds.append(t)
        case (.blob(let b), _): binds.append(ByteBuffer(bytes: b))
        }
        return "$\(binds.count)::\(PostgresSchemaDDL.columnType(type))"
    }
}

private extension PredicateValue {
    var decimalValue: Decimal? {
        if case .decimal(let d) = self { return d }
        return nil
    }
}

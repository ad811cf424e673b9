import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Inserts an object, or updates the one that already has its value of the unique
    /// attribute `key`, and returns the object's key either way: the SQLite store's
    /// `upsert(_:_:onConflict:)`, with its rules and errors.
    ///
    /// An update changes only the keys `values` names; an insert gives the others their
    /// defaults, as ``insert(_:_:)-(String,[String:PredicateValue])`` does. An `UPDATE` by
    /// `key`, then, when no object has it, `INSERT … ON CONFLICT (key) DO UPDATE` on the unique
    /// index `createTables()` made for `key`: two servers upserting the same key at once end
    /// with one object (the loser of such a race leaves a gap in the keys, as PostgreSQL's
    /// sequences do).
    ///
    /// ```swift
    /// let ua = try await store.upsert("airlines", ["carrier": "UA", "name": "United"], onConflict: "carrier")
    /// ```
    /// - Throws: `StoreError` when `key` is not a unique attribute of the entity, when `values`
    ///   has no value for it, or when a value or link is invalid.
    @discardableResult
    public func upsert(_ entity: String, _ values: [String: PredicateValue], onConflict key: String) async throws(StoreError) -> Int64 {
        try await prepare()
        let model = self.model
        let e = try model.entity(named: entity)
        let plan = try InsertPlan(model: model, entity: e)
        let a = try model.upsertKey(key, of: e)
        guard let given = values[key], !given.isNull else {
            throw StoreError(.invalidValue, "an upsert of \(e.name) by \(key) needs a value for \(key)",
                             hint: "add \"\(key)\" to the values: it decides which \(e.name) is updated")
        }
        let root = model.root(e)
        let row = try plan.row(values)
        let columns = plan.columnNames
        let sent = plan.sentColumns(values, row: row)
        var statement = BoundSQL(sql: "")
        let placeholders = try sent.map { (i) throws(StoreError) in
            try statement.bind(row[i], column: columns[i], of: root, model: model, given: values)
        }
        // The update sets what `values` names (the key itself when nothing else is named: a
        // no-op that lets RETURNING answer).
        let assignments = try plan.assignments(values)
        var sets = assignments.map { "\(quote($0.column)) = EXCLUDED.\(quote($0.column))" }
        if sets.isEmpty { sets = ["\(quote(a.column)) = EXCLUDED.\(quote(a.column))"] }
        // In an inheritance tree the object found must be of this entity or below it.
        let kind = model.isInheritanceTree(e)
            ? "t.\(quote(StoreSchemaNames.entityColumn)) IN (\(model.descendants(e).map { String(model.entityNumber($0)) }.joined(separator: ", ")))"
            : nil
        statement.sql = "INSERT INTO \(qualified(root.table)) AS t (\(sent.map { quote(columns[$0]) }.joined(separator: ", "))) "
            + "VALUES (\(placeholders.joined(separator: ", "))) ON CONFLICT (\(quote(a.column))) DO UPDATE SET "
            + sets.joined(separator: ", ") + (kind.map { " WHERE " + $0 } ?? "") + " RETURNING t.\(quote(root.primaryKey))"
        // An UPDATE first: INSERT … ON CONFLICT takes a key from the identity sequence even when
        // it updates, so upserting an existing object would leave gaps the SQLite store does
        // not; the INSERT still decides when another writer inserts the key in between.
        var update = BoundSQL(sql: "")
        let keyColumn = columns.firstIndex(of: a.column).map { row[$0] } ?? .null
        let keyPlaceholder = try update.bind(keyColumn, column: a.column, of: root, model: model, given: values)
        var updateSets = try assignments.map { (x) throws(StoreError) in
            "\(quote(x.column)) = \(try update.bind(x.value, column: x.column, of: root, model: model, given: values))"
        }
        if updateSets.isEmpty { updateSets = ["\(quote(a.column)) = t.\(quote(a.column))"] }
        update.sql = "UPDATE \(qualified(root.table)) AS t SET \(updateSets.joined(separator: ", ")) WHERE t.\(quote(a.column)) = \(keyPlaceholder)"
            + (kind.map { " AND " + $0 } ?? "") + " RETURNING t.\(quote(root.primaryKey))"
        let links = plan.linkColumns()
        let keyText = given.description
        return try await transaction("upserting into \(entity)") { connection in
            for (index, r) in links { try await self.checkLinkTarget(r, from: e, value: row[index], model: model, on: connection) }
            var id: Int64?
            for try await r in try await connection.statement(update.query, logger: self.logger) { id = try r.decode(Int64.self) }
            if let id { return id }
            for try await r in try await connection.statement(statement.query, logger: self.logger) { id = try r.decode(Int64.self) }
            guard let id else {
                throw StoreError(.constraint, "another kind of object in \(e.name)'s table already has \(key) \(keyText)",
                                 hint: "upsert into that object's own entity, or choose another \(key)")
            }
            if sent.contains(where: { columns[$0] == root.primaryKey }) { try await self.advanceKeySequence(of: root, on: connection) }
            return id
        }
    }

    /// Upserts an `Encodable` value (encoded as ``insert(_:encoding:)`` encodes it) by the
    /// unique attribute `key`, and returns the object's key.
    ///
    /// ```swift
    /// struct Airline: Encodable { var carrier: String; var name: String }
    /// let ua = try await store.upsert("airlines", encoding: Airline(carrier: "UA", name: "United"), onConflict: "carrier")
    /// ```
    @discardableResult
    public func upsert<T: Encodable>(_ entity: String, encoding value: T, onConflict key: String) async throws(StoreError) -> Int64 {
        try await upsert(entity, try PredicateStore.dictionary(encoding: value), onConflict: key)
    }
}

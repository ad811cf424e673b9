import Foundation
import PQL

extension PredicateStore {
    /// Inserts an object, or updates the one that already has its value of the unique
    /// attribute `key` (what SQL's `INSERT … ON CONFLICT (key) DO UPDATE` does), and returns
    /// the object's key either way.
    ///
    /// An update changes only the keys `values` names; an insert gives the others their
    /// defaults, as `insert(_:_:)` does. Values are checked as insert and update check them,
    /// links must name existing objects, and the lookup and the write run in one immediate
    /// transaction (SQLite's write lock is taken first), so two writers upserting the same key
    /// (two stores on one file, or threads) end with one object.
    ///
    /// ```swift
    /// let ua = try store.upsert("Airline", ["carrier": "UA", "name": "United"], onConflict: "carrier")
    /// ```
    /// - Throws: ``StoreError`` when `key` is not a unique attribute of the entity, when
    ///   `values` has no value for it, or when a value or link is invalid.
    @discardableResult
    public func upsert(_ entity: String, _ values: [String: PredicateValue], onConflict key: String) throws(StoreError) -> Int64 {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let plan = try InsertPlan(model: model, entity: e)
            let a = try uniqueAttribute(key, of: e)
            guard let given = values[key], !given.isNull else {
                throw StoreError(.invalidValue, "an upsert of \(e.name) by \(key) needs a value for \(key)",
                                 hint: "add \"\(key)\" to the values: it decides which \(e.name) is updated")
            }
            let keyValue = try RecordCodec.sqlValue(given, for: a, entity: e.name)
            let q = SQLIdentifier.quote
            let root = model.root(e)
            let tree = model.isInheritanceTree(e)
            return try connection.transaction { () throws(StoreError) -> Int64 in
                let columns = q(root.primaryKey) + (tree ? ", \(q(StoreSchema.entityColumn))" : "")
                let find = try connection.prepare("SELECT \(columns) FROM \(q(root.table)) WHERE \(q(a.column)) = ?1 LIMIT 1", cached: true)
                try find.bind([keyValue])
                // Read, then let go of the statement before writing to its table.
                let found: (id: Int64, entityNumber: Int64)?
                do throws(StoreError) {
                    found = try find.step() ? (find.int64(0), tree ? find.int64(1) : 0) : nil
                    find.reset()
                } catch {
                    find.reset()
                    throw error
                }
                guard let found else {
                    let row = try plan.row(values)
                    for (index, r) in plan.linkColumns() { try checkLinkTarget(r, from: e, value: row[index]) }
                    let s = try connection.prepare(plan.sql, cached: true)
                    try s.run(row)
                    return connection.lastInsertRowID
                }
                let id = found.id
                if tree, !model.descendants(e).contains(where: { Int64(model.entityNumber($0)) == found.entityNumber }) {
                    throw StoreError(.constraint, "another kind of object in \(e.name)'s table already has \(key) \(keyValue)",
                                     hint: "upsert into that object's own entity, or choose another \(key)")
                }
                let assignments = try plan.assignments(values)
                let keys = CompiledSQL(sql: "SELECT \(q(root.primaryKey)) FROM \(q(root.table)) WHERE \(q(root.primaryKey)) = ?1",
                                       bindings: [.integer(id)])
                try checkLinks(of: e, assignments: assignments, keys: keys)
                var sets: [String] = [], bindings: [SQLValue] = []
                for (column, value) in assignments {
                    bindings.append(value)
                    sets.append("\(q(column)) = ?\(bindings.count)")
                }
                bindings.append(.integer(id))
                let s = try connection.prepare("UPDATE \(q(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(q(root.primaryKey)) = ?\(bindings.count)")
                try s.run(bindings)
                return id
            }
        }
    }

    /// Upserts an `Encodable` value (encoded as ``insert(_:encoding:)`` encodes it) by the
    /// unique attribute `key`, and returns the object's key.
    ///
    /// ```swift
    /// struct Airline: Encodable { var carrier: String; var name: String }
    /// let ua = try store.upsert("Airline", encoding: Airline(carrier: "UA", name: "United"), onConflict: "carrier")
    /// ```
    @discardableResult
    public func upsert<T: Encodable>(_ entity: String, encoding value: T, onConflict key: String) throws(StoreError) -> Int64 {
        try upsert(entity, try Self.dictionary(encoding: value), onConflict: key)
    }

    /// The attribute `key` of `entity` when the model makes it unique on its own (its `unique`
    /// flag, or a uniqueness constraint of that one attribute), as an upsert needs.
    private func uniqueAttribute(_ key: String, of e: ModelEntity) throws(StoreError) -> ModelAttribute {
        try model.upsertKey(key, of: e)
    }
}

extension StoreModel {
    /// The attribute an upsert of `e` by `key` looks objects up by: it must be unique (on its
    /// own or as a one-attribute uniqueness group), in both stores.
    package func upsertKey(_ key: String, of e: ModelEntity) throws(StoreError) -> ModelAttribute {
        let attributes = allAttributes(e)
        guard let a = attributes.first(where: { $0.name == key }) else {
            throw StoreError.unknownKey(key, entity: e.name, candidates: attributes.map(\.name))
        }
        let groups = lineage(e).flatMap(\.uniqueness)
        // The declared key attribute is the table's primary key: unique without saying so.
        let isKey = SQLName.key(a.column) == SQLName.key(root(e).primaryKey)
        guard a.isUnique || isKey || groups.contains([key]) else {
            let unique = attributes.filter { b in b.isUnique || groups.contains([b.name]) }.map(\.name)
            throw StoreError(.invalidValue, "\(e.name).\(key) is not unique, so it cannot pick the one \(e.name) an upsert updates",
                             hint: unique.isEmpty ? "mark \(key) unique in the model (\"unique\": true)"
                                 : "upsert by a unique attribute (\(unique.joined(separator: ", "))), or mark \(key) unique in the model")
        }
        return a
    }
}

import Foundation
import PQL

extension PredicateStore {
    /// Inserts one object and returns its key. Keys are attribute names, to-one relationship
    /// names (whose value is the related object's key) and many-to-many relationship names
    /// (an array of keys: one link each); missing attributes take their default. Unknown keys,
    /// values of the wrong type and keys no related object has are errors.
    ///
    /// ```swift
    /// let ua = try store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ values: [String: PredicateValue]) throws(StoreError) -> Int64 {
        try insert(entity, [values])[0]
    }

    /// Inserts objects in one transaction (all or none) and returns their keys.
    ///
    /// ```swift
    /// try store.insert("Flight", [["dest": "SFO", "airline": .int(ua)], ["dest": "LAX", "airline": .int(ua)]])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ objects: [[String: PredicateValue]]) throws(StoreError) -> [Int64] {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let plan = try InsertPlan(model: model, entity: e)
            return try connection.transaction { () throws(StoreError) in
                var ids: [Int64] = []
                ids.reserveCapacity(objects.count)
                let s = try connection.prepare(plan.sql, cached: true)
                let links = plan.linkColumns()
                for o in objects {
                    let (plain, joined) = try plan.manyToManyLinks(o)
                    let row = try plan.row(plain)
                    for (index, r) in links { try checkLinkTarget(r, from: e, value: row[index]) }
                    try s.run(row)
                    let id = connection.lastInsertRowID
                    for (r, join, keys) in joined { _ = try addLinks(r, join, from: e, id: id, to: keys) }
                    ids.append(id)
                }
                return ids
            }
        }
    }

    /// Inserts an `Encodable` value (encoded with `JSONEncoder`'s defaults; dates become
    /// seconds since 2001, as the store keeps them).
    ///
    /// ```swift
    /// struct Airline: Encodable { var carrier: String; var name: String }
    /// let aa = try store.insert("Airline", encoding: Airline(carrier: "AA", name: "American Airlines Inc."))
    /// ```
    @discardableResult
    public func insert<T: Encodable>(_ entity: String, encoding value: T) throws(StoreError) -> Int64 {
        try insert(entity, [try Self.dictionary(encoding: value)])[0]
    }

    package static func dictionary<T: Encodable>(encoding value: T) throws(StoreError) -> [String: PredicateValue] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) } catch {
            throw StoreError(.invalidValue, "cannot encode \(T.self): \(error)")
        }
        guard let d = object as? [String: Any] else {
            throw StoreError(.invalidValue, "\(T.self) does not encode as an object with named properties")
        }
        var out: [String: PredicateValue] = [:]
        for (k, v) in d {
            guard let value = PredicateValue(any: v) else {
                throw StoreError(.invalidValue, "\(T.self).\(k) encodes as \(type(of: v)), which has no predicate value",
                                 hint: "give the property a string, number, boolean, date or data type")
            }
            out[k] = value
        }
        return out
    }

    /// Rows given column by column, for imports: `columns` name attributes (and to-one
    /// relationships, by the key of the object each links to); one prepared statement, one
    /// transaction, all rows or none. Each value is converted by its attribute's rules, as
    /// `insert(_:_:)` converts it; an error names the row (`row 3: …`), counted from 1.
    ///
    /// ```swift
    /// try store.insertRows("Airport", columns: ["faa", "name"], rows: [["JFK", "John F Kennedy Intl"], ["LGA", "La Guardia"]])
    /// ```
    @discardableResult
    public func insertRows(_ entity: String, columns: [String], rows: [[PredicateValue]]) throws(StoreError) -> Int {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let plan = try InsertPlan(model: model, entity: e, columns: columns)
            return try connection.transaction { () throws(StoreError) in
                let s = try connection.prepare(plan.sql, cached: true)
                let slots = plan.slots()
                var n = 0
                for r in rows {
                    do throws(StoreError) {
                        try plan.bind(positional: r, rowNumber: n + 1, slots: slots, into: s)
                        while try s.step() {}
                    } catch {
                        throw InsertPlan.naming(row: n + 1, error)
                    }
                    n += 1
                }
                return n
            }
        }
    }

    /// Changes attributes (or to-one links) of one object.
    ///
    /// ```swift
    /// try store.update("Airline", id: ua, ["name": "United Airlines"])
    /// ```
    public func update(_ entity: String, id: Int64, _ values: [String: PredicateValue]) throws(StoreError) {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let plan = try InsertPlan(model: model, entity: e)
            let (plain, joined) = try plan.manyToManyLinks(values)
            let assignments = try plan.assignments(plain)
            guard !assignments.isEmpty || !joined.isEmpty else { return }
            var sets: [String] = [], bindings: [SQLValue] = []
            for (column, value) in assignments {
                bindings.append(value)
                sets.append("\(SQLIdentifier.quote(column)) = ?\(bindings.count)")
            }
            bindings.append(.integer(id))
            let root = model.root(e)
            let keys = CompiledSQL(sql: "SELECT \(SQLIdentifier.quote(root.primaryKey)) FROM \(SQLIdentifier.quote(root.table)) WHERE \(SQLIdentifier.quote(root.primaryKey)) = ?1",
                                   bindings: [.integer(id)])
            try checkLinks(of: e, assignments: assignments, keys: keys)
            try connection.transaction { () throws(StoreError) in
                if assignments.isEmpty {
                    try requireObjects(e, [id], as: "there is no \(entity) with key", kind: .invalidValue)
                } else {
                    let s = try connection.prepare("UPDATE \(SQLIdentifier.quote(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(SQLIdentifier.quote(root.primaryKey)) = ?\(bindings.count)")
                    try s.run(bindings)
                    guard connection.changes == 1 else { throw StoreError(.invalidValue, "there is no \(entity) with key \(id)") }
                }
                // A many-to-many given to an update is the object's whole set of links.
                for (r, join, keys) in joined { try setLinks(r, join, from: e, id: id, to: keys) }
            }
        }
    }

    /// Deletes one object, applying its relationships' delete rules.
    ///
    /// ```swift
    /// try store.delete("Airline", id: ua)   // its flights go too if the rule is .cascade
    /// ```
    public func delete(_ entity: String, id: Int64) throws(StoreError) {
        try locked { () throws(StoreError) in
            let e = try model.entity(named: entity)
            let root = model.root(e)
            let keys = CompiledSQL(sql: "SELECT \(SQLIdentifier.quote(root.primaryKey)) FROM \(SQLIdentifier.quote(root.table)) WHERE \(SQLIdentifier.quote(root.primaryKey)) = ?1",
                                   bindings: [.integer(id)])
            let n = try connection.transaction { () throws(StoreError) in try deleteRows(of: e, keys: keys, depth: 0) }
            guard n == 1 else { throw StoreError(.invalidValue, "there is no \(entity) with key \(id)") }
        }
    }
}

/// How one entity's rows are written: the columns, and each value converted for its attribute
/// (shared with the PostgreSQL store, which checks values by the same rules).
package struct InsertPlan: Sendable {
    let model: StoreModel
    let entity: ModelEntity
    let sql: String
    private let attributes: [ModelAttribute]
    private let toOne: [ModelRelationship]
    /// To-ones whose key column is also an attribute (`airline` through `carrier` →
    /// Airline.carrier): written through the attribute, and settable by either name.
    private let sharedKeyLinks: [ModelRelationship]
    private let columns: [String]
    private let positional: [Int]
    private let entityNumber: Int64?

    package init(model: StoreModel, entity: ModelEntity, columns given: [String]? = nil) throws(StoreError) {
        guard !entity.isAbstract else {
            throw StoreError(.invalidValue, "\(entity.name) is abstract and has no objects of its own", hint: "insert one of its sub-entities")
        }
        self.model = model
        self.entity = entity
        attributes = model.allAttributes(entity)
        let attributeColumns = Set(attributes.map(\.column))
        // A to-one whose key column is also an attribute (carrier → Airline.carrier) is written through the attribute.
        toOne = model.allRelationships(entity).filter { !$0.isToMany && !attributeColumns.contains($0.foreignKeyColumn) }
        sharedKeyLinks = model.allRelationships(entity).filter { !$0.isToMany && attributeColumns.contains($0.foreignKeyColumn) }
        let root = model.root(entity)
        entityNumber = model.isInheritanceTree(entity) ? Int64(model.entityNumber(entity)) : nil
        var cols = attributes.map(\.column) + toOne.map(\.foreignKeyColumn)
        if entityNumber != nil { cols.append(StoreSchema.entityColumn) }
        columns = cols
        // Positions are attribute indexes, then to-one relationships after them.
        var positional: [Int] = []
        if let given {
            for name in given {
                if let i = attributes.firstIndex(where: { $0.name == name }) { positional.append(i); continue }
                if let j = toOne.firstIndex(where: { $0.name == name }) { positional.append(attributes.count + j); continue }
                // A to-one kept in an attribute's column (airline in carrier) is written through the attribute.
                if let r = sharedKeyLinks.first(where: { $0.name == name }), let i = attributes.firstIndex(where: { $0.column == r.foreignKeyColumn }) {
                    positional.append(i)
                    continue
                }
                throw StoreError.unknownKey(name, entity: entity.name, candidates: attributes.map(\.name) + toOne.map(\.name))
            }
        }
        self.positional = positional
        sql = "INSERT INTO \(SQLIdentifier.quote(root.table)) (\(cols.map(SQLIdentifier.quote).joined(separator: ", "))) VALUES (\((1...max(1, cols.count)).map { "?\($0)" }.joined(separator: ", ")))"
    }

    /// The many-to-many keys of `given` taken out, each with its join table and array of keys
    /// (nil is no links); the rest, for ``row(_:)`` or ``assignments(_:)``.
    package func manyToManyLinks(_ given: [String: PredicateValue]) throws(StoreError)
        -> (rest: [String: PredicateValue], links: [(ModelRelationship, StoreModel.JoinLink, [Int64])]) {
        var rest = given
        var links: [(ModelRelationship, StoreModel.JoinLink, [Int64])] = []
        for r in model.allRelationships(entity) where r.isManyToMany {
            guard let v = rest.removeValue(forKey: r.name) else { continue }
            let items: [PredicateValue]
            switch v {
            case .null: items = []
            case .array(let a), .set(let a): items = a
            default:
                throw StoreError(.invalidValue, "\(entity.name).\(r.name) takes an array of \(r.destination) keys, not \(v)",
                                 hint: "give the Int64 keys insert returned, as [1, 2]")
            }
            var keys: [Int64] = []
            for given in items {
                let item = try model.linkKey(given, for: r, of: entity.name)
                guard case .int(let k) = item else {
                    throw StoreError(.invalidValue, "\(entity.name).\(r.name) takes \(r.destination) keys, not \(item)",
                                     hint: "give the Int64 keys insert returned, as [1, 2]")
                }
                keys.append(k)
            }
            links.append((r, try model.joinLink(of: r, on: entity), keys))
        }
        return (rest, links)
    }

    /// The columns of ``row(_:)``'s values, in their order.
    package var columnNames: [String] { columns }

    /// The indexes of the values of `row` (made from `given`) that a write must send: those
    /// that are not NULL, and the NULLs `given` names. A column left out takes its default on
    /// a server that has one (the PostgreSQL store), NULL otherwise, as the row says.
    package func sentColumns(_ given: [String: PredicateValue], row: [SQLValue]) -> [Int] {
        var named = Set(given.keys)
        for r in sharedKeyLinks where named.contains(r.name) {
            if let a = attributes.first(where: { $0.column == r.foreignKeyColumn }) { named.insert(a.name) }
        }
        let keys = attributes.map(\.name) + toOne.map(\.name)
        return row.indices.filter { row[$0] != .null || ($0 < keys.count && named.contains(keys[$0])) }
    }

    /// Every key a write may name: attributes and to-one relationships (and, through
    /// ``manyToManyLinks(_:)``, many-to-many relationships).
    private var keyNames: [String] {
        attributes.map(\.name) + toOne.map(\.name) + sharedKeyLinks.map(\.name) + model.allRelationships(entity).filter(\.isManyToMany).map(\.name)
    }

    /// Refuses a key no write can set, before any value for it is known.
    package func requireSettable(_ key: String) throws(StoreError) {
        if let r = model.allRelationships(entity).first(where: { $0.name == key && $0.isManyToMany }) {
            throw StoreError(.invalidValue, "\(entity.name).\(r.name) is many-to-many: an expression cannot compute its links",
                             hint: "link and unlink its objects with link(_:id:_:to:) and unlink(_:id:_:from:)")
        }
        guard keyNames.contains(key) else { throw StoreError.unknownKey(key, entity: entity.name, candidates: keyNames) }
    }

    package func row(_ given: [String: PredicateValue]) throws(StoreError) -> [SQLValue] {
        var object = given
        for r in sharedKeyLinks {
            guard let v = object.removeValue(forKey: r.name) else { continue }
            guard let a = attributes.first(where: { $0.column == r.foreignKeyColumn }) else { continue }
            if let other = object[a.name], other != v {
                throw StoreError(.invalidValue, "\(entity.name).\(r.name) and \(entity.name).\(a.name) are stored in one column, and were given different values",
                                 hint: "give one of them")
            }
            if v.isNull && !r.isOptional { throw StoreError(.invalidValue, "\(entity.name).\(r.name) is not optional and has no related object") }
            object[a.name] = v
        }
        for key in object.keys where !attributes.contains(where: { $0.name == key }) && !toOne.contains(where: { $0.name == key }) {
            if key == "id", !model.allRelationships(entity).contains(where: { $0.name == key }) {
                // A Codable type's `id`: nil is a new object's (the store assigns the key); a
                // key the caller gives would not be kept, and is never silently replaced.
                guard let given = object[key], !given.isNull else { continue }
                throw StoreError(.invalidValue, "\(entity.name)'s keys are assigned by the store, so the given id \(given) would not be kept",
                                 hint: "leave id out (or nil) for a new \(entity.name); to give keys yourself, declare primaryKey: \"id\" for \(entity.name) in the model")
            }
            throw StoreError.unknownKey(key, entity: entity.name, candidates: keyNames)
        }
        var out: [SQLValue] = []
        out.reserveCapacity(columns.count)
        for a in attributes { out.append(try value(object[a.name], a)) }
        for r in toOne { out.append(try link(r, object[r.name] ?? .null)) }
        if let entityNumber { out.append(.integer(entityNumber)) }
        return out
    }

    /// Where each parameter of the INSERT comes from, for the positional (import) path.
    package enum Slot: Sendable {
        /// The row's value at this index, for the attribute.
        case given(Int, ModelAttribute)
        /// The row's value at this index, the key of the object the to-one links to.
        case link(Int, ModelRelationship)
        /// The same value in every row: the attribute's default, NULL, the entity number.
        case fixed(SQLValue)
    }

    /// Each column's slot, in the order of ``columnNames``.
    package func slots() -> [Slot] {
        var byPosition = [Int?](repeating: nil, count: attributes.count + toOne.count)
        for (k, i) in positional.enumerated() { byPosition[i] = k }
        var out: [Slot] = []
        for (i, a) in attributes.enumerated() {
            if let k = byPosition[i] { out.append(.given(k, a)) }
            else { out.append(.fixed((try? value(nil, a)) ?? .null)) }
        }
        for (j, r) in toOne.enumerated() {
            if let k = byPosition[attributes.count + j] { out.append(.link(k, r)) } else { out.append(.fixed(.null)) }
        }
        if let entityNumber { out.append(.fixed(.integer(entityNumber))) }
        return out
    }

    /// Binds one row straight into the statement: the common kinds (text, integers, doubles,
    /// NULL) without building intermediate values, the rest through `RecordCodec`.
    func bind(positional values: [PredicateValue], rowNumber: Int, slots: [Slot], into s: SQLiteStatement) throws(StoreError) {
        guard values.count == positional.count else {
            throw StoreError(.importFailed, "row \(rowNumber) has \(values.count) values for \(positional.count) columns")
        }
        s.resetKeepingBindings()
        for (i, slot) in slots.enumerated() {
            let index = Int32(i + 1)
            switch slot {
            case .fixed(let v): try s.bind(v, at: index)
            case .link(let k, let r): try s.bind(try link(r, values[k]), at: index)
            case .given(let k, let a):
                let v = values[k]
                switch (v, a.type) {
                case (.string(let text), .string): try s.bindText(text, at: index)
                case (.int(let x), .integer64): try s.bind(.integer(x), at: index)
                case (.double(let d), .double): try s.bind(.real(d), at: index)
                case (.null, _) where a.isOptional && a.defaultValue == nil: try s.bind(.null, at: index)
                default: try s.bind(try value(v, a), at: index)
                }
            }
        }
    }

    /// A positional row's value for `slot`, converted by the attribute's rules (a to-one's: the
    /// key of the object it links to), as ``bind(positional:rowNumber:slots:into:)`` binds it.
    package func value(of slot: Slot, in values: [PredicateValue]) throws(StoreError) -> SQLValue {
        switch slot {
        case .fixed(let v): return v
        case .link(let k, let r): return try link(r, values[k])
        case .given(let k, let a): return try value(values[k], a)
        }
    }

    /// `error` met on positional row `row` (counted from 1), its message saying so.
    package static func naming(row: Int, _ error: StoreError) -> StoreError {
        error.message.hasPrefix("row ") ? error : error.reworded("row \(row): \(error.message)")
    }

    /// The number of values a positional row has: the columns it was made with.
    package var positionalCount: Int { positional.count }

    /// The type of the value a to-one's key column holds: the referenced attribute's, else a key.
    package func keyType(of r: ModelRelationship) -> AttributeType {
        if let column = r.referencedColumn, let dest = try? model.entity(named: r.destination),
           let a = model.allAttributes(dest).first(where: { $0.column == column }) {
            return a.type
        }
        return .integer64
    }

    private func value(_ v: PredicateValue?, _ a: ModelAttribute) throws(StoreError) -> SQLValue {
        let v = v ?? a.defaultValue ?? .null
        if v.isNull && !a.isOptional {
            throw StoreError(.invalidValue, "\(entity.name).\(a.name) is not optional and has no value", hint: "give it a value, or a default in the model")
        }
        return try RecordCodec.sqlValue(v, for: a, entity: entity.name)
    }

    private func link(_ r: ModelRelationship, _ given: PredicateValue) throws(StoreError) -> SQLValue {
        let v = try model.linkKey(given, for: r, of: entity.name)
        if v.isNull {
            if !r.isOptional { throw StoreError(.invalidValue, "\(entity.name).\(r.name) is not optional and has no related object") }
            return .null
        }
        if let column = r.referencedColumn, let dest = try? model.entity(named: r.destination),
           let a = model.allAttributes(dest).first(where: { $0.column == column }) {
            return try RecordCodec.sqlValue(v, for: a, entity: dest.name)
        }
        guard case .int(let id) = v else {
            throw StoreError(.invalidValue, "\(entity.name).\(r.name) takes the key of a \(r.destination), not \(v)", hint: "give the Int64 key insert returned")
        }
        return .integer(id)
    }

    /// The column and value for one key of an update.
    package func assignment(_ key: String, _ v: PredicateValue) throws(StoreError) -> (String, SQLValue) {
        if let a = attributes.first(where: { $0.name == key }) { return (a.column, try value(v, a)) }
        if let r = toOne.first(where: { $0.name == key }) { return (r.foreignKeyColumn, try link(r, v)) }
        if let r = sharedKeyLinks.first(where: { $0.name == key }), let a = attributes.first(where: { $0.column == r.foreignKeyColumn }) {
            if v.isNull && !r.isOptional { throw StoreError(.invalidValue, "\(entity.name).\(r.name) is not optional and has no related object") }
            return (a.column, v.isNull ? try value(v, a) : try link(r, v))
        }
        if let r = model.allRelationships(entity).first(where: { $0.name == key && $0.isManyToMany }) {
            throw StoreError(.invalidValue, "\(entity.name).\(r.name) is many-to-many: a batch update cannot set its links",
                             hint: "set them per object with update(_:id:_:), or with link and unlink")
        }
        throw StoreError.unknownKey(key, entity: entity.name, candidates: keyNames)
    }

    /// The columns and values of an update, in key order; two keys of one column (a to-one
    /// and the attribute holding its key) are an error.
    package func assignments(_ values: [String: PredicateValue]) throws(StoreError) -> [(column: String, value: SQLValue)] {
        var out: [(column: String, value: SQLValue)] = []
        var keyOfColumn: [String: String] = [:]
        for (key, v) in values.sorted(by: { $0.key < $1.key }) {
            let (column, value) = try assignment(key, v)
            if let other = keyOfColumn[column] {
                throw StoreError(.invalidValue, "\(entity.name).\(other) and \(entity.name).\(key) are stored in one column; set one of them",
                                 hint: "a to-one relationship is set by the key of the object it links to, which its attribute holds")
            }
            keyOfColumn[column] = key
            out.append((column, value))
        }
        return out
    }

    /// Where a row holds the key of each to-one relationship: its index among the row's values.
    package func linkColumns() -> [(index: Int, relationship: ModelRelationship)] {
        (toOne + sharedKeyLinks).compactMap { r in columns.firstIndex(of: r.foreignKeyColumn).map { ($0, r) } }
    }
}

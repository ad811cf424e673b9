import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Inserts one object and returns its key, with the SQLite store's rules: keys name the
    /// entity's attributes and to-one relationships (a to-one's value is the destination's
    /// key) and many-to-many relationships (an array of keys); an unknown key is a `StoreError` of kind `StoreError.Kind.unknownKey`, a value of
    /// the wrong kind or nil for a non-optional attribute one of kind
    /// `StoreError.Kind.invalidValue`, a link to no object one of kind
    /// `StoreError.Kind.constraint`. Values are bound as parameters, never spliced into the
    /// SQL. An attribute left out takes the model's default, else the column's default on the
    /// server (NULL when it has none).
    ///
    /// ```swift
    /// let id = try await store.insert("airlines", ["carrier": "UA", "name": "United Air Lines Inc."])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ values: [String: PredicateValue]) async throws(StoreError) -> Int64 {
        try await insert(entity, [values])[0]
    }

    /// Inserts objects in one transaction (all or none) and returns their keys, in the order of
    /// `objects`, with the rules of ``insert(_:_:)-(String,[String:PredicateValue])``: the
    /// first object that breaks one throws, and nothing is inserted.
    ///
    /// ```swift
    /// let ids = try await store.insert("flights", [["dest": "SFO", "carrier": "UA"], ["dest": "LAX", "carrier": "UA"]])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ objects: [[String: PredicateValue]]) async throws(StoreError) -> [Int64] {
        try await prepare()
        let model = self.model
        let e = try model.entity(named: entity)
        let plan = try InsertPlan(model: model, entity: e)
        let root = model.root(e)
        let columns = plan.columnNames
        let links = plan.linkColumns()
        guard !objects.isEmpty else { return [] }
        return try await transaction("inserting into \(entity)") { connection in
            var ids: [Int64] = []
            ids.reserveCapacity(objects.count)
            var keysGiven = false
            for given in objects {
                let (object, joined) = try plan.manyToManyLinks(given)
                let row = try plan.row(object)
                for (index, r) in links { try await self.checkLinkTarget(r, from: e, value: row[index], model: model, on: connection) }
                var statement = BoundSQL(sql: "")
                let sent = plan.sentColumns(object, row: row)
                if sent.contains(where: { columns[$0] == root.primaryKey }) { keysGiven = true }
                let placeholders = try sent.map { (i) throws(StoreError) in
                    try statement.bind(row[i], column: columns[i], of: root, model: model, given: object)
                }
                statement.sql = sent.isEmpty
                    ? "INSERT INTO \(self.qualified(root.table)) DEFAULT VALUES RETURNING \(quote(root.primaryKey))"
                    : "INSERT INTO \(self.qualified(root.table)) (\(sent.map { quote(columns[$0]) }.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) RETURNING \(quote(root.primaryKey))"
                var id: Int64?
                for try await r in try await connection.statement(statement.query, logger: self.logger) { id = try r.decode(Int64.self) }
                guard let id else { throw StoreError(.server, "inserting into \(entity): the server returned no key") }
                for (r, join, keys) in joined { _ = try await self.addLinks(r, join, from: e, id: id, to: keys, model: model, on: connection) }
                ids.append(id)
            }
            if keysGiven { try await self.advanceKeySequence(of: root, on: connection) }
            return ids
        }
    }

    /// After inserts that gave their own keys: moves the key column's sequence (an identity or
    /// serial column's) past the largest key, so that the next key the server assigns is not
    /// one of them. A sequence already past it, or a key with no sequence, is left alone.
    func advanceKeySequence(of root: ModelEntity, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        binds.append(qualified(root.table))
        binds.append(root.primaryKey)
        try await connection.run(PostgresQuery(unsafeSQL: """
            SELECT setval(s::regclass, m) FROM (SELECT pg_get_serial_sequence($1, $2) AS s, \
            (SELECT max(\(quote(root.primaryKey)))::bigint FROM \(qualified(root.table))) AS m) x \
            WHERE s IS NOT NULL AND m IS NOT NULL AND m > COALESCE(pg_sequence_last_value(s::regclass), 0)
            """, binds: binds), logger: logger)
    }

    /// Inserts an `Encodable` value, as the SQLite store's `insert(_:encoding:)` does: encoded
    /// with `JSONEncoder`'s defaults (a `Date` becomes seconds since 2001, which a date
    /// attribute takes), its properties named as ``insert(_:_:)-(String,[String:PredicateValue])``'s keys.
    /// A value that does not encode as an object, or a property with no predicate value, is a
    /// `StoreError` of kind `StoreError.Kind.invalidValue`.
    ///
    /// ```swift
    /// struct Airline: Encodable { var carrier: String; var name: String }
    /// let aa = try await store.insert("airlines", encoding: Airline(carrier: "AA", name: "American Airlines Inc."))
    /// ```
    @discardableResult
    public func insert<T: Encodable>(_ entity: String, encoding value: T) async throws(StoreError) -> Int64 {
        try await insert(entity, [try PredicateStore.dictionary(encoding: value)])[0]
    }

    /// `value` as a parameter: text, integers, doubles, booleans, dates and bytes in their own
    /// PostgreSQL types, which the statement then casts to the column's.
    static func bind(_ value: PredicateValue, to binds: inout PostgresBindings) throws(StoreError) {
        switch value {
        case .null: binds.appendNull()
        case .bool(let b): binds.append(b)
        case .int(let i): binds.append(i)
        case .double(let d): binds.append(d)
        case .decimal(let d):
            do { try binds.append(d) } catch {
                throw StoreError(.invalidValue, "the decimal \(d) cannot be sent to PostgreSQL", hint: "give a finite decimal")
            }
        case .string(let s): binds.append(s)
        case .date(let d): binds.append(try PostgresTimestamp(d))
        case .data(let d): binds.append(ByteBuffer(bytes: d))
        case .array, .set, .dictionary:
            throw StoreError(.invalidValue, "a collection cannot be stored in a column", hint: "give a scalar value (text, number, boolean, date)")
        }
    }
}

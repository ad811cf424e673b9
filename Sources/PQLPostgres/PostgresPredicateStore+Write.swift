import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Inserts one object and returns its key. Keys name the entity's attributes and to-one
    /// relationships (a to-one's value is the destination's key); values are bound as
    /// parameters, never spliced into the SQL, and the server converts them to the columns'
    /// types (a value that does not fit is a `StoreError` of kind `StoreError.Kind.invalidValue`).
    /// Attributes left out take NULL.
    ///
    /// ```swift
    /// let id = try await store.insert("airlines", ["carrier": "UA", "name": "United Air Lines Inc."])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ values: [String: PredicateValue]) async throws(StoreError) -> Int64 {
        let model = self.model
        let e = try model.entity(named: entity)
        let root = model.root(e)
        let attributes = model.allAttributes(e)
        let relationships = model.allRelationships(e).filter { !$0.isToMany }
        var columns: [String] = [], placeholders: [String] = []
        var binds = PostgresBindings()
        for key in values.keys.sorted() {
            let value = values[key]!
            let column: String, type: String
            if let a = attributes.first(where: { $0.name == key }) {
                column = a.column
                type = PostgresSchemaDDL.columnType(a.type)
            } else if let r = relationships.first(where: { $0.name == key }) {
                column = r.foreignKeyColumn
                let destination = try model.entity(named: r.destination)
                type = r.referencedColumn.flatMap { c in model.allAttributes(destination).first { $0.column == c } }
                    .map { PostgresSchemaDDL.columnType($0.type) } ?? "bigint"
            } else {
                var error = StoreError(.unknownKey, "\(entity) has no attribute or to-one relationship '\(key)'",
                                       hint: "use one of: \((attributes.map(\.name) + relationships.map(\.name)).joined(separator: ", "))")
                error.entity = entity
                error.property = key
                throw error
            }
            try Self.bind(value, to: &binds)
            columns.append(quote(column))
            placeholders.append("$\(binds.count)::\(type)")
        }
        if model.isInheritanceTree(root) {
            columns.append(quote(StoreSchemaNames.entityColumn))
            placeholders.append(String(model.entityNumber(e)))
        }
        let sql = columns.isEmpty
            ? "INSERT INTO \(qualified(root.table)) DEFAULT VALUES RETURNING \(quote(root.primaryKey))"
            : "INSERT INTO \(qualified(root.table)) (\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) RETURNING \(quote(root.primaryKey))"
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await withConnection("inserting into \(entity)") { connection in
            var id: Int64 = 0
            for try await row in try await connection.query(query, logger: self.logger) { id = try row.decode(Int64.self) }
            return id
        }
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
        case .date(let d): binds.append(d)
        case .data(let d): binds.append(ByteBuffer(bytes: d))
        case .array, .set, .dictionary:
            throw StoreError(.invalidValue, "a collection cannot be stored in a column", hint: "give a scalar value (text, number, boolean, date)")
        }
    }
}

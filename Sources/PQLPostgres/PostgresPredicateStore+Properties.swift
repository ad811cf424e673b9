import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Chosen properties of the records an `EntityQuery` matches, as dictionaries keyed by the
    /// key paths: attributes, to-one key paths (`airline.name`, joined) and aggregates of
    /// to-many ones (`flights.@count`); `distinct` drops repeated rows. The same rows as the
    /// SQLite store's `fetchProperties(_:_:distinct:)`; a relationship or a plain to-many key
    /// path is refused as there.
    ///
    /// ```swift
    /// let rows = try await store.fetchProperties(["name", "flights.@count"], EntityQuery("airlines"))
    /// // [["name": "United Air Lines Inc.", "flights.@count": 58665], …]
    /// ```
    public func fetchProperties(_ keyPaths: [String], _ query: EntityQuery, distinct: Bool = false) async throws(StoreError) -> [[String: PredicateValue]] {
        try await prepare()
        do throws(StoreError) {
            // PostgreSQL's DISTINCT takes no ORDER BY term outside the selected columns (the sort
            // rules' and the key's): distinct rows are kept here instead, each where it first comes
            // in the query's order, and the page is cut from them, as SQLite's DISTINCT … LIMIT does.
            var unpaged = query
            if distinct { (unpaged.offset, unpaged.limit) = (0, nil) }
            await readIndexesIfOld()
            var builder = try selectBuilder(unpaged, model: model)
            let st = try builder.properties(keyPaths, distinct: false)
            let sql = try postgresQuery(st.compiled, typed: builder.typedBindings)
            let columns = st.attributes
            let rows = try await withConnection("fetching properties of \(query.entity)") { connection in
                var out: [[String: PredicateValue]] = []
                var seen: Set<String> = []
                for try await row in try await connection.statement(sql, logger: self.logger) {
                    var values: [String: PredicateValue] = [:]
                    var spelled = ""
                    for (cell, column) in zip(row, columns) {
                        let value = try Self.value(cell, kind: column.kind)
                        values[column.name] = value
                        if distinct { spelled += "\(value.kindDescription):\(value)\u{0}" }
                    }
                    if distinct && !seen.insert(spelled).inserted { continue }
                    out.append(values)
                }
                return out
            }
            guard distinct else { return rows }
            // Never offset + limit: `--offset 1 --limit 9223372036854775807` overflowed it.
            return Array(rows[PredicateQuery.page(of: rows.count, offset: query.offset, limit: query.limit)])
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// The records an `EntityQuery` matches decoded as `T`, as the SQLite store's
    /// `fetch(_:as:)` decodes them: each row straight from its cells, attribute and
    /// relationship names the coding keys, `id` the key, a to-one as the key of the linked
    /// object, a many-to-many as the array of linked keys, dates from `timestamptz`. A record
    /// that does not fit `T` throws a `StoreError` of kind `.invalidValue` naming the entity,
    /// the record's key and the field (and the statement is cancelled on the server).
    ///
    /// ```swift
    /// struct Airline: Decodable, Sendable { var carrier: String; var name: String }
    /// let airlines = try await store.fetch(EntityQuery("airlines"), as: Airline.self)
    /// ```
    public func fetch<T: Decodable & Sendable>(_ query: EntityQuery, as type: T.Type) async throws(StoreError) -> [T] {
        try await prepare()
        do throws(StoreError) {
            let model = self.model
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let statement = try builder.records(links: true)
            let sql = try postgresQuery(statement.compiled, typed: builder.typedBindings)
            let layout = try RowLayout(model: model, entity: query.entity, hasEntityColumn: statement.hasEntityColumn, links: true)
            let (all, byNumber) = layout.recordFields()
            return try await withConnection("fetching \(query.entity)") { connection in
                let cells = PostgresRecordRow(layout)
                let decoder = RecordDecoder(row: cells, fields: all)
                var out: [T] = []
                var complete = false
                do {
                    for try await row in try await connection.statement(sql, logger: self.logger) {
                        cells.load(row)
                        let fields = layout.hasEntityColumn ? (try cells.int64(1)).flatMap { byNumber[$0] } ?? all : all
                        out.append(try decoder.decode(T.self, fields: fields))
                    }
                    complete = true
                } catch {
                    // A record that does not decode leaves the rest of the rows unread: the server stops sending them.
                    if !complete { try await self.stop(statementOn: connection, cancelling: error) }
                    throw error
                }
                return out
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// Runs a fetch request template of the model with values for its `$variables`, as the
    /// SQLite store's `fetch(template:variables:)`: a variable left without a value is a
    /// `StoreError` of kind `.unboundVariable`.
    ///
    /// ```swift
    /// let delayed = try await store.fetch(template: "DelayedBy", variables: ["minutes": 60])
    /// ```
    public func fetch(template name: String, variables: [String: PredicateValue] = [:]) async throws(StoreError) -> [StoreRecord] {
        try await prepare()
        return try await fetch(try model.template(named: name).query(variables: variables))
    }

    /// A cell of a computed column (a key path's value, an aggregate) by its PostgreSQL type,
    /// read as the SQLite store reads the same column by `kind`: a sum of integers (PostgreSQL's
    /// `numeric`) is an integer, a boolean read where a number was asked for is 0 or 1.
    static func value(_ cell: PostgresCell, kind: SQLKind) throws -> PredicateValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .bool:
            let b = try cell.decode(Bool.self)
            return kind == .boolean || kind == .unknown ? .bool(b) : .int(b ? 1 : 0)
        case .int2, .int4, .int8:
            let n = try cell.decode(Int64.self)
            switch kind {
            case .boolean: return .bool(n != 0)
            case .real: return .double(Double(n))
            case .decimal: return .decimal(Decimal(n))
            default: return .int(n)
            }
        case .float4, .float8:
            return .double(try cell.decode(Double.self))
        case .numeric:
            let d = try cell.decode(Decimal.self)
            if kind == .decimal { return .decimal(d) }
            // An integral numeric in Int64's range has no '.' or exponent in its spelling.
            if kind != .real, let n = Int64(NSDecimalNumber(decimal: d).stringValue) { return .int(n) }
            return .double(NSDecimalNumber(decimal: d).doubleValue)
        case .timestamptz, .timestamp, .date:
            return .date(try cell.decode(Date.self))
        case .bytea:
            return .data(Data(try cell.decode(ByteBuffer.self).readableBytesView))
        default:
            return .string(try cell.decode(String.self))
        }
    }
}

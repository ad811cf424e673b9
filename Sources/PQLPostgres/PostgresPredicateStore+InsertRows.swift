import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Inserts rows given column by column, for bulk loads, as the SQLite store's `insertRows`
    /// does: `columns` name attributes and to-one relationships (by the key of the object each
    /// links to), each row has one value per column, converted by its attribute's rules as
    /// ``insert(_:_:)-(String,[String:PredicateValue])`` converts it. All rows or none, in one
    /// transaction, through `COPY … FROM STDIN`, encoded on a thread of their own as the server
    /// takes them. A value that does not fit is a `StoreError` of kind
    /// `StoreError.Kind.invalidValue` whose message names the row (`row 3: …`, counted from 1),
    /// a row with another number of values one of kind `StoreError.Kind.importFailed`, a
    /// constraint the server checks (a foreign key, a unique index) one of kind
    /// `StoreError.Kind.constraint`. An attribute left out takes the model's default, else the
    /// column's default on the server. When the columns include the entity's key, the key's
    /// sequence is moved past the largest key given, so the keys the server assigns later are new.
    /// Rows enough to make autovacuum analyse the table are analysed before the call returns,
    /// so that the next query is planned with statistics of them (see `analyzeAfterLoad`).
    ///
    /// ```swift
    /// let n = try await store.insertRows("Airport", columns: ["faa", "name"],
    ///                                    rows: [["JFK", "John F Kennedy Intl"], ["LGA", "La Guardia"]])
    /// ```
    @discardableResult
    public func insertRows(_ entity: String, columns: [String], rows: [[PredicateValue]]) async throws(StoreError) -> Int {
        let model = try await prepare()
        let e = try model.entity(named: entity)
        let plan = try InsertPlan(model: model, entity: e, columns: columns)
        let root = model.root(e)
        let writer = try RowWriter(plan: plan, model: model, entity: e)
        guard !rows.isEmpty else { return 0 }
        let count = try await transaction("inserting rows into \(entity)") { connection in
            // COPY takes an unqualified table name (PostgresNIO quotes it as one identifier).
            try await connection.run(PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(quote(self.schema))"), logger: self.logger)
            let producer = CopyRowProducer(types: writer.types) { (sink: inout CopyRowSink) throws(StoreError) in
                for (i, row) in rows.enumerated() {
                    do throws(StoreError) { try writer.encode(row, number: i + 1, into: &sink.encoder) } catch {
                        throw InsertPlan.naming(row: i + 1, error)
                    }
                    sink.encoder.endRow()
                    try sink.rowEnded()
                }
            }
            defer { producer.stop() }
            try await connection.copy(into: root.table, columns: writer.columns, logger: self.logger) { copy in
                for try await chunk in producer.chunks {
                    producer.took()
                    try await copy.write(ByteBuffer(bytes: chunk))
                }
            }
            if writer.columns.contains(root.primaryKey) { try await self.advanceKeySequence(of: root, on: connection) }
            return producer.rowCount
        }
        await analyzeAfterLoad(root.table, added: count)
        return count
    }
}

/// How `insertRows` encodes a row for `COPY`: the columns it sends (those the rows give, and
/// those with a value of their own in every row: a default, the entity number; a column
/// left out takes the server's default, as the key's identity), each value checked and
/// converted by the SQLite store's rules (`InsertPlan`), the common kinds without converting.
struct RowWriter: Sendable {
    /// A sent column: where its value comes from, and the column's type.
    private enum Field: Sendable {
        /// The row's value at this index, for an attribute.
        case given(Int, ModelAttribute)
        /// The row's value at this index, a to-one's key.
        case link(Int, InsertPlan.Slot)
        /// The same value in every row, already encoded for `COPY`.
        case fixed([UInt8])
    }

    let columns: [String]
    let types: [AttributeType]
    private let fields: [Field]
    private let count: Int
    private let plan: InsertPlan

    init(plan: InsertPlan, model: StoreModel, entity: ModelEntity) throws(StoreError) {
        self.plan = plan
        count = plan.positionalCount
        var columns: [String] = [], types: [AttributeType] = [], fields: [Field] = []
        let attributes = model.allAttributes(entity)
        for (i, slot) in plan.slots().enumerated() {
            let column = plan.columnNames[i]
            let type: AttributeType
            switch slot {
            case .given(let k, let a):
                type = a.type
                fields.append(.given(k, a))
            case .link(let k, let r):
                type = plan.keyType(of: r)
                fields.append(.link(k, slot))
            case .fixed(let v):
                if v == .null { continue }
                type = attributes.first { $0.column == column }?.type ?? .integer64
                var encoder = CopyTextEncoder(types: [type])
                try encoder.append(Self.copyValue(v, given: nil, type: type), as: type)
                fields.append(.fixed(encoder.bytes))
            }
            columns.append(column)
            types.append(type)
        }
        self.columns = columns
        self.types = types
        self.fields = fields
    }

    /// Encodes one row's fields (the caller ends the row); `number` counts rows from 1.
    func encode(_ row: [PredicateValue], number: Int, into encoder: inout CopyTextEncoder) throws(StoreError) {
        guard row.count == count else {
            // The SQLite store's words.
            throw StoreError(.importFailed, "row \(number) has \(row.count) values for \(count) columns")
        }
        for (i, field) in fields.enumerated() {
            if i > 0 { encoder.separator() }
            switch field {
            case .fixed(let bytes): encoder.bytes += bytes
            case .given(let k, let a):
                let v = row[k]
                // The common kinds as they are; the rest through the store's conversion.
                switch (v, a.type) {
                case (.string(let s), .string): try encoder.text(s)
                case (.int(let x), .integer64): encoder.integer(x)
                case (.double(let d), .double) where d.isFinite: try encoder.append(v, as: .double)
                case (.null, _) where a.isOptional && a.defaultValue == nil: encoder.bytes += [0x5C, 0x4E]
                default:
                    let stored = try plan.value(of: .given(k, a), in: row)
                    try encoder.append(Self.copyValue(stored, given: v, type: a.type), as: a.type)
                }
            case .link(let k, let slot):
                let stored = try plan.value(of: slot, in: row)
                try encoder.append(Self.copyValue(stored, given: row[k], type: types[i]), as: types[i])
            }
        }
    }

    /// A value the SQLite store's rules converted (a date as seconds since 2001, a boolean as 0
    /// or 1), as the encoder writes it for a column of `type`; a decimal given as such keeps its digits.
    private static func copyValue(_ stored: SQLValue, given: PredicateValue?, type: AttributeType) -> PredicateValue {
        if type == .decimal, case .decimal? = given { return given! }
        switch stored {
        case .null: return .null
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        case .text(let t): return .string(t)
        case .blob(let b): return .data(b)
        }
    }
}

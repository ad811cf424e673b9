import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// Sets attributes (or to-one links) of every object an `EntityQuery` matches to values
    /// computed from the object, and returns how many changed, as the SQLite store's
    /// `batchUpdate(_:computing:)`: every expression reads the object as it was before the
    /// update, each result is checked against its attribute by the rules `insert` applies
    /// (an error names the attribute, the object and the expression), all values are computed
    /// and checked before any is written, and all objects change in one transaction or none do.
    ///
    /// The expressions are compiled as predicates' are, natively: constants, attributes, to-one
    /// key paths, aggregates of to-many ones (`tags.@count`) and ternaries run on the server;
    /// arithmetic and functions of key paths (`price * 1.1`), which PostgreSQL does not compute
    /// as PQL does, are refused with a `StoreError` of kind `.unsupported` before anything is
    /// written.
    ///
    /// ```swift
    /// let n = try await store.batchUpdate(try EntityQuery("flights", where: "arr_delay == nil"),
    ///                                     computing: ["arr_delay": try ExpressionNode(format: "dep_delay")])
    /// ```
    @discardableResult
    public func batchUpdate(_ query: EntityQuery, computing expressions: [String: ExpressionNode]) async throws(StoreError) -> Int {
        try await prepare()
        do throws(StoreError) {
            let model = self.model
            let e = try model.entity(named: query.entity)
            let plan = try InsertPlan(model: model, entity: e)
            let ordered = expressions.sorted { $0.key < $1.key }
            guard !ordered.isEmpty else { throw StoreError(.invalidValue, "a batch update needs at least one value to set") }
            for (key, _) in ordered { try plan.requireSettable(key) }
            let keys = ordered.map(\.key)
            let trees = ordered.map { query.variables.isEmpty ? $0.value : $0.value.substituting(query.variables) }
            for (key, tree) in zip(keys, trees) where PredicateNode.comparison(ComparisonNode(tree, .equal, .constant(.null))).nestsDeeper(than: PredicateNode.maxCompileDepth) {
                throw StoreError(.unsupported, "the expression for \(e.name).\(key) nests deeper than \(PredicateNode.maxCompileDepth) levels",
                                 hint: "compute it in fewer steps")
            }
            await readIndexesIfOld()
            var builder = try selectBuilder(query, model: model)
            let (select, results) = try builder.computed(trees, keys: keys)
            let sql = try postgresQuery(select, typed: builder.typedBindings)
            let root = model.root(e)
            let linked = Self.linkedColumns(of: e, model: model)
            return try await transaction("updating \(query.entity)") { connection in
                // Every value is computed before any is written, so each reads the old object.
                var computed: [(id: Int64, values: [PredicateValue])] = []
                for try await row in try await connection.statement(sql, logger: self.logger) {
                    var cells = row.makeIterator()
                    guard let first = cells.next() else { continue }
                    var values: [PredicateValue] = []
                    for column in results {
                        guard let cell = cells.next() else { break }
                        let value = try Self.value(cell, kind: column.kind)
                        values.append(value == .null && column.nullIsNaN ? .double(.nan) : value)
                    }
                    computed.append((try first.decode(Int64.self), values))
                }
                // Without sort rules SQLite reads the rows in key order: checked in that order, the
                // first value that does not fit is the one the SQLite store reports.
                if query.sort.isEmpty { computed.sort { $0.id < $1.id } }
                var rows: [(id: Int64, values: [String: PredicateValue], assignments: [(column: String, value: SQLValue)])] = []
                for (id, list) in computed {
                    var values: [String: PredicateValue] = [:]
                    for (key, (tree, value)) in zip(keys, zip(trees, list)) {
                        if case .double(let d) = value, d.isNaN {
                            throw StoreError(.invalidValue, "\(e.name).\(key) = \(tree) is NaN for the \(e.name) with key \(id), which the store cannot hold",
                                             hint: "guard the expression, e.g. with a ternary on the divisor")
                        }
                        values[key] = value
                    }
                    for (key, tree) in zip(keys, trees) {
                        do throws(StoreError) { _ = try plan.assignment(key, values[key] ?? .null) } catch {
                            throw StoreError(error.kind, "\(e.name).\(key) = \(tree) gives \(values[key] ?? .null) for the \(e.name) with key \(id): \(error.message)",
                                             hint: error.hint)
                        }
                    }
                    rows.append((id, values, try plan.assignments(values)))
                }
                for row in rows {
                    var binds = PostgresBindings()
                    binds.append(row.id)
                    let keys = BoundSQL(sql: "SELECT \(quote(root.primaryKey)) FROM \(self.qualified(root.table)) WHERE \(quote(root.primaryKey)) = $1", binds: binds)
                    if row.assignments.contains(where: { linked.contains($0.column) }) {
                        try await self.checkLinks(of: e, assignments: row.assignments, keys: keys, given: row.values, model: model, on: connection)
                    }
                    var update = keys
                    var sets: [String] = []
                    for a in row.assignments {
                        sets.append("\(quote(a.column)) = \(try update.bind(a.value, column: a.column, of: root, model: model, given: row.values))")
                    }
                    update.sql = "UPDATE \(self.qualified(root.table)) SET \(sets.joined(separator: ", ")) WHERE \(quote(root.primaryKey)) = $1"
                    try await connection.run(update.query, logger: self.logger)
                }
                return rows.count
            }
        } catch {
            throw error.placedAtSourceNode(of: query.sourceMap)
        }
    }

    /// The columns of `entity`'s table that a link involves: a to-one's key column, or a
    /// column some to-one (from any entity) refers to. Writing one needs `checkLinks`.
    static func linkedColumns(of entity: ModelEntity, model: StoreModel) -> Set<String> {
        let root = model.root(entity)
        var out = Set(model.allRelationships(entity).filter { !$0.isToMany }.map(\.foreignKeyColumn))
        for source in model.entities {
            for r in source.relationships where !r.isToMany {
                guard let dest = try? model.entity(named: r.destination), model.root(dest).name == root.name else { continue }
                out.insert(r.referencedColumn ?? root.primaryKey)
            }
        }
        return out
    }
}

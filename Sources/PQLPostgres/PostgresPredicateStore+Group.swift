import Foundation
import PostgresNIO
import PQL
import PQLStore

extension PostgresPredicateStore {
    /// The groups of the matching records, one row per group: the group keys (named by their
    /// key paths) and the aggregates (named by their aliases), as `GroupQuery` describes them —
    /// the same rows, in the same order, as the SQLite store's `fetch(_:)` of a `GroupQuery`
    /// and `GroupQuery.run(on:)` in memory give for the same data.
    ///
    /// One statement: `GROUP BY` the keys (to-one key paths joined), the aggregates in native
    /// SQL with the evaluator's semantics (nils skipped, a group without a value nil, sums of
    /// integers exact with PQL's 64-bit overflow error, sums and averages of doubles added in
    /// key order as memory adds them, text in Unicode scalar order), `having`, the sort
    /// (nil first ascending, as in memory) and the page around them. Sums and averages of
    /// decimals, extremes of binary data, a locale-ordered sort, and whatever the predicate
    /// compiler refuses on PostgreSQL throw a `StoreError` of kind `.unsupported` before
    /// anything runs. Needs ``installFunctions()`` (the sums and averages of doubles and
    /// averages of integers call PQL's functions).
    ///
    /// ```swift
    /// let worst = try await store.fetch(GroupQuery("flights", where: "dep_delay != nil", groupBy: ["origin"],
    ///                                              select: ["avg": "average:(dep_delay)", "n": "count:(id)"],
    ///                                              sort: [SortRule("avg", ascending: false)]))
    /// // [["origin": "EWR", "avg": 15.1…, "n": 117127], …]
    /// ```
    public func fetch(_ group: GroupQuery) async throws(StoreError) -> [[String: PredicateValue]] {
        try await prepare()
        let plan = try GroupStatement.plan(group)
        await readIndexesIfOld()
        let (compiled, kinds, typed) = try GroupStatement.build(group, model: model, dialect: dialect, prefixIndexes: indexCatalog.current)
        let sql = try postgresQuery(compiled, typed: typed)
        return try await withConnection("grouping \(group.entity)") { connection in
            var out: [[String: PredicateValue]] = []
            for try await row in try await connection.statement(sql, logger: self.logger) {
                var values: [PredicateValue] = []
                for (cell, kind) in zip(row, kinds) { values.append(try Self.value(cell, kind: kind)) }
                out.append(plan.row(values))
            }
            return out
        }
    }

    /// The SQL and bindings of a grouping fetch (``fetch(_:)-(GroupQuery)``), without running
    /// it: to read, or to `EXPLAIN`. Throws what the fetch would throw before running.
    ///
    /// ```swift
    /// print(try store.sql(for: GroupQuery("flights", groupBy: ["origin"], select: ["n": "count:(id)"])))
    /// ```
    public func sql(for group: GroupQuery) throws(StoreError) -> CompiledSQL {
        try requireModel("showing the SQL of a grouping")
        return UnusedParameters.dropped(from: try GroupStatement.build(group, model: model, dialect: dialect, prefixIndexes: indexCatalog.current).sql).compiled
    }
}

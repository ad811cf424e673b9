import Foundation
import PQL
import PQLPostgres
import PQLStore

extension QueryCommand {
    /// `pql query postgres://… --group-by …`: the grouping fetch run on the server, printed as
    /// on SQLite (JSON Lines, keys then aggregates; `--sql` lists `$N` parameters).
    func runGroupOnServer(_ url: String) throws {
        let s = try ServerStore.open(url, writing: false)
        var query = try selection.query(try Self.entity(entity, among: s.entityNames, in: s.shownURL))
        query.sort = try sortKeys.map(FilterCommand.sortRule)
        let (group, order) = try groupQuery(query)
        if sql {
            s.readIndexes()
            do { Output.write(ServerStore.listing(try s.store.sql(for: group))) } catch { throw error.userFacing }
            return
        }
        let rows = try s.run { (store) async throws(StoreError) in try await store.fetch(group) }
        let writer = RecordWriter((format ?? .jsonl).plainRenderer, columns: order)
        for row in rows { writer.write(order.map { row[$0] ?? .null }) }
        writer.finish()
    }
}

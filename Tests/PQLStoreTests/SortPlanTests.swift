import Foundation
import PQL
@testable import PQLStore
import Testing

/// A sort on an indexed double column walks the index: SQLite orders NULL first ascending as
/// PQL does and stores no NaN (it binds NaN as NULL), so the ORDER BY is the plain column, and
/// the plan builds no temporary B-tree to sort the table. The rows are memory's order.
@Suite struct SortPlanTests {
    @Test func aSortOnAnIndexedDoubleUsesTheIndex() throws {
        let model = try StoreModel([ModelEntity("Item", attributes: [ModelAttribute("price", .double, isIndexed: true),
                                                                     ModelAttribute("name", .string)])])
        let store = try PredicateStore.inMemory(model)
        var rows: [[String: PredicateValue]] = []
        for i in 0..<2_000 {
            // Nil, NaN (stored as NULL, read back as nil) and numbers with ties.
            let price: PredicateValue = i % 97 == 0 ? .null : i % 89 == 0 ? .double(.nan) : .double(Double(i * 7919 % 500) / 4)
            rows.append(["price": price, "name": .string("item \(i)")])
        }
        let ids = try store.insert("Item", rows)
        try store.analyze()
        var byKey: [Int64: PredicateValue] = [:]
        for r in try store.fetch(EntityQuery("Item")) { byKey[r.id] = .dictionary(r.values) }
        let objects = ids.map { byKey[$0] ?? .null }
        for ascending in [true, false] {
            let query = EntityQuery("Item", sort: [SortRule("price", ascending: ascending)], limit: 20)
            let plan = try store.queryPlan(for: query)
            #expect(plan.contains { $0.contains("USING INDEX") && $0.contains("price") }, "\(plan)")
            // No sort of the table. Descending, the key that breaks ties still ascends, which
            // the index's backward walk does not give: SQLite then sorts each run of equal
            // prices as it meets it ("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY").
            #expect(!plan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") }, "\(plan)")
            if ascending { #expect(!plan.contains { $0.contains("USE TEMP B-TREE") }, "\(plan)") }
            let want = try PredicateQuery(sort: [SortRule("price", ascending: ascending)], limit: 20)
                .indices(in: objects, reader: PredicateValue.predicateReader).map { ids[$0] }
            #expect(try store.fetchIDs(query) == want)
        }
    }
}

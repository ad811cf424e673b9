import Foundation
import Testing
import PQL
@testable import PQLStore
import PQLTestSupport

/// The store compiles the deepest trees PQL accepts to SQL and runs them from a thread with
/// a 512 KiB stack: the SQL compiler spends up to 21 KiB per level in a debug build (a 63-term
/// sum took 1.3 MiB inline), so deep trees are compiled on a large stack (``LargeStack``).
@Suite("Deep trees in the store on small stacks")
struct SmallStackStoreTests {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Row", attributes: ["a", "b", "x", "y"].map { ModelAttribute($0, .integer64) },
                            relationships: [ModelRelationship("items", toMany: "Row", inverse: "owner")]
                                + [ModelRelationship("owner", to: "Row", inverse: "items")]),
            ])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    /// Three rows; the first owns the second. The same rows as the evaluator sees them.
    static func fixture() throws -> (PredicateStore, [PredicateValue]) {
        let store = try PredicateStore(path: ":memory:", model: model)
        let first = try store.insert("Row", ["a": 1, "b": 1, "x": 2, "y": 1])
        _ = try store.insert("Row", ["a": 1, "b": 2, "x": 3, "y": 1, "owner": .int(first)])
        _ = try store.insert("Row", ["a": 2, "b": 1, "x": 63, "y": 1])
        let child: PredicateValue = ["a": 1, "b": 2, "x": 3, "y": 1, "items": .array([])]
        let rows: [PredicateValue] = [
            ["a": 1, "b": 1, "x": 2, "y": 1, "items": .array([child])],
            child,
            ["a": 2, "b": 1, "x": 63, "y": 1, "items": .array([])],
        ]
        return (store, rows)
    }

    /// Compiles, counts and fetches `p`; where memory can answer too, the rows are memory's.
    /// Returns whether the store ran it.
    @discardableResult
    static func check(_ p: PredicateNode, _ name: String, _ store: PredicateStore, _ rows: [PredicateValue],
                      _ problems: DeepTrees.Problems) -> Bool {
        let query = EntityQuery("Row", predicate: p)
        do {
            _ = try store.sql(for: query)
            let count = try store.count(query)
            let ids = try store.fetchIDs(query)
            problems.check(count == ids.count, "\(name): count \(count), fetched \(ids.count)")
            if let want = try? rows.indices.filter({ try p.evaluate(on: rows[$0]) }) {
                problems.check(ids == want.map { Int64($0 + 1) }, "\(name): rows \(ids), memory's \(want)")
            }
            return true
        } catch {
            // Refusals the store may make: SQL has no form for it (an index into a scalar),
            // or SQLite's parser cannot take the nesting (before SQLite 3.46).
            let known = error.kind == .unsupported
                && (error.message.contains("has no SQL form") || error.message.contains("nests too deeply for SQLite"))
            problems.check(known && error.hint != nil, "\(name): \(error)")
            return false
        }
    }

    @Test("the deepest accepted inputs compile to SQL and run")
    func deepestParsedInputs() throws {
        let (store, rows) = try Self.fixture()
        let problems = DeepTrees.onSmallStack { problems in
            let shapes = DeepTrees.parsedShapes(depth: 62, subqueries: 8)
            for (name, text) in shapes {
                guard let p = try? PredicateNode(format: text) else {
                    problems.record("\(name): the deepest accepted input is refused")
                    continue
                }
                let ran = Self.check(p, name, store, rows, problems)
                // Whatever SQLite's version: these compile to flat SQL (constants fold,
                // literals become one bound list, SUBQUERY nests only 8 deep).
                if ["nested calls", "braces", "SUBQUERY"].contains(name) {
                    problems.check(ran, "\(name) did not run")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("trees built in code up to the compile limit compile to SQL and run; deeper is an error")
    func deepestTreesBuiltInCode() throws {
        let (store, rows) = try Self.fixture()
        let problems = DeepTrees.onSmallStack { problems in
            for (name, p) in DeepTrees.builtInCode(depth: PredicateNode.maxCompileDepth) {
                Self.check(p, name, store, rows, problems)
            }
            for (name, p) in DeepTrees.builtInCode(depth: PredicateNode.maxCompileDepth + 1) {
                problems.expectError("\(name), one level beyond the limit", as: StoreError.self,
                                     { _ = try store.count(EntityQuery("Row", predicate: p)) }) { $0.kind == .unsupported }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("a deep tree's $variables are bound on the large stack too")
    func deepTreeWithVariables() throws {
        let (store, _) = try Self.fixture()
        let problems = DeepTrees.onSmallStack { problems in
            do {
                // 63 terms: the deepest sum the parser accepts.
                let p = try PredicateNode(format: "x == " + Array(repeating: "$y", count: 63).joined(separator: " + "))
                let ids = try store.fetchIDs(EntityQuery("Row", predicate: p, variables: ["y": 1]))
                problems.check(ids == [3], "rows \(ids), want [3]")
                let none = try store.count(EntityQuery("Row", predicate: p, variables: ["y": 0]))
                problems.check(none == 0, "\(none) rows for $y = 0")
            } catch {
                problems.record("\(error)")
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }
}

import Foundation
import Testing
@testable import PQL

/// What `filter` over an array returns and how its room is found (CompiledPredicate.swift):
/// the first 1,024 elements' rate of matches sets the result's capacity, and a wrong guess only
/// makes it grow. Whatever the guess, the rows are the matches in order, a step limit stops at
/// the exact element, and the result never keeps more than about twice its count in room.
@Suite("Evaluation: filter results")
struct FilterResultTests {
    struct Item: PredicateReadable {
        var n: Int
        var label: String
        static let predicateKeys: PredicateKeys<Item> = ["n": .int { $0.n }, "label": .string { $0.label }]
    }

    /// Sizes around the 1,024-element sample, and data whose matches are all inside it, all
    /// after it, spread evenly, or every element.
    static let layouts: [(count: Int, layout: String)] = [0, 1, 63, 64, 1_023, 1_024, 1_025, 5_000, 70_000]
        .flatMap { n in ["front", "back", "every third", "all", "none"].map { (n, $0) } }

    static func items(_ count: Int, _ layout: String) -> [Item] {
        (0..<count).map { i in
            let match: Bool
            switch layout {
            case "front": match = i < 1_024
            case "back": match = i >= 1_024
            case "every third": match = i % 3 == 0
            case "all": match = true
            default: match = false
            }
            // A label long enough to live on the heap: a copy must retain it.
            return Item(n: match ? 1 : 0, label: "item number \(i) with a long label")
        }
    }

    @Test("the rows are the matches in order, whatever the first elements promised", arguments: layouts)
    func rowsInOrder(_ count: Int, _ layout: String) throws {
        let items = Self.items(count, layout)
        let p = try PredicateNode(format: "n == 1").compiled(for: Item.self)
        let rows = try items.filter(p)
        let expected = items.filter { $0.n == 1 }
        #expect(rows.map(\.label) == expected.map(\.label))
        #expect(rows.capacity <= Swift.max(2 * rows.count, 64), "capacity \(rows.capacity) for \(rows.count) rows")
        // The same through a lazy sequence (no contiguous storage) and through indices.
        #expect(try items.lazy.map { $0 }.filter(p).map(\.label) == expected.map(\.label))
        #expect(try items.indices(matching: p) == items.indices.filter { items[$0].n == 1 })
    }

    @Test("a step limit stops a large filter at the exact element", arguments: [1_000, 1_024, 1_500, 4_097])
    func limitStopsExactly(_ stopAt: Int) throws {
        let items = Self.items(5_000, "every third")
        let p = try PredicateNode(format: "n == 1").compiled(for: Item.self)
        let limits = EvaluationLimits(maxSteps: stopAt * p.weight + p.weight - 1, maxRegexSteps: nil)
        #expect {
            try items.filter(p, limits: limits)
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .workLimit && e.elementIndex == stopAt
        }
        // One step more and the element is done: the limit now falls on the next one.
        let later = EvaluationLimits(maxSteps: (stopAt + 1) * p.weight, maxRegexSteps: nil)
        #expect {
            try items.filter(p, limits: later)
        } throws: { error in
            (error as! PredicateEvaluationError).elementIndex == stopAt + 1
        }
    }
}

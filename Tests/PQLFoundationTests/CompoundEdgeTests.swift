#if !canImport(Darwin)
import Foundation
import PQL
import PQLFoundation
import Testing

/// What a cold check of PQLFoundation found: compounds folded thousands deep, bindings the
/// predicate never reads, and the text of a compound that holds a block.
@Suite struct CompoundEdgeTests {
    /// Runs `body` on a thread with a 4 MB stack, half a Dispatch thread's: a walk that
    /// recursed once per level overflowed 8 MB at 10,000 levels.
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) {
        let done = Semaphore()
        let thread = Thread { body(); done.signal() }
        thread.stackSize = 4 << 20
        thread.start()
        done.wait()
    }

    final class Semaphore: Sendable {
        private let s = DispatchSemaphore(value: 0)
        func signal() { s.signal() }
        func wait() { s.wait() }
    }

    /// Written on the small stack's thread, read after it signals (the semaphore orders them).
    final class Results: @unchecked Sendable { var ran = false, grouped = false, length = 0, evaluates = false }

    @Test func aCompoundFoldedTenThousandDeepSubstitutesAndPrints() {
        let r = Results()
        Self.onSmallStack {
            let predicates = (0..<10_000).map { NSPredicate(format: "k\($0) != $V", argumentArray: nil) }
            let folded = predicates.dropFirst().reduce(predicates[0]) { NSCompoundPredicate(andPredicateWithSubpredicates: [$0, $1]) }
            let bound = folded.withSubstitutionVariables(["V": -1])
            let text = folded.formatText
            let evaluates = bound.evaluate(with: ["k0": 1])
            (r.ran, r.grouped, r.length, r.evaluates) = (true, text.hasPrefix("(((("), text.count, evaluates)
        }
        #expect(r.ran && r.grouped && r.length > 100_000)
        // k0 is 1 and the other keys are missing: nil != -1 holds, so every term does.
        #expect(r.evaluates)
    }

    @Test func aBindingThePredicateNeverReadsIsIgnored() throws {
        let p = NSPredicate(format: "a == 1")
        #expect(p.evaluate(with: ["a": 1], substitutionVariables: ["unused": NSObject()]))
        #expect(try p.evaluateOrThrow(with: ["a": 1], substitutionVariables: ["unused": NSObject()]))
        // One the predicate reads stays unbound: no match, and the throwing form says why.
        let q = NSPredicate(format: "a == $V")
        #expect(!q.evaluate(with: ["a": 1], substitutionVariables: ["V": NSObject()]))
        #expect(throws: PredicateEvaluationError.self) { try q.evaluateOrThrow(with: ["a": 1], substitutionVariables: ["V": NSObject()]) }
    }

    @Test func aCompoundWithABlockKeepsItsGrouping() {
        let block = NSPredicate { _, _ in true }
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1 OR b == 2"), block])
        #expect(and.formatText == "(a == 1 OR b == 2) AND BLOCKPREDICATE")
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "a == 1 AND b == 2"), block])
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: or).formatText == "NOT ((a == 1 AND b == 2) OR BLOCKPREDICATE)")
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), block]).formatText == "a == 1 AND BLOCKPREDICATE")
    }
}
#endif

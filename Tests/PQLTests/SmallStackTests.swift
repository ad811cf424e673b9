import Foundation
import Testing
@testable import PQL
import PQLTestSupport

/// The deepest trees PQL accepts never overflow a caller's 512 KiB stack (Apple's secondary
/// threads, the cooperative pool's workers), in whatever build configuration the tests run.
///
/// Stack the caller's thread spends on the deepest trees (KiB; high-water mark of a painted
/// 16 MiB stack, measured by a probe outside the repository; parsed trees 62 levels deep, trees built in code 126),
/// with parsing and compiling moved to ``LargeStack`` as they are now:
///
/// | build | parse | print | == | hash | substitute | compile | evaluate | SQL compile |
/// |---|---:|---:|---:|---:|---:|---:|---:|---:|
/// | debug, parsed | ≤ 62 | ≤ 133 | ≤ 89 | ≤ 71 | ≤ 150 | ≤ 59 | ≤ 107 | ≤ 55 |
/// | debug, built in code | — | ≤ 230 | ≤ 69 | ≤ 134 | ≤ 296 | ≤ 112 | ≤ 190 | 15 |
/// | release, any | ≤ 22 | ≤ 26 | ≤ 28 | ≤ 17 | ≤ 32 | — | ≤ 62 | — |
/// | debug + TSan, built in code | — | ≤ 360 | ≤ 92 | ≤ 196 | ≤ 406 | — | ≤ 315 | — |
///
/// Before, inline: SQL compile of a 63-term sum took 1,300 KiB (debug) and 418 KiB (release);
/// the evaluator's compile of 62 nested calls 450 KiB (debug) and 645 KiB (TSan, which crashed
/// the test run); parsing 23 nested calls 692 KiB (debug).
@Suite("Deep trees on small stacks")
struct SmallStackTests {
    static let doc: PredicateValue = ["a": 1, "b": 1, "x": 2, "y": 1, "items": .array([["a": 1, "items": .array([])]])]

    /// Everything a caller does with a tree, on the small stack.
    static func exercise(_ p: PredicateNode, _ name: String, _ problems: DeepTrees.Problems, parsed: Bool = true) {
        let text = p.description
        // A tree built in code deeper than the parser's limit prints, but does not read back.
        if parsed {
          do {
            let again = try PredicateNode(format: text)
            problems.check(again.description == text, "\(name): the print does not read back the same")
          } catch {
            problems.record("\(name): its print does not parse: \(error)")
          }
        }
        let copy = p.substituting(["unused": 1])
        problems.check(p == copy, "\(name): substituting nothing changed the tree")
        problems.check(p.hashValue == copy.hashValue, "\(name): equal trees hash differently")
        do {
            let compiled = try p.compiled(for: PredicateValue.self)
            let one = try? compiled.evaluate(Self.doc)
            let both = try? [Self.doc, Self.doc].filter(compiled)
            problems.check(both == one.map { $0 ? [Self.doc, Self.doc] : [] }, "\(name): filter and evaluate disagree")
        } catch {
            problems.record("\(name): does not compile: \(error)")
        }
    }

    @Test("the deepest accepted inputs parse, print, compare, hash, substitute, compile and evaluate")
    func deepestParsedInputs() {
        let problems = DeepTrees.onSmallStack { problems in
            let shapes = DeepTrees.parsedShapes(depth: Parser.maxNestingDepth - 2, subqueries: Parser.maxSubqueryNesting)
            for (name, text) in shapes {
                do {
                    Self.exercise(try PredicateNode(format: text), name, problems)
                } catch {
                    problems.record("\(name): the deepest accepted input is refused: \(error)")
                }
            }
            // Parentheses alone add no level to the tree: up to the parser's recursion limit.
            let n = Parser.maxRecursionDepth
            let parens = String(repeating: "(", count: n - 2) + "a == 1" + String(repeating: ")", count: n - 2)
            problems.check((try? PredicateNode(format: parens)) != nil, "\(n - 2) parentheses are refused")
            let tooMany = String(repeating: "(", count: n + 1) + "a == 1" + String(repeating: ")", count: n + 1)
            let minuses = "x == " + String(repeating: "-", count: Parser.maxNestingDepth + 1) + "y"
            for text in [tooMany, minuses] {
                problems.expectError("\(text.prefix(20))…", as: PredicateFormatError.self, { _ = try PredicateNode(format: text) }) {
                    $0.kind == .nestingTooDeep
                }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A parse starts on the caller's thread and moves to a large stack only when its
    /// recursion has used ``Parser/inlineStackBudget`` of the caller's (starting again there):
    /// shallow shapes parse inline, deeper ones move, and both sides of that line, wherever it
    /// falls in a build configuration, must stay within the small stack.
    @Test("inputs nested 1 to 24 deep parse on a small stack, inline or moved to a large one")
    func acrossTheInlineBudget() {
        let problems = DeepTrees.onSmallStack { problems in
            for depth in 1...24 {
                for (name, text) in DeepTrees.parsedShapes(depth: depth, subqueries: min(depth, Parser.maxSubqueryNesting)) {
                    do {
                        Self.exercise(try PredicateNode(format: text), "\(name) × \(depth)", problems)
                    } catch {
                        problems.record("\(name) × \(depth): \(error)")
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("trees built in code up to the compile limit print, compare, compile and evaluate; deeper is an error")
    func deepestTreesBuiltInCode() {
        let problems = DeepTrees.onSmallStack { problems in
            for (name, p) in DeepTrees.builtInCode(depth: PredicateNode.maxCompileDepth) {
                problems.check(!p.nestsDeeper(than: PredicateNode.maxCompileDepth), "\(name) is too deep")
                Self.exercise(p, name, problems, parsed: false)
            }
            for (name, p) in DeepTrees.builtInCode(depth: PredicateNode.maxCompileDepth + 1) {
                problems.expectError("\(name), one level beyond the limit", as: PredicateEvaluationError.self,
                                     { _ = try p.compiled(for: PredicateValue.self) }) { $0.kind == .unsupported }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("a problem on the small stack fails the test that found it")
    func problemsReachTheTest() {
        let problems = DeepTrees.onSmallStack { problems in
            problems.check(1 + 1 == 2, "arithmetic")
            problems.record("found")
            problems.expectError("quiet", as: PredicateFormatError.self, {}) { _ in true }
            problems.expectError("parse", as: PredicateFormatError.self, { _ = try PredicateNode(format: "a ==") }) { _ in true }
            problems.expectError("wrong kind", as: PredicateFormatError.self, { _ = try PredicateNode(format: "a ==") }) {
                $0.kind == .nestingTooDeep
            }
        }
        #expect(problems.count == 3)
        #expect(Array(problems.prefix(2)) == ["found", "quiet: no error"])
        #expect(problems.last?.hasPrefix("wrong kind: ") == true)
    }

    @Test("nestingDepth measures and caps")
    func nestingDepth() {
        let leaf = PredicateNode.comparison(ComparisonNode(.keyPath(["a"]), .equal, .constant(1)))
        #expect(leaf.nestingDepth(cappedAt: 100) == 2)   // the comparison, then its operands
        #expect(PredicateNode.not(leaf).nestingDepth(cappedAt: 100) == 3)
        #expect(PredicateNode.not(leaf).nestingDepth(cappedAt: 1) == 2)
        for (name, p) in DeepTrees.builtInCode(depth: 50) {
            #expect(p.nestingDepth(cappedAt: 1_000) == 50, "\(name)")
            #expect(p.nestingDepth(cappedAt: 20) == 21, "\(name)")
        }
    }

    @Test("work on a large stack runs once, returns its value and rethrows its error")
    func largeStack() throws {
        let runs = LockedValue(0)
        let v = LargeStack.run(if: true) { () -> Int in runs.withLock { $0 += 1 }; return 42 }
        #expect(v == 42 && runs.current == 1)
        // Nested: the inner call runs inline on the large thread; not needed: inline here.
        #expect(!LargeStack.isOnLargeStack)
        let threads = LargeStack.run(if: true) { () -> (Bool, Bool, Bool) in
            let outer = pthread_self()
            return LargeStack.run(if: true) { (LargeStack.isOnLargeStack, pthread_equal(outer, pthread_self()) != 0, true) }
        }
        #expect(threads == (true, true, true))
        #expect(LargeStack.run(if: false) { LargeStack.isOnLargeStack } == false)
        #expect(throws: PredicateFormatError.self) {
            try LargeStack.run(if: true) { () throws(PredicateFormatError) -> Int in
                _ = try PredicateNode(format: "a ==")
                return 0
            }
        }
    }
}

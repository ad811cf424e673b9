import Foundation
import Testing
@testable import PQL

/// The documented limits (README, "Guarantees and limits"): each holds exactly at its
/// boundary, and one step past it is a typed error with a position and a hint — never a crash
/// or an unbounded wait.
@Suite("Limits")
struct LimitsTests {
    @Test func formatStringLength() {
        let long = "name == '" + String(repeating: "x", count: Parser.maxSourceLength) + "'"
        #expect {
            try PredicateNode(format: long)
        } throws: { error in
            let e = error as! PredicateFormatError
            return e.kind == .inputTooLong && e.hint != nil && e.message.contains("\(Parser.maxSourceLength)")
        }
    }

    static func nestedSubqueries(_ n: Int) -> String {
        var inner = "$v\(n).x > 0"
        for level in stride(from: n, through: 1, by: -1) {
            let collection = level == 1 ? "items" : "$v\(level - 1).items"
            inner = "SUBQUERY(\(collection), $v\(level), \(inner)).@count > 0"
        }
        return inner
    }

    @Test func subqueryNesting() throws {
        let limit = Parser.maxSubqueryNesting
        let deepest = try PredicateNode(format: Self.nestedSubqueries(limit))
        #expect(try PredicateNode(format: deepest.description) == deepest)
        let item: PredicateValue = ["x": 1, "items": .array([["x": 1, "items": .array([])]])]
        _ = try deepest.evaluate(on: ["items": .array([item])] as PredicateValue)
        let text = Self.nestedSubqueries(limit + 1)
        #expect {
            try PredicateNode(format: text)
        } throws: { error in
            let e = error as! PredicateFormatError
            // The error points at the SUBQUERY one level too deep.
            let innermost = text.range(of: "SUBQUERY", options: .backwards)!
            return e.kind == .nestingTooDeep && e.message.contains("\(limit)") && e.hint != nil
                && e.range.offset == text.utf8.distance(from: text.startIndex, to: innermost.lowerBound)
        }
    }

    /// Trees built in code skip the parser: the compilers refuse them beyond their own limit
    /// (checked without recursion) instead of overflowing the stack.
    @Test func treesBuiltInCode() throws {
        let leaf = PredicateNode.comparison(ComparisonNode(.keyPath(["age"]), .equal, .constant(40)))
        var p = leaf
        for _ in 0..<(PredicateNode.maxCompileDepth - 2) { p = .not(p) }
        #expect(!p.nestsDeeper(than: PredicateNode.maxCompileDepth))
        _ = try p.evaluate(on: ["age": 40] as PredicateValue)
        for _ in 0..<2_000 { p = .and([p, .constant(true)]) }
        #expect(p.nestsDeeper(than: PredicateNode.maxCompileDepth))
        #expect {
            try p.evaluate(on: ["age": 40] as PredicateValue)
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .unsupported && e.message.contains("\(PredicateNode.maxCompileDepth)")
        }
    }

    @Test func aggregateLiteralSize() throws {
        let limit = Parser.maxAggregateElements
        let list = (0..<limit).map(String.init).joined(separator: ",")
        let p = try PredicateNode(format: "SELF IN {\(list)}")
        #expect(try p.evaluate(on: PredicateValue.int(Int64(limit - 1))))
        #expect(try !p.evaluate(on: PredicateValue.int(Int64(limit))))
        #expect {
            try PredicateNode(format: "SELF IN {\(list),\(limit)}")
        } throws: { error in
            let e = error as! PredicateFormatError
            return e.kind == .inputTooLong && e.range.offset == 8 && (e.hint ?? "").contains("%@")
        }
        // The same list as one argument has no such limit.
        let big = PredicateValue.array((0...limit).map { .int(Int64($0)) })
        #expect(try PredicateNode(format: "SELF IN %@", big).evaluate(on: PredicateValue.int(Int64(limit))))
    }

    @Test func regexMatchAndDepthLimits() throws {
        // Catastrophic backtracking stops at PCRE2's match limit, as an error.
        let evil = try! PredicateNode(format: "SELF MATCHES '(a|aa)+$'")
        #expect {
            try evil.evaluate(on: PredicateValue.string(String(repeating: "a", count: 60) + "!"))
        } throws: { ($0 as! PredicateEvaluationError).kind == .regexLimit }
        // A repeated group that cannot match keeps one backtracking point per repetition: on a
        // long subject that exceeds the JIT stack (the interpreter's depth limit without JIT).
        let deep = try! PredicateNode(format: "SELF MATCHES '(?:a|b)*'")
        #expect {
            try deep.evaluate(on: PredicateValue.string(String(repeating: "ab", count: 200_000) + "!"))
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .regexLimit && e.hint != nil
        }
        // The possessive form the hint suggests needs no backtracking points.
        #expect(try !PredicateNode(format: "SELF MATCHES '(?:a|b)*+'")
            .evaluate(on: PredicateValue.string(String(repeating: "ab", count: 200_000) + "!")))
    }

    /// A cancelled task stops a filter over many elements and an evaluation of one object that
    /// nests SUBQUERY over a large collection (hours of work otherwise).
    @Test(.timeLimit(.minutes(1)))
    func evaluationIsCancellable() async throws {
        let xs = PredicateValue.array((0..<3_000).map { .int(Int64($0)) })
        let root: PredicateValue = ["xs": xs]
        let p = try PredicateNode(format:
            "SUBQUERY(xs, $a, SUBQUERY(xs, $b, SUBQUERY(xs, $c, $a + $b + $c == -1).@count > 0).@count > 0).@count > 0")
        let task = Task.detached { try p.evaluate(on: root) }
        // Cancelled from a thread of its own, not after an await in this test nor from a
        // dispatch queue: the evaluation blocks a thread of Swift's cooperative pool, which on
        // Linux is libdispatch's pool (one thread per core); with another test blocking the
        // other thread, neither this test nor a queued cancel block would ever run.
        Thread { Thread.sleep(forTimeInterval: 0.2); task.cancel() }.start()
        let result = await task.result
        guard case .failure(let error) = result else { Issue.record("the evaluation finished: \(result)"); return }
        #expect((error as? PredicateEvaluationError)?.kind == .cancelled)

        let many = (0..<3_000_000).map { PredicateValue.int(Int64($0)) }
        let slow = try PredicateNode(format: "SELF >= 0").compiled(for: PredicateValue.self)
        let filter = Task.detached { try many.filter(slow) }
        filter.cancel()
        let filtered = await filter.result
        guard case .failure(let e2) = filtered else { Issue.record("the filter finished"); return }
        #expect((e2 as? PredicateEvaluationError)?.kind == .cancelled)
    }
}

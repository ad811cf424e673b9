import Foundation
import Testing
@testable import PQL

/// The work budget of an evaluation call (``EvaluationLimits``): exact at its boundary, a typed
/// error naming the limit past it, regex work summed over the call, and errors that name the
/// element they happened on.
@Suite("Evaluation limits")
struct EvaluationLimitsTests {
    /// Eight SUBQUERYs nested over a 30-element literal: 30⁸ element tests, days of work.
    static let nested: String = (1...8).reversed().reduce("$v8 > 0") { inner, level in
        "SUBQUERY({" + (0..<30).map(String.init).joined(separator: ", ") + "}, $v\(level), \(inner)).@count > 0"
    }

    @Test("nested SUBQUERYs stop at the step limit with an error that names it")
    func nestedSubqueries() throws {
        let p = try PredicateNode(format: Self.nested).compiled(for: PredicateValue.self)
        let limits = EvaluationLimits(maxSteps: 1_000_000, maxRegexSteps: nil)
        #expect {
            try p.evaluate(["x": 1], limits: limits)
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .workLimit && e.message.contains("1,000,000") && (e.hint ?? "").contains("maxSteps")
                && (e.hint ?? "").contains("--max-steps")
        }
        // Through a filter the error says which element it was on.
        #expect {
            try [PredicateValue.int(1), .int(2)].filter(p, limits: limits)
        } throws: { error in
            (error as! PredicateEvaluationError).elementIndex == 0
        }
    }

    /// Each element costs the predicate's nodes: 3 for `SELF > 5` (the comparison and its two
    /// operands), so 100 elements take exactly 300 steps.
    @Test("the step limit holds exactly at its boundary")
    func stepBoundary() throws {
        let p = try PredicateNode(format: "SELF > 5").compiled(for: PredicateValue.self)
        #expect(p.weight == 3)
        let values = (0..<100).map { PredicateValue.int(Int64($0)) }
        #expect(try values.filter(p, limits: EvaluationLimits(maxSteps: 300, maxRegexSteps: nil)).count == 94)
        #expect(try values.indices(matching: p, limits: EvaluationLimits(maxSteps: 300, maxRegexSteps: nil)).count == 94)
        #expect {
            try values.filter(p, limits: EvaluationLimits(maxSteps: 299, maxRegexSteps: nil))
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .workLimit && e.elementIndex == 99
        }
        // A sequence without contiguous storage takes the same steps.
        #expect(throws: PredicateEvaluationError.self) {
            try values.lazy.map { $0 }.filter(p, limits: EvaluationLimits(maxSteps: 299, maxRegexSteps: nil))
        }
        // ANY goes through each element once: 3 nodes + 4 elements.
        let any = try PredicateNode(format: "ANY SELF == 3").compiled(for: PredicateValue.self)
        let list: PredicateValue = [1, 2, 3, 4]
        #expect(try any.evaluate(list, limits: EvaluationLimits(maxSteps: 7, maxRegexSteps: nil)))
        #expect(throws: PredicateEvaluationError.self) { try any.evaluate(list, limits: EvaluationLimits(maxSteps: 6, maxRegexSteps: nil)) }
    }

    /// Work that is linear in the data never meets a sensible limit: constant lists are hashed
    /// once, and a million elements of a ten-node predicate take ten million steps.
    @Test("ordinary filters stay far inside the interactive limits")
    func ordinaryWork() throws {
        let p = try PredicateNode(format: "SELF IN {'1', '2', '3', '4', '5', '6', '7', '8', '9', '10'} OR SELF MATCHES '[0-9]+x'")
            .compiled(for: PredicateValue.self)
        let values = (0..<20_000).map { i in PredicateValue.string(i % 2 == 0 ? "\(i)" : "\(i)x") }
        // No backtracking: every match is free of regex steps, so even a budget of one holds.
        #expect(try values.filter(p, limits: EvaluationLimits(maxSteps: 20_000 * p.weight, maxRegexSteps: 1)).count == 10_005)
    }

    /// 2,000 rows of 'a'×32 + 'b' with `(a|aa)+$`: each match stays under PCRE2's own limit,
    /// but together they took 86 s. Summed over the call, the backtracking stops at the limit.
    @Test("regex work is summed over the call")
    func regexWorkIsSummed() throws {
        let p = try PredicateNode(format: "SELF MATCHES '(a|aa)+$'").compiled(for: PredicateValue.self)
        let subject = PredicateValue.string(String(repeating: "a", count: 32) + "b")
        // One row alone is within each match's limit.
        #expect(try !p.evaluate(subject, limits: .unlimited))
        let rows = Array(repeating: subject, count: 2_000)
        let limits = EvaluationLimits(maxSteps: nil, maxRegexSteps: 50_000_000)
        #expect {
            try rows.filter(p, limits: limits)
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .regexLimit && e.message.contains("50,000,000") && (e.hint ?? "").contains("--max-regex-steps")
                && (e.elementIndex ?? 0) > 0 && (e.elementIndex ?? .max) < 100
        }
        // The budget is the call's: a new call starts afresh.
        #expect(try !p.evaluate(subject, limits: limits))
    }

    @Test("errors name the element they happened on")
    func elementIndex() throws {
        let p = try PredicateNode(format: "age < 30").compiled(for: PredicateValue.self)
        let rows: [PredicateValue] = [["age": 20], ["age": 40], ["age": "forty"], ["age": 10]]
        #expect {
            try rows.filter(p)
        } throws: { error in
            let e = error as! PredicateEvaluationError
            return e.kind == .incomparable && e.elementIndex == 2 && e.description.contains("on element 2")
        }
        #expect { try rows.indices(matching: p) } throws: { ($0 as! PredicateEvaluationError).elementIndex == 2 }
        #expect { try PredicateQuery(try PredicateNode(format: "age < 30")).run(on: rows) } throws: {
            ($0 as! PredicateEvaluationError).elementIndex == 2
        }
        // Sort keys are read per element too.
        let sorted = PredicateQuery(sort: [SortRule("age.@sum")])
        #expect { try sorted.run(on: [["age": [1]], ["age": ["x"]]] as [PredicateValue]) } throws: {
            ($0 as! PredicateEvaluationError).elementIndex == 1
        }
        // One evaluation has no element to name.
        #expect { try p.evaluate(rows[2]) } throws: { ($0 as! PredicateEvaluationError).elementIndex == nil }
    }

    @Test("a cancelled task stops one expensive element at once")
    func cancellationInsideOneElement() async throws {
        let p = try PredicateNode(format: Self.nested).compiled(for: PredicateValue.self)
        let task = Task.detached { try p.evaluate(["x": 1], limits: .unlimited) }
        Thread { Thread.sleep(forTimeInterval: 0.2); task.cancel() }.start()
        let result = await task.result
        guard case .failure(let error) = result else { Issue.record("finished: \(result)"); return }
        #expect((error as? PredicateEvaluationError)?.kind == .cancelled)
    }
}

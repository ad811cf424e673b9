import Foundation
import Testing
@testable import PQL

/// The static facts other compilers (the store's SQL compiler) take from PQL — which functions
/// are deterministic, the kind of a function's result, the collection operators — checked
/// against what the evaluator does with values.
@Suite struct CompilerFactsTests {
    /// Values of every kind a function takes, edges included.
    static let samples: [PredicateValue] = [
        .int(0), .int(3), .int(-7), .int(.max), .double(2.5), .double(-0.5), .decimal(Decimal(string: "1.25")!),
        .bool(true), .string("aé"), .date(Date(timeIntervalSinceReferenceDate: 1000)), .data(Data([1, 2])), .null,
        .array([.int(1), .int(2)]),
    ]

    /// Every list of `arity` sample values.
    static func argumentLists(_ arity: Int) -> [[PredicateValue]] {
        var lists: [[PredicateValue]] = [[]]
        for _ in 0..<arity { lists = lists.flatMap { l in samples.map { l + [$0] } } }
        return lists
    }

    @Test("a deterministic function gives equal results for equal arguments", arguments: BuiltinFunction.allCases)
    func deterministicFunctionsRepeat(_ f: BuiltinFunction) throws {
        #expect(ExpressionNode.function(f, Array(repeating: .constant(.int(1)), count: f.arity)).isRowIndependent == f.isDeterministic)
        guard f.isDeterministic else { return }
        var calls = 0
        for args in Self.argumentLists(f.arity) {
            let first = Result { () throws(PredicateEvaluationError) in try SharedSemantics.function(f, args) }
            let second = Result { () throws(PredicateEvaluationError) in try SharedSemantics.function(f, args) }
            switch (first, second) {
            case (.success(let a), .success(let b)):
                // NaN is the one value not equal to itself.
                if case .double(let x) = a, x.isNaN, case .double(let y) = b, y.isNaN { break }
                #expect(a == b, "\(f.selector)\(args): \(a) then \(b)")
                calls += 1
            case (.failure(let a), .failure(let b)):
                #expect(a.kind == b.kind && a.message == b.message, "\(f.selector)\(args)")
            default:
                Issue.record("\(f.selector)\(args): \(first) then \(second)")
            }
        }
        #expect(calls > 0 || f.goesThroughCollection || [.noindex, .distanceToLocation, .tokenize, .indexed].contains(f),
                "no sample argument fits \(f.selector)")
    }

    @Test("the declared result kind is the kind the evaluator's results have", arguments: BuiltinFunction.allCases)
    func resultKindsMatchTheEvaluator(_ f: BuiltinFunction) throws {
        var checked = 0
        for args in Self.argumentLists(f.arity) {
            let declared = f.resultKind(args.map(ValueKind.init))
            guard declared != .unknown, let result = try? SharedSemantics.function(f, args), !result.isNull else { continue }
            // The one exception the kinds cannot see (see `resultKind`).
            if [.divide, .modulus].contains(f), args.contains(where: { if case .decimal = $0 { true } else { false } }),
               args[1].numeric?.doubleValue == 0 {
                #expect(result == .int(0))
                continue
            }
            #expect(ValueKind(result) == declared, "\(f.selector)\(args) = \(result), declared \(declared)")
            checked += 1
        }
        if f.resultKind(Array(repeating: .integer, count: f.arity)) != .unknown || f == .uppercase || f == .length {
            #expect(checked > 0, "no sample checks \(f.selector)")
        }
    }

    @Test("every collection operator the evaluator applies is one case of the enum")
    func collectionOperatorsAreTheEnum() throws {
        #expect(CollectionOperators.known == CollectionOperator.allCases.map(\.rawValue))
        let items: PredicateValue = .array([.dictionary(["v": .int(2), "l": .array([.int(1)])]), .dictionary(["v": .int(3), "l": .array([.int(1)])])])
        for op in CollectionOperator.allCases {
            #expect(CollectionOperator(component: op.rawValue) == op)
            #expect(CollectionOperator.isOperator(op.rawValue))
            let key = op == .count ? "" : op.rawValue.contains("Arrays") || op.rawValue.contains("Sets") ? ".l" : ".v"
            let e = try ExpressionNode(format: "items.\(op.rawValue)\(key)")
            let value = try PredicateNode.comparison(ComparisonNode(e, .notEqual, .constant(.null)))
                .evaluate(on: PredicateValue.dictionary(["items": items]))
            #expect(value, "\(op.rawValue)")
            #expect((op.aggregate != nil) == [.sum, .average, .min, .max].contains(op))
            #expect(op.aggregate.map { $0.isCollectionOperator } ?? true)
        }
        // An `@name` the enum lacks parses as an operator's place and is the evaluator's error.
        #expect(CollectionOperator(component: "@median") == nil && CollectionOperator.isOperator("@median"))
        #expect(!CollectionOperator.isOperator("median"))
        let unknown = try ExpressionNode(format: "items.@median.v")
        #expect {
            try PredicateNode.comparison(ComparisonNode(unknown, .equal, .constant(1))).evaluate(on: PredicateValue.dictionary(["items": items]))
        } throws: { error in
            (error as? PredicateEvaluationError)?.kind == .unsupported
        }
    }
}

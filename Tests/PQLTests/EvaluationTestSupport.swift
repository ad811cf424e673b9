import Foundation
import Testing
@testable import PQL

// Shared machinery for the data-driven evaluation suites (Evaluation*Tests.swift).
//
// A case is (format, subject, expected): the subject is a `PredicateValue` literal or JSON text
// (`{"$date": "…"}` is a date), the expectation a Bool or an error kind. Failures are reported
// at the line of the case, with the predicate and the subject in the message.

/// What evaluating a case must give.
enum EvalOutcome: Sendable, Equatable, CustomStringConvertible {
    case value(Bool)
    case error(PredicateEvaluationError.Kind)

    var description: String {
        switch self {
        case .value(let b): return "\(b)"
        case .error(let k): return "error .\(k)"
        }
    }
}

/// The object a case evaluates on.
enum EvalSubject: Sendable, CustomStringConvertible {
    case value(PredicateValue)
    case json(String)

    func resolve() throws -> PredicateValue {
        switch self {
        case .value(let v): return v
        case .json(let text): return try JSONReader.value(from: text)
        }
    }

    var description: String {
        switch self {
        case .value(let v): return "\(v)"
        case .json(let t): return t
        }
    }
}

/// One evaluation case.
struct EvalCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [PredicateValue]
    let subject: EvalSubject
    let variables: [String: PredicateValue]
    let expected: EvalOutcome
    let sourceLocation: SourceLocation

    /// `EvalCase("x == nil", ["x": nil], true)`
    init(_ format: String, _ subject: PredicateValue = nil, _ expected: Bool,
         args: [PredicateValue] = [], vars: [String: PredicateValue] = [:],
         sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(format, .value(subject), .value(expected), args, vars, sourceLocation)
    }

    /// `EvalCase("x + 1 > 0", ["x": nil], throws: .arithmetic)`
    init(_ format: String, _ subject: PredicateValue = nil, throws kind: PredicateEvaluationError.Kind,
         args: [PredicateValue] = [], vars: [String: PredicateValue] = [:],
         sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(format, .value(subject), .error(kind), args, vars, sourceLocation)
    }

    /// `EvalCase("d < $D", json: #"{"d": {"$date": "2024-01-01"}}"#, true)`
    init(_ format: String, json: String, _ expected: Bool,
         args: [PredicateValue] = [], vars: [String: PredicateValue] = [:],
         sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(format, .json(json), .value(expected), args, vars, sourceLocation)
    }

    init(_ format: String, json: String, throws kind: PredicateEvaluationError.Kind,
         args: [PredicateValue] = [], vars: [String: PredicateValue] = [:],
         sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(format, .json(json), .error(kind), args, vars, sourceLocation)
    }

    private init(_ format: String, _ subject: EvalSubject, _ expected: EvalOutcome, _ args: [PredicateValue],
                 _ vars: [String: PredicateValue], _ sourceLocation: SourceLocation) {
        self.format = format
        self.arguments = args
        self.subject = subject
        self.variables = vars
        self.expected = expected
        self.sourceLocation = sourceLocation
    }

    var testDescription: String { "\(format)  on \(subject) → \(expected)" }
}

/// Evaluates a predicate on a value and reports the outcome (a parse error is a thrown error).
func evalOutcome<Root: PredicateEvaluable>(_ node: PredicateNode, on value: Root,
                 variables: [String: PredicateValue] = [:],
                 functions: PredicateFunctions = .none) -> Result<Bool, PredicateEvaluationError> {
    do {
        return .success(try node.evaluate(on: value, variables: variables, functions: functions))
    } catch {
        return .failure(error)
    }
}

extension Result where Success == Bool, Failure == PredicateEvaluationError {
    var outcome: EvalOutcome {
        switch self {
        case .success(let b): return .value(b)
        case .failure(let e): return .error(e.kind)
        }
    }
}

/// Runs one case: parses (with `%@` arguments), evaluates, compares with the expectation.
func check(_ c: EvalCase, functions: PredicateFunctions = .none) {
    let node: PredicateNode
    do {
        node = try PredicateNode(format: c.format, argumentArray: c.arguments.map { $0 as Any? })
    } catch {
        Issue.record("\(c.format) does not parse: \(error)", sourceLocation: c.sourceLocation)
        return
    }
    let subject: PredicateValue
    do { subject = try c.subject.resolve() } catch {
        Issue.record("bad JSON in the case \(c.format): \(error)", sourceLocation: c.sourceLocation)
        return
    }
    let result = evalOutcome(node, on: subject, variables: c.variables, functions: functions)
    let detail: String
    if case .failure(let e) = result { detail = " (\(e))" } else { detail = "" }
    #expect(result.outcome == c.expected,
            "\(c.format) on \(subject) gave \(result.outcome)\(detail), expected \(c.expected)",
            sourceLocation: c.sourceLocation)
}

/// A filter case: a JSON array, a predicate, and the exact 0-based indices that match.
struct FilterCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [PredicateValue]
    let json: String
    let variables: [String: PredicateValue]
    let indices: [Int]
    let sourceLocation: SourceLocation

    init(_ format: String, args: [PredicateValue] = [], vars: [String: PredicateValue] = [:],
         json: String, _ indices: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        self.format = format
        self.arguments = args
        self.json = json
        self.variables = vars
        self.indices = indices
        self.sourceLocation = sourceLocation
    }

    var testDescription: String { "\(format) → \(indices)" }
}

/// Runs a filter case through `indices(matching:)` and `filter(_:)`, which must agree.
func check(_ c: FilterCase) {
    do {
        let node = try PredicateNode(format: c.format, argumentArray: c.arguments.map { $0 as Any? })
        guard case .array(let rows) = try JSONReader.value(from: c.json) else {
            Issue.record("the data of \(c.format) is not a JSON array", sourceLocation: c.sourceLocation)
            return
        }
        let compiled = try node.compiled(for: PredicateValue.self)
        let found = try rows.indices(matching: compiled, variables: c.variables)
        #expect(found == c.indices, "\(c.format)", sourceLocation: c.sourceLocation)
        let kept = try rows.filter(compiled, variables: c.variables)
        #expect(kept == c.indices.map { rows[$0] }, "filter(\(c.format))", sourceLocation: c.sourceLocation)
    } catch {
        Issue.record("\(c.format) failed: \(error)", sourceLocation: c.sourceLocation)
    }
}

/// Parses a format string, recording a failure at the caller's line instead of throwing.
func parsed(_ format: String, _ args: Any?..., sourceLocation: SourceLocation = #_sourceLocation) -> PredicateNode? {
    do { return try PredicateNode(format: format, argumentArray: args) } catch {
        Issue.record("\(format) does not parse: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The evaluation error thrown by `body`, or a recorded issue if it returns normally.
func evaluationError(_ sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: () throws -> Any) -> PredicateEvaluationError? {
    do {
        let v = try body()
        Issue.record("expected an evaluation error, got \(v)", sourceLocation: sourceLocation)
    } catch let e as PredicateEvaluationError {
        return e
    } catch {
        Issue.record("expected a PredicateEvaluationError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A date at an ISO-8601 instant (UTC), for building cases.
func isoDate(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Date {
    guard let d = ISO8601.date(from: text) else {
        Issue.record("bad ISO-8601 date \(text)", sourceLocation: sourceLocation)
        return Date(timeIntervalSinceReferenceDate: 0)
    }
    return d
}

/// Every table of cases in the evaluation suites, for the cross-checks that apply to all of
/// them (reprinting, case counts).
enum EvaluationCaseTables {
    static var all: [EvalCase] {
        EvaluationNilTests.cases + EvaluationComparisonTests.cases + EvaluationStringOptionsTests.cases
            + EvaluationLikeMatchesTests.cases + EvaluationCollectionsTests.cases + EvaluationKeyPathTests.cases
            + EvaluationArithmeticFunctionsTests.cases + EvaluationSpecialFormsTests.cases
            + EvaluationSpecialFormsTests.functionCases
    }

    static var allFilters: [FilterCase] {
        EvaluationComparisonTests.filters + EvaluationCollectionsTests.filters + EvaluationStringOptionsTests.filters
            + EvaluationKeyPathTests.filters
    }
}

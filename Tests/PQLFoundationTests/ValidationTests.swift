#if !canImport(Darwin)
import Foundation
import PQL
import PQLFoundation
import Testing

/// What Apple raises exceptions for: the throwing alternatives, and what the non-throwing
/// forms do.
@Suite struct ValidationTests {
    @Test func validatingFormatThrowsAPlacedError() throws {
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "name ==") }
        do {
            _ = try NSPredicate(validatingFormat: "age > %@ AND", argumentArray: [3])
            Issue.record("no error")
        } catch {
            #expect(error.kind == .unexpectedToken)
            #expect(error.range.column == 13)
            #expect(error.rendered.contains("^"))
        }
        let ok = try? NSPredicate(validatingFormat: "name == %@", "Bo", "surplus")
        #expect(ok?.formatText == #"name == "Bo""#)
    }

    @Test func validatingExpressionFormat() throws {
        #expect(throws: PredicateFormatError.self) { try FormatExpression(validatingFormat: "1 +") }
        let e = try FormatExpression(validatingFormat: "price * %@", 3)
        #expect(e.expressionValue(with: ["price": 5], context: nil) as? Int == 15)
    }

    @Test func aMalformedFormatMatchesNothingAndIsReportedNeverStopsTheProgram() async throws {
        let p = NSPredicate(format: "name ==")
        #expect(!p.evaluate(with: ["name": "x"]))
        #expect(p.description == "FALSEPREDICATE")
        do {
            _ = try p.evaluateOrThrow(with: ["name": "x"])
            Issue.record("no error")
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.message.contains("did not parse"))
        }
        #expect(!NSPredicate(format: "a == 1 AND", argumentArray: nil).evaluate(with: ["a": 1]))
        #expect(NSExpression(format: "1 +").expressionValue(with: nil, context: nil) == nil)
        // The report: PQL's message and caret on standard error, and the program goes on.
        let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            _ = NSPredicate(format: "age > %@ AND", 3)
            _ = NSExpression(format: "1 +")
        }
        let errors = String(decoding: run?.standardErrorContent ?? [], as: UTF8.self)
        #expect(errors.contains("NSPredicate(format:)"))
        #expect(errors.contains("NSExpression(format:)"))
        #expect(errors.contains("^"))
        #expect(errors.contains("validatingFormat:"))
    }

    @Test func evaluationErrorsAreFalseOrThrown() throws {
        let p = NSPredicate(format: "age + 1 > 3")
        #expect(!p.evaluate(with: ["age": "x"]))
        #expect(throws: PredicateEvaluationError.self) { try p.evaluateOrThrow(with: ["age": "x"]) }
        #expect(try p.evaluateOrThrow(with: ["age": 5]))
        #expect(try NSPredicate(format: "age > $A").evaluateOrThrow(with: ["age": 5], substitutionVariables: ["A": 1]))
    }
}
#endif

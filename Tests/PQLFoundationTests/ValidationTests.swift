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

    @Test func aMalformedFormatStopsTheProgramWithPQLsMessage() async {
        await #expect(processExitsWith: .failure) {
            _ = NSPredicate(format: "name ==")
        }
        await #expect(processExitsWith: .failure) {
            _ = NSExpression(format: "1 +")
        }
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

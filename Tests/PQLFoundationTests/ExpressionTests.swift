#if !canImport(Darwin)
import Foundation
import PQL
import PQLFoundation
import Testing

@Suite struct ExpressionTests {
    @Test func arithmeticFunctionsAndKeyPaths() throws {
        #expect(NSExpression(format: "2 + 3 * 4").expressionValue(with: nil, context: nil) as? Int == 14)
        #expect(NSExpression(format: "price * %@", 2.5).expressionValue(with: ["price": 4], context: nil) as? Double == 10)
        #expect(NSExpression(format: "sum:(prices)").expressionValue(with: ["prices": [1, 2, 3]], context: nil) as? Int == 6)
        #expect(NSExpression(format: "name", argumentArray: []).expressionValue(with: NSDictionary(dictionary: ["name": "Bo"]), context: nil) as? String == "Bo")
        #expect(NSExpression(format: "missing").expressionValue(with: ["a": 1], context: nil) == nil)
    }

    @Test func variablesComeFromTheContext() throws {
        let context = NSMutableDictionary(dictionary: ["RATE": 3])
        #expect(NSExpression(format: "$RATE * 2").expressionValue(with: nil, context: context) as? Int == 6)
    }

    struct Item: Codable { var price: Double }
    struct Point: PredicateReadable {
        var x: Int
        static let predicateKeys: PredicateKeys<Point> = ["x": .int { $0.x }]
    }

    @Test func typedValues() throws {
        #expect(NSExpression(format: "price + 1").expressionValue(with: Item(price: 1.5), context: nil) as? Double == 2.5)
        #expect(NSExpression(format: "x * x").expressionValue(with: Point(x: 7), context: nil) as? Int == 49)
        #expect(try NSExpression(format: "x").value(with: Point(x: 2)) == .int(2))
        #expect(throws: PredicateEvaluationError.self) { try NSExpression(format: "x + 'a'").value(with: Point(x: 2)) }
    }

    @Test func textCopyAndEquality() throws {
        let e = NSExpression(format: "a+1")
        #expect(e.description == "a + 1")
        #expect(e.isEqual(NSExpression(format: "a + 1")))
        #expect(e.hash == NSExpression(format: "a + 1").hash)
        #expect((e.copy() as? FormatExpression) === e)
        #expect(e.expression == (try ExpressionNode(format: "a + 1")))
    }
}
#endif

import Foundation
import PQL
import Testing

// ExpressionNode.value(on:) and EncodableValues.value(of:): an expression's value on its own,
// as NSExpression's expressionValue(with:context:) needs it (PQLFoundation builds on both).
@Suite struct ExpressionValueTests {
    @Test func valuesOnEachKindOfRoot() throws {
        #expect(try ExpressionNode(format: "2 + 3 * 4").value(on: PredicateValue.null) == .int(14))
        #expect(try ExpressionNode(format: "price * $N").value(on: PredicateValue.dictionary(["price": .int(5)]), variables: ["N": .int(3)]) == .int(15))
        let row: [String: Any] = ["tags": ["a", "b"]]
        #expect(try ExpressionNode(format: "tags.@count").value(on: row) == .int(2))
        #expect(try ExpressionNode(format: "SELF").value(on: "x") == .string("x"))
    }

    @Test func errorsAreTyped() {
        #expect(throws: PredicateEvaluationError.self) { try ExpressionNode(format: "a + 1").value(on: PredicateValue.dictionary(["a": .string("x")])) }
    }

    @Test func deepTreesBuiltInCodeAreRefusedNotCrashed() throws {
        var e = ExpressionNode.constant(.int(1))
        for _ in 0..<1000 { e = .function(.add, [e, .constant(.int(1))]) }
        #expect(throws: PredicateEvaluationError.self) { try e.value(on: PredicateValue.null) }
        var shallow = ExpressionNode.constant(.int(1))
        for _ in 0..<50 { shallow = .function(.add, [shallow, .constant(.int(1))]) }
        #expect(try shallow.value(on: PredicateValue.null) == .int(51))
    }

    struct Item: Codable { var name: String; var price: Double; var added: Date }

    @Test func encodableValuesKeepDates() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let v = try EncodableValues.value(of: Item(name: "pen", price: 2, added: date))
        #expect(v.dictionaryValue?["added"] == .date(date))
        #expect(v.dictionaryValue?["price"] == .double(2))
    }
}

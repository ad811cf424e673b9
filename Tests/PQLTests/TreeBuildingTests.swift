import Foundation
import Testing
import PQL

/// Building predicate trees in Swift reads like the format string: operands then operator,
/// the quantifier and options labeled at the end.
@Suite("Trees built in code")
struct TreeBuildingTests {
    @Test("the natural comparison call compiles, prints and evaluates")
    func naturalComparison() throws {
        let c = ComparisonNode(.keyPath("age"), .greaterThan, .constant(30))
        #expect(c.quantifier == .direct)
        #expect(c.options == [])
        let p = PredicateNode.comparison(c)
        #expect(p.description == "age > 30")
        #expect(p == (try PredicateNode(format: "age > 30")))
        #expect(try p.evaluate(on: ["age": 31] as PredicateValue))
        #expect(try !p.evaluate(on: ["age": 30] as PredicateValue))
    }

    @Test("quantifier and options are labeled trailing arguments")
    func quantifierAndOptions() throws {
        let c = ComparisonNode(.keyPath("kids.name"), .beginsWith, .constant("a"), quantifier: .any, options: .caseInsensitive)
        #expect(PredicateNode.comparison(c).description == #"ANY kids.name BEGINSWITH[c] "a""#)
        #expect(PredicateNode.comparison(c) == (try PredicateNode(format: "ANY kids.name BEGINSWITH[c] 'a'")))
        let all = ComparisonNode(.keyPath("scores"), .greaterThanOrEqual, .constant(50), quantifier: .all)
        #expect(PredicateNode.comparison(all).description == "ALL scores >= 50")
        let options = ComparisonNode(.keyPath("name"), .equal, .constant("x"), options: [.caseInsensitive, .diacriticInsensitive])
        #expect(PredicateNode.comparison(options).description == #"name ==[cd] "x""#)
    }

    @Test("PredicateNode.comparison builds the node in one call")
    func predicateShorthand() throws {
        let p = PredicateNode.and([
            .comparison(.keyPath("age"), .greaterThanOrEqual, .constant(18)),
            .not(.comparison(.keyPath("tags"), .equal, .constant("spam"), quantifier: .any)),
        ])
        #expect(p.description == #"age >= 18 AND (NOT ANY tags == "spam")"#)
        #expect(p == (try PredicateNode(format: "age >= 18 AND NONE tags == 'spam'")))
    }

    @Test("a key path string splits at dots, as the parser splits it")
    func keyPathString() throws {
        #expect(ExpressionNode.keyPath("address.city") == .keyPath(["address", "city"]))
        #expect(ExpressionNode.keyPath("kids.@count") == (try ExpressionNode(format: "kids.@count")))
        #expect(ExpressionNode.keyPath("name") == (try ExpressionNode(format: "name")))
        // The array form still names a key with a dot in it.
        #expect(ExpressionNode.keyPath(["a.b"]) != ExpressionNode.keyPath("a.b"))
    }

    @Test("the README's tree-building example compiles and prints what it says")
    func readmeExample() {
        let adult = ComparisonNode(.keyPath("age"), .greaterThanOrEqual, .constant(18))
        let p = PredicateNode.and([.comparison(adult),
                                   .comparison(.keyPath("kids.name"), .beginsWith, .constant("a"), quantifier: .any, options: .caseInsensitive)])
        #expect(p.description == #"age >= 18 AND ANY kids.name BEGINSWITH[c] "a""#)
    }
}

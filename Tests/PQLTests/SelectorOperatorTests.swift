import Foundation
import PQL
import Testing

/// Apple-platform forms that parse and print canonically (issue 29): custom selector
/// operators, `tokenize(…, 'cdl')`, `distanceToLocation:fromLocation:`, and what each means.
@Suite struct SelectorOperatorTests {
    @Test("parse, print and parse again give the same tree", arguments: [
        ("SELF isKindOfClass: %@", ["NSString"], "SELF isKindOfClass: \"NSString\""),
        ("class isSubclassOfClass: $c", [], "class isSubclassOfClass: $c"),
        ("a.b isKindOfClass:'NSArray' AND x == 1", [], "a.b isKindOfClass: \"NSArray\" AND x == 1"),
        ("NOT (SELF isKindOfClass: 'NSNumber')", [], "NOT SELF isKindOfClass: \"NSNumber\""),
        ("FUNCTION(SELF, 'isKindOfClass:', 'NSDate') == YES", [], "SELF isKindOfClass: \"NSDate\""),
        ("ALL tokenize(%@, 'cdl') IN allTokens", ["after session"], "ALL tokenize:using:(\"after session\", \"cdl\") IN allTokens"),
        ("tokenize:using:(name, 'c') CONTAINS 'bob'", [], "tokenize:using:(name, \"c\") CONTAINS \"bob\""),
        ("distanceToLocation:fromLocation:(location, %@) < 5000", [["lat": 1]], "distanceToLocation:fromLocation:(location, CAST({{\"lat\", 1}}, \"NSDictionary\")) < 5000"),
    ] as [(String, [PredicateValue], String)])
    func roundTrip(_ input: String, _ args: [PredicateValue], _ printed: String) throws {
        let p = try PredicateNode(format: input, argumentArray: args)
        #expect(p.description == printed)
        let again = try PredicateNode(format: p.description)
        #expect(again == p)
        #expect(again.description == printed)
    }

    @Test("isKindOfClass: over PQL's kinds of value", arguments: [
        ("NSString", PredicateValue.string("a"), true), ("NSString", 1, false),
        ("NSNumber", 1, true), ("NSNumber", true, true), ("NSNumber", 2.5, true), ("NSNumber", "1", false),
        ("NSDecimalNumber", .decimal(Decimal(string: "1.5")!), true), ("NSDecimalNumber", 1, false),
        ("NSDate", .date(Date(timeIntervalSinceReferenceDate: 0)), true),
        ("NSData", .data(Data([1])), true),
        ("NSArray", [1, 2], true), ("NSArray", .set([1]), false), ("NSSet", .set([1]), true),
        ("NSDictionary", ["a": 1], true), ("NSObject", "x", true), ("NSObject", nil, false),
        ("NSNull", nil, false), ("NSURL", "x", false),
        ("Folder", ["$entity": "Folder", "$key": 1], true), ("Note", ["$entity": "Folder", "$key": 1], false),
        ("NSManagedObject", ["$entity": "Folder", "$key": 1], true), ("NSDictionary", ["$entity": "Folder", "$key": 1], false),
    ] as [(String, PredicateValue, Bool)])
    func isKindOfClass(_ name: String, _ value: PredicateValue, _ expected: Bool) throws {
        let p = try PredicateNode(format: "SELF isKindOfClass: %@", name)
        #expect(try p.evaluate(on: value) == expected)
    }

    @Test("isKindOfClass: needs a class name string")
    func isKindOfClassNeedsAString() throws {
        let p = try PredicateNode(format: "SELF isKindOfClass: 5")
        #expect { try p.evaluate(on: PredicateValue.string("a")) } throws: { error in
            (error as? PredicateEvaluationError)?.kind == .typeMismatch
        }
    }

    @Test("a registered closure answers a selector operator, before the built-in meaning")
    func registered() throws {
        let functions = PredicateFunctions([
            "isSubclassOfClass:": { target, args in .bool(target == .string("NSMutableString") && args == [.string("NSString")]) },
            "isKindOfClass:": { _, _ in .bool(false) },
        ])
        let p = try PredicateNode(format: "class isSubclassOfClass: $c")
        #expect(try p.evaluate(on: ["class": "NSMutableString"] as PredicateValue, variables: ["c": "NSString"], functions: functions))
        #expect(try !PredicateNode(format: "SELF isKindOfClass: 'NSString'").evaluate(on: PredicateValue.string("a"), functions: functions))
    }

    @Test("a selector without a meaning is a typed evaluation error with a place and a hint, not a parse error")
    func unknownSelector() throws {
        let (tree, map) = try PredicateNode.parse(format: "x == 1 AND class isSubclassOfClass: $c")
        #expect { try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map) } throws: { error in
            guard let e = error as? PredicateEvaluationError else { return false }
            return e.kind == .unsupported && e.message.contains("isSubclassOfClass:") && e.hint?.contains("PredicateFunctions") == true
                && e.rendered.contains("^")
        }
        #expect { try PredicateNode(format: "distanceToLocation:fromLocation:(a, b) < 1").evaluate(on: ["a": 1, "b": 2] as PredicateValue) } throws: { error in
            (error as? PredicateEvaluationError)?.kind == .unsupported
        }
    }

    @Test("tokenize: the words of a string, folded as the options ask", arguments: [
        ("tokenize('After  Séssion, 2024!', '') == {'After', 'Séssion', '2024'}", true),
        ("tokenize('After Séssion', 'cdl') == {'after', 'session'}", true),
        ("tokenize('After Séssion', 'Cdl') == {'after', 'session'}", true),
        ("tokenize('ÉCOLE', 'c') == {'école'}", true),
        ("tokenize({'a b', 'c'}, '') == {'a', 'b', 'c'}", true),
        ("tokenize(nil, 'cd') == nil", true),
        ("ALL tokenize('bob SMITH', 'cdl') IN allTokens", true),
        ("ALL tokenize('bob jones', 'cdl') IN allTokens", false),
    ])
    func tokenize(_ format: String, _ expected: Bool) throws {
        let subject: PredicateValue = ["allTokens": ["bob", "smith", "likes", "joseph"]]
        #expect(try PredicateNode(format: format).evaluate(on: subject) == expected)
    }

    @Test("tokenize: wrong kinds are typed errors", arguments: ["tokenize(5, 'c') == nil", "tokenize('a', 5) == nil", "tokenize('a', 'x') == nil"])
    func tokenizeErrors(_ format: String) throws {
        #expect { try PredicateNode(format: format).evaluate(on: PredicateValue.null) } throws: { error in
            (error as? PredicateEvaluationError)?.kind == .typeMismatch
        }
    }
}

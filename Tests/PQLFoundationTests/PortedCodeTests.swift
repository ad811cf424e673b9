#if !canImport(Darwin)
import Foundation
import PQL
import PQLFoundation
import Testing

/// Darwin code as it is written on Apple platforms, compiled here against
/// swift-corelibs-foundation plus PQLFoundation: that it builds at all is half of the test
/// (every call form of NSPredicate, NSCompoundPredicate and NSExpression below resolves to
/// PQLFoundation's, not to Foundation's unavailable or format-less one).
@Suite struct PortedCodeTests {
    let people: [[String: Any]] = [["name": "Ángela", "age": 30, "tags": ["vip"], "score": 12],
                                   ["name": "Bo", "age": 12, "tags": [String](), "score": 3]]

    @Test func theIssueExample() throws {
        let p = NSPredicate(format: "name BEGINSWITH[cd] %@ AND age >= %d", "a", 18)
        let c = NSCompoundPredicate(andPredicateWithSubpredicates: [p, NSPredicate(format: "ANY tags == %@", "vip")])
        let adults = (people as NSArray).filtered(using: c)
        let t = NSPredicate(format: "score > $MIN").withSubstitutionVariables(["MIN": 10])
        #expect(adults.count == 1)
        #expect(people.filter { t.evaluate(with: $0) }.count == 1)
        #expect(c.formatText == #"(name BEGINSWITH[cd] "a" AND age >= 18) AND ANY tags == "vip""#)
    }

    @Test func formatAndArgumentArray() throws {
        let p = NSPredicate(format: "%K IN %@", argumentArray: ["name", ["Bo", "Cy"]])
        #expect(p.formatText == #"name IN {"Bo", "Cy"}"#)
        #expect(p.evaluate(with: ["name": "Bo"]))
        #expect(!p.evaluate(with: ["name": "Al"]))
        #expect(NSPredicate(format: "age > 3", argumentArray: nil).evaluate(with: ["age": 4]))
        // Through a plain NSPredicate reference, by dynamic dispatch.
        let plain: NSPredicate = p
        #expect(plain.description == p.formatText)
    }

    @Test func surplusArgumentsAreIgnoredAsApplesAre() throws {
        let p = NSPredicate(format: "age > %d", 18, "surplus", 3.5)
        #expect(p.formatText == "age > 18")
        let many = NSPredicate(format: "a == %@ AND b == %@", argumentArray: ["x", "y"] + Array(repeating: 0, count: 1000))
        #expect(many.formatText == #"a == "x" AND b == "y""#)
    }

    @Test func nsDictionaryValues() throws {
        let row = NSDictionary(dictionary: ["name": "Zoë", "age": 41])
        #expect(NSPredicate(format: "name ==[cd] 'zoe' AND age > 40").evaluate(with: row))
        let rows = NSArray(array: [row, NSDictionary(dictionary: ["name": "Al", "age": 3])])
        #expect(rows.filtered(using: NSPredicate(format: "age < 10")).count == 1)
    }

    struct Person: PredicateReadable {
        var name: String
        var age: Int
        static let predicateKeys: PredicateKeys<Person> = ["name": .string { $0.name }, "age": .int { $0.age }]
    }

    @Test func predicateReadableValues() throws {
        let people = [Person(name: "Ann", age: 40), Person(name: "bob", age: 17)]
        let adults = NSPredicate(format: "age >= 18")
        #expect(people.filter { adults.evaluate(with: $0) }.map(\.name) == ["Ann"])
        // An unknown key is an error in PQL, an exception at Apple: here, no match.
        #expect(!NSPredicate(format: "height > 1").evaluate(with: people[0]))
    }

    struct Item: Codable {
        var title: String
        var price: Double
        var added: Date
    }

    @Test func codableValues() throws {
        let items = [Item(title: "pen", price: 2, added: Date(timeIntervalSinceReferenceDate: 0)),
                     Item(title: "lamp", price: 40, added: Date(timeIntervalSinceReferenceDate: 100))]
        let cheap = NSPredicate(format: "price < %@ AND added < %@", 10, Date(timeIntervalSinceReferenceDate: 50) as NSDate)
        #expect(items.filter { cheap.evaluate(with: $0) }.map(\.title) == ["pen"])
    }

    @Test func otherValues() throws {
        #expect(NSPredicate(format: "SELF BEGINSWITH 'a'").evaluate(with: "abc"))
        #expect(NSPredicate(format: "SELF > 2").evaluate(with: NSNumber(value: 3)))
        #expect(NSPredicate(format: "SELF == nil").evaluate(with: nil))
        #expect(NSPredicate(format: "@count == 2").evaluate(with: [1, 2]))
        let optional: Any? = Optional<[String: Any]>.some(["a": 1])
        #expect(NSPredicate(format: "a == 1").evaluate(with: optional))
        // A value with no predicate value: no match, no crash.
        final class Opaque {}
        #expect(!NSPredicate(format: "SELF == 1").evaluate(with: Opaque()))
    }

    @Test func substitutionVariables() throws {
        let template = NSPredicate(format: "score > $MIN AND name IN $NAMES")
        let bound = template.withSubstitutionVariables(["MIN": 5, "NAMES": ["Ángela", "Bo"]])
        #expect(bound.formatText == #"score > 5 AND name IN {"Ángela", "Bo"}"#)
        #expect(people.filter { bound.evaluate(with: $0) }.count == 1)
        // Bindings at evaluation time, without a copy.
        #expect(template.evaluate(with: people[0], substitutionVariables: ["MIN": 5, "NAMES": ["Ángela"]]))
        #expect(!template.evaluate(with: people[0], substitutionVariables: ["MIN": 50, "NAMES": ["Ángela"]]))
        // Through a compound, keeping its type.
        let compound: NSCompoundPredicate = NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "age < $AGE"))
        let substituted: NSCompoundPredicate = compound.withSubstitutionVariables(["AGE": 18])
        #expect(substituted.formatText == "NOT age < 18")
        #expect(compound.formatText == "NOT age < $AGE")
        // A block predicate is returned as it is.
        let block = NSPredicate { _, _ in true }
        #expect(block.withSubstitutionVariables(["X": 1]) === block)
    }

    @Test func compoundForms() throws {
        let a = NSPredicate(format: "age >= 18"), b = NSPredicate(format: "ANY tags == 'vip'")
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [a, b])
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [a, b])
        let not = NSCompoundPredicate(notPredicateWithSubpredicate: or)
        let typed = NSCompoundPredicate(type: .or, subpredicates: [and, NSPredicate(value: false)])
        #expect(and.formatText == #"age >= 18 AND ANY tags == "vip""#)
        #expect(or.formatText == #"age >= 18 OR ANY tags == "vip""#)
        #expect(not.formatText == #"NOT (age >= 18 OR ANY tags == "vip")"#)
        #expect(typed.formatText == #"(age >= 18 AND ANY tags == "vip") OR FALSEPREDICATE"#)
        #expect(people.filter { or.evaluate(with: $0) }.count == 1)
        #expect(people.filter { not.evaluate(with: $0) }.count == 1)
        #expect(and.compoundPredicateType == .and && not.subpredicates.count == 1)
        // The type still names Foundation's class.
        let asPredicate: NSPredicate = typed
        #expect((asPredicate as? NSCompoundPredicate)?.compoundPredicateType == .or)
        let kind: NSCompoundPredicate.LogicalType = .not
        #expect(not.compoundPredicateType == kind)
        #expect(and.isEqual(NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate(format: "ANY tags == \"vip\"")])))
    }

    @Test func blockSubpredicatesKeepFoundationsText() throws {
        let block = NSPredicate { object, _ in (object as? [String: Any])?["age"] as? Int == 30 }
        let c = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "score > 10"), block])
        #expect(c.formatText == "score > 10 AND BLOCKPREDICATE")
        #expect(people.filter { c.evaluate(with: $0) }.count == 1)
        #expect(c.predicateNode == nil)
    }

    @Test func copyEqualityAndTree() throws {
        let p = NSPredicate(format: "a == 1")
        #expect(p.isEqual(NSPredicate(format: "a==1")))
        #expect(!p.isEqual(NSPredicate(format: "a == 2")))
        #expect(p.hash == NSPredicate(format: "a == 1").hash)
        #expect((p.copy() as? NSPredicate)?.formatText == "a == 1")
        #expect(p.predicateNode == (try PredicateNode(format: "a == 1")))
        let built = NSPredicate(try! PredicateNode(format: "b > %@", 2))
        #expect(built.formatText == "b > 2")
    }

    @Test func threadsShareOnePredicate() async {
        // NSPredicate is not Sendable on Linux (Foundation marks the conformance unavailable);
        // a format predicate is immutable, which is what this test holds it to.
        struct Shared: @unchecked Sendable { let p: NSPredicate; let rows: [[String: Any]] }
        let shared = Shared(p: NSPredicate(format: "age >= 18"), rows: people)
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    shared.rows.filter { shared.p.evaluate(with: $0) }.count
                        + [Person(name: "x", age: 20)].filter { shared.p.evaluate(with: $0) }.count
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 2, count: 8))
    }
}
#endif

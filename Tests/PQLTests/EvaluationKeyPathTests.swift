import Foundation
import Testing
@testable import PQL

/// Reference §4.2, §6.9 and decision D5 for JSON-shaped values: dotted paths, missing keys are nil,
/// arrays and sets map keys over their elements, `%K`, `#`-escaped keys, `$var.key`.
@Suite("Evaluation: key paths (§4.2, §6.9)")
struct EvaluationKeyPathTests {
    static let doc: PredicateValue = [
        "name": "Ann",
        "address": ["city": "Paris", "geo": ["lat": 48.8, "lng": 2.3], "zip": nil],
        "kids": [["name": "Bo", "age": 4], ["name": "Cy"], ["name": "Di", "age": 9]],
        "pets": .set([["kind": "cat"], ["kind": "dog"]]),
        "like": "yes",
        "first name": "Ann",
        "a.b": 1,
        "n": 5,
    ]

    static let cases: [EvalCase] = [
        EvalCase("name == 'Ann'", doc, true),
        EvalCase("SELF.name == 'Ann'", doc, true),
        EvalCase("address.city == 'Paris'", doc, true),
        EvalCase("address.geo.lat > 48", doc, true),
        EvalCase("address.geo.lng BETWEEN {2, 3}", doc, true),
        EvalCase("SELF.address.geo.lat == 48.8", doc, true),
        // a missing key anywhere along the path is nil (A.2 #32)
        EvalCase("missing == nil", doc, true),
        EvalCase("missing == nil", [:], true),
        EvalCase("address.street == nil", doc, true),
        EvalCase("address.zip == nil", doc, true),
        EvalCase("address.nothing.deeper == nil", doc, true),
        EvalCase("nothing.deeper.still == nil", doc, true),
        EvalCase("address.street != 'x'", doc, true),
        EvalCase("address.street BEGINSWITH 'x'", doc, false),
        EvalCase("missing.@count == nil", doc, true),
        // arrays map the key over their elements, nil placeholders kept
        EvalCase("kids.name == {'Bo', 'Cy', 'Di'}", doc, true),
        EvalCase("kids.age == {4, nil, 9}", doc, true),
        EvalCase("kids.age.@count == 3", doc, true),
        EvalCase("'Cy' IN kids.name", doc, true),
        EvalCase("kids.name CONTAINS 'Di'", doc, true),
        EvalCase("ANY kids.age == nil", doc, true),
        EvalCase("ANY kids.name BEGINSWITH 'D'", doc, true),
        EvalCase("kids.nothing == {nil, nil, nil}", doc, true),
        EvalCase("kids[0].name == 'Bo'", doc, true),
        EvalCase("kids.@max.age == 9", doc, true),
        // sets map to sets
        EvalCase("pets.kind == %@", doc, true, args: [.set(["dog", "cat"])]),
        EvalCase("'dog' IN pets.kind", doc, true),
        EvalCase("ANY pets.kind == 'cat'", doc, true),
        // strings answer length (NSString's KVC key); other scalars have no keys
        EvalCase("name.length == 3", doc, true),
        EvalCase("SELF.length == 2", "\u{1F600}", true),
        EvalCase("n.foo == 1", doc, throws: .unknownKey),
        EvalCase("name.foo == 1", doc, throws: .unknownKey),
        EvalCase("SELF.foo == 1", 5, throws: .unknownKey),
        EvalCase("SELF.foo == 1", true, throws: .unknownKey),
        // %K keys, dotted and not
        EvalCase("%K == 'Paris'", doc, true, args: ["address.city"]),
        EvalCase("%K == 'Ann'", doc, true, args: ["first name"]),
        EvalCase("%K == nil", doc, true, args: ["no.such.key"]),
        EvalCase("%K > 4", doc, true, args: ["n"]),
        // reserved words as keys, through #
        EvalCase("#like == 'yes'", doc, true),
        EvalCase("#like LIKE 'y*'", doc, true),
        // a key path on a variable's value
        EvalCase("$P.name == 'Zed'", doc, true, vars: ["P": ["name": "Zed"]]),
        EvalCase("$P.name == name", doc, false, vars: ["P": ["name": "Zed"]]),
        EvalCase("$P.missing == nil", doc, true, vars: ["P": ["name": "Zed"]]),
        EvalCase("$P.name == 'Zed'", doc, throws: .unboundVariable),
        // SELF on scalars and collections
        EvalCase("SELF == 5", 5, true),
        EvalCase("SELF == 'x'", "x", true),
        EvalCase("SELF == {1, 2}", [1, 2], true),
        EvalCase("SELF.name == {'a', nil}", [["name": "a"], [:]], true),
        // keys on NSDate, data and numbers fail loudly rather than reading nil
        EvalCase("d.year == 2024", json: #"{"d": {"$date": "2024-01-01"}}"#, throws: .unknownKey),
    ]

    @Test("key paths", arguments: cases)
    func keyPaths(_ c: EvalCase) { check(c) }

    static let rows = """
    [{"user": {"name": "ann", "roles": ["admin"]}},
     {"user": {"name": "bob", "roles": []}},
     {"user": null},
     {},
     {"user": {"name": "cy"}},
     {"user": {"roles": ["admin", "dev"]}}]
    """

    static let filters: [FilterCase] = [
        FilterCase("user.name != nil", json: rows, [0, 1, 4]),
        FilterCase("user.name == nil", json: rows, [2, 3, 5]),
        FilterCase("ANY user.roles == 'admin'", json: rows, [0, 5]),
        FilterCase("user.roles.@count == 0", json: rows, [1]),
        FilterCase("NOT (user.name BEGINSWITH 'b')", json: rows, [0, 2, 3, 4, 5]),
        FilterCase("%K ==[c] 'ANN'", args: ["user.name"], json: rows, [0]),
    ]

    @Test("filters return the exact indices", arguments: filters)
    func filtered(_ c: FilterCase) { check(c) }

    @Test("an unknown key on a scalar names the key and the keys it has")
    func unknownKeyOnScalar() throws {
        let e = evaluationError { try PredicateNode(format: "name.width == 3").evaluate(on: ["name": "abc"] as PredicateValue) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.message.contains("width") == true)
        #expect(e?.hint?.contains("length") == true)
    }
}

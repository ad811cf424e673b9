import Foundation
import Testing
@testable import PQL

/// The shapes the evaluator compiles into one closure (FusedPaths.swift) and the in-place
/// reading of elements (ElementBorrow.swift) give what the general path gives: the same rows
/// on typed structs and on `[String: Any]` as on their `PredicateValue` form, with nil, absent
/// keys and values of other kinds among them.
@Suite("Evaluation: fused shapes and borrowed elements")
struct FusedEvaluationTests {
    typealias Row = EvaluationPropertyTests.Row

    static let shapes: [String] = {
        var out: [String] = []
        for k in [-2, 0, 3] {
            out += ["NOT (a == \(k))", "NOT (a != \(k))", "NOT (a = \(k))", "NOT (a <> \(k))",
                    "a < \(k) OR a > \(k + 1)", "a < \(k) OR a > \(k + 1) OR a == \(k - 3)",
                    "a >= \(k) AND a <= \(k + 2)", "a >= \(k) AND a <= \(k + 2) AND a != \(k + 1)",
                    "a BETWEEN {\(k + 2), \(k)} OR a == -4", "a BETWEEN {\(k), \(k + 3)} AND a != \(k + 1)",
                    "a == \(k) OR a == \(k + 1)", "a != \(k) AND a != \(k + 1)", "NOT (a < \(k) OR a > \(k + 1))"]
        }
        out += ["NOT (a == nil)", "NOT (a != nil)", "NOT (b == nil)", "NOT (t == nil)",
                "NOT (b == 'abc')", "NOT (b != 'café')", "NOT (b == 'cafe\u{301}')", "NOT (b ==[c] 'ABC')",
                "NOT (f == 0.5)", "NOT (f != 2)", "NOT (a == 1.5)", "NOT (a == 'x')",
                "a < 0 OR a > 2 AND b != nil", "(a < 0 OR a > 2) AND NOT (b == 'abc') AND t != nil",
                "a < 1 OR f > 1", "a < 1 OR a > 2.5", "a < 1 OR a >[c] 2", "a < 1 OR c.@count > 2"]
        return out
    }()

    @Test("fused shapes match the general path on structs and on [String: Any]", arguments: shapes)
    func fusedShapesAgree(_ text: String) throws {
        var g = EvaluationPropertyTests.Generator(state: 0xF05E_D5EE_D000_0001)
        let (rows, values) = EvaluationPropertyTests.makeData(&g)
        let p = try PredicateNode(format: text)
        let general = Set(try values.indices(matching: p.compiled(for: PredicateValue.self)))
        let typed = Set(try rows.indices(matching: p.compiled(for: Row.self)))
        #expect(typed == general, "typed: \(text)")
        let filtered = try rows.filter(p.compiled(for: Row.self))
        #expect(filtered.count == general.count, "filter: \(text)")
        // [String: Any]: the JSON form, and a form whose `a` is sometimes a Double or a String,
        // which the fused closures hand to the general path.
        for mixed in [false, true] {
            var dicts: [[String: Any]] = []
            var forms: [PredicateValue] = []
            for (i, v) in values.enumerated() {
                guard case .dictionary(var d) = v else { continue }
                if mixed, case .int(let n)? = d["a"] {
                    switch i % 3 {
                    case 0: d["a"] = .double(Double(n) + 0.5)
                    case 1: d["a"] = .string(String(n))
                    default: break
                    }
                }
                forms.append(.dictionary(d))
                dicts.append(d.mapValues { EvaluationPropertyTests.any($0) })
            }
            let expected = Self.outcome { Set(try forms.indices(matching: p.compiled(for: PredicateValue.self))) }
            let got = Self.outcome { Set(try dicts.indices(matching: p.compiled(for: [String: Any].self))) }
            #expect(got == expected, "[String: Any]\(mixed ? " with mixed kinds" : ""): \(text)")
        }
    }

    /// The matching rows, or the error's kind and message: comparing a string with a number
    /// may throw, and must throw the same.
    static func outcome(_ body: () throws -> Set<Int>) -> String {
        do { return "\(try body().sorted())" } catch let e as PredicateEvaluationError {
            return "\(e.kind): \(e.message)"
        } catch { return "\(error)" }
    }

    final class Box: Sendable {
        let n: Int
        init(_ n: Int) { self.n = n }
    }

    struct Holder: PredicateReadable {
        var box: Box
        var name: String
        var tags: [String]
        weak var weakBox: Box?
        static let predicateKeys: PredicateKeys<Holder> = [
            "n": .int { $0.box.n }, "name": .string { $0.name }, "tags": .strings { $0.tags },
            "alive": .bool { $0.weakBox != nil },
        ]
    }

    @Test("filtering reads elements in place: references are neither leaked nor released")
    func borrowedElementsKeepTheirReferences() throws {
        final class Weak { weak var box: Box?; init(_ b: Box) { box = b } }
        var watch: [Weak] = []
        do {
            var holders = (0..<200).map { n in
                let b = Box(n)
                return Holder(box: b, name: "name-\(n)-with-a-long-tail", tags: ["t\(n % 7)", "long tag number \(n)"], weakBox: b)
            }
            watch = holders.map { Weak($0.box) }
            for predicate in ["n >= 100", "ANY tags == 't3'", "name ENDSWITH 'tail' AND alive == YES", "n < 0"] {
                for _ in 0..<3 {
                    let p = try PredicateNode(format: predicate).compiled(for: Holder.self)
                    let kept = try holders.filter(p)
                    let positions = try holders.indices(matching: p)
                    #expect(kept.map(\.box.n) == positions.map { holders[$0].box.n }, "\(predicate)")
                }
            }
            // The results are gone: only the array holds each box. A retain left over by the
            // filters would show here; a release too many would have freed a box in use.
            for i in holders.indices {
                #expect(isKnownUniquelyReferenced(&holders[i].box), "box \(i)")
                #expect(holders[i].weakBox === holders[i].box)
            }
        }
        #expect(watch.allSatisfy { $0.box == nil }, "boxes outlived their array")
    }

    @Test("an error midway leaves every element intact")
    func errorMidwayKeepsElements() throws {
        struct Item: PredicateReadable {
            var label: String
            var value: PredicateValue
            static let predicateKeys: PredicateKeys<Item> = ["label": .string { $0.label }, "value": .value { $0.value }]
        }
        let items = (0..<100).map { i in
            Item(label: "item number \(i) with a heap-allocated label", value: i == 60 ? .string("x") : .int(Int64(i)))
        }
        let p = try PredicateNode(format: "value + 1 > 10").compiled(for: Item.self)
        #expect(throws: PredicateEvaluationError.self) { _ = try items.filter(p) }
        do {
            _ = try items.filter(p)
        } catch {
            #expect(error.elementIndex == 60)
        }
        #expect(items.map(\.label) == (0..<100).map { "item number \($0) with a heap-allocated label" })
        let q = try PredicateNode(format: "label ENDSWITH 'label'").compiled(for: Item.self)
        #expect(try items.filter(q).count == 100)
    }
}

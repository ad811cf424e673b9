import Foundation
import Testing
@testable import PQL

/// The dictionary fast paths tell an `Int`, `Double`, `String` or `[String]` from everything
/// else by the metadata of the opened `Any` (StoredScalar.swift). Only those exact types may
/// take the fast path: Foundation's numbers, other widths, optionals, booleans and class
/// instances go to the general path, which reads them by what they hold.
@Suite("Evaluation: values stored in [String: Any]")
struct StoredScalarTests {
    final class Thing: Sendable {}

    static func kind(_ v: Any) -> String {
        switch StoredScalar(v) {
        case .int(let i): return "int \(i)"
        case .double(let d): return "double \(d)"
        case .string(let s): return "string \(s)"
        case .strings(let a): return "strings \(a)"
        case .other: return "other"
        }
    }

    @Test func exactTypesAreRecognized() {
        #expect(Self.kind(42) == "int 42")
        #expect(Self.kind(-1.5) == "double -1.5")
        #expect(Self.kind("José, a string long enough for the heap") == "string José, a string long enough for the heap")
        #expect(Self.kind(["a", "vip"]) == "strings [\"a\", \"vip\"]")
        // An Any built from another Any holds the value itself, not a box.
        let inner: Any = 7
        #expect(Self.kind(inner as Any) == "int 7")
        let anyArray: [Any] = [3, "x"]
        #expect(Self.kind(anyArray[0]) == "int 3")
    }

    @Test func everythingElseIsOther() {
        let others: [Any] = [
            NSNumber(value: 3), NSNumber(value: 2.5), NSNumber(value: true), true, Int32(3), UInt(3), Float(1.5),
            Int?.some(3) as Any, String?.some("x") as Any, Substring("abc"), Character("a"), ["a"] as [Substring],
            [1, 2], ["a": 1], Thing(), NSString(string: "abc"), Decimal(3), AnyHashable(3), Date(timeIntervalSince1970: 0),
        ]
        for v in others { #expect(Self.kind(v) == "other", "\(type(of: v))") }
    }

    /// The fast paths against the general path, over values of every kind above.
    @Test("dictionary predicates agree with the general path on values of every kind", arguments: [
        "v > 2", "v == 3", "v != 3", "v BETWEEN {1, 3}", "v == 2.5", "v < 2.5", "v == 'abc'", "v BEGINSWITH 'a'",
        "v == nil", "v != nil", "ANY v == 'vip'", "v < 1 OR v > 2", "v >= 1 AND v <= 3",
    ])
    func agreesWithGeneralPath(_ text: String) throws {
        let values: [Any?] = [
            3, 2.5, "abc", ["x", "vip"], nil, NSNumber(value: 3), NSNumber(value: 2.5), NSNumber(value: true),
            true, Int32(3), Int?.some(3) as Any, Substring("abc"), ["vip"] as [Substring], NSString(string: "abc"),
            Decimal(3), [3, 4] as [Int], "vip", -7, 0.0,
        ]
        let dicts: [[String: Any]] = values.enumerated().map { i, v in v.map { ["id": i, "v": $0] } ?? ["id": i] }
        let forms: [PredicateValue] = dicts.map { d in .dictionary(d.compactMapValues { PredicateValue(any: $0) }) }
        let p = try PredicateNode(format: text)
        let expected = FusedEvaluationTests.outcome { Set(try forms.indices(matching: p.compiled(for: PredicateValue.self))) }
        let got = FusedEvaluationTests.outcome { Set(try dicts.indices(matching: p.compiled(for: [String: Any].self))) }
        #expect(got == expected, "\(text)")
        let filtered = FusedEvaluationTests.outcome {
            Set(try dicts.filter(p.compiled(for: [String: Any].self)).map { $0["id"] as! Int })
        }
        #expect(filtered == expected, "filter: \(text)")
    }
}

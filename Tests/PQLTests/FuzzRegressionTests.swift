import Foundation
import PQLTestSupport
import Testing
@testable import PQL

/// Every input the fuzzers found (`Fuzz/Regressions/parser` and `…/evaluate`) checked the way
/// the fuzz targets check it, so a fixed finding stays fixed in the ordinary test run.
@Suite("Fuzz regressions: parser and evaluator")
struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] { FuzzRegressionInputs.paths(target) }

    @Test func thereAreRegressionInputs() {
        #expect(Self.inputs("parser").count >= 2)
        #expect(Self.inputs("evaluate").count >= 1)
    }

    /// A tree whose printed form parses to the same print, or an error inside the input.
    @Test(arguments: FuzzRegressionTests.inputs("parser"))
    func parserInput(_ path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        do {
            let tree = try PredicateNode(utf8: bytes)
            let printed = tree.description
            #expect(try PredicateNode(format: printed).description == printed)
        } catch {
            #expect(!error.message.isEmpty)
            #expect(error.range.offset >= 0 && error.range.offset + error.range.length <= bytes.count,
                    "range \(error.range.offset)+\(error.range.length) of a \(bytes.count)-byte input")
        }
    }

    /// `x ! =` at the very end: the error once spanned two bytes past the input (the length of
    /// `==`, not of the `=` written).
    @Test func negatedShortOperatorAtTheEnd() {
        #expect {
            try PredicateNode(format: "CASTBEGIN! =")
        } throws: { error in
            guard let e = error as? PredicateFormatError else { return false }
            return e.kind == .negatedOperator && e.range.offset == 9 && e.range.length == 3
        }
    }

    /// Deep input parses on a joined thread of its own: many parses in a row leave nothing
    /// behind (under the address sanitizer, the leak checker sees any tree that outlives its
    /// parse) and each gives the same answer.
    @Test func largeStackThreadFinishesBeforeTheParseReturns() throws {
        let deep = "a == " + String(repeating: "~", count: 40) + "1"
        let first = try PredicateNode(format: deep).description
        for _ in 0..<200 {
            #expect(try PredicateNode(format: deep).description == first)
        }
        let tooDeep = "a == " + String(repeating: "~", count: 400) + "1"
        for _ in 0..<50 {
            #expect(throws: PredicateFormatError.self) { try PredicateNode(format: tooDeep) }
        }
    }

    /// Evaluation on values gives a Boolean or a typed error; the array filter agrees with
    /// element-by-element evaluation wherever the predicate is deterministic.
    @Test(arguments: FuzzRegressionTests.inputs("evaluate"))
    func evaluateInput(_ path: String) throws {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        guard let tree = try? PredicateNode(format: text) else { return }
        let values: [PredicateValue] = [.null, 1, "x", ["name": "a", "age": 3], [.int(1), .string("b")]]
        for v in values {
            do { _ = try tree.evaluate(on: v) } catch { #expect(!error.message.isEmpty) }
        }
    }
}

import Foundation
import Testing
@testable import PQL

/// What a person sees of an error: one caret rendering for every error type, carets under the
/// sub-expression that failed, `localizedDescription` that is the message, and values shown as
/// people read them.
@Suite("Error reporting")
struct ErrorReportingTests {
    /// The caret line of a rendering (the one with `^`).
    static func caretLine(_ rendered: String) -> String? {
        rendered.split(separator: "\n").map(String.init).first { $0.contains("^") }
    }

    // MARK: the one renderer

    @Test("CRLF source: the line shown without its CR, the caret under the text")
    func crlf() {
        let source = "a == 1 AND\r\nnosuch.key > 2"
        let range = SourceRange(offset: 12, length: 10, line: 2, column: 1)
        let r = CaretRenderer.render(message: "keypath 'nosuch' not found", source: source, range: range, hint: "check the key")
        #expect(r == """
            error: keypath 'nosuch' not found
             --> line 2, column 1
              |
            2 | nosuch.key > 2
              | ^~~~~~~~~~
              = hint: check the key
            """)
        // A range on the first line stops at its CRLF.
        let first = CaretRenderer.render(message: "m", source: source, range: SourceRange(offset: 5, length: 7, line: 1, column: 6))
        #expect(Self.caretLine(first) == "  |      ^~~~~")
    }

    @Test("wide characters take two cells before and under the caret, combining marks none")
    func wideAndCombining() {
        let source = "名前 == 'x' AND agge > 3"
        let offset = "名前 == 'x' AND ".utf8.count
        let range = SourceRange(offset: offset, length: 4, line: 1, column: 15)
        let r = CaretRenderer.render(message: "m", source: source, range: range)
        #expect(Self.caretLine(r) == "  | " + String(repeating: " ", count: 16) + "^~~~", "\(r)")
        let under = CaretRenderer.render(message: "m", source: source, range: SourceRange(offset: 0, length: 6, line: 1, column: 1))
        #expect(Self.caretLine(under) == "  | ^~~~", "a caret under two wide characters is four cells: \(under)")
        let combining = "e\u{301}e\u{301} == x"
        let c = CaretRenderer.render(message: "m", source: combining,
                                     range: SourceRange(offset: combining.utf8.count - 1, length: 1, line: 1, column: 6))
        #expect(Self.caretLine(c) == "  |      ^")
    }

    @Test("syntax errors render through the same renderer")
    func syntaxErrorsUseTheRenderer() throws {
        do {
            _ = try PredicateNode(format: "名前 NOT IN {'a'}")
            Issue.record("no error")
        } catch {
            #expect(error.rendered == CaretRenderer.render(message: error.message, source: error.source, range: error.range,
                                                            hint: error.hint))
            #expect(Self.caretLine(error.rendered) == "  |      ^~~~~~", "\(error.rendered)")
        }
    }

    // MARK: evaluation errors carry positions

    @Test("compile-time: an unknown key of a typed value is placed at its key path")
    func compileTimePosition() throws {
        let format = "age == 1 AND nosuch.key > 2"
        let (tree, map) = try PredicateNode.parse(format: format)
        let e = try #require(evaluationError { try CompiledPredicate(tree, reader: EvalPerson.predicateReader, sourceMap: map) })
        #expect(e.kind == .unknownKey)
        #expect(SourcePositionTests.text(e.range, in: format) == "nosuch.key")
        #expect(e.source == format)
        #expect(Self.caretLine(e.rendered) == "  |              ^~~~~~~~~~", "\(e.rendered)")
    }

    @Test("compile-time: an unknown key on a fast path (key op constant) is placed at the key")
    func fastPathPosition() throws {
        let format = "age == 1 AND nosuch > 2"
        let (tree, map) = try PredicateNode.parse(format: format)
        let e = try #require(evaluationError { try CompiledPredicate(tree, reader: EvalPerson.predicateReader, sourceMap: map) })
        #expect(e.kind == .unknownKey)
        #expect(SourcePositionTests.text(e.range, in: format) == "nosuch")
    }

    @Test("compiling with a map stays linear in comparisons nested in operands")
    func nestedComparisonsWithAMap() throws {
        var e = "a"
        for _ in 0..<30 { e = "TERNARY(\(e) > 1, 1, 0)" }
        let format = "b + 1 > 2 AND \(e) > 0"
        let (tree, map) = try PredicateNode.parse(format: format)
        let p = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
        let error = try #require(evaluationError { try p.evaluate(["a": 5, "b": "x"]) })
        #expect(SourcePositionTests.text(error.range, in: format) == "b + 1")
    }

    @Test("run time: the failing sub-expression, not the whole comparison", arguments: [
        ("a == 1 AND b + 1 > 2", "b + 1"),
        ("a == 1 AND name < 5", "name < 5"),
        ("a == 1 AND (a > 5 OR abs:(name) == 2)", "abs:(name)"),
        ("a == 1 AND 9223372036854775807 + a > 0", "9223372036854775807 + a"),
    ])
    func runTimePosition(_ format: String, _ failing: String) throws {
        let (tree, map) = try PredicateNode.parse(format: format)
        let p = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
        let e = try #require(evaluationError { try p.evaluate(["a": 1, "b": "x", "name": "Bo"]) })
        #expect(SourcePositionTests.text(e.range, in: format) == failing, "\(e)")
    }

    @Test("a query with its map places errors; without one, errors have no place")
    func queryPositions() throws {
        let (tree, map) = try PredicateNode.parse(format: "a == 1 AND b * 2 > 1")
        var query = PredicateQuery(tree)
        let rows: [PredicateValue] = [["a": 1, "b": 2], ["a": 1, "b": "x"]]
        let unplaced = try #require(evaluationError { try query.run(on: rows) })
        #expect(unplaced.range == nil && unplaced.source == nil)
        query.sourceMap = map
        let placed = try #require(evaluationError { try query.run(on: rows) })
        #expect(placed.range?.column == 12)
        #expect(placed.elementIndex == 1)
        #expect(placed.kind == unplaced.kind && placed.message == unplaced.message)
    }

    // MARK: localizedDescription

    @Test("localizedDescription is the message for every public error type (checked on this platform's Foundation)")
    func localizedDescriptions() throws {
        do { _ = try PredicateNode(format: "age >") } catch {
            let any: any Error = error
            #expect(any.localizedDescription == error.message)
            #expect(!any.localizedDescription.contains("operation could not be completed"))
            #expect((any as? LocalizedError)?.recoverySuggestion == error.hint)
        }
        let eval = PredicateEvaluationError(kind: .arithmetic, message: "arithmetic needs numbers, not a string", hint: "use CAST")
        #expect((eval as any Error).localizedDescription == "arithmetic needs numbers, not a string")
        #expect("\(eval)".contains("arithmetic needs numbers"))
        do { _ = try JSONReader.value(from: "[1, 2") } catch {
            #expect((error as any Error).localizedDescription == error.description)
            #expect(error.description.contains("line 1"))
        }
        do { _ = try SortRule(spec: "name:sideways") } catch {
            #expect((error as any Error).localizedDescription == error.description)
            #expect(error.description.contains("sideways"))
        }
    }

    // MARK: values for people

    @Test("Booleans read true and false for people; the canonical text keeps Apple's 1 and 0")
    func booleans() throws {
        #expect(PredicateValue.bool(true).description == "true")
        #expect(PredicateValue.bool(false).description == "false")
        #expect(PredicateValue.array([.bool(true), .int(1)]).description == "{true, 1}")
        #expect(PredicateValue.dictionary(["ok": .bool(false)]).description == #"CAST({{"ok", false}}, "NSDictionary")"#)
        #expect(try PredicateNode(format: "flag == YES").description == "flag == 1")
        // What description prints reads back as the same value.
        #expect(try PredicateNode(format: "x == \(PredicateValue.bool(true))") == PredicateNode(format: "x == YES"))
        // Messages that quote a value show the Boolean.
        do {
            _ = try PredicateNode(format: "x BETWEEN %@", [true, false, true])
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("{true, false, true}"), "\(error.message)")
        }
    }
}

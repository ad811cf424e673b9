import Foundation
import Testing
import PQL

/// The parser answers every input of a large corpus exactly as the parser before its speed
/// work did (issue 30): the same trees, source maps, warnings, and errors with the same kind,
/// message, position, caret rendering and hint, for predicates and expressions, with and
/// without a source map. And a parse without a source map agrees with one that makes it.
///
/// `Fixtures/parse-golden.jsonl` holds one line per input (``ParseGolden``): the text of the
/// inputs read from predicate files (`Benchmarks/parse-predicates.txt` and GNUstep's sample
/// predicates), or nothing for those ``ParseGolden/codeCorpus()`` makes, and the digest of the
/// input's whole record. It was written by `ParseGolden.swift` built against PQL at commit
/// b17f26f. To record it again after a deliberate change of an answer, run this suite with
/// `PQL_WRITE_PARSE_GOLDEN=1`; it then rewrites the fixture and fails, so that a recording is
/// never mistaken for a pass.
@Suite("Parse answers as recorded")
struct ParseGoldenTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/parse-golden.jsonl")

    struct Line {
        var input: String?
        var generated: String?
        var fromFile: Bool
        var digest: String
    }

    static func lines() throws -> [Line] {
        let data = try Data(contentsOf: fixture)
        return try data.split(separator: UInt8(ascii: "\n")).map { raw in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any])
            return Line(input: object["input"] as? String, generated: object["generated"] as? String,
                        fromFile: object["file"] as? Bool ?? false, digest: try #require(object["digest"] as? String))
        }
    }

    /// The fixture's inputs with their arguments: file inputs from the fixture, the rest made
    /// again here (arguments cannot all be kept as JSON without changing their types).
    static func entries(_ lines: [Line]) -> [ParseGolden.Entry] {
        lines.filter(\.fromFile).map { ParseGolden.Entry(input: $0.input ?? "", generated: nil, arguments: [], fromFile: true) }
            + ParseGolden.codeCorpus()
    }

    @Test("every input parses, maps, warns and fails exactly as recorded")
    func matchesTheRecording() throws {
        let lines = try Self.lines()
        let entries = Self.entries(lines)
        if ProcessInfo.processInfo.environment["PQL_WRITE_PARSE_GOLDEN"] == "1" {
            let text = entries.map(ParseGolden.fixtureLine).joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: Self.fixture)
            Issue.record("rewrote \(Self.fixture.path) (\(entries.count) inputs); unset PQL_WRITE_PARSE_GOLDEN to test")
            return
        }
        #expect(lines.count == entries.count, "the fixture has \(lines.count) inputs, the corpus \(entries.count)")
        var mismatches: [String] = []
        for (line, entry) in zip(lines, entries) {
            #expect(line.input == (entry.generated == nil ? entry.input : nil) && line.generated == entry.generated,
                    "the corpus and the fixture list different inputs: \(String(describing: line.input ?? line.generated))")
            let record = ParseGolden.record(ParseGolden.format(entry), entry.arguments)
            if ParseGolden.digest(record) != line.digest {
                mismatches.append("\(entry.generated ?? entry.input.debugDescription): \(record.prefix(600))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) inputs answer differently:\n\(mismatches.prefix(10).joined(separator: "\n\n"))")
    }

    /// Trees and errors of the plain initialisers against those of the source-map parses.
    static func agree(_ format: String, _ arguments: [Any?]) -> String? {
        let plain = Result { () throws(PredicateFormatError) in try PredicateNode(format: format, argumentArray: arguments) }
        let mapped = Result { () throws(PredicateFormatError) in try PredicateNode.parse(format: format, argumentArray: arguments).tree }
        if plain != mapped { return "predicate \(format.prefix(80).debugDescription): \(plain) vs \(mapped)" }
        let expression = Result { () throws(PredicateFormatError) in try ExpressionNode(format: format, argumentArray: arguments) }
        let mappedExpression = Result { () throws(PredicateFormatError) in try ExpressionNode.parse(format: format, argumentArray: arguments).tree }
        if expression != mappedExpression { return "expression \(format.prefix(80).debugDescription): \(expression) vs \(mappedExpression)" }
        if case .success(let tree) = mapped, let map = try? PredicateNode.parse(format: format, argumentArray: arguments).sourceMap,
           !map.fits(tree) {
            return "the source map of \(format.prefix(80).debugDescription) does not fit its tree"
        }
        return nil
    }

    @Test("a parse without a source map gives the tree or the error of one with it")
    func plainAndMappedAgree() throws {
        var problems: [String] = []
        for entry in Self.entries(try Self.lines()) {
            if let problem = Self.agree(ParseGolden.format(entry), entry.arguments) { problems.append(problem) }
        }
        // A megabyte, valid, and with an error at its very end.
        let large = ParseGolden.generated("or-clauses:26000")
        for text in [large, large + " OR", large + " OR ?"] {
            if let problem = Self.agree(text, []) { problems.append(problem) }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements:\n\(problems.prefix(10).joined(separator: "\n"))")
    }
}

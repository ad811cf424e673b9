import Foundation
import PQLTestSupport
import Testing
@testable import PQL

/// The parser records where every node was written (``SourceMap``), beside the tree: the tree
/// compares, hashes and prints the same, and errors about a sub-expression point at it.
@Suite("Source positions of parsed nodes")
struct SourcePositionTests {
    /// The text `range` covers in `source`.
    static func text(_ range: SourceRange?, in source: String) -> String? {
        guard let range else { return nil }
        let bytes = Array(source.utf8)
        guard range.offset >= 0, range.offset + range.length <= bytes.count else { return nil }
        return String(decoding: bytes[range.offset..<(range.offset + range.length)], as: UTF8.self)
    }

    /// The text of the node reached by `path` (child indices from the root).
    static func text(at path: [Int], in format: String, _ arguments: [Any?] = []) throws -> String? {
        let (_, map) = try PredicateNode.parse(format: format, argumentArray: arguments)
        var node = map.root
        for i in path {
            guard let child = map.child(i, of: node) else { return nil }
            node = child
        }
        return text(map.range(of: node), in: format)
    }

    @Test("every kind of node has the range of its own text", arguments: [
        ("a == 1 AND nosuch.key > 2", [1, 0], "nosuch.key"),
        ("a == 1 AND nosuch.key > 2", [1], "nosuch.key > 2"),
        ("a == 1 AND nosuch.key > 2", [], "a == 1 AND nosuch.key > 2"),
        ("NOT (x < 1)", [0], "(x < 1)"),
        ("NONE tags == 'a'", [], "NONE tags == 'a'"),
        ("NONE tags == 'a'", [0], "NONE tags == 'a'"),
        ("NOT (x < 1)", [], "NOT (x < 1)"),
        ("(a > 1 OR b > 2) AND c > 3", [0], "(a > 1 OR b > 2)"),
        ("ANY kids.age > 5", [], "ANY kids.age > 5"),
        ("a + b * 2 > -c", [0, 1], "b * 2"),
        ("a + b * 2 > -c", [1], "-c"),
        ("a + b * 2 > -c", [1, 0], "c"),
        ("(a + b).@count > 1", [0], "(a + b).@count"),
        ("(a + b).@count > 1", [0, 0], "(a + b)"),
        ("items[FIRST].name == 'x'", [0], "items[FIRST].name"),
        ("items[FIRST].name == 'x'", [0, 0], "items[FIRST]"),
        ("items[n - 1] == 2", [0, 1], "n - 1"),
        ("sum:(prices) > modulus:by:(10, 3)", [1, 1], "3"),
        ("SUBQUERY(items, $i, $i.price > 10).@count > 0", [0, 0, 1, 0], "$i.price"),
        ("TERNARY(a > 1, 'x', y) == 'x'", [0, 2], "y"),
        ("{1, b} CONTAINS 2", [0], "{1, b}"),
        ("{1, 2} CONTAINS 2", [0], "{1, 2}"),
        ("CAST(x, 'NSNumber') > 1", [0, 1], "'NSNumber'"),
        ("CAST(100, 'NSDate') < now()", [0], "CAST(100, 'NSDate')"),
        ("FUNCTION(SELF, 'double:', age) > 2", [0, 1], "age"),
        ("$x := a + 1 > 2", [0, 0], "a + 1"),
        ("a UNION b CONTAINS 1", [0, 1], "b"),
        ("x BETWEEN {1, 5}", [1], "{1, 5}"),
        ("name ==[cd] 'é'", [1], "'é'"),
    ] as [(String, [Int], String)])
    func nodeRanges(_ format: String, _ path: [Int], _ expected: String) throws {
        #expect(try Self.text(at: path, in: format) == expected)
    }

    @Test("%@ and %K arguments take the specifier's range, an ExpressionNode argument too")
    func argumentRanges() throws {
        #expect(try Self.text(at: [1], in: "age > %@", [5]) == "%@")
        #expect(try Self.text(at: [0], in: "%K.count > 1", ["items"]) == "%K.count")
        let e: ExpressionNode = .function(.add, [.keyPath(["a"]), .constant(.int(1))])
        let (tree, map) = try PredicateNode.parse(format: "x == %@ OR y == 1", argumentArray: [e])
        #expect(map.fits(tree))
        let comparison = try #require(map.child(0, of: map.root))
        let argument = try #require(map.child(1, of: comparison))
        #expect(Self.text(map.range(of: argument), in: "x == %@ OR y == 1") == "%@")
        #expect(map.children(of: argument).count == 2)
    }

    @Test("lines and columns count from the start of the line, in characters")
    func linesAndColumns() throws {
        let format = "a == 1 AND\r\n  名前 == 'x' AND\n  nosuch.key > 2"
        let (_, map) = try PredicateNode.parse(format: format)
        let last = try #require(map.children(of: map.root).last)
        let key = try #require(map.child(0, of: last))
        #expect(map.range(of: key).line == 3)
        #expect(map.range(of: key).column == 3)
        let middle = map.children(of: map.root)[1]
        #expect(map.range(of: try #require(map.child(0, of: middle))).column == 3)
    }

    @Test("positions change neither equality, hashing nor printing")
    func treeIndependentOfPositions() throws {
        let (a, _) = try PredicateNode.parse(format: "x   ==   1 AND  y.z > 'q'")
        let b = try PredicateNode(format: "x == 1 AND y.z > 'q'")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.description == b.description)
        // A parse that did not ask for positions records none.
        #expect(try Parser.parsePredicate("x == 1", arguments: ArgumentList([]), recordsPositions: false).map.entries.isEmpty)
    }

    @Test("the map costs twelve bytes a node and is kept beside the tree, not in it")
    func memoryPerNode() throws {
        #expect(MemoryLayout<SourceMap.Entry>.stride == 12)
        // The comparison node keeps its tuned size (26 bytes), which a predicate node holds
        // inline in a 32-byte stride.
        #expect(MemoryLayout<ComparisonNode>.size == 26)
        #expect(MemoryLayout<PredicateNode>.stride == 32)
        let terms = (0..<1_000).map { "k\($0 % 7) == \($0)" }.joined(separator: " OR ")
        let (tree, map) = try PredicateNode.parse(format: terms)
        #expect(map.entries.count == tree.nodeCount)
    }

    @Test("a substituted value of no predicate type is placed at its variable, not at text that looks like it")
    func substitutionErrorPlace() throws {
        struct Opaque {}
        let template = try PredicateNode(format: "name == '$V' AND x == $V")
        do {
            _ = try template.substitutingValues(["V": Opaque()])
            Issue.record("no error")
        } catch {
            #expect(error.kind == .argumentType)
            #expect(error.source == #"name == "$V" AND x == $V"#)
            #expect(error.range.column == 23, "\(error.rendered)")
            #expect(error.range.length == 2)
        }
    }

    @Test("a map does not fit a tree changed after parsing")
    func mapMustFit() throws {
        let (tree, map) = try PredicateNode.parse(format: "a == $X")
        #expect(map.fits(tree))
        #expect(map.fits(tree.substituting(["X": 1])))
        #expect(!map.fits(tree.substituting(expressions: ["X": .function(.add, [.keyPath(["b"]), .constant(.int(1))])])))
        #expect(!map.fits(.and([tree, tree])))
    }

    @Test("every sentence the grammar generates gets a map that fits its tree node for node")
    func generatedSentencesFit() throws {
        let g = try EBNFGrammar.loadPredicateGrammar()
        var generator = GrammarSentenceGenerator(grammar: g, seed: 0x5EED_50_0C)
        var checked = 0
        for i in 0..<800 {
            generator.reseed(SeededSplitMix64.caseSeed(0x5EED_50_0C, i))
            let s = generator.sentence(from: "predicate-format")
            guard let (tree, map) = try? PredicateNode.parse(format: s.text, argumentArray: s.arguments) else { continue }
            #expect(map.fits(tree), "\(s.text)")
            #expect(map.entries.count == tree.nodeCount, "\(s.text)")
            checked += 1
        }
        #expect(checked > 400)
        for i in 0..<300 {
            generator.reseed(SeededSplitMix64.caseSeed(0xE_5EED, i))
            let s = generator.sentence(from: "expression-format")
            guard let (tree, map) = try? ExpressionNode.parse(format: s.text, argumentArray: s.arguments) else { continue }
            #expect(map.fits(tree), "\(s.text)")
        }
    }
}

import Foundation
import PQL
import Testing

/// Lenient where Apple is lenient (issue 29): surplus arguments are warnings, not errors
/// (decision D15); `%@` names a key after a dot; a rendered error states its message once.
@Suite struct ParseWarningsTests {
    @Test("a surplus argument is ignored: the initialisers succeed, parseWithWarnings says so")
    func surplusArgument() throws {
        #expect(try PredicateNode(format: "SELF MATCHES %@", "a.*", "b") == PredicateNode(format: "SELF MATCHES 'a.*'"))
        let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "SELF MATCHES %@", argumentArray: ["a.*", "b"])
        #expect(tree.description == "SELF MATCHES \"a.*\"")
        try #require(warnings.count == 1)
        let w = warnings[0]
        #expect(w.severity == .warning)
        #expect(w.kind == .surplusArgument)
        #expect(w.message == "2 arguments were given but the format string has 1 specifier: argument 2 is ignored")
        #expect(w.range.column == 16 && w.range.length == 0)
        #expect(w.hint?.contains("remove the extra argument") == true)
        #expect(w.rendered.hasPrefix("warning: 2 arguments were given"))
        #expect(w.rendered.contains("1 | SELF MATCHES %@\n  |                ^"))
    }

    @Test("a quoted %@ given an argument: a warning at the quotes, with the fix")
    func quotedSpecifier() throws {
        let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "id == '%@'", argumentArray: ["x"])
        #expect(tree.description == "id == \"%@\"")
        #expect(warnings.map(\.kind) == [.surplusArgument, .quotedSpecifier])
        let q = warnings[1]
        #expect(q.message == "'%@' inside quotes is text, not a specifier: argument 1 is never used")
        #expect(q.range.offset == 6 && q.range.length == 4)
        #expect(q.replacement == "%@")
        #expect(q.rendered.contains("  |       ^~~~"))
        // Without an argument a quoted %@ is plain text, and nothing to warn about.
        #expect(try PredicateNode.parseWithWarnings(format: "id == '%@'").warnings.isEmpty)
        // Other specifiers in quotes are found too.
        let k = try PredicateNode.parseWithWarnings(format: "\"%K\" == 1", argumentArray: ["a"]).warnings
        #expect(k.last?.replacement == "%K")
    }

    @Test("no warnings when every argument is used; expressions warn too")
    func noWarnings() throws {
        #expect(try PredicateNode.parseWithWarnings(format: "a == %@ AND %K > 1", argumentArray: [1, "b"]).warnings.isEmpty)
        let e = try ExpressionNode.parseWithWarnings(format: "price * 2", argumentArray: [3])
        #expect(e.tree.description == "price * 2")
        #expect(e.warnings.map(\.kind) == [.surplusArgument])
        #expect(try ExpressionNode(format: "price * 2", argumentArray: [3]).description == "price * 2")
    }

    @Test("missing and mistyped arguments are still errors")
    func stillErrors() {
        #expect(throws: PredicateFormatError.self) { try PredicateNode.parseWithWarnings(format: "a == %@") }
        #expect(throws: PredicateFormatError.self) { try PredicateNode.parseWithWarnings(format: "a == %d", argumentArray: ["x"]) }
    }

    @Test("%@ given a string is a key after a dot, as %K")
    func specifierAsKey() throws {
        let p = try PredicateNode(format: "SUBQUERY(SELF.%@.value, $x, $x > 1).@count > 0", "scores")
        #expect(p.description == "SUBQUERY(SELF.scores.value, $x, $x > 1).@count > 0")
        #expect(p == (try PredicateNode(format: "SUBQUERY(SELF.%K.value, $x, $x > 1).@count > 0", "scores")))
        #expect(try PredicateNode(format: "$x.%@ == 1", "a.b").description == "$x.a.b == 1")
        let subject: PredicateValue = ["scores": ["value": [1, 2, 3]]]
        #expect(try p.evaluate(on: subject))
        // A key must be a string: anything else is an error at the specifier.
        #expect { try PredicateNode(format: "SELF.%@ == 1", 5) } throws: { error in
            let e = error as? PredicateFormatError
            return e?.kind == .argumentType && e?.range.column == 6 && e?.hint?.contains("%K") == true
        }
        #expect { try PredicateNode(format: "SELF.%@ == 1", "a..b") } throws: { error in
            (error as? PredicateFormatError)?.kind == .argumentType
        }
    }

    @Test("a rendered error states its message once")
    func messageOnce() {
        do {
            _ = try PredicateNode(format: "a ==")
            Issue.record("parsed")
        } catch {
            let r = error.rendered
            #expect(r.hasPrefix("error: expected an expression, found end of input\n"))
            #expect(r.components(separatedBy: "expected an expression, found end of input").count == 2, "\(r)")
        }
    }

    @Test("diagnostics from errors")
    func fromError() {
        do {
            _ = try PredicateNode(format: "a == %@")
        } catch {
            let d = PredicateDiagnostic(error)
            #expect(d.severity == .error && d.kind == .missingArgument)
            #expect(d.rendered.hasPrefix("error: %@ has no argument"))
        }
    }
}

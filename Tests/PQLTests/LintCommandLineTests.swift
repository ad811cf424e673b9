import Foundation
import PQLTestSupport
import Testing

/// `pql lint` and the warnings of `pql format`, through the built binary.
@Suite("pql lint")
struct LintCommandLineTests {
    @Test("a quoted %@ with an argument: exit 1, the finding names %@ with a caret")
    func quotedSpecifier() throws {
        let r = try PQLProcess.run(["lint", "--arg", "\"x\"", "--", "id == '%@'"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("warning: '%@' inside quotes is text, not a specifier: argument 1 is never used"), "\(r.stdout)")
        #expect(r.stdout.contains("1 | id == '%@'\n  |       ^~~~"), "\(r.stdout)")
        #expect(r.stdout.contains("hint: remove the quotes to use the argument: %@"))
        #expect(r.stderr.contains("pql lint: 2 warnings"), "\(r.stderr)")
    }

    @Test("nothing found: exit 0, nothing printed")
    func clean() throws {
        let r = try PQLProcess.run(["lint", "--arg", "\"x\"", "--", "id == %@"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.isEmpty && r.stderr.isEmpty)
    }

    @Test("each check, from the command line", arguments: [
        (["--arg", "\"name\"", "--arg", "\"Bob\"", "%@ == %@"], "pass key names with %K"),
        (["--arg", "7", "'story_id' == %d"], "is a string in quotes, not a key"),
        (["'5' == 5"], "compares a string with a number"),
        (["age ==[c] 5"], "is a number: the option changes nothing"),
        (["name LIKE 'Bob'"], "has no * or ?"),
        (["a == 1 AND TRUEPREDICATE"], "TRUEPREDICATE inside AND changes nothing"),
        (["--arg", "1", "--arg", "2", "a == %@"], "argument 2 is ignored"),
    ])
    func checks(_ arguments: [String], _ says: String) throws {
        let r = try PQLProcess.run(["lint"] + arguments)
        #expect(r.status == 1)
        #expect(r.stdout.contains("warning: ") && r.stdout.contains(says), "\(r.stdout)")
        #expect(r.stdout.contains("^"))
    }

    @Test("--var is refused, not ignored: a usage error, exit 2")
    func variablesAreRefused() throws {
        let r = try PQLProcess.run(["lint", "--var", "MIN=1", "--", "age > $MIN"])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("pql lint takes --arg values only"), "\(r.stderr)")
    }

    @Test("too few arguments and syntax errors: error findings, exit 1")
    func errors() throws {
        let missing = try PQLProcess.run(["lint", "a == %@"])
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("error: %@ has no argument"), "\(missing.stdout)")
        #expect(missing.stderr.contains("1 error"))
        let bad = try PQLProcess.run(["lint", "a =="])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("error: expected an expression, found end of input"))
    }

    @Test("reads standard input with -")
    func standardInput() throws {
        let r = try PQLProcess.run(["lint", "-"], stdin: Data("name LIKE 'x'\n".utf8))
        #expect(r.status == 1)
        #expect(r.stdout.contains("1 | name LIKE 'x'"))
    }

    @Test("pql format prints the warnings on standard error and succeeds")
    func formatWarns() throws {
        let r = try PQLProcess.run(["format", "--arg", "\"x\"", "--", "id == '%@'"])
        #expect(r.status == 0)
        #expect(r.stdout == "id == \"%@\"\n")
        #expect(r.stderr.contains("warning: '%@' inside quotes is text"), "\(r.stderr)")
        #expect(r.stderr.contains("warning: 1 argument was given but the format string has 0 specifiers"))
    }

    @Test("pql format prints what pql lint finds in the tree too, and succeeds")
    func formatWarnsAboutTheTree() throws {
        let r = try PQLProcess.run(["format", "name LIKE 'Bob'"])
        #expect(r.status == 0)
        #expect(r.stdout == "name LIKE \"Bob\"\n")
        #expect(r.stderr.contains("warning: the LIKE pattern 'Bob' has no * or ?"), "\(r.stderr)")
        let clean = try PQLProcess.run(["format", "name LIKE 'Bob*'"])
        #expect(clean.stderr.isEmpty)
    }

    @Test("a rendered error states its message once")
    func errorOnce() throws {
        let r = try PQLProcess.run(["format", "a =="])
        #expect(r.status == 1)
        #expect(r.stderr.components(separatedBy: "expected an expression, found end of input").count == 2, "\(r.stderr)")
    }

    @Test("pql lint --help documents it")
    func help() throws {
        let r = try PQLProcess.run(["lint", "--help"], environment: ["COLUMNS": "2000"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("exit 1 when there are findings"))
        let top = try PQLProcess.run(["--help"])
        #expect(top.stdout.contains("lint"))
    }
}

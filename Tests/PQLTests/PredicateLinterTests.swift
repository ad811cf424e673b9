import Foundation
import PQL
import Testing

/// `PredicateLinter`: each check finds what it is for, at the right place, and stays quiet on
/// predicates that are fine.
@Suite struct PredicateLinterTests {
    /// The kinds found, in order.
    static func kinds(_ format: String, _ args: [Any?] = []) -> [PredicateDiagnostic.Kind] {
        PredicateLinter.lint(format: format, argumentArray: args).map(\.kind)
    }

    @Test("nothing to say about ordinary predicates", arguments: [
        ("id == %@", ["x"]), ("%K == %@", ["name", "Bob"]), ("name LIKE[c] 'a*'", []),
        ("age BETWEEN {18, 65}", []), ("TRUEPREDICATE", []), ("age ==[c] name", []),
        ("name ==[c] 'bob'", []), ("x IN {1, 2}", []), ("SELF isKindOfClass: 'NSString'", []),
        ("ANY tags == 'a' AND NOT (b < 2)", []), ("x < nil + 1", []),
        // A pattern or a list passed as an argument is one call's value, not the code's mistake.
        ("name LIKE[c] %@", ["abc"]), ("%K LIKE %@", ["firstName", "Adam"]), ("NOT name LIKE %@", ["x"]),
        ("ANY tags IN %@", [.array([])]), ("NOT (id IN %@)", [.array([])]),
    ] as [(String, [PredicateValue])])
    func quiet(_ format: String, _ args: [PredicateValue]) {
        #expect(PredicateLinter.lint(format: format, argumentArray: args).isEmpty, "\(PredicateLinter.lint(format: format, argumentArray: args))")
    }

    @Test("a quoted '%@' given an argument, and the count that does not match")
    func quotedSpecifier() throws {
        let found = PredicateLinter.lint(format: "id == '%@'", argumentArray: ["x"])
        #expect(found.map(\.kind) == [.surplusArgument, .quotedSpecifier])
        #expect(found.allSatisfy { $0.severity == .warning })
        #expect(found[1].range.column == 7 && found[1].replacement == "%@")
        #expect(found[1].rendered.contains("'%@'"))
        #expect(Self.kinds("a == \"%@\" OR b == %@", [1, 2]) == [.surplusArgument, .quotedSpecifier])
        // No argument left over, but the quoted one misleads: the argument goes to the other.
        let shifted = PredicateLinter.lint(format: "id == '%@' OR id == %@", argumentArray: ["x"])
        #expect(shifted.map(\.kind) == [.quotedSpecifier])
        #expect(shifted.first?.message.contains("no argument goes here") == true && shifted.first?.range.column == 7)
        // Without arguments, quoted text that looks like a specifier is just text.
        #expect(Self.kinds("note CONTAINS '%d'").isEmpty)
    }

    @Test("too few arguments, and text that does not parse, are error findings")
    func errors() {
        let missing = PredicateLinter.lint(format: "a == %@ AND b == %@", argumentArray: [1])
        #expect(missing.map(\.kind) == [.missingArgument])
        #expect(missing[0].severity == .error && missing[0].range.column == 18)
        #expect(missing[0].rendered.hasPrefix("error: %@ has no argument"))
        #expect(Self.kinds("a ==") == [.invalidFormat])
    }

    @Test("a constant compared with a constant")
    func constantComparison() throws {
        let keys = PredicateLinter.lint(format: "%@ == %@", argumentArray: ["name", "Bob"])
        #expect(keys.map(\.kind) == [.constantComparison])
        #expect(keys[0].message.contains("%@ gives the string \"name\""))
        #expect(keys[0].hint?.contains("%K") == true)
        let quoted = PredicateLinter.lint(format: "'story_id' == %d", argumentArray: [7])
        #expect(quoted.map(\.kind) == [.constantComparison])
        #expect(quoted[0].range.column == 1 && quoted[0].range.length == 10)
        #expect(quoted[0].replacement == "story_id")
        #expect(quoted[0].message.contains("always false"))
        #expect(Self.kinds("%d == %d", [1, 1]) == [.constantComparison])
    }

    @Test("comparisons that can never be true", arguments: [
        "'5' == 5", "5 < 'a'", "x < nil", "nil >= x", "x BETWEEN {9, 1}", "x IN {}", "name BEGINSWITH 5", "name LIKE 3",
    ])
    func neverTrue(_ format: String) {
        #expect(Self.kinds(format) == [.neverTrue], "\(PredicateLinter.lint(format: format))")
    }

    @Test("[c] or [d] on a number, with the option's own range")
    func optionsOnNumber() throws {
        let found = PredicateLinter.lint(format: "age ==[c] 5")
        #expect(found.map(\.kind) == [.optionsOnNumber])
        #expect(found[0].range.column == 7 && found[0].range.length == 3)
        #expect(found[0].replacement == "")
        #expect(Self.kinds("age IN[cd] {1, 2}") == [.optionsOnNumber])
        #expect(Self.kinds("age ==[cd] %@", [5]) == [.optionsOnNumber])
    }

    @Test("a LIKE pattern without a wildcard")
    func likeWithoutWildcard() throws {
        let found = PredicateLinter.lint(format: "name LIKE[c] 'Bob'")
        #expect(found.map(\.kind) == [.likeWithoutWildcard])
        #expect(found[0].range.column == 14)
        #expect(found[0].hint?.contains("==[c]") == true)
        #expect(Self.kinds("name LIKE 'B?b'").isEmpty)
        // SQL's % is named in the hint.
        let sql = PredicateLinter.lint(format: "name LIKE '%abc%'")
        #expect(sql.map(\.kind) == [.likeWithoutWildcard])
        #expect(sql.first?.hint?.contains("not SQL's %: '*abc*'") == true, "\(sql)")
    }

    @Test("predicates that are always true or false", arguments: [
        ("1 == 1", "always true"), ("1 == 2", "always false"), ("'5' != 5", "always true"),
        ("a == 1 AND TRUEPREDICATE", "changes nothing"), ("a == 1 OR TRUEPREDICATE", "always true"),
        ("a == 1 AND FALSEPREDICATE", "always false"), ("NOT TRUEPREDICATE", "always false"),
    ])
    func constantPredicate(_ format: String, _ says: String) throws {
        let found = PredicateLinter.lint(format: format)
        #expect(found.map(\.kind) == [.constantPredicate])
        #expect(found.first?.message.contains(says) == true, "\(found)")
    }

    @Test("a long predicate with one mistake repeated: at most maxFindings of the tree, quickly")
    func bounded() {
        let text = Array(repeating: "1 == 1", count: 20_000).joined(separator: " AND ")
        #expect(PredicateLinter.lint(format: text).count == PredicateLinter.maxFindings)
        let quoted = Array(repeating: "a == '%@'", count: 20_000).joined(separator: " OR ")
        let found = PredicateLinter.lint(format: quoted, argumentArray: [1, 2])
        #expect(found.map(\.kind) == [.surplusArgument, .quotedSpecifier, .quotedSpecifier])
        #expect(found[2].message.contains("argument 2 is never used"))
    }

    @Test("findings in SUBQUERY and TERNARY, deep inside")
    func nested() {
        #expect(Self.kinds("SUBQUERY(items, $i, $i.name LIKE 'x').@count > 0") == [.likeWithoutWildcard])
        #expect(Self.kinds("TERNARY(1 == 1, a, b) == 2") == [.constantPredicate])
    }
}

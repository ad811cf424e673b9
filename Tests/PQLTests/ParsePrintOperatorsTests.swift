import Foundation
import Testing
@testable import PQL

/// Reference §3: comparison operators and their spellings, options, quantifiers, AND/OR/NOT and the
/// constant predicates.
@Suite struct ParsePrintOperatorsTests {
    /// §3.1: every operator, every spelling, every keyword in several cases (D4).
    static let comparisons: [ParsePrintCase] = [
        .init("a = b", "a == b"),
        .init("a == b", "a == b"),
        .init("a==b", "a == b"),
        .init("a != b", "a != b"),
        .init("a <> b", "a != b"),
        .init("a < b", "a < b"),
        .init("a <= b", "a <= b"),
        .init("a =< b", "a <= b"),
        .init("a > b", "a > b"),
        .init("a >= b", "a >= b"),
        .init("a => b", "a >= b"),
        .init("a<=1", "a <= 1"),
        .init("a=<1", "a <= 1"),
        .init("a=>1", "a >= 1"),
        .init("a<>1", "a != 1"),
        .init("a<-1", "a < -1"),
        .init("a =-1", "a == -1"),
        .init("age BETWEEN {18, 65}", "age BETWEEN {18, 65}"),
        .init("age between {18.5, 65}", "age BETWEEN {18.5, 65}"),
        .init("age BeTwEeN {$LOW, $HIGH}", "age BETWEEN {$LOW, $HIGH}"),
        .init("date BETWEEN {$START, $END}", "date BETWEEN {$START, $END}"),
        .init("age BETWEEN range", "age BETWEEN range"),
        .init("a IN {1, 2, 3}", "a IN {1, 2, 3}"),
        .init("a in {'x'}", #"a IN {"x"}"#),
        .init("'ab' IN 'xaby'", #""ab" IN "xaby""#),
        .init("a IN b.c", "a IN b.c"),
        .init("name CONTAINS 'x'", #"name CONTAINS "x""#),
        .init("name contains 'x'", #"name CONTAINS "x""#),
        .init("tags CONTAINS 5", "tags CONTAINS 5"),
        .init("name BEGINSWITH 'x'", #"name BEGINSWITH "x""#),
        .init("name beginsWith 'x'", #"name BEGINSWITH "x""#),
        .init("name ENDSWITH 'x'", #"name ENDSWITH "x""#),
        .init("name EndsWith 'x'", #"name ENDSWITH "x""#),
        .init("name LIKE 'a?c*'", #"name LIKE "a?c*""#),
        .init("name like 'a\\\\*'", #"name LIKE "a\\*""#),
        .init("name MATCHES '[a-z]+'", #"name MATCHES "[a-z]+""#),
        .init("name matches '\\\\d{3}-\\\\d{4}'", #"name MATCHES "\\d{3}-\\d{4}""#),
        .init("type UTI-CONFORMS-TO 'public.image'", #"type UTI-CONFORMS-TO "public.image""#),
        .init("type uti-conforms-to 'public.image'", #"type UTI-CONFORMS-TO "public.image""#),
        .init("type UTI-EQUALS 'public.png'", #"type UTI-EQUALS "public.png""#),
        .init("type Uti-Equals \"public.png\"", #"type UTI-EQUALS "public.png""#),
        .init("uti-1 == 0", "uti - 1 == 0"),
        .init("1 == a", "1 == a"),
        .init("'x' == a", #""x" == a"#),
        .init("a == b.c", "a == b.c"),
    ]

    /// §3.4: option letters, in any order and case, printed in the order c d l n w.
    static let options: [ParsePrintCase] = [
        .init("a LIKE[c] 'x'", #"a LIKE[c] "x""#),
        .init("a LIKE[d] 'x'", #"a LIKE[d] "x""#),
        .init("a LIKE[n] 'x'", #"a LIKE[n] "x""#),
        .init("a LIKE[l] 'x'", #"a LIKE[l] "x""#),
        .init("a LIKE[w] 'x'", #"a LIKE[w] "x""#),
        .init("a LIKE[cd] 'x'", #"a LIKE[cd] "x""#),
        .init("a LIKE[dc] 'x'", #"a LIKE[cd] "x""#),
        .init("a LIKE[CD] 'x'", #"a LIKE[cd] "x""#),
        .init("a LIKE[Dc] 'x'", #"a LIKE[cd] "x""#),
        .init("a LIKE[ndc] 'x'", #"a LIKE[cdn] "x""#),
        .init("a LIKE[wnldc] 'x'", #"a LIKE[cdlnw] "x""#),
        .init("a LIKE [c] 'x'", #"a LIKE[c] "x""#),
        .init("a ==[c] 'x'", #"a ==[c] "x""#),
        .init("a =[cd] 'x'", #"a ==[cd] "x""#),
        .init("a !=[c] 'x'", #"a !=[c] "x""#),
        .init("a <>[d] 'x'", #"a !=[d] "x""#),
        .init("a <[c] 'x'", #"a <[c] "x""#),
        .init("a <=[c] 'x'", #"a <=[c] "x""#),
        .init("a >[c] 'x'", #"a >[c] "x""#),
        .init("a =>[cd] 'x'", #"a >=[cd] "x""#),
        .init("a CONTAINS[c] 'x'", #"a CONTAINS[c] "x""#),
        .init("a BEGINSWITH[cd] 'x'", #"a BEGINSWITH[cd] "x""#),
        .init("a ENDSWITH[n] 'x'", #"a ENDSWITH[n] "x""#),
        .init("a MATCHES[c] 'x+'", #"a MATCHES[c] "x+""#),
        .init("a IN[c] {'x', 'y'}", #"a IN[c] {"x", "y"}"#),
        .init("ANY a LIKE[cd] 'x'", #"ANY a LIKE[cd] "x""#),
    ]

    /// §3.2, §3.3, D1: quantifiers, connectives, precedence, flattening, parentheses.
    static let quantifiersAndLogic: [ParsePrintCase] = [
        .init("ANY kids.age > 5", "ANY kids.age > 5"),
        .init("any kids.age > 5", "ANY kids.age > 5"),
        .init("sOmE kids.age > 5", "ANY kids.age > 5"),
        .init("ALL kids.age > 5", "ALL kids.age > 5"),
        .init("all kids.age > 5", "ALL kids.age > 5"),
        .init("nOnE kids.age > 5", "NOT ANY kids.age > 5"),
        .init("NOT ANY kids.age > 5", "NOT ANY kids.age > 5"),
        .init("NOT ALL kids.age > 5", "NOT ALL kids.age > 5"),
        .init("ANY tags.name IN {'a', 'b'}", #"ANY tags.name IN {"a", "b"}"#),
        .init("ALL kids.age BETWEEN {1, 5}", "ALL kids.age BETWEEN {1, 5}"),
        .init("ANY (kids.age) > 5", "ANY kids.age > 5"),
        .init("(ANY kids.age > 5)", "ANY kids.age > 5"),
        .init("a == 1 AND NONE b == 2", "a == 1 AND (NOT ANY b == 2)"),
        .init("a == 1 AND b == 2", "a == 1 AND b == 2"),
        .init("a == 1 and b == 2", "a == 1 AND b == 2"),
        .init("a == 1 aNd b == 2", "a == 1 AND b == 2"),
        .init("a == 1 && b == 2", "a == 1 AND b == 2"),
        .init("a == 1&&b == 2", "a == 1 AND b == 2"),
        .init("a == 1 OR b == 2", "a == 1 OR b == 2"),
        .init("a == 1 or b == 2", "a == 1 OR b == 2"),
        .init("a == 1 || b == 2", "a == 1 OR b == 2"),
        .init("a == 1||b == 2", "a == 1 OR b == 2"),
        .init("NOT a == 1", "NOT a == 1"),
        .init("not a == 1", "NOT a == 1"),
        .init("! a == 1", "NOT a == 1"),
        .init("!(a == 1)", "NOT a == 1"),
        .init("NOT (a == 1)", "NOT a == 1"),
        .init("NOT NOT a == 1", "NOT (NOT a == 1)"),
        .init("!!a == 1", "NOT (NOT a == 1)"),
        .init("NOT (a == 1 AND b == 2)", "NOT (a == 1 AND b == 2)"),
        .init("NOT (a == 1 OR b == 2)", "NOT (a == 1 OR b == 2)"),
        .init("NOT a == 1 AND b == 2", "(NOT a == 1) AND b == 2"),
        .init("NOT a == 1 OR NOT b == 2", "(NOT a == 1) OR (NOT b == 2)"),
        .init("a == 1 AND b == 2 AND c == 3", "a == 1 AND b == 2 AND c == 3"),
        .init("a == 1 OR b == 2 OR c == 3 OR d == 4", "a == 1 OR b == 2 OR c == 3 OR d == 4"),
        .init("a == 1 && b == 2 and c == 3", "a == 1 AND b == 2 AND c == 3"),
        .init("(a == 1 AND b == 2) AND c == 3", "(a == 1 AND b == 2) AND c == 3"),
        .init("a == 1 AND (b == 2 AND c == 3)", "a == 1 AND (b == 2 AND c == 3)"),
        .init("a == 1 OR (b == 2 OR c == 3)", "a == 1 OR (b == 2 OR c == 3)"),
        .init("a == 1 OR b == 2 AND c == 3", "a == 1 OR (b == 2 AND c == 3)"),
        .init("a == 1 AND b == 2 OR c == 3", "(a == 1 AND b == 2) OR c == 3"),
        .init("a == 1 || b == 2 && c == 3 || d == 4", "a == 1 OR (b == 2 AND c == 3) OR d == 4"),
        .init("(a == 1 OR b == 2) AND c == 3", "(a == 1 OR b == 2) AND c == 3"),
        .init("(a == 1 OR b == 2) AND (c == 3 OR d == 4)", "(a == 1 OR b == 2) AND (c == 3 OR d == 4)"),
        .init("NOT a == 1 OR b == 2 AND NOT c == 3", "(NOT a == 1) OR (b == 2 AND (NOT c == 3))"),
        .init("((a == 1))", "a == 1"),
        .init("(a == 1) AND (b == 2)", "a == 1 AND b == 2"),
        .init("(((a == 1) OR (b == 2)))", "a == 1 OR b == 2"),
        .init("truepredicate", "TRUEPREDICATE"),
        .init("FalsePredicate", "FALSEPREDICATE"),
        .init("(TRUEPREDICATE)", "TRUEPREDICATE"),
        .init("NOT TRUEPREDICATE", "NOT TRUEPREDICATE"),
        .init("TRUEPREDICATE AND a == 1", "TRUEPREDICATE AND a == 1"),
        .init("FALSEPREDICATE OR TRUEPREDICATE", "FALSEPREDICATE OR TRUEPREDICATE"),
        .init("(a + b) > 3", "a + b > 3"),
        .init("(a) == 1", "a == 1"),
        .init("((a)) == (1)", "a == 1"),
        .init("(a + b) * c > 1", "(a + b) * c > 1"),
        .init("(a)[0] == 1", "a[0] == 1"),
        .init("(a).b == 1", "(a).b == 1"),
        .init("(a > 1) OR b == 2", "a > 1 OR b == 2"),
    ]

    @Test("§3.1 comparison operators", arguments: comparisons)
    func comparison(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§3.4 comparison options", arguments: options)
    func option(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§3.2–3.3 quantifiers, connectives, precedence", arguments: quantifiersAndLogic)
    func logic(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("every operator spelling builds the operator of Apple's numbering")
    func operatorTrees() throws {
        let table: [(String, ComparisonOperator)] = [
            ("=", .equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .lessThan),
            ("<=", .lessThanOrEqual), ("=<", .lessThanOrEqual), (">", .greaterThan),
            (">=", .greaterThanOrEqual), ("=>", .greaterThanOrEqual), ("MATCHES", .matches),
            ("LIKE", .like), ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith), ("IN", .in),
            ("CONTAINS", .contains), ("BETWEEN", .between), ("UTI-CONFORMS-TO", .utiConformsTo),
            ("UTI-EQUALS", .utiEquals),
        ]
        for (spelling, op) in table {
            let p = try PredicateNode(format: "a \(spelling) b")
            #expect(p == .comparison(ComparisonNode(.keyPath(["a"]), op, .keyPath(["b"]))), "\(spelling)")
        }
    }

    @Test("options are Apple's bit values")
    func optionBits() throws {
        let p = try PredicateNode(format: "a LIKE[cdlnw] 'x'")
        guard case .comparison(let c) = p else { Issue.record("\(p)"); return }
        #expect(c.options.rawValue == 0x1F)
        #expect(c.options == [.caseInsensitive, .diacriticInsensitive, .localeSensitive, .normalized, .wordBoundary])
    }

    @Test("AND binds tighter than OR, and chains are flattened (D1)")
    func precedenceTrees() throws {
        let a = PredicateNode.comparison(ComparisonNode(.keyPath(["a"]), .equal, .constant(1)))
        let b = PredicateNode.comparison(ComparisonNode(.keyPath(["b"]), .equal, .constant(2)))
        let c = PredicateNode.comparison(ComparisonNode(.keyPath(["c"]), .equal, .constant(3)))
        #expect(try PredicateNode(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try PredicateNode(format: "a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try PredicateNode(format: "a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try PredicateNode(format: "(a == 1 AND b == 2) AND c == 3") == .and([.and([a, b]), c]))
        #expect(try PredicateNode(format: "NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try PredicateNode(format: "NONE a == 1") == .not(.comparison(ComparisonNode(.keyPath(["a"]), .equal, .constant(1), quantifier: .any))))
    }
}

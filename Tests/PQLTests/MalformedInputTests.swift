import Foundation
import Testing
@testable import PQL

/// Format strings that must not parse: each gives the right error kind, at the exact place
/// (UTF-8 offset, 1-based line and character column), with a message and, where a fix is
/// likely, a hint.
@Suite struct MalformedInputTests {
    struct Case: @unchecked Sendable, CustomTestStringConvertible {
        let input: String
        let arguments: [Any?]
        let kind: PredicateFormatError.Kind
        let offset: Int
        let line: Int
        let column: Int
        /// A substring of the message.
        let message: String
        /// A substring of the hint, when the hint matters.
        let hint: String?
        let sourceLocation: SourceLocation

        init(_ input: String, args arguments: [Any?] = [], _ kind: PredicateFormatError.Kind,
             at offset: Int, line: Int = 1, column: Int, _ message: String, hint: String? = nil,
             sourceLocation: SourceLocation = #_sourceLocation) {
            self.input = input
            self.arguments = arguments
            self.kind = kind
            self.offset = offset
            self.line = line
            self.column = column
            self.message = message
            self.hint = hint
            self.sourceLocation = sourceLocation
        }

        var testDescription: String {
            let shown = input.count > 60 ? String(input.prefix(60)) + "…" : input
            return shown.debugDescription
        }
    }

    /// Checks that parsing `c` fails exactly as described.
    static func check(_ c: Case) {
        let loc = c.sourceLocation
        do {
            let p = try PredicateNode(format: c.input, argumentArray: c.arguments)
            Issue.record("parsed as \(p)", sourceLocation: loc)
        } catch {
            #expect(error.kind == c.kind, "\(error.message)", sourceLocation: loc)
            #expect(error.range.offset == c.offset, sourceLocation: loc)
            #expect(error.range.line == c.line, sourceLocation: loc)
            #expect(error.range.column == c.column, sourceLocation: loc)
            #expect(error.message.contains(c.message), "message: \(error.message)", sourceLocation: loc)
            if let hint = c.hint {
                #expect(error.hint?.contains(hint) == true, "hint: \(error.hint ?? "none")", sourceLocation: loc)
            }
            #expect(error.source == c.input, sourceLocation: loc)
        }
    }

    /// §1: characters, strings, escapes, numbers, comments.
    static let lexical: [Case] = [
        .init("name == 'abc", .unterminatedString, at: 8, column: 9, "never closed", hint: "end the string with '"),
        .init("name == \"abc'", .unterminatedString, at: 8, column: 9, "never closed", hint: "end the string with \""),
        .init("name == 'abc\\", .unterminatedString, at: 12, column: 13, "in the middle of an escape"),
        .init("name == '\\x4'", .invalidEscape, at: 9, column: 10, "2 hexadecimal digits", hint: "\\x41"),
        .init("name == '\\u12G4'", .invalidEscape, at: 9, column: 10, "4 hexadecimal digits", hint: "\\u00E9"),
        .init("name == '\\uD83D'", .invalidEscape, at: 9, column: 10, "followed by a low surrogate"),
        .init("name == '\\uD83D\\u0041'", .invalidEscape, at: 9, column: 10, "is not a low surrogate"),
        .init("name == '\\uDE00'", .invalidEscape, at: 9, column: 10, "lone low surrogate"),
        .init("a == 0x", .invalidNumber, at: 5, column: 6, "hexadecimal number has no digits", hint: "0x1F"),
        .init("a == 0xG", .invalidNumber, at: 5, column: 6, "hexadecimal number has no digits"),
        .init("a == 0o8", .invalidNumber, at: 5, column: 6, "octal number has no digits", hint: "0o17"),
        .init("a == 0b102", .invalidNumber, at: 5, column: 6, "invalid binary number '0b102'"),
        .init("a == 0x1FFFFFFFFFFFFFFFF", .invalidNumber, at: 5, column: 6, "does not fit in 64 bits"),
        .init("a == 1e", .invalidNumber, at: 5, column: 6, "exponent of this number has no digits", hint: "1e5"),
        .init("a == 1e+", .invalidNumber, at: 5, column: 6, "exponent of this number has no digits"),
        .init("a == 12abc", .invalidNumber, at: 5, column: 6, "invalid number '12abc'", hint: "separate a number"),
        .init("a == 1_000", .invalidNumber, at: 5, column: 6, "invalid number '1_000'"),
        .init("a == .5", .invalidNumber, at: 5, column: 6, "cannot start with '.'", hint: "0.5"),
        .init("a == 1.5.5", .invalidNumber, at: 8, column: 9, "cannot start with '.'"),
        .init("a == 5.", .unexpectedToken, at: 7, column: 8, "expected a key after '.', found end of input", hint: "2.5"),
        .init("a == 1 /* c */", .invalidCharacter, at: 7, column: 8, "no comments", hint: "remove the comment"),
        .init("a == 1 // c", .invalidCharacter, at: 7, column: 8, "no comments"),
        .init("name == ?", .invalidCharacter, at: 8, column: 9, "'?' is not a token", hint: "%@"),
        .init("a == `x`", .invalidCharacter, at: 5, column: 6, "unexpected character '`'", hint: "quoted"),
        .init("a == 1;", .invalidCharacter, at: 6, column: 7, "unexpected character ';'", hint: "AND or OR"),
        .init("a == \u{7}", .invalidCharacter, at: 5, column: 6, "control character U+7"),
        .init("#1 == 1", .unexpectedToken, at: 0, column: 1, "expected a key name after '#'", hint: "#size"),
        .init("$ == 1", .unexpectedToken, at: 0, column: 1, "expected a variable name after '$'"),
        .init("$1 == 1", .unexpectedToken, at: 0, column: 1, "expected a variable name after '$'"),
        .init("a.@ == 1", .unexpectedToken, at: 2, column: 3, "collection operator name after '@'", hint: "@count"),
    ]

    /// §5: specifiers and their arguments.
    static let arguments: [Case] = [
        .init("name == %k", args: ["x"], .badSpecifier, at: 8, column: 9, "unrecognized conversion specifier '%k'", hint: "%K"),
        .init("name == %y", .badSpecifier, at: 8, column: 9, "unrecognized conversion specifier '%y' in format string"),
        .init("a == 5%", .badSpecifier, at: 6, column: 7, "at the end of the format string", hint: "%%"),
        .init("a % 2 == 0", .badSpecifier, at: 2, column: 3, "unrecognized conversion specifier", hint: "modulus:by:"),
        .init("a == %1$@", args: [1], .badSpecifier, at: 5, column: 6, "positional format specifiers"),
        .init("a == %@", .missingArgument, at: 5, column: 6, "%@ has no argument", hint: "one argument for every specifier"),
        .init("a == %@ AND b == %d", args: [1], .missingArgument, at: 17, column: 18, "%d has no argument"),
        .init("%K == 1", args: [5], .argumentType, at: 0, column: 1, "%K needs a key-path string, but argument 1 is Int"),
        .init("%K == 1", args: ["a..b"], .argumentType, at: 0, column: 1, "\"a..b\" is not a key path"),
        .init("%K == 1", args: [""], .argumentType, at: 0, column: 1, "is not a key path"),
        .init("a == %@ AND %K == 1", args: [1, 2], .argumentType, at: 12, column: 13, "argument 2 is Int"),
        .init("a == %d", args: ["x"], .argumentType, at: 5, column: 6, "%d needs an integer, but argument 1 is String", hint: "%@"),
        .init("a == %ld", args: [2.5], .argumentType, at: 5, column: 6, "%ld needs an integer"),
        // A PredicateValue (as the command line's --arg passes) is named by its kind.
        .init("a == %d", args: [PredicateValue.double(3)], .argumentType, at: 5, column: 6, "%d needs an integer, but argument 1 is a number"),
        .init("%K == 1", args: [PredicateValue.int(5)], .argumentType, at: 0, column: 1, "%K needs a key-path string, but argument 1 is a number"),
        .init("a == %u", args: [-1], .argumentType, at: 5, column: 6, "%u needs an unsigned integer", hint: "%d"),
        .init("a == %f", args: ["x"], .argumentType, at: 5, column: 6, "%f needs a number"),
        .init("a == %s", args: [1], .argumentType, at: 5, column: 6, "%s needs a string"),
        .init("a == %c", args: ["AB"], .argumentType, at: 5, column: 6, "%c needs a character"),
        .init("a == %p", args: [1], .argumentType, at: 5, column: 6, "%p would pass a pointer"),
        .init("a == %@", args: [NotAPredicateValue()], .argumentType, at: 5, column: 6, "of type NotAPredicateValue has no predicate value"),
    ]

    /// Decision D6 and §2.3: the spellings Apple rejects, with the accepted one in the hint.
    static let rejectedSpellings: [Case] = [
        .init("x NOT IN {1}", .negatedOperator, at: 2, column: 3, "NOT cannot negate an operator", hint: "NOT (x IN {1})"),
        .init("x NOT LIKE 'a*'", .negatedOperator, at: 2, column: 3, "negate the whole comparison", hint: "NOT (x LIKE 'a*')"),
        .init("x NOT CONTAINS 'a'", .negatedOperator, at: 2, column: 3, "NOT cannot negate", hint: "NOT (x CONTAINS 'a')"),
        .init("x not beginswith 'a'", .negatedOperator, at: 2, column: 3, "NOT cannot negate", hint: "NOT (x beginswith 'a')"),
        .init("name NOT LIKE[c] 'a'", .negatedOperator, at: 5, column: 6, "NOT cannot negate", hint: "NOT (name LIKE[c] 'a')"),
        .init("x ! IN y", .negatedOperator, at: 2, column: 3, "NOT cannot negate", hint: "NOT (x IN y)"),
        .init("x NOT BETWEEN {1, 2}", .negatedOperator, at: 2, column: 3, "NOT cannot negate", hint: "NOT (x BETWEEN {1, 2})"),
        .init("1 < x < 5", .chainedComparison, at: 6, column: 7, "comparisons cannot be chained", hint: "x BETWEEN {1, 5}"),
        .init("1 <= x <= 5", .chainedComparison, at: 7, column: 8, "cannot be chained", hint: "BETWEEN"),
        .init("a == b == c", .chainedComparison, at: 7, column: 8, "cannot be chained", hint: "a == b AND b == c"),
        .init("isActive", .bareExpression, at: 0, column: 1, "isActive is a value, not a predicate", hint: "isActive == YES"),
        .init("TRUE", .bareExpression, at: 0, column: 1, "TRUE is a value, not a predicate", hint: "TRUEPREDICATE"),
        .init("yes", .bareExpression, at: 0, column: 1, "is a value", hint: "TRUEPREDICATE"),
        .init("FALSE", .bareExpression, at: 0, column: 1, "is a value", hint: "FALSEPREDICATE"),
        .init("x == 1 AND isActive", .bareExpression, at: 11, column: 12, "isActive is a value", hint: "isActive == YES"),
        .init("NOT isActive", .bareExpression, at: 4, column: 5, "isActive is a value", hint: "isActive == YES"),
        .init("0 || 1", .bareExpression, at: 0, column: 1, "0 is a value"),
        .init("a.b.c", .bareExpression, at: 0, column: 1, "a.b.c is a value", hint: "a.b.c == YES"),
        .init("(a == 1) == 1", .unexpectedToken, at: 9, column: 10, "a predicate in parentheses cannot be compared", hint: "TERNARY"),
        .init("ANY ALL a == 1", .unexpectedToken, at: 4, column: 5, "quantifiers cannot be nested"),
        .init("ANY a", .unexpectedToken, at: 5, column: 6, "expected a comparison operator", hint: "ANY needs a comparison"),
        .init("ANY tags isKindOfClass: 'x'", .unsupported, at: 9, column: 10, "ANY and ALL cannot range over a custom selector operator"),
        .init("self isKindOfClass: 'x' == 1", .chainedComparison, at: 24, column: 25, "comparisons cannot be chained"),
        .init("FETCH(a, b, c) == 1", .unsupported, at: 0, column: 1, "FETCH"),
    ]

    /// Misspelled keywords and functions, argument counts, reserved words.
    static let words: [Case] = [
        .init("name BEGINSWTH 'a'", .unexpectedToken, at: 5, column: 6, "expected a comparison operator", hint: "did you mean BEGINSWITH?"),
        .init("name LIKEE 'a'", .unexpectedToken, at: 5, column: 6, "found 'LIKEE'", hint: "did you mean LIKE?"),
        .init("name CONTIANS 'a'", .unexpectedToken, at: 5, column: 6, "expected a comparison operator", hint: "did you mean CONTAINS?"),
        .init("a == 1 ANDD b == 2", .unexpectedToken, at: 7, column: 8, "expected AND, OR or end of input", hint: "did you mean AND?"),
        .init("a == 1 OR b == 2 ORR c == 3", .unexpectedToken, at: 17, column: 18, "found 'ORR'", hint: "did you mean OR?"),
        .init("a == 1 b == 2", .unexpectedToken, at: 7, column: 8, "expected AND, OR or end of input, found 'b'", hint: "join conditions"),
        .init("sqr(4) == 2", .unknownFunction, at: 0, column: 1, "unknown function 'sqr'", hint: "did you mean sqrt?"),
        .init("a == uppercse(b)", .unknownFunction, at: 5, column: 6, "unknown function 'uppercse'", hint: "did you mean uppercase?"),
        .init("SUM(a) == 1", .unknownFunction, at: 0, column: 1, "unknown function 'SUM'", hint: "did you mean sum?"),
        .init("modulus(10, 3) == 1", .unknownFunction, at: 0, column: 1, "unknown function 'modulus'", hint: "modulus:by:(…)"),
        .init("raise:(2, 8) == 256", .unknownFunction, at: 0, column: 1, "unknown function 'raise:'", hint: "raise:toPower:(…)"),
        .init("fooBar(1) == 1", .unknownFunction, at: 0, column: 1, "unknown function 'fooBar'", hint: "modulus:by:"),
        .init("now(1) == 1", .wrongArgumentCount, at: 0, column: 1, "now takes no arguments, not 1"),
        .init("random(1) < 1", .wrongArgumentCount, at: 0, column: 1, "random takes no arguments", hint: "randomn:(n)"),
        .init("sum(1, 2) == 1", .wrongArgumentCount, at: 0, column: 1, "sum: takes 1 argument, not 2"),
        .init("a == modulus:by:(1)", .wrongArgumentCount, at: 5, column: 6, "modulus:by: takes 2 arguments, not 1"),
        .init("objectFrom:withIndex:(a) == 1", .wrongArgumentCount, at: 0, column: 1, "takes 2 arguments, not 1"),
        .init("modulus:by: == 1", .unexpectedToken, at: 12, column: 13, "expected '(' after the function name modulus:by:"),
        .init("FUNCTION(a) == 1", .wrongArgumentCount, at: 0, column: 1, "FUNCTION takes a target, a selector string"),
        .init("FUNCTION(a, b) == 1", .unexpectedToken, at: 8, column: 9, "must be a selector string"),
        .init("CAST(a) == 1", .wrongArgumentCount, at: 0, column: 1, "CAST takes a value and a type name"),
        .init("TERNARY(a == 1, 2, 3, 4) == 1", .wrongArgumentCount, at: 0, column: 1, "TERNARY takes a condition and two values"),
        .init("TERNARY(a == 1, 2) == 1", .unexpectedToken, at: 17, column: 18, "expected ',' after the first value"),
        .init("TERNARY(a, 1, 2) == 1", .bareExpression, at: 8, column: 9, "a is a value"),
        .init("SUBQUERY(a, b, b == 1).@count == 1", .unexpectedToken, at: 12, column: 13, "expected a $variable"),
        .init("SUBQUERY(a, $b).@count == 1", .unexpectedToken, at: 14, column: 15, "expected ',' after the variable"),
        .init("order.first == 1", .reservedWord, at: 6, column: 7, "FIRST is a reserved word", hint: ".#first"),
        .init("size == 1", .reservedWord, at: 0, column: 1, "SIZE is a reserved word", hint: "#size"),
        .init("a == in", .unexpectedToken, at: 5, column: 6, "expected an expression, found keyword IN", hint: "#in"),
        .init("a == 1 AND OR b == 2", .unexpectedToken, at: 11, column: 12, "found keyword OR", hint: "missing before OR"),
        .init("name == LIKE 'x'", .unexpectedToken, at: 8, column: 9, "found keyword LIKE"),
        .init("a == CASEINSENSITIVE", .reservedWord, at: 5, column: 6, "CASEINSENSITIVE is reserved", hint: "[c]"),
        .init("ci == 1", .reservedWord, at: 0, column: 1, "CI is reserved", hint: "#ci"),
        .init("a == TRUEPREDICATE", .unexpectedToken, at: 5, column: 6, "is a predicate and cannot be used as a value", hint: "YES"),
        .init("a == ANY b", .unexpectedToken, at: 5, column: 6, "ANY must stand at the start of a comparison"),
        .init("a == NOT b", .unexpectedToken, at: 5, column: 6, "NOT negates a predicate", hint: "NOT (a == b)"),
        .init("a == +1", .unexpectedToken, at: 5, column: 6, "'+' cannot start an expression"),
        .init("a LIKE[x] 'b'", .unexpectedToken, at: 7, column: 8, "unknown comparison option 'x'", hint: "c (case-insensitive)"),
        .init("a LIKE[c 'b'", .unexpectedToken, at: 9, column: 10, "expected ']'", hint: "LIKE[cd]"),
        .init("a LIKE[] 'b'", .unexpectedToken, at: 7, column: 8, "expected option letters"),
        .init("a BETWEEN[c] {1, 2}", .unexpectedToken, at: 9, column: 10, "BETWEEN takes no options", hint: "remove [c]"),
        .init("a UTI-EQUALS[c] 'x'", .unexpectedToken, at: 12, column: 13, "UTI-EQUALS takes no options"),
    ]

    /// Structure: empty input, unbalanced brackets, missing operands.
    static let structure: [Case] = [
        .init("", .unexpectedToken, at: 0, column: 1, "the predicate is empty", hint: "TRUEPREDICATE"),
        .init("   ", .unexpectedToken, at: 3, column: 4, "the predicate is empty"),
        .init("(a == 1", .unexpectedToken, at: 7, column: 8, "expected ')', found end of input", hint: "matching ')'"),
        .init("((a == 1)", .unexpectedToken, at: 9, column: 10, "expected ')'"),
        .init("a == 1)", .unexpectedToken, at: 6, column: 7, "expected AND, OR or end of input, found ')'"),
        .init("(a == 1))", .unexpectedToken, at: 8, column: 9, "found ')'"),
        .init("a == (1 + 2", .unexpectedToken, at: 11, column: 12, "expected ')'"),
        .init("a[0 == 1", .unexpectedToken, at: 4, column: 5, "expected ']', found '=='"),
        .init("a == b]", .unexpectedToken, at: 6, column: 7, "found ']'"),
        .init("a IN {1, 2", .unexpectedToken, at: 10, column: 11, "expected ',' or '}', found end of input"),
        .init("a IN {1, 2}}", .unexpectedToken, at: 11, column: 12, "found '}'"),
        .init("a == }", .unexpectedToken, at: 5, column: 6, "expected an expression, found '}'"),
        .init("a == {1,}", .unexpectedToken, at: 8, column: 9, "expected an expression, found '}'"),
        .init("sum:(x == 1", .unexpectedToken, at: 7, column: 8, "expected ',' or ')'"),
        .init("a == 1 AND", .unexpectedToken, at: 10, column: 11, "expected an expression, found end of input"),
        .init("NOT", .unexpectedToken, at: 3, column: 4, "found end of input"),
        .init("a ==", .unexpectedToken, at: 4, column: 5, "expected an expression, found end of input"),
        .init("== 1", .unexpectedToken, at: 0, column: 1, "expected an expression, found '=='"),
        .init("a == 1 == ", .chainedComparison, at: 7, column: 8, "cannot be chained"),
    ]

    /// Positions count lines at "\n" and columns in characters: CRLF, tabs, multi-byte text.
    static let positions: [Case] = [
        .init("a == 1\nAND b == ?", .invalidCharacter, at: 16, line: 2, column: 10, "'?'"),
        .init("a == 1\r\nAND b == ?", .invalidCharacter, at: 17, line: 2, column: 10, "'?'"),
        .init("\tname == 'Zoë'\tAND ?", .invalidCharacter, at: 20, column: 20, "'?'"),
        .init("名前 == '日本' AND ?", .invalidCharacter, at: 23, column: 16, "'?'"),
        .init("a == '👨‍👩‍👧' AND ?", .invalidCharacter, at: 30, column: 14, "'?'"),
        .init("a == 'e\u{301}' OR ?", .invalidCharacter, at: 14, column: 13, "'?'"),
        .init("a == 1 \u{301}", .invalidCharacter, at: 7, column: 7, "unexpected character"),
        .init("a == 1 AND\n  b ==\n", .unexpectedToken, at: 18, line: 3, column: 1, "found end of input"),
        .init("x == 1\r\n\tAND y NOT IN {1}", .negatedOperator, at: 15, line: 2, column: 8, "NOT cannot negate", hint: "NOT (y IN {1})"),
        .init("a == 'x'\n\n  AND b == 'unterminated", .unterminatedString, at: 21, line: 3, column: 12, "never closed"),
        .init("größe == 1 AND größe ==", .unexpectedToken, at: 27, column: 24, "found end of input"),
        .init("a == %@\r\n AND b == %@", args: [1], .missingArgument, at: 19, line: 2, column: 11, "%@ has no argument"),
    ]

    @Test("§1 lexical errors", arguments: lexical)
    func lexicalError(_ c: Case) { Self.check(c) }

    @Test("§5 specifier and argument errors", arguments: arguments)
    func argumentError(_ c: Case) { Self.check(c) }

    @Test("D6 rejected spellings", arguments: rejectedSpellings)
    func rejectedSpelling(_ c: Case) { Self.check(c) }

    @Test("misspellings, functions, reserved words", arguments: words)
    func wordError(_ c: Case) { Self.check(c) }

    @Test("unbalanced and incomplete input", arguments: structure)
    func structureError(_ c: Case) { Self.check(c) }

    @Test("lines and columns in multi-line and multi-byte text", arguments: positions)
    func positionError(_ c: Case) { Self.check(c) }

    @Test("at least 60 malformed inputs")
    func corpusSize() {
        let all = Self.lexical + Self.arguments + Self.rejectedSpellings + Self.words + Self.structure + Self.positions
        #expect(Set(all.map { "\($0.input) \($0.arguments.count)" }).count >= 60)
    }

    // MARK: Nesting (decision D10)

    /// The tree-height limit (``Parser/maxNestingDepth``) counts every node above the leaves,
    /// the comparison included, so a chain of one construct may be `maxNestingDepth - 2` deep.
    static let deepestChain = Parser.maxNestingDepth - 2

    /// A construct nested `n` levels deep: the deepest that parses, and where the error for one
    /// more level points (the construct that makes the tree too tall).
    struct Nesting: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (Int) -> String
        let deepest: Int
        let offsetOfError: Int
        var testDescription: String { name }
        init(_ name: String, deepest: Int = MalformedInputTests.deepestChain, errorAt offset: Int,
             _ make: @escaping @Sendable (Int) -> String) {
            self.name = name
            self.make = make
            self.deepest = deepest
            self.offsetOfError = offset
        }
    }

    static let nestings: [Nesting] = [
        .init("NOT chain", errorAt: 0) { String(repeating: "NOT ", count: $0) + "a == 1" },
        .init("! chain", errorAt: 0) { String(repeating: "!", count: $0) + "a == 1" },
        .init("parenthesised AND", errorAt: 8) { String(repeating: "(a == 1 AND ", count: $0) + "b == 1" + String(repeating: ")", count: $0) },
        .init("NONE inside NOT chain", deepest: deepestChain - 1, errorAt: 0) { String(repeating: "NOT ", count: $0) + "NONE a == 1" },
        // Expression chains: the comparison is the level too many, so the error is at its operator.
        .init("1+1+… chain", errorAt: 2) { "a == 1" + String(repeating: "+1", count: $0) },
        .init("1+1+… chain on the left", errorAt: 2 * (deepestChain + 2)) { "1" + String(repeating: "+1", count: $0) + " == a" },
        .init("** chain", errorAt: 2) { "a == 2" + String(repeating: " ** 2", count: $0) },
        .init("parenthesised + chain", errorAt: 2) { "a == " + String(repeating: "1 + (", count: $0) + "1" + String(repeating: ")", count: $0) },
        .init("unary minus", errorAt: 2) { "a == " + String(repeating: "-", count: $0) + "x" },
        .init("ones' complement", errorAt: 2) { "a == " + String(repeating: "~", count: $0) + "x" },
        .init("braces", errorAt: 2) { "a == " + String(repeating: "{", count: $0) + "1" + String(repeating: "}", count: $0) },
        .init("braces around a key", errorAt: 2) { "a == " + String(repeating: "{", count: $0) + "x" + String(repeating: "}", count: $0) },
        .init("function calls", errorAt: 2) { "a == " + String(repeating: "abs(", count: $0) + "1" + String(repeating: ")", count: $0) },
        .init("index chain", errorAt: 2) { "a == x" + String(repeating: "[0]", count: $0) },
        .init("nested index", errorAt: 2) { "a == " + String(repeating: "x[", count: $0) + "0" + String(repeating: "]", count: $0) },
        .init(":= chain", errorAt: 2) { "a == " + Array(repeating: "$v", count: $0 + 1).joined(separator: " := ") },
        .init("TERNARY", deepest: deepestChain - 1, errorAt: 2) {
            "a == " + String(repeating: "TERNARY(b == 1, ", count: $0) + "1" + String(repeating: ", 2)", count: $0)
        },
        // SUBQUERY has a nesting limit of its own (8, below the 20 the tree height would
        // allow); the error is at the SUBQUERY one level too deep, 16 bytes per level in.
        .init("SUBQUERY", deepest: Parser.maxSubqueryNesting, errorAt: 16 * Parser.maxSubqueryNesting) {
            String(repeating: "SUBQUERY(x, $x, ", count: $0) + "a == 1" + String(repeating: ").@count == 1", count: $0)
        },
    ]

    @Test("the deepest accepted nesting parses and prints text that parses back; one more level is an error",
          arguments: nestings)
    func nestingLimit(_ n: Nesting) throws {
        let deepest = try PredicateNode(format: n.make(n.deepest))
        let again = try PredicateNode(format: deepest.description)
        #expect(again == deepest)
        #expect(again.description == deepest.description)
        let text = n.make(n.deepest + 1)
        do {
            let p = try PredicateNode(format: text)
            Issue.record("\(n.deepest + 1) levels parsed: \(p.description.prefix(80))")
        } catch {
            #expect(error.kind == .nestingTooDeep)
            #expect(error.range.offset == n.offsetOfError)
            #expect(error.range.column == n.offsetOfError + 1)
            if n.name == "SUBQUERY" {
                #expect(error.message.contains("more than \(Parser.maxSubqueryNesting) levels deep"))
                #expect(error.hint?.contains("split the query") == true)
            } else {
                #expect(error.message.contains("deeper than \(Parser.maxNestingDepth) levels"))
                #expect(error.hint?.contains("flatten") == true)
            }
        }
    }

    /// Parentheses add no level to the tree; the parser's own recursion limit stops them, and
    /// it is large enough that the printed text of every accepted tree reads back.
    @Test("deep parentheses are an error at the recursion limit")
    func parenthesesLimit() throws {
        func aroundComparison(_ n: Int) -> String {
            String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n)
        }
        func aroundValue(_ n: Int) -> String {
            "a == " + String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n)
        }
        let limits: [(String, Int, (Int) -> String)] = [
            ("around a comparison", Parser.maxRecursionDepth - 1, aroundComparison),
            // In a value each parenthesis is also an expression, two steps of recursion.
            ("around a value", Parser.maxRecursionDepth / 2 - 1, aroundValue),
        ]
        for (name, deepest, make) in limits {
            #expect(try PredicateNode(format: make(deepest)) == PredicateNode(format: make(1)), "\(name)")
            do {
                _ = try PredicateNode(format: make(deepest + 1))
                Issue.record("\(name): one more parenthesis parsed")
            } catch {
                #expect(error.kind == .nestingTooDeep, "\(name)")
                #expect(error.message.contains("parentheses"), "\(name): \(error.message)")
            }
        }
    }

    @Test("huge nesting is an error, never a crash", arguments: [
        ("parentheses", String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000),
         Parser.maxRecursionDepth),
        ("parentheses around a value", "a == " + String(repeating: "(", count: 100_000) + "1", 5 + Parser.maxRecursionDepth / 2),
        ("NOT chain", String(repeating: "NOT ", count: 100_000) + "a == 1", 4 * Parser.maxRecursionDepth),
        ("1+1+… chain", "a == 1" + String(repeating: "+1", count: 100_000), 6 + 2 * (Parser.maxNestingDepth - 1)),
        ("unary minus", "a == " + String(repeating: "-", count: 100_000) + "1", 5 + Parser.maxRecursionDepth),
        ("braces", "a == " + String(repeating: "{", count: 100_000), 5 + Parser.maxRecursionDepth / 2),
    ])
    func hugeNesting(_ name: String, _ text: String, _ offset: Int) {
        do {
            _ = try PredicateNode(format: text)
            Issue.record("\(name) parsed")
        } catch {
            #expect(error.kind == .nestingTooDeep, "\(name): \(error.message)")
            #expect(error.range.offset == offset, "\(name)")
            #expect(error.range.column == offset + 1, "\(name)")
        }
    }

    @Test("a %@ argument nests like the braces it prints as, so printed text always reads back")
    func deepArgument() throws {
        func nested(_ n: Int) -> PredicateValue { (0..<n).reduce(PredicateValue.int(1)) { v, _ in .array([v]) } }
        let ok = try PredicateNode(format: "a == %@", nested(Self.deepestChain))
        #expect(try PredicateNode(format: ok.description) == ok)
        // One level too many fails at the comparison, as a chain of literal braces does; a much
        // deeper argument fails at its specifier.
        for (tooDeep, offset) in [(Self.deepestChain + 1, 2), (200, 5)] {
            do {
                _ = try PredicateNode(format: "a == %@", nested(tooDeep))
                Issue.record("a \(tooDeep)-level array argument parsed")
            } catch {
                #expect(error.kind == .nestingTooDeep)
                #expect(error.range.offset == offset)
            }
        }
        let sets = (0..<200).reduce(PredicateValue.int(1)) { v, _ in .set([v]) }
        #expect(throws: PredicateFormatError.self) { try PredicateNode(format: "a IN %@", sets) }
    }

    // MARK: Size and encoding

    @Test("a 1 MB predicate parses")
    func megabytePredicate() throws {
        let clause = "name == 'abcdefghij' OR "
        let count = 1_048_576 / clause.utf8.count + 1
        let text = String(repeating: clause, count: count) + "age > 30"
        #expect(text.utf8.count > 1_048_576)
        let p = try PredicateNode(format: text)
        guard case .or(let children) = p else { Issue.record("not an OR"); return }
        #expect(children.count == count + 1)
        #expect(try PredicateNode(format: p.description) == p)
    }

    @Test("a 1 MB list and a 1 MB string parse")
    func megabyteValues() throws {
        let list = "a IN {" + (0..<150_000).map(String.init).joined(separator: ", ") + "}"
        #expect(list.utf8.count > 1_000_000)
        guard case .comparison(let c) = try PredicateNode(format: list), case .constant(.array(let a)) = c.rhs else {
            Issue.record("not a comparison with a list"); return
        }
        #expect(a.count == 150_000)
        let long = String(repeating: "x", count: 1_100_000)
        let s = try PredicateNode(format: "a == '\(long)'")
        #expect(s == .comparison(ComparisonNode(.keyPath(["a"]), .equal, .constant(.string(long)))))
    }

    @Test("invalid UTF-8 is an error at the first bad byte", arguments: [
        (Array("name == '".utf8) + [0xFF] + Array("'".utf8), 9, 1, 10),
        (Array("a == 'é'\nAND b == '".utf8) + [0xC3], 20, 2, 11),
        (Array("a == '".utf8) + [0xC0, 0x80, 0x27], 6, 1, 7),
        (Array("a == '".utf8) + [0xED, 0xA0, 0x80, 0x27], 6, 1, 7),
        ([0x80] + Array(" == 1".utf8), 0, 1, 1),
    ])
    func invalidUTF8(_ bytes: [UInt8], _ offset: Int, _ line: Int, _ column: Int) {
        do {
            let p = try PredicateNode(utf8: bytes)
            Issue.record("parsed as \(p)")
        } catch {
            #expect(error.kind == .invalidUTF8)
            #expect(error.range.offset == offset)
            #expect(error.range.line == line)
            #expect(error.range.column == column)
            #expect(error.message.contains("not valid UTF-8"))
        }
    }

    @Test("valid UTF-8 bytes parse like the string")
    func validUTF8() throws {
        #expect(try PredicateNode(utf8: Array("名前 == 'Zoë'".utf8)) == PredicateNode(format: "名前 == 'Zoë'"))
        #expect(try PredicateNode(utf8: Array("a == %@".utf8), argumentArray: [1]) == PredicateNode(format: "a == 1"))
    }

    @Test("an empty expression is an error")
    func emptyExpression() {
        #expect(throws: PredicateFormatError.self) { try ExpressionNode(format: "") }
        do { _ = try ExpressionNode(format: "a +") } catch {
            #expect(error.kind == .unexpectedToken)
            #expect(error.range.offset == 3)
        }
    }

    // MARK: Rendering

    @Test("rendered shows the message, the position, the source line and a caret")
    func renderedCaret() {
        do { _ = try PredicateNode(format: "name NOT IN {'a'}") } catch {
            let lines = error.rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "error: NOT cannot negate an operator; negate the whole comparison")
            #expect(lines.contains(" --> line 1, column 6"))
            #expect(lines.contains("1 | name NOT IN {'a'}"))
            #expect(lines.contains("  |      ^~~~~~"))
            #expect(lines.contains("  = hint: write NOT (name IN {'a'})"))
        }
    }

    @Test("rendered shows the right line of CRLF text, without the CR")
    func renderedCRLF() {
        do { _ = try PredicateNode(format: "a == 1\r\nAND b == ?\r\nOR c == 2") } catch {
            #expect(error.range.line == 2)
            #expect(error.rendered.contains("\n2 | AND b == ?\n"), "\(error.rendered)")
            #expect(error.rendered.contains("\n  |          ^"), "\(error.rendered)")
            #expect(!error.rendered.contains("\r"))
        }
    }

    @Test("rendered keeps tabs so the caret lines up, and counts terminal cells")
    func renderedTabsAndUnicode() {
        do { _ = try PredicateNode(format: "\tname == 'Zoë'\tAND ?") } catch {
            #expect(error.rendered.contains("1 | \tname == 'Zoë'\tAND ?\n"))
            #expect(error.rendered.contains("  | \t             \t    ^"))
        }
        do { _ = try PredicateNode(format: "名前 == ?") } catch {
            // Wide characters take two terminal cells each.
            #expect(error.rendered.contains("  |         ^"), "\(error.rendered)")
        }
    }

    @Test("rendered lists what was expected for a grammar error")
    func renderedExpected() {
        do { _ = try PredicateNode(format: "a == 1 b == 2") } catch {
            #expect(error.expected == ["AND", "OR", "end of input"])
            #expect(error.found == "'b'")
            // The message is that sentence: the rendering says it once, not again as a note.
            #expect(error.rendered.hasPrefix("error: expected AND, OR or end of input, found 'b'\n"))
            #expect(error.rendered.components(separatedBy: "expected AND, OR or end of input").count == 2, "\(error.rendered)")
        }
    }
}

/// A value with no predicate value, for the `%@` type error.
struct NotAPredicateValue {}

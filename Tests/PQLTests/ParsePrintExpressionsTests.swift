import Foundation
import Testing
@testable import PQL

/// Reference §1 and §4: literals, strings and escapes, key paths, indexes, arithmetic and bitwise
/// operators, built-in functions, and the special forms.
@Suite struct ParsePrintExpressionsTests {
    /// §1.5, §1.7: numbers, keyword literals, aggregates.
    static let literals: [ParsePrintCase] = [
        .init("a == 0", "a == 0"),
        .init("a == 42", "a == 42"),
        .init("a == 007", "a == 7"),
        .init("a == -5", "a == -5"),
        .init("a == - 5", "a == -5"),
        .init("a == -0", "a == 0"),
        .init("a == 9223372036854775807", "a == 9223372036854775807"),
        .init("a == -9223372036854775808", "a == -9223372036854775808"),
        .init("a == 9223372036854775808", "a == 9.223372036854776e+18"),
        .init("a == -9223372036854775809", "a == -9.223372036854776e+18"),
        .init("a == 18446744073709551616", "a == 1.8446744073709552e+19"),
        .init("a == 0x1F", "a == 31"),
        .init("a == 0X1f", "a == 31"),
        .init("a == 0xff", "a == 255"),
        .init("a == -0x10", "a == -16"),
        .init("a == 0xFFFFFFFFFFFFFFFF", "a == 1.8446744073709552e+19"),
        .init("a == 0o17", "a == 15"),
        .init("a == 0O17", "a == 15"),
        .init("a == 0b101", "a == 5"),
        .init("a == 0B101", "a == 5"),
        .init("a == 1.5", "a == 1.5"),
        .init("a == 2.71828", "a == 2.71828"),
        .init("a == 10.0", "a == 10.0"),
        .init("a == 0.1", "a == 0.1"),
        .init("a == -0.5", "a == -0.5"),
        .init("a == -0.0", "a == -0.0"),
        .init("a == 1e20", "a == 1e+20"),
        .init("a == 1E5", "a == 100000.0"),
        .init("a == 2.5e-3", "a == 0.0025"),
        .init("a == 1e+3", "a == 1000.0"),
        .init("a == 1e-7", "a == 1e-07"),
        .init("a == 1e400", #"a == CAST("inf", "NSNumber")"#),
        .init("a == -1e400", #"a == CAST("-inf", "NSNumber")"#),
        .init("a == TRUE", "a == 1"),
        .init("a == true", "a == 1"),
        .init("a == YES", "a == 1"),
        .init("a == yes", "a == 1"),
        .init("a == FALSE", "a == 0"),
        .init("a == False", "a == 0"),
        .init("a == NO", "a == 0"),
        .init("a == no", "a == 0"),
        .init("a == NULL", "a == nil"),
        .init("a == null", "a == nil"),
        .init("a == NIL", "a == nil"),
        .init("a == Nil", "a == nil"),
        .init("SELF == 1", "SELF == 1"),
        .init("self == 1", "SELF == 1"),
        .init("sElF == 1", "SELF == 1"),
        .init("a == {}", "a == {}"),
        .init("a == {1}", "a == {1}"),
        .init("a == {1,2,3}", "a == {1, 2, 3}"),
        .init("a == {1, 'a', 2.5, nil, TRUE}", #"a == {1, "a", 2.5, nil, 1}"#),
        .init("a == {{1,2},{3}}", "a == {{1, 2}, {3}}"),
        .init("a == {-1, -2.5}", "a == {-1, -2.5}"),
        .init("a == {a, 1}", "a == {a, 1}"),
        .init("a == {1, -x}", "a == {1, -x}"),
        .init("a == {$a, 'b'}", #"a == {$a, "b"}"#),
        .init("a == {{1}, {b}}", "a == {{1}, {b}}"),
        .init("a IN {{1, 2}}", "a IN {{1, 2}}"),
    ]

    /// §1.6: both quotes, every escape, Unicode.
    static let strings: [ParsePrintCase] = [
        .init("a == \"double\"", #"a == "double""#),
        .init("a == 'single'", #"a == "single""#),
        .init("a == ''", #"a == """#),
        .init("a == \"\"", #"a == """#),
        .init("a == 'it\"s'", #"a == "it\"s""#),
        .init("a == \"it's\"", #"a == "it's""#),
        .init("a == 'a\\'b'", #"a == "a'b""#),
        .init("a == \"a\\\"b\"", #"a == "a\"b""#),
        .init("a == 'a\\\\b'", #"a == "a\\b""#),
        .init("a == 'a\\nb'", "a == \"a\nb\""),
        // Control characters other than a newline or a tab print as \u escapes: printed text
        // reads back the same and cannot drive a terminal.
        .init("a == 'a\\rb'", #"a == "a\u000Db""#),
        .init("a == 'a\\tb'", "a == \"a\tb\""),
        .init("a == 'a\\ab'", #"a == "a\u0007b""#),
        .init("a == 'a\\bb'", #"a == "a\u0008b""#),
        .init("a == 'a\\fb'", #"a == "a\u000Cb""#),
        .init("a == 'a\\vb'", #"a == "a\u000Bb""#),
        .init("a == '\\u00e9'", "a == \"é\""),
        .init("a == '\\U00E9t\\u00E9'", "a == \"été\""),
        .init("a == '\\uD83D\\uDE00'", "a == \"😀\""),
        .init("a == '\\x41'", #"a == "A""#),
        .init("a == '\\X4a'", #"a == "J""#),
        .init("a == '\\101\\102'", #"a == "AB""#),
        .init("a == '\\7'", #"a == "\u0007""#),
        .init("a == '\\0'", #"a == "\u0000""#),
        .init("a == '\\q'", #"a == "q""#),
        .init("a == '\\%@'", #"a == "%@""#),
        .init("a == '%@'", #"a == "%@""#),
        .init("a == '%K and $x'", #"a == "%K and $x""#),
        .init("a == 'Zoë'", #"a == "Zoë""#),
        .init("a == '日本語'", #"a == "日本語""#),
        .init("a == '👨‍👩‍👧'", #"a == "👨‍👩‍👧""#),
        .init("a == 'line1\nline2'", "a == \"line1\nline2\""),
        .init("a == ' OR 1 == 1'", #"a == " OR 1 == 1""#),
    ]

    /// §1.3, §1.4, §4.2–4.4: key paths, `#` escapes, collection operators, SELF, variables,
    /// indexes.
    static let keyPaths: [ParsePrintCase] = [
        .init("name == 1", "name == 1"),
        .init("a.b.c == 1", "a.b.c == 1"),
        .init("_private == 1", "_private == 1"),
        .init("a1.b2 == 1", "a1.b2 == 1"),
        .init("naïve == 1", "naïve == 1"),
        .init("größe == 1", "größe == 1"),
        .init("名前 == 'x'", #"名前 == "x""#),
        .init("#size == 1", "#size == 1"),
        .init("#SIZE == 1", "#SIZE == 1"),
        .init("#name == 1", "name == 1"),
        .init("#first.#last == 1", "#first.#last == 1"),
        .init("order.#first == 1", "order.#first == 1"),
        .init("a.#in == 1", "a.#in == 1"),
        .init("#and == #or", "#and == #or"),
        .init("#self == 1", "#self == 1"),
        .init("#truepredicate == 1", "#truepredicate == 1"),
        .init("#\"first name\" == 1", #"#"first name" == 1"#),
        .init("#'first name'.x == 1", #"#"first name".x == 1"#),
        .init("#\"\" == 1", #"#"" == 1"#),
        .init("union == minus", "union == minus"),
        .init("function == ternary", "function == ternary"),
        .init("kids.@count == 1", "kids.@count == 1"),
        .init("kids.@sum.age == 1", "kids.@sum.age == 1"),
        .init("kids.@avg.age == 1", "kids.@avg.age == 1"),
        .init("kids.@min.age == 1", "kids.@min.age == 1"),
        .init("kids.@max.age == 1", "kids.@max.age == 1"),
        .init("kids.@unionOfObjects.name == 1", "kids.@unionOfObjects.name == 1"),
        .init("kids.@distinctUnionOfObjects.name == 1", "kids.@distinctUnionOfObjects.name == 1"),
        .init("kids.@unionOfArrays.name == 1", "kids.@unionOfArrays.name == 1"),
        .init("kids.@distinctUnionOfArrays.name == 1", "kids.@distinctUnionOfArrays.name == 1"),
        .init("kids.@unionOfSets.name == 1", "kids.@unionOfSets.name == 1"),
        .init("kids.@distinctUnionOfSets.name == 1", "kids.@distinctUnionOfSets.name == 1"),
        .init("@count == 3", "@count == 3"),
        .init("@sum.items.price > 10", "@sum.items.price > 10"),
        .init("SELF.name == 1", "SELF.name == 1"),
        .init("self.a.b == 1", "SELF.a.b == 1"),
        .init("SELF.@count == 1", "SELF.@count == 1"),
        .init("SELF[0] == 1", "SELF[0] == 1"),
        .init("SELF IN {1, 2}", "SELF IN {1, 2}"),
        .init("$x == 1", "$x == 1"),
        .init("$LAST_NAME == 'x'", #"$LAST_NAME == "x""#),
        .init("$x.name == 1", "$x.name == 1"),
        .init("$x.a.@count == 1", "$x.a.@count == 1"),
        .init("$#first == 1", "$#first == 1"),
        .init("$in == 1", "$#in == 1"),
        .init("$größe == 1", "$größe == 1"),
        .init("kids[0] == 1", "kids[0] == 1"),
        .init("kids[FIRST] == 1", "kids[FIRST] == 1"),
        .init("kids[first] == 1", "kids[FIRST] == 1"),
        .init("kids[LAST] == 1", "kids[LAST] == 1"),
        .init("kids[Last] == 1", "kids[LAST] == 1"),
        .init("kids[SIZE] == 3", "kids[SIZE] == 3"),
        .init("kids[size] == 3", "kids[SIZE] == 3"),
        .init("kids[ SIZE ] == 3", "kids[SIZE] == 3"),
        .init("kids[#size] == 3", "kids[#size] == 3"),
        .init("dict['key'] == 1", #"dict["key"] == 1"#),
        .init("a[$i] == 1", "a[$i] == 1"),
        .init("a[i + 1] == 1", "a[i + 1] == 1"),
        .init("a[-1] == 1", "a[-1] == 1"),
        .init("a[0][1] == 1", "a[0][1] == 1"),
        .init("a[0].b.c == 1", "a[0].b.c == 1"),
        .init("kids[FIRST].name == 'a'", #"kids[FIRST].name == "a""#),
        .init("a.b[0] == 1", "a.b[0] == 1"),
        .init("a[0].@count == 1", "a[0].@count == 1"),
        .init("$x[0] == 1", "$x[0] == 1"),
        .init("{1,2,3}[SIZE] == 3", "{1, 2, 3}[SIZE] == 3"),
        .init("{}[FIRST] == 1", "{}[FIRST] == 1"),
        .init("(a + b)[0] == 1", "(a + b)[0] == 1"),
        .init("'abc'.length == 3", #""abc".length == 3"#),
        .init("-5.x == 1", "(-5).x == 1"),
        .init("(-1)[0] == 1", "(-1)[0] == 1"),
        .init("ANYKEY == 'x'", #"ANYKEY == "x""#),
        .init("anykey CONTAINS[c] 'x'", #"ANYKEY CONTAINS[c] "x""#),
    ]

    /// §4.5, §2.4, D1: arithmetic, bitwise and set operators with their precedence.
    static let arithmetic: [ParsePrintCase] = [
        .init("a + b == 1", "a + b == 1"),
        .init("a - b == 1", "a - b == 1"),
        .init("a * b == 1", "a * b == 1"),
        .init("a / b == 1", "a / b == 1"),
        .init("a ** b == 1", "a ** b == 1"),
        .init("a+b*c == 1", "a + (b * c) == 1"),
        .init("(a + b) * c == 1", "(a + b) * c == 1"),
        .init("a * b + c == 1", "(a * b) + c == 1"),
        .init("a - b - c == 1", "(a - b) - c == 1"),
        .init("a - (b - c) == 1", "a - (b - c) == 1"),
        .init("a / b / c == 1", "(a / b) / c == 1"),
        .init("a + b + c + d == 1", "((a + b) + c) + d == 1"),
        .init("1-1 == 0", "1 - 1 == 0"),
        .init("a -5 == 0", "a - 5 == 0"),
        .init("a - -5 == 1", "a - -5 == 1"),
        .init("a--b == 1", "a - -b == 1"),
        .init("2 * -x == 1", "2 * -x == 1"),
        .init("-x == 1", "-x == 1"),
        .init("-a.b == 1", "-a.b == 1"),
        .init("-a[0] == 1", "-a[0] == 1"),
        .init("-SELF == 1", "-SELF == 1"),
        .init("-(a + b) == 1", "-(a + b) == 1"),
        .init("-(5) == 1", "-(5) == 1"),
        .init("-(747[FIRST]) == 1", "-(747[FIRST]) == 1"),
        .init("-(1.x) == 1", "-(1.x) == 1"),
        .init("-(2.5[SIZE][0]) == 1", "-(2.5[SIZE][0]) == 1"),
        .init("-(-1).x == 1", "-(-1).x == 1"),
        .init("- -5 == 1", "-(-5) == 1"),
        .init("- -x == 1", "-(-x) == 1"),
        .init("2 ** 3 ** 2 == 512", "2 ** (3 ** 2) == 512"),
        .init("(2 ** 3) ** 2 == 64", "(2 ** 3) ** 2 == 64"),
        .init("-2 ** 2 == 4", "-2 ** 2 == 4"),
        .init("-x ** 2 == 4", "-x ** 2 == 4"),
        .init("-(2 ** 2) == -4", "-(2 ** 2) == -4"),
        .init("2 ** -1 == 0.5", "2 ** -1 == 0.5"),
        .init("a * b ** c == 1", "a * (b ** c) == 1"),
        .init("a & b == 1", "a & b == 1"),
        .init("a | b == 1", "a | b == 1"),
        .init("a ^ b == 1", "a ^ b == 1"),
        .init("a << 2 == 1", "a << 2 == 1"),
        .init("a >> 2 == 1", "a >> 2 == 1"),
        .init("~a == 1", "~a == 1"),
        .init("~5 == -6", "~5 == -6"),
        .init("~-5 == 4", "~(-5) == 4"),
        .init("-~5 == 6", "-(~5) == 6"),
        .init("~(a & b) == 1", "~(a & b) == 1"),
        .init("~a & b == 1", "~a & b == 1"),
        .init("a & b | c ^ d == 1", "(a & b) | (c ^ d) == 1"),
        .init("a | b & c == 1", "a | (b & c) == 1"),
        .init("a ^ b & c == 1", "a ^ (b & c) == 1"),
        .init("a << 2 + 1 == 1", "a << (2 + 1) == 1"),
        .init("a & 1 << 2 == 1", "a & (1 << 2) == 1"),
        .init("a + b & c == 1", "(a + b) & c == 1"),
        .init("a UNION b == c", "a UNION b == c"),
        .init("a union b == c", "a UNION b == c"),
        .init("a INTERSECT b == c", "a INTERSECT b == c"),
        .init("a MINUS b == c", "a MINUS b == c"),
        .init("a UNION b INTERSECT c == d", "(a UNION b) INTERSECT c == d"),
        .init("a + b UNION c == d", "(a + b) UNION c == d"),
        .init("{1,2} union {3} == a", "{1, 2} UNION {3} == a"),
        .init("#union UNION #minus == 1", "union UNION minus == 1"),
        .init("$x := 5 == 5", "$x := 5 == 5"),
        .init("$x := a + 1 == 5", "$x := a + 1 == 5"),
        .init("($x := 5) + 1 == 6", "($x := 5) + 1 == 6"),
        .init("$x := $y := 1 == 1", "$x := $y := 1 == 1"),
        .init("{$x := 1, 2} == a", "{$x := 1, 2} == a"),
    ]

    /// §4.6–4.7: every built-in function, short and selector forms; the arithmetic, bitwise
    /// and index selectors print in their operator forms.
    static let functions: [ParsePrintCase] = [
        .init("sum:(a) == 1", "sum:(a) == 1"),
        .init("sum(a) == 1", "sum:(a) == 1"),
        .init("count:(a) == 1", "count:(a) == 1"),
        .init("count(a) == 1", "count:(a) == 1"),
        .init("min:(a) == 1", "min:(a) == 1"),
        .init("min(a) == 1", "min:(a) == 1"),
        .init("max:(a) == 1", "max:(a) == 1"),
        .init("max(a) == 1", "max:(a) == 1"),
        .init("average:(a) == 1", "average:(a) == 1"),
        .init("average(a) == 1", "average:(a) == 1"),
        .init("median:(a) == 1", "median:(a) == 1"),
        .init("median(a) == 1", "median:(a) == 1"),
        .init("mode:(a) == {1}", "mode:(a) == {1}"),
        .init("mode(a) == {1}", "mode:(a) == {1}"),
        .init("stddev:(a) == 1", "stddev:(a) == 1"),
        .init("stddev(a) == 1", "stddev:(a) == 1"),
        .init("add:to:(1, 2) == 3", "1 + 2 == 3"),
        .init("from:subtract:(3, 2) == 1", "3 - 2 == 1"),
        .init("multiply:by:(2, 3) == 6", "2 * 3 == 6"),
        .init("divide:by:(6, 3) == 2", "6 / 3 == 2"),
        .init("modulus:by:(a + 1, b * 2) == 1", "modulus:by:(a + 1, b * 2) == 1"),
        .init("sqrt:(4) == 2", "sqrt:(4) == 2"),
        .init("sqrt(4) == 2", "sqrt:(4) == 2"),
        .init("log:(100) == 2", "log:(100) == 2"),
        .init("log(100) == 2", "log:(100) == 2"),
        .init("ln:(1) == 0", "ln:(1) == 0"),
        .init("ln(1) == 0", "ln:(1) == 0"),
        .init("raise:toPower:(2, 8) == 256", "2 ** 8 == 256"),
        .init("exp:(0) == 1", "exp:(0) == 1"),
        .init("exp(0) == 1", "exp:(0) == 1"),
        .init("floor:(1.5) == 1", "floor:(1.5) == 1"),
        .init("floor(1.5) == 1", "floor:(1.5) == 1"),
        .init("ceiling:(1.5) == 2", "ceiling:(1.5) == 2"),
        .init("ceiling(1.5) == 2", "ceiling:(1.5) == 2"),
        .init("trunc:(-1.5) == -1", "trunc:(-1.5) == -1"),
        .init("trunc(1.5) == 1", "trunc:(1.5) == 1"),
        .init("abs:(-1) == 1", "abs:(-1) == 1"),
        .init("abs(x) == 1", "abs:(x) == 1"),
        .init("random() < 1", "random() < 1"),
        .init("randomn:(10) < 10", "randomn:(10) < 10"),
        .init("randomn(10) < 10", "randomn:(10) < 10"),
        .init("random:(10) < 10", "randomn:(10) < 10"),
        .init("now() > d", "now() > d"),
        .init("uppercase:('a') == 'A'", #"uppercase:("a") == "A""#),
        .init("uppercase(name) == 'A'", #"uppercase:(name) == "A""#),
        .init("lowercase:('A') == 'a'", #"lowercase:("A") == "a""#),
        .init("lowercase(name) == 'a'", #"lowercase:(name) == "a""#),
        .init("length:('abc') == 3", #"length:("abc") == 3"#),
        .init("length(name) == 3", "length:(name) == 3"),
        .init("canonical:('a') == 'a'", #"canonical:("a") == "a""#),
        .init("canonical(name) == 'a'", #"canonical:(name) == "a""#),
        .init("bitwiseAnd:with:(5, 3) == 1", "5 & 3 == 1"),
        .init("bitwiseOr:with:(5, 3) == 7", "5 | 3 == 7"),
        .init("bitwiseXor:with:(5, 3) == 6", "5 ^ 3 == 6"),
        .init("leftshift:by:(1, 3) == 8", "1 << 3 == 8"),
        .init("rightshift:by:(8, 3) == 1", "8 >> 3 == 1"),
        .init("onesComplement:(5) == -6", "~5 == -6"),
        .init("onesComplement(a) == -6", "~a == -6"),
        .init("noindex:(a) == 1", "noindex:(a) == 1"),
        .init("noindex(a) == 1", "noindex:(a) == 1"),
        .init("distanceToLocation:fromLocation:(a, b) < 10", "distanceToLocation:fromLocation:(a, b) < 10"),
        .init("tokenize:using:(a, b) == 1", "tokenize:using:(a, b) == 1"),
        .init("indexed:by:(a, b) == 1", "indexed:by:(a, b) == 1"),
        .init("distinct:(a) == 1", "distinct:(a) == 1"),
        .init("distinct(a) == 1", "distinct:(a) == 1"),
        .init("castObject:toType:(a, 'NSString') == '1'", #"CAST(a, "NSString") == "1""#),
        .init("castObject:toType:(0, 'NSDate') == d", #"CAST(0.000000, "NSDate") == d"#),
        .init("objectFrom:withIndex:(a, 0) == 1", "a[0] == 1"),
        .init("sum:({1,2,3}) == 6", "sum:({1, 2, 3}) == 6"),
        .init("sum:(a.b) + count:(c) == 1", "sum:(a.b) + count:(c) == 1"),
        .init("max:({sum:(a), 1}) == 1", "max:({sum:(a), 1}) == 1"),
        .init("sqrt:(sqrt:(16)) == 2", "sqrt:(sqrt:(16)) == 2"),
        .init("count:(a)[0] == 1", "count:(a)[0] == 1"),
    ]

    /// §4.8: FUNCTION, CAST (and the constants that print as CAST), TERNARY, SUBQUERY.
    static let specialForms: [ParsePrintCase] = [
        .init("FUNCTION(SELF, 'foo') == 1", #"FUNCTION(SELF, "foo") == 1"#),
        .init("FUNCTION(SELF, 'foo:', 1) == 1", #"FUNCTION(SELF, "foo:" , 1) == 1"#),
        .init("FUNCTION(a, 'foo:bar:', 1, 'x') == 1", #"FUNCTION(a, "foo:bar:" , 1, "x") == 1"#),
        .init("function(a, \"b:\", c) == 1", #"FUNCTION(a, "b:" , c) == 1"#),
        .init("FUNCTION(a + 1, 'f:', {1, 2}) == 1", #"FUNCTION(a + 1, "f:" , {1, 2}) == 1"#),
        .init("CAST('10', 'NSNumber') == 10", #"CAST("10", "NSNumber") == 10"#),
        .init("cast(a, 'NSString') == '1'", #"CAST(a, "NSString") == "1""#),
        .init("CAST(a, type) == 1", "CAST(a, type) == 1"),
        .init("CAST(x, \"NSDate\") == d", #"CAST(x, "NSDate") == d"#),
        .init("CAST(0, 'NSDate') == d", #"CAST(0.000000, "NSDate") == d"#),
        .init("CAST(721692800, \"NSDate\") == d", #"CAST(721692800.000000, "NSDate") == d"#),
        .init("CAST(721692800.000000, \"NSDate\") == d", #"CAST(721692800.000000, "NSDate") == d"#),
        .init("CAST(-1.5, \"NSDate\") == d", #"CAST(-1.500000, "NSDate") == d"#),
        .init("CAST(0.1, \"NSDate\") == d", #"CAST(0.100000, "NSDate") == d"#),
        .init("CAST(0.1234567, \"NSDate\") == d", #"CAST(0.1234567, "NSDate") == d"#),
        .init("CAST(\"1.5\", \"NSDecimalNumber\") == d", #"CAST("1.5", "NSDecimalNumber") == d"#),
        .init("CAST('-12345678901234567890.25', 'NSDecimalNumber') == d",
              #"CAST("-12345678901234567890.25", "NSDecimalNumber") == d"#),
        .init("CAST(\"1.50\", \"NSDecimalNumber\") == d", #"CAST("1.50", "NSDecimalNumber") == d"#),
        .init("CAST({1, 2}, \"NSSet\") == d", #"CAST({1, 2}, "NSSet") == d"#),
        .init("CAST({2, 1, 10}, \"NSSet\") == d", #"CAST({1, 2, 10}, "NSSet") == d"#),
        .init("CAST({'b', 'a'}, 'NSSet') == d", #"CAST({"a", "b"}, "NSSet") == d"#),
        .init("CAST({}, \"NSSet\") == d", #"CAST({}, "NSSet") == d"#),
        .init("CAST({{\"k\", 1}}, \"NSDictionary\") == d", #"CAST({{"k", 1}}, "NSDictionary") == d"#),
        .init("CAST({{'z', 1}, {'a', {2}}}, 'NSDictionary') == d", #"CAST({{"a", {2}}, {"z", 1}}, "NSDictionary") == d"#),
        .init("CAST({}, \"NSDictionary\") == d", #"CAST({}, "NSDictionary") == d"#),
        .init("CAST(\"AQI=\", \"NSData\") == d", #"CAST("AQI=", "NSData") == d"#),
        .init("CAST(\"\", \"NSData\") == d", #"CAST("", "NSData") == d"#),
        .init("CAST(\"nan\", \"NSNumber\") == d", #"CAST("nan", "NSNumber") == d"#),
        .init("CAST(\"inf\", \"NSNumber\") == d", #"CAST("inf", "NSNumber") == d"#),
        .init("CAST(\"-inf\", \"NSNumber\") == d", #"CAST("-inf", "NSNumber") == d"#),
        .init("CAST(1e400, \"NSDate\") == d", #"CAST(CAST("inf", "NSNumber"), "NSDate") == d"#),
        .init("{CAST(0, 'NSDate'), CAST({1}, 'NSSet')} == d", #"{CAST(0.000000, "NSDate"), CAST({1}, "NSSet")} == d"#),
        .init("CAST(0, 'NSDate').x == 1", #"CAST(0.000000, "NSDate").x == 1"#),
        .init("-CAST(0, 'NSDate') == 1", #"-CAST(0.000000, "NSDate") == 1"#),
        .init("TERNARY(age > 18, 'adult', 'minor') == 'adult'", #"TERNARY(age > 18, "adult", "minor") == "adult""#),
        .init("ternary(a == 1, b, c) == 1", "TERNARY(a == 1, b, c) == 1"),
        .init("TERNARY(a == 1 AND b == 2, 1, 2) == 1", "TERNARY(a == 1 AND b == 2, 1, 2) == 1"),
        .init("TERNARY(TRUEPREDICATE, TERNARY(NOT a == 1, 1, 2), 3) == 1",
              "TERNARY(TRUEPREDICATE, TERNARY(NOT a == 1, 1, 2), 3) == 1"),
        .init("SUBQUERY(kids, $k, $k.age > 5).@count == 0", "SUBQUERY(kids, $k, $k.age > 5).@count == 0"),
        .init("subquery(kids, $k, $k.age > 5 AND $k.name BEGINSWITH 'a').@count > 0",
              #"SUBQUERY(kids, $k, $k.age > 5 AND $k.name BEGINSWITH "a").@count > 0"#),
        .init("SUBQUERY(kids, $k, SUBQUERY($k.toys, $t, $t.price > 1).@count > 0).@count > 0",
              "SUBQUERY(kids, $k, SUBQUERY($k.toys, $t, $t.price > 1).@count > 0).@count > 0"),
        .init("SUBQUERY(kids, $k, $k.age > 5)[SIZE] > 0", "SUBQUERY(kids, $k, $k.age > 5)[SIZE] > 0"),
        .init("SUBQUERY(a.b, $x, ANY $x.c == SELF.d).@count > 0", "SUBQUERY(a.b, $x, ANY $x.c == SELF.d).@count > 0"),
        .init("count:(SUBQUERY(kids, $k, $k.age > 5)) > 0", "count:(SUBQUERY(kids, $k, $k.age > 5)) > 0"),
        .init("a + b", "a + b", expression: true),
        .init("SUBQUERY(items, $i, $i.price > 10).@count", "SUBQUERY(items, $i, $i.price > 10).@count", expression: true),
        .init("%K.@sum.price * 1.2", "orders.@sum.price * 1.2", args: ["orders"], expression: true),
        .init("$x := now()", "$x := now()", expression: true),
        .init("{1, 'a'}", #"{1, "a"}"#, expression: true),
        .init("TERNARY(a > 1, 'x', 'y')", #"TERNARY(a > 1, "x", "y")"#, expression: true),
    ]

    @Test("§1.5, §1.7 literals", arguments: literals)
    func literal(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§1.6 strings and escapes", arguments: strings)
    func string(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§4.2–4.4 key paths, variables, indexes", arguments: keyPaths)
    func keyPath(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§4.5 arithmetic, bitwise and set operators", arguments: arithmetic)
    func operatorExpression(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§4.7 built-in functions", arguments: functions)
    func function(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    @Test("§4.8 special forms", arguments: specialForms)
    func specialForm(_ c: ParsePrintCase) throws { try checkParsePrint(c) }

    // MARK: Trees behind the text

    @Test("integers stay integers, doubles stay doubles")
    func numberKinds() throws {
        #expect(try ExpressionNode(format: "10") == .constant(.int(10)))
        guard case .constant(.double(let d)) = try ExpressionNode(format: "10.0") else { Issue.record("not a double"); return }
        #expect(d == 10)
        guard case .constant(.double) = try ExpressionNode(format: "-9223372036854775809") else { Issue.record("not a double"); return }
        guard case .constant(.int(Int64.min)) = try ExpressionNode(format: "-9223372036854775808") else { Issue.record("not Int64.min"); return }
        // A double that looks integral still prints as a double, and reads back as one.
        let printed = ExpressionNode.constant(.double(3)).description
        #expect(printed == "3.0")
        guard case .constant(.double) = try ExpressionNode(format: printed) else { Issue.record("3.0 read as an integer"); return }
    }

    @Test("keywords are literals, SELF, and ANYKEY")
    func keywordTrees() throws {
        #expect(try ExpressionNode(format: "YES") == .constant(.bool(true)))
        #expect(try ExpressionNode(format: "no") == .constant(.bool(false)))
        #expect(try ExpressionNode(format: "nil") == .constant(.null))
        #expect(try ExpressionNode(format: "SELF") == .evaluatedObject)
        #expect(try ExpressionNode(format: "ANYKEY") == .anyKey)
        #expect(try ExpressionNode(format: "SELF.x") == .keyPathOn(.evaluatedObject, ["x"]))
        #expect(try ExpressionNode(format: "a.b.@count") == .keyPath(["a", "b", "@count"]))
        #expect(try ExpressionNode(format: "$x.a.b") == .keyPathOn(.variable("x"), ["a", "b"]))
    }

    @Test("all-constant aggregates fold into one array constant")
    func aggregateFolding() throws {
        #expect(try ExpressionNode(format: "{1, 'a', {2}}") == .constant([1, "a", [2]]))
        #expect(try ExpressionNode(format: "{}") == .constant(.array([])))
        #expect(try ExpressionNode(format: "{1, a}") == .aggregate([.constant(1), .keyPath(["a"])]))
    }

    @Test("unary minus folds into literals only, and binds tighter than **")
    func unaryMinusTrees() throws {
        #expect(try ExpressionNode(format: "-5") == .constant(-5))
        #expect(try ExpressionNode(format: "-(5)") == .function(.negate, [.constant(5)]))
        #expect(try ExpressionNode(format: "-x ** 2") == .function(.power, [.function(.negate, [.keyPath(["x"])]), .constant(2)]))
        #expect(try ExpressionNode(format: "2 ** 3 ** 2") == .function(.power, [.constant(2), .function(.power, [.constant(3), .constant(2)])]))
    }

    @Test("the CAST forms fold into constants of their type")
    func castFolding() throws {
        #expect(try ExpressionNode(format: "CAST(0, 'NSDate')") == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try ExpressionNode(format: "CAST({1}, 'NSSet')") == .constant(.set([1])))
        #expect(try ExpressionNode(format: "CAST({{'k', 1}}, 'NSDictionary')") == .constant(.dictionary(["k": 1])))
        #expect(try ExpressionNode(format: "CAST('AQI=', 'NSData')") == .constant(.data(Data([1, 2]))))
        #expect(try ExpressionNode(format: "CAST('1.5', 'NSDecimalNumber')") == .constant(.decimal(Decimal(string: "1.5")!)))
        #expect(try ExpressionNode(format: "CAST('x', 'NSNumber')") == .cast(.constant("x"), type: .constant("NSNumber")))
    }
}

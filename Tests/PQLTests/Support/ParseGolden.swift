import Foundation
import PQL

/// Everything a parse shows through the public API, for a corpus of valid and invalid format
/// strings: trees, source maps, warnings, errors (kind, message, range, found, hint, expected,
/// rendering), for predicates and expressions, with and without a source map. Recorded once
/// with the parser before its speed work (`parse-golden.jsonl`), so that ``ParseGoldenTests``
/// can show that the faster parser answers every input exactly as the old one did.
///
/// Public API only, so that the same file builds against an older PQL to record the fixture
/// (see ``ParseGoldenTests``).
enum ParseGolden {
    /// One input: its text (or the name of a generated one) and its arguments.
    struct Entry {
        var input: String
        /// Set for inputs too large to keep in the fixture: ``generated(_:)`` makes them.
        var generated: String?
        var arguments: [Any?]
        /// Read from a predicate file: the fixture keeps its text. The other entries are made
        /// by ``codeCorpus()``, arguments included, in the fixture's order.
        var fromFile = false
    }

    /// The whole record of one input, as text.
    static func record(_ format: String, _ arguments: [Any?]) -> String {
        var out: [String] = []
        do {
            out.append("P " + tree(try PredicateNode(format: format, argumentArray: arguments)))
        } catch {
            out.append("P " + describe(error))
        }
        do {
            let (t, map) = try PredicateNode.parse(format: format, argumentArray: arguments)
            out.append("M " + tree(t) + " " + json(map))
        } catch {
            out.append("M " + describe(error))
        }
        do {
            let (t, warnings) = try PredicateNode.parseWithWarnings(format: format, argumentArray: arguments)
            out.append("W " + tree(t) + " " + warnings.map { "\($0.kind) \($0.severity) \($0.message) \($0.range) \($0.rendered)" }.joined(separator: " | "))
        } catch {
            out.append("W " + describe(error))
        }
        do {
            out.append("E " + tree(try ExpressionNode(format: format, argumentArray: arguments)))
        } catch {
            out.append("E " + describe(error))
        }
        do {
            let (t, map) = try ExpressionNode.parse(format: format, argumentArray: arguments)
            out.append("EM " + tree(t) + " " + json(map))
        } catch {
            out.append("EM " + describe(error))
        }
        return out.joined(separator: "\n")
    }

    static func describe(_ e: PredicateFormatError) -> String {
        "error \(e.kind) \(e.message) @\(e.range.offset)+\(e.range.length) \(e.range.line):\(e.range.column) found=\(e.found) hint=\(e.hint ?? "-") expected=\(e.expected) \(e.rendered)"
    }

    static func tree<T: Encodable & CustomStringConvertible>(_ t: T) -> String { t.description + " " + json(t) }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return "unencodable" }
        return String(decoding: data, as: UTF8.self)
    }

    /// FNV-1a, 64 bits, as 16 hex digits: the fixture keeps digests of the records, not the
    /// records (some are megabytes).
    static func digest(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The inputs too large for the fixture, by name.
    static func generated(_ name: String) -> String {
        let parts = name.split(separator: ":")
        let n = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        func repeated(_ unit: String, _ separator: String) -> String { Array(repeating: unit, count: n).joined(separator: separator) }
        switch parts[0] {
        case "parens": return String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: n)
        case "parens-unclosed": return String(repeating: "(", count: n) + "a == 1" + String(repeating: ")", count: max(0, n - 1))
        case "expression-parens": return "x == " + String(repeating: "(", count: n) + "1" + String(repeating: ")", count: n)
        case "nots": return String(repeating: "NOT ", count: n) + "a == 1"
        case "bangs": return String(repeating: "!", count: n) + "a == 1"
        case "minuses": return "x == " + String(repeating: "-", count: n) + "y"
        case "calls": return String(repeating: "abs(", count: n) + "a" + String(repeating: ")", count: n) + " > 1"
        case "sums": return "a == " + repeated("1", " + ")
        case "powers": return "a == " + repeated("2", " ** ")
        case "subqueries":
            var p = "$x0 == 1"
            for i in 0..<n { p = "SUBQUERY(xs\(i), $x\(i + 1), \(p)).@count > 0" }
            return p
        case "and-chain": return repeated("a == 1", " AND ")
        case "or-clauses": return repeated("(age > 30 AND name BEGINSWITH[c] 'a')", " OR ")
        case "distinct-keys": return (0..<n).map { "k\($0) < \($0)" }.joined(separator: " OR ")
        case "key-path": return "a." + repeated("b", ".") + " == 1"
        case "aggregate": return "a IN {" + repeated("'bbbb'", ", ") + "}"
        case "escapes": return "a == \"" + String(repeating: "\\n\\u00e9\\x41\\101", count: n) + "\""
        case "combining": return "a == \"" + String(repeating: "e\u{301}", count: n) + "\""
        case "unicode-keys": return repeated("ключ == 'значение'", " OR ")
        case "error-at-end": return repeated("a == 1", " AND ") + " AND"
        case "control-at-end": return repeated("a == 1", " AND ") + " AND \u{1B}[31m"
        case "grammar-then-lexical": return repeated("a == 1", " AND ") + " AND == ?"
        case "lines": return repeated("a == 1", "\nAND ") + "\nAND b =="
        default: return name
        }
    }

    /// The corpus: `files`' predicates (one per line, `//` comments skipped), hand-written
    /// inputs for every error and edge the lexer and parser have, generated large and deep
    /// inputs, and seeded random token soups.
    static func corpus(files: [String]) -> [Entry] {
        var entries: [Entry] = []
        for file in files {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("//") || trimmed.hasPrefix("json:") { continue }
                entries.append(Entry(input: String(line), generated: nil, arguments: [], fromFile: true))
            }
        }
        return entries + codeCorpus()
    }

    /// The inputs written here (with their arguments), generated, and random.
    static func codeCorpus() -> [Entry] {
        var entries: [Entry] = []
        func add(_ s: String, _ arguments: [Any?] = []) { entries.append(Entry(input: s, generated: nil, arguments: arguments)) }
        for s in handWritten { add(s) }
        for (s, arguments) in withArguments { add(s, arguments) }
        for name in generatedNames { entries.append(Entry(input: "", generated: name, arguments: [])) }
        var random = SplitMix64(seed: 0x5eed)
        for _ in 0..<1500 { add(soup(&random)) }
        return entries
    }

    static let handWritten: [String] = [
        "", " ", "\t\n", "a", "a ==", "== 1", "a == 1 b == 2", "a == 1 AND", "AND a == 1", "a == 1 AND OR b == 2",
        "a = = 1", "a === 1", "a >> 1", "a ~= 1", "(a == 1", "a == 1)", "((a == 1)", "a == (1", "a[", "a[0", "{1, 2",
        "a IN {1, 2", "a BETWEEN 30", "a BETWEEN {30}", "a BETWEEN {1, 2, 3}", "a BETWEEN %@", "a < b < c", "a < b <= c",
        "a == b > c", "1 < a < ?", "a < b < (", "NOT a IN b", "a NOT IN b", "a ! IN b", "a NOT == b", "a NOT BEGINSWITH[c] 'x'",
        "a NOT LIKE", "a ! =", "a ?", "a == ?", "?", ";", "a == 1;", "a == 1 // comment", "a == 1 /* c */", "a % 2 == 0",
        "a == %k", "a == %", "a == %1$@", "a == %z", "a == %é", "a == 'unterminated", "a == \"unterminated", "a == 'x\\",
        "a == '\\q'", "a == '\\n\\t\\r\\a\\b\\f\\v\\0\\101\\x41\\u00e9'", "a == '\\uD83D\\uDE00'", "a == '\\uD83D'",
        "a == '\\uDE00'", "a == '\\uD83Dx'", "a == '\\uD83D\\u0041'", "a == '\\xZZ'", "a == '\\x4'", "a == '\\u12'",
        "a == '\\377'", "a == '\\xff'", "#'a\\'b' == 1", "#\"key with space\" == 1", "#\"\" == 1", "#size == 1", "#", "# == 1",
        "#1 == 1", "$", "$ == 1", "$1 == 1", "$x == 1", "$#x == 1", "$x := 1", "$x := $y := 2", "a := 1", "@", "a.@ == 1",
        "a.@count > 1", "@count == 1", "a.@avg.b == 1", "a.#self == 1", "a.1 == 1", "a. == 1", "a.size == 1", "a.%K == 1",
        "a == 0x1F", "a == 0X1f", "a == 0b101", "a == 0o17", "a == 0x", "a == 0x1G", "a == 0b2", "a == 0xFFFFFFFFFFFFFFFFF",
        "a == 1e5", "a == 1E+5", "a == 1.5e-3", "a == 1e", "a == 1e+", "a == 1.", "a == .5", "a == 5.5.5", "a == 12abc",
        "a == 18446744073709551615", "a == 18446744073709551616", "a == 9223372036854775807", "a == 9223372036854775808",
        "a == -9223372036854775808", "a == -9223372036854775809", "a == -1.5", "a == - 1", "a == --1", "a == -a", "a == ~1",
        "a == +1", "-5 < b", "-5.x == 1", "-1[0] == 1", "a == 036", "a == 1_000", "TRUEPREDICATE", "truepredicate",
        "FALSEPREDICATE", "TRUEPREDICATE == 1", "a == TRUEPREDICATE", "(TRUEPREDICATE)", "NOT TRUEPREDICATE",
        "!TRUEPREDICATE", "! (a == 1)", "!(a == 1)", "NOT NOT a == 1", "a == YES", "a == yes", "a == nil", "a == NULL",
        "a == SELF", "SELF == a", "SELF", "a", "1", "'x'", "YES", "NO", "a + 1", "(a + 1)", "(a + 1) > 2", "(a + 1) * 2 > 100",
        "((a)) > 1", "((a > 1)) OR b", "(a > 1) > 2", "(a > 1) == YES", "a > 1 OR (b", "ANY a == 1", "ANY ANY a == 1",
        "ALL a", "NONE a < 1", "SOME a == 1", "ANY a", "ANY 1", "ANY (a) == 1", "ANY a isKindOfClass: 'x'",
        "SELF isKindOfClass: 'NSString'", "a foo: 1", "a foo:bar: 1", "a foo : 1", "a == b c: 1", "sum:(a) > 1", "sum(a) > 1",
        "modulus:by:(a, 2) == 0", "modulus(a, 2) == 0", "modulus:(a) == 0", "nosuch(a) == 1", "summ(a) == 1", "sum:(a",
        "sum:(a,) == 1", "sum:() == 1", "now() > 1", "random == 1", "random() == 1", "random(1) == 1", "FUNCTION(SELF, 'x:', 1) == 1",
        "function(SELF, 'x:', 1) == 1", "FUNCTION(SELF) == 1", "FUNCTION(SELF, x, 1) == 1", "FUNCTION == 1", "function == 1",
        "TERNARY(a > 1, 1, 2) == 1", "ternary(a > 1, 1, 2) == 1", "TERNARY(a, 1, 2) == 1", "TERNARY(a > 1, 1) == 1",
        "TERNARY == 1", "functıon(1) == 1", "FUNCTİON(1) == 1", "SUBQUERY(a, $x, $x > 1).@count > 0",
        "SUBQUERY(a, x, $x > 1).@count > 0", "SUBQUERY(a, $x).@count > 0", "SUBQUERY(a, $x, $x)", "SUBQUERY == 1",
        "CAST(1, 'NSDate') > 0", "CAST('1', 'NSNumber') == 1", "CAST({1, 2}, 'NSSet') == 1", "CAST({{'a', 1}, {'a', 2}}, 'NSDictionary') == 1",
        "CAST('AAEC', 'NSData') == 1", "CAST('1.5', 'NSDecimalNumber') == 1", "CAST('nan', 'NSNumber') == 1", "CAST(1) == 1",
        "castObject:toType:(1, 'NSDate') > 0", "objectFrom:withIndex:(a, 0) == 1", "objectFrom:withIndex:(a) == 1",
        "FETCH(a, b, NO) == 1", "a[FIRST] == 1", "a[LAST] == 1", "a[SIZE] == 1", "a[first] == 1", "a[0][1].b == 1",
        "a[FIRST + 1] == 1", "a[] == 1", "a[%@] == 1", "a UNION b == c", "a union b == c", "a INTERSECT b == c", "a MINUS b == c",
        "a minus b == c", "a mınus b == c", "a ınterſect b == c", "a unıon b == c", "a #union b == c", "a unionx b == c",
        "a & b == 1", "a | b == 1", "a ^ b == 1", "a << 1 == 2", "a >> 1 == 2", "a ** 2 ** 3 == 1", "2 * (a + b) < 4",
        "a ==[c] 'x'", "a ==[cd] 'x'", "a ==[CD] 'x'", "a ==[cdlnw] 'x'", "a ==[x] 'y'", "a ==[ç] 'y'", "a ==[İ] 'y'",
        "a ==[K] 'y'", "a <[c] 1", "a ==[] 'x'", "a ==[c 'x'", "a ==[1] 'x'", "a ==[c][d] 'x'", "a LIKE[c] 'x*'",
        "a BETWEEN[c] {1, 2}", "a IN[c] {'x'}", "a CONTAINS[c] 'x'", "a UTI-CONFORMS-TO 'public.text'",
        "a UTI-EQUALS 'public.text'", "a uti-conforms-to 'x'", "a UTI-CONFORMS 'x'", "a UTI- 'x'", "UTI == 1",
        "a CASEINSENSITIVE b", "a == CASEINSENSITIVE", "a == ci", "a == IN", "a == AND", "in == 1", "size == 1", "AND",
        "a == LIKE 'x'", "a LIKE", "a == 1 ANDD b == 2", "a == 1 an b == 2", "a == 1 OR b == 2 AND c == 3",
        "a == 1 && b == 2 || c == 3", "a == 1 & b == 2", "ключ == 'значение'", "naïve == 1", "é == 1", "e\u{301} == 1",
        "a == 'Zoë'", "Zoë == 1", "😀 == 1", "a == 1 😀", "a\u{301} == 1", "\u{301}a == 1", "a == '\u{0}'",
        "a == 1\u{0}", "\u{0}", "a\u{0}b == 1", "a ==\u{0}1", "a == 1 \u{1B}[31m", "a\u{7F} == 1", "a == 1\u{200B}",
        "a\u{00A0}== 1", "a ==\u{3000}1", "a == 1\r\n AND b == 2", "a == 1\n\nAND\n\nb ==", "a ==\n\t", "\n\n\na ==",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa == 1",
        "a == 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'",
        "a == ) 'unterminated", "== 1 'x", "a == 1 AND (b == 2 `", "a == ) ?", "(a == 1 AND ?", "a ==[c] ?",
        "a == 1 AND b == '\\x'", "a == 1 AND ] AND b == '\\x'", "a == 1 0x", "a < b < 1e", "a < b < 'x",
        "NOT a IN 'x", "a ! IN ?", "a == %@ AND b == 'unterminated", "a == %K", "{1, 2} == a", "{} == a", "{,} == a",
        "a IN {}", "a IN {1,}", "a IN {1 2}", "a IN {a, b}", "a IN {'a', 1, 2.5, nil, YES, {1}}", "a == {{{{1}}}}",
    ]

    static var withArguments: [(String, [Any?])] { [
        ("%K == %@", ["name", "x"]), ("%K == %@", ["a.b.c", 1]), ("%K == %@", ["", 1]), ("%K == %@", ["a..b", 1]),
        ("%K == %@", [1, 1]), ("%@ IN %@", [1, [1, 2]]), ("a == %@", []), ("a == %@", [nil]), ("a == %d", ["x"]),
        ("a == %d", [3]), ("a == %f", [2.5]), ("a == %f", ["x"]), ("a == %s", ["x"]), ("a == %i", [7]), ("a == %ld", [7]),
        ("a == %lu", [7]), ("a == %5.2f", [2.5]), ("a == %@", [1, 2, 3]), ("'%@' == a", []), ("'%@' == a", ["x"]),
        ("'\\x25@' == a", ["x"]), ("a == '%d%%'", [1]), ("a == %%", []), ("a.%K == 1", ["b"]), ("a.%K == 1", ["b.c"]),
        ("a.%@ == 1", ["b"]), ("a.%@ == 1", [1]), ("a.%@ == 1", [""]), ("a BETWEEN %@", [[1, 2]]), ("a BETWEEN %@", [[1]]),
        ("a BETWEEN %@", [1]), ("%@ == 1", [[[[[1]]]]]), ("a IN %@", [["x": 1]]), ("$x == %@", ["y"]),
        ("SELF isKindOfClass: %@", ["NSString"]), ("%K BEGINSWITH[c] %@ AND age BETWEEN {18, 65}", ["name", "a"]),
    ] }

    static let generatedNames: [String] = [
        "parens:10", "parens:100", "parens:254", "parens:255", "parens:256", "parens:257", "parens:1000", "parens-unclosed:300",
        "expression-parens:60", "expression-parens:130", "expression-parens:300", "nots:50", "nots:63", "nots:64", "nots:300",
        "bangs:70", "minuses:63", "minuses:65", "calls:20", "calls:30", "calls:63", "calls:64", "calls:200", "sums:64", "sums:66",
        "sums:2000", "powers:70", "subqueries:8", "subqueries:9", "and-chain:2000", "or-clauses:2500", "distinct-keys:3000",
        "key-path:3000", "aggregate:3000", "escapes:500", "combining:2000", "unicode-keys:500", "error-at-end:2000",
        "control-at-end:2000", "grammar-then-lexical:500", "lines:300",
    ]

    /// A random sequence of tokens, words, literals and stray bytes: mostly invalid input,
    /// to compare every error path.
    static func soup(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "b.c", "x.@count", "SELF", "$v", "%@", "%K", "1", "-2", "2.5", "0x1F", "'s'", "\"q\"", "'a\\n'",
                      "==", "!=", "<", ">", "<=", ">=", "=", "<>", "AND", "OR", "NOT", "!", "&&", "||", "(", ")", "{", "}",
                      "[", "]", ",", ".", ":", ":=", "+", "-", "*", "/", "**", "&", "|", "^", "~", "ANY", "ALL", "NONE",
                      "SOME", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "[c]", "[cd]",
                      "nil", "YES", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "FUNCTION", "TERNARY", "CAST",
                      "sum:", "abs", "FIRST", "LAST", "SIZE", "#size", "@avg", "UNION", "é", "ключ", "?", ";", "\u{0}",
                      "\u{1B}", "'open", "\\", "#", "$", "@", "%", "1e", "12abc", "UTI-EQUALS", "\n"]
        let count = 1 + Int(random.next() % 12)
        var parts: [String] = []
        for _ in 0..<count { parts.append(pieces[Int(random.next() % UInt64(pieces.count))]) }
        let separator = random.next() % 4 == 0 ? "" : " "
        return parts.joined(separator: separator)
    }

    /// A small seeded generator, so the soups are the same on every machine.
    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The format string of an entry.
    static func format(_ entry: Entry) -> String { entry.generated.map(generated) ?? entry.input }

    /// The fixture's line for an entry: where it comes from, its input (or generated name),
    /// the digest of its record.
    static func fixtureLine(_ entry: Entry) -> String {
        var object: [String: Any] = ["digest": digest(record(format(entry), entry.arguments)), "file": entry.fromFile]
        if let name = entry.generated { object["generated"] = name } else { object["input"] = entry.input }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A MATCHES pattern in PostgreSQL's regular-expression syntax (ARE), where the pattern means
/// there what it means to PQL, or the construct that keeps it from doing so.
///
/// PQL compiles MATCHES patterns with PCRE2 (`RegexPattern`): UTF and Unicode properties,
/// dot-all and multi-line, matched against the whole string. PostgreSQL's engine agrees on a
/// core that this translation keeps, construct by construct: literal characters (written as
/// `\uXXXX` escapes, so nothing in them is syntax to PostgreSQL), `.` (any character, newlines
/// included), `[…]` sets of characters and ranges (by code point: the subject is compared
/// under `COLLATE "C"`), groups (as non-capturing ones), `|`, the quantifiers `* + ? {n} {n,}
/// {n,m}` (up to 255, PostgreSQL's limit) greedy or lazy (the same strings match either way
/// when the match must cover the whole string), `\Q…\E`, the escapes `\n \t \r \f \a \e \xhh
/// \x{h…}` and an escaped punctuation character, `^` first and `$` last, and `(?s)` first
/// (dot-all is on already). Everything else is refused by name: the classes `\d \w \s \p{…}`
/// and `[[:alpha:]]` (Unicode in PCRE2, locale-dependent in PostgreSQL), `\b`, back-references,
/// lookahead and lookbehind, atomic groups and possessive quantifiers, named groups, inline
/// options such as `(?i)` and `(?x)`, `^` and `$` inside the pattern (multi-line anchors),
/// verbs `(*…)`, and a `{` that is not a quantifier.
package enum NativeRegex {
    /// Why a pattern has no PostgreSQL form: the construct, and what to write instead.
    package struct Refusal: Error, Equatable {
        package var construct: String
        package var hint: String
    }

    /// The ARE pattern `^(?:…)$` that matches the strings `pattern` matches as a whole.
    ///
    /// ```swift
    /// NativeRegex.translate("J.*")   // .success(#"^(?:J.*)$"#)
    /// NativeRegex.translate(#"\d+"#) // .failure: the class \d
    /// ```
    package static func translate(_ pattern: String) -> Result<String, Refusal> {
        var p = Translator(Array(pattern.unicodeScalars))
        do { return .success("^(?:" + (try p.run()) + ")$") } catch { return .failure(error) }
    }

    private struct Translator {
        var s: [Unicode.Scalar]
        var i = 0
        var end: Int

        init(_ s: [Unicode.Scalar]) {
            self.s = s
            end = s.count
        }

        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < end ? s[i + k] : nil }

        func refuse(_ construct: String, _ hint: String = "rewrite the pattern without it, or filter in memory") -> Refusal {
            Refusal(construct: construct, hint: hint)
        }

        mutating func run() throws(Refusal) -> String {
            // (?s) is on already; `^` first and `$` last hold at the ends of a whole-string match.
            while i + 4 <= end, String(String.UnicodeScalarView(s[i..<i + 4])) == "(?s)" { i += 4 }
            if peek() == "^" { i += 1 }
            if end > i, s[end - 1] == "$" {
                var slashes = 0
                while end - 2 - slashes >= i, s[end - 2 - slashes] == "\\" { slashes += 1 }
                if slashes % 2 == 0 { end -= 1 }
            }
            var out = ""
            var canRepeat = false
            while let c = peek() {
                i += 1
                switch c {
                case "\\":
                    guard let n = peek() else { throw refuse("a trailing backslash") }
                    if n == "Q" {
                        i += 1
                        var last: Unicode.Scalar? = nil
                        while let x = peek() {
                            if x == "\\", peek(1) == "E" { i += 2; break }
                            i += 1
                            out += Self.literal(x)
                            last = x
                        }
                        canRepeat = last != nil
                        continue
                    }
                    if n == "E" { i += 1; continue }
                    out += Self.literal(try escape())
                    canRepeat = true
                case "[":
                    out += try characterClass()
                    canRepeat = true
                case "(":
                    if peek() == "*" { throw refuse("the verb (*…)") }
                    if peek() == "?" {
                        guard peek(1) == ":" else { throw group() }
                        i += 2
                    }
                    out += "(?:"
                    canRepeat = false
                case ")":
                    out += ")"
                    canRepeat = true
                case "|":
                    out += "|"
                    canRepeat = false
                case ".":
                    out += "."
                    canRepeat = true
                case "^", "$":
                    throw refuse("\(c) inside the pattern (a multi-line anchor in PQL)", "MATCHES matches the whole string: drop the anchor, or filter in memory")
                case "*", "+", "?":
                    guard canRepeat else { throw refuse("a quantifier with nothing to repeat") }
                    out.unicodeScalars.append(c)
                    try quantifierSuffix()
                    canRepeat = false
                case "{":
                    guard canRepeat, let q = bounds() else {
                        throw refuse("a literal {", "escape it as \\{")
                    }
                    out += q
                    try quantifierSuffix()
                    canRepeat = false
                default:
                    out += Self.literal(c)
                    canRepeat = true
                }
            }
            return out
        }

        /// After a quantifier: `?` (lazy) is dropped, `+` (possessive) refused.
        mutating func quantifierSuffix() throws(Refusal) {
            if peek() == "?" { i += 1 } else if peek() == "+" {
                throw refuse("a possessive quantifier (*+, ++, ?+, {…}+)", "use the quantifier without +, or filter in memory")
            }
        }

        /// `{n}`, `{n,}`, `{n,m}` with counts PostgreSQL takes (at most 255); nil otherwise.
        mutating func bounds() -> String? {
            var j = i, lo = "", hi: String? = nil
            while j < end, s[j].properties.numericType == .decimal, s[j].isASCII { lo.unicodeScalars.append(s[j]); j += 1 }
            guard !lo.isEmpty, j < end else { return nil }
            if s[j] == "," {
                j += 1
                var h = ""
                while j < end, s[j].properties.numericType == .decimal, s[j].isASCII { h.unicodeScalars.append(s[j]); j += 1 }
                hi = h
            }
            guard j < end, s[j] == "}", let l = Int(lo), l <= 255 else { return nil }
            if let hi, !hi.isEmpty { guard let h = Int(hi), h <= 255, h >= l else { return nil } }
            i = j + 1
            return "{" + lo + (hi.map { "," + $0 } ?? "") + "}"
        }

        /// The refusal for `(?…`, naming the construct.
        func group() -> Refusal {
            let rest = String(String.UnicodeScalarView(s[(i + 1)..<min(end, i + 4)]))
            if rest.hasPrefix("=") || rest.hasPrefix("!") { return refuse("lookahead (?= or (?!") }
            if rest.hasPrefix("<=") || rest.hasPrefix("<!") { return refuse("lookbehind (?<= or (?<!") }
            if rest.hasPrefix(">") { return refuse("an atomic group (?>") }
            if rest.hasPrefix("<") || rest.hasPrefix("P<") || rest.hasPrefix("'") { return refuse("a named group", "use a plain group ( … )") }
            if rest.hasPrefix("#") { return refuse("a comment (?#…)") }
            if rest.hasPrefix("|") { return refuse("a branch-reset group (?|") }
            return refuse("an inline option or special group (?\(rest.prefix(2))…", "PostgreSQL's options differ from PCRE2's: use [c] on LIKE or CONTAINS, or filter in memory")
        }

        /// The character an escape (after the backslash) stands for.
        mutating func escape() throws(Refusal) -> Unicode.Scalar {
            guard let n = peek() else { throw refuse("a trailing backslash") }
            i += 1
            switch n {
            case "n": return "\n"
            case "t": return "\t"
            case "r": return "\r"
            case "f": return "\u{0C}"
            case "a": return "\u{07}"
            case "e": return "\u{1B}"
            case "x":
                var digits = ""
                if peek() == "{" {
                    var j = i + 1
                    while j < end, s[j] != "}" { digits.unicodeScalars.append(s[j]); j += 1 }
                    i = min(j + 1, end)
                } else {
                    while digits.count < 2, let d = peek(), d.properties.isASCIIHexDigit { digits.unicodeScalars.append(d); i += 1 }
                }
                guard let v = UInt32(digits.isEmpty ? "0" : digits, radix: 16), let u = Unicode.Scalar(v), v != 0 else {
                    throw refuse("the escape \\x\(digits)")
                }
                return u
            case "d", "D", "w", "W", "s", "S", "h", "H", "v", "V", "p", "P", "X", "R", "N":
                throw refuse("the class \\\(n)", "PCRE2's \\\(n) is Unicode-wide and PostgreSQL's depends on the locale: list the characters in [ ], or filter in memory")
            case "b", "B", "A", "z", "Z", "G", "K":
                throw refuse("the assertion \\\(n)")
            default:
                if n.properties.numericType != nil || n == "g" || n == "k" { throw refuse("a back-reference \\\(n)") }
                if n.isASCII, n.properties.isAlphabetic { throw refuse("the escape \\\(n)") }
                return n
            }
        }

        /// `[…]` (after the `[`) as PostgreSQL's bracket expression.
        mutating func characterClass() throws(Refusal) -> String {
            var out = "["
            if peek() == "^" { out += "^"; i += 1 }
            var first = true
            while true {
                guard let c = peek() else { throw refuse("an unterminated [") }
                if c == "]" && !first { i += 1; break }
                first = false
                let lo = try classAtom()
                if peek() == "-", let after = peek(1), after != "]" {
                    i += 1
                    let hi = try classAtom()
                    guard lo.value <= hi.value else { throw refuse("a backward range in [ ]") }
                    out += Self.literal(lo) + "-" + Self.literal(hi)
                } else {
                    out += Self.literal(lo)
                }
            }
            return out + "]"
        }

        mutating func classAtom() throws(Refusal) -> Unicode.Scalar {
            guard let c = peek() else { throw refuse("an unterminated [") }
            i += 1
            if c == "[", let n = peek(), n == ":" || n == "." || n == "=" {
                throw refuse("the POSIX class [\(n)…\(n)]", "PCRE2's classes are Unicode-wide and PostgreSQL's depend on the locale: list the characters, or filter in memory")
            }
            guard c == "\\" else { return c }
            if peek() == "Q" || peek() == "E" { throw refuse("\\Q…\\E inside [ ]") }
            if peek() == "b" { i += 1; return "\u{08}" }
            return try escape()
        }

        /// A character as an ARE atom: ASCII letters and digits as they are, anything else as a
        /// `\u`/`\U` escape, which no ARE reads as syntax.
        static func literal(_ u: Unicode.Scalar) -> String {
            if u.isASCII, u.properties.isAlphabetic || u.properties.numericType == .decimal { return String(u) }
            let hex = String(u.value, radix: 16)
            return u.value <= 0xFFFF ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                                     : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
        }
    }
}

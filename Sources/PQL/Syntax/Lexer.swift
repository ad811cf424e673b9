/// Turns format-string bytes into tokens (reference §1).
///
/// One pass over UTF-8 with longest-match operators; keywords are found without allocating;
/// string escapes are checked here and decoded only when the parser asks for the text
/// (``text(of:)``). Every failure is a ``PredicateFormatError`` with the offending range.
struct Lexer {
    let bytes: UnsafeBufferPointer<UInt8>
    private let source: String
    private(set) var pos = 0

    init(bytes: UnsafeBufferPointer<UInt8>, source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// The next token (`.eof` at the end, again on every later call). The parser pulls tokens
    /// one at a time, so no array of them is ever held: on a 16 MiB input such an array took
    /// most of the memory a parse needed.
    ///
    /// Inlined into the parser's one reader (``Parser/advance()``), with the dispatch and the
    /// reading of words: a token costs that call and no other.
    @inline(__always)
    mutating func nextToken() throws(PredicateFormatError) -> Token {
        let hadSpace = skipWhitespace()
        var t = try next()
        t.spaceBefore = hadSpace
        return t
    }

    /// The first lexical error in the rest of the input, if any: reads the remaining tokens
    /// and keeps none. A lexical error anywhere is reported before any grammar error (as when
    /// the whole input was tokenized first), so a parse that failed looks here first.
    mutating func firstErrorInRest() -> PredicateFormatError? {
        do throws(PredicateFormatError) {
            while try nextToken().kind != .eof {}
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Text

    /// The text a token stands for: a key, a variable's name, a string's value, a
    /// specifier. Made on demand, so that tokens hold no `String`.
    func text(of t: Token) -> String {
        guard t.hasEscapes else { return text(t.textStart, t.textEnd) }
        // The escapes were checked when the token was read: decoding them again cannot fail.
        var again = self
        again.pos = t.textStart - 1
        var decoded: [UInt8]? = nil
        guard (try? again.string(decoding: &decoded)) != nil, let decoded else { return text(t.textStart, t.textEnd) }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Whether `t` is the unescaped identifier `word` (upper-case ASCII), in any case: the
    /// contextual keywords (FUNCTION, TERNARY, UNION…), which are keys everywhere else.
    /// Compared as bytes; a word with non-ASCII letters goes through Unicode upper-casing, as
    /// some letters upper-case to ASCII ones (`ı` to `I`).
    func isContextual(_ t: Token, _ word: String, anyLengthUpTo limit: Int? = nil) -> Bool {
        guard t.kind == .identifier, !t.escaped else { return false }
        let n = t.end - t.start
        if let limit { guard n <= limit else { return false } } else { guard n == word.utf8.count else { return false } }
        var ascii = true
        for i in t.start..<t.end where bytes[i] >= 0x80 { ascii = false; break }
        if ascii { return n == word.utf8.count && matchesUpper(word, at: t.start) }
        return text(t.start, t.end).uppercased() == word
    }

    // MARK: - Dispatch

    /// Inlined, as are the dispatch and the reading of words below: a word costs one call
    /// rather than four.
    @inline(__always)
    private mutating func skipWhitespace() -> Bool {
        // A local index: stored back once, not at every byte.
        let start = pos, count = bytes.count
        var i = start
        while i < count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: pos = i; return i != start
            }
        }
        pos = i
        return i != start
    }

    private func peek(_ offset: Int = 0) -> UInt8 {
        let i = pos + offset
        return i < bytes.count ? bytes[i] : 0
    }

    @inline(__always)
    private mutating func next() throws(PredicateFormatError) -> Token {
        let start = pos
        guard pos < bytes.count else { return Token(.eof, pos, pos) }
        let c = bytes[pos]
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
            return word()
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            // A short decimal integer, the commonest number, ends here: up to 18 digits (no
            // overflow) followed by no `.`, letter, digit or non-ASCII byte. Anything else,
            // exponents and errors included, is read again from the start by number().
            let count = bytes.count
            var i = pos, value: UInt64 = 0
            while i < count, i - start < 18, bytes[i] &- 0x30 < 10 {
                value = value &* 10 &+ UInt64(bytes[i] &- 0x30)
                i += 1
            }
            if i == count || !(Self.isIdentContinue(bytes[i]) || bytes[i] >= 0x80 || bytes[i] == UInt8(ascii: ".")) {
                pos = i
                var t = Token(.integer, start, i)
                t.integer = value
                return t
            }
            return try number()
        case UInt8(ascii: "0"):
            return try number()
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            // A string without escapes, the commonest, ends at the first byte equal to its
            // quote; one with a backslash is read again from its quote by string().
            let count = bytes.count
            var i = pos &+ 1
            while i < count {
                let b = bytes[i]
                if b == c {
                    pos = i &+ 1
                    var t = Token(.string, start, pos)
                    t.textStart = start &+ 1
                    t.textEnd = i
                    return t
                }
                if b == UInt8(ascii: "\\") { break }
                i &+= 1
            }
            return try string()
        case UInt8(ascii: "#"):
            return try escapedIdentifier()
        case UInt8(ascii: "$"):
            return try variable()
        case UInt8(ascii: "@"):
            return try collectionOperator()
        case UInt8(ascii: "%"):
            return try formatSpecifier()
        case 0x80...:
            if let end = unicodeIdentifierEnd(from: pos) {
                pos = end
                return Token(.identifier, start, end)
            }
            throw invalidCharacter(at: start)
        // Brackets and commas, the commonest punctuation, are one byte whatever follows: made
        // here, as the compiler keeps ``punctuation()`` a call of its own.
        case UInt8(ascii: "("): pos += 1; return Token(.leftParen, start, pos)
        case UInt8(ascii: ")"): pos += 1; return Token(.rightParen, start, pos)
        case UInt8(ascii: "["): pos += 1; return Token(.leftBracket, start, pos)
        case UInt8(ascii: "]"): pos += 1; return Token(.rightBracket, start, pos)
        case UInt8(ascii: "{"): pos += 1; return Token(.leftBrace, start, pos)
        case UInt8(ascii: "}"): pos += 1; return Token(.rightBrace, start, pos)
        case UInt8(ascii: ","): pos += 1; return Token(.comma, start, pos)
        default:
            return try punctuation()
        }
    }

    // MARK: - Words

    /// Letters of either case in one test (setting 0x20 maps `A`–`Z` onto `a`–`z` and no other
    /// byte into that range): keywords are upper case, keys lower, and the word loop runs per byte.
    @inline(__always)
    private static func isIdentStart(_ b: UInt8) -> Bool {
        (b | 0x20) &- 0x61 < 26 || b == 0x5F
    }

    @inline(__always)
    private static func isIdentContinue(_ b: UInt8) -> Bool {
        (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b == 0x5F
    }

    /// The end of an identifier starting at `from`, accepting Unicode letters (XID) as an
    /// extension (reference §1.4); nil if no identifier starts there.
    private func unicodeIdentifierEnd(from: Int) -> Int? {
        var i = from
        var first = true
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                if first ? Self.isIdentStart(b) : Self.isIdentContinue(b) { i += 1; first = false; continue }
                break
            }
            guard let (scalar, len) = decodeScalar(at: i) else { break }
            let ok = first ? (scalar.properties.isXIDStart || scalar == "_") : scalar.properties.isXIDContinue
            guard ok else { break }
            i += len
            first = false
        }
        return i > from ? i : nil
    }

    private func decodeScalar(at i: Int) -> (Unicode.Scalar, Int)? {
        let b0 = bytes[i]
        var len = 0
        var value: UInt32 = 0
        switch b0 {
        case 0xC2...0xDF: len = 2; value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: len = 3; value = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: len = 4; value = UInt32(b0 & 0x07)
        default: return nil
        }
        guard i + len <= bytes.count else { return nil }
        for k in 1..<len { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        guard let s = Unicode.Scalar(value) else { return nil }
        return (s, len)
    }

    private func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A word: an identifier or a keyword. The commonest word, up to seven ASCII letters,
    /// digits and `_` with eight bytes of source to read from its start, is found here in one
    /// step (``PackedBytes/nonIdentifierBytes(_:)``), and its bytes, loaded once, are the
    /// keyword lookup's key. Longer words, words near the end of the input, and the words of
    /// ``wordInFull()`` are left to ``longWord()``.
    @inline(__always)
    private mutating func word() -> Token {
        let start = pos
        guard start &+ 8 <= bytes.count else { return longWord() }
        let w = PackedBytes.load8(bytes, at: start)
        let stop = PackedBytes.nonIdentifierBytes(w)
        guard stop != 0 else { return longWord() }
        let n = stop.trailingZeroBitCount &>> 3
        let bits = UInt64(truncatingIfNeeded: n) &* 8
        let after = UInt8(truncatingIfNeeded: w &>> bits)
        // A byte beyond ASCII may continue the word; `UTI-` may start a keyword.
        if after >= 0x80 || (after == UInt8(ascii: "-") && n == 3) { return wordInFull() }
        pos = start &+ n
        guard n >= 2 else { return Token(.identifier, start, pos) }
        return wordToken(start, pos, low: w & ((1 &<< bits) &- 1), high: 0)
    }

    /// The keyword or identifier `start..<end` (2 to 15 bytes), whose bytes packed as
    /// ``PackedBytes`` loads them are `low` and `high` (the ninth byte on; 0 up to eight).
    @inline(__always)
    private func wordToken(_ start: Int, _ end: Int, low: UInt64, high: UInt64) -> Token {
        guard let k = Keyword.lookup(length: end &- start, low: low, high: high) else {
            return Token(.identifier, start, end)
        }
        var t = Token(.keyword, start, end)
        t.keyword = k
        return t
    }

    /// ``word()`` for words of eight bytes or more, or that end within eight bytes of the end
    /// of the input: read eight bytes at a time while there are eight to read.
    @inline(never)
    private mutating func longWord() -> Token {
        let start = pos, count = bytes.count
        // Eight to fifteen bytes, with sixteen to read: the long keywords (BEGINSWITH,
        // CONTAINS…) and keys, found in two steps, their bytes the lookup's key as loaded.
        if start &+ 16 <= count {
            let low = PackedBytes.load8(bytes, at: start)
            let high = PackedBytes.load8(bytes, at: start &+ 8)
            let stop = PackedBytes.nonIdentifierBytes(high)
            if PackedBytes.nonIdentifierBytes(low) == 0 && stop != 0 {
                let bits = UInt64(truncatingIfNeeded: stop.trailingZeroBitCount & ~7)
                // A byte beyond ASCII may continue the word (a hyphen matters only after three).
                if UInt8(truncatingIfNeeded: high &>> bits) < 0x80 {
                    pos = start &+ 8 &+ Int(truncatingIfNeeded: bits &>> 3)
                    return wordToken(start, pos, low: low, high: high & ((1 &<< bits) &- 1))
                }
            }
        }
        var i = start
        var stopped = false
        while i &+ 8 <= count {
            let stop = PackedBytes.nonIdentifierBytes(PackedBytes.load8(bytes, at: i))
            if stop != 0 {
                i &+= stop.trailingZeroBitCount &>> 3
                stopped = true
                break
            }
            i &+= 8
        }
        if !stopped {
            while i < count && Self.isIdentContinue(bytes[i]) { i &+= 1 }
        }
        if i < count {
            let b = bytes[i]
            if b >= 0x80 || (b == UInt8(ascii: "-") && i &- start == 3) { return wordInFull() }
        }
        pos = i
        let n = i &- start
        guard n >= 2 && n <= 15 else { return Token(.identifier, start, i) }
        return wordToken(start, i, low: PackedBytes.load(bytes, start, start &+ min(n, 8)),
                         high: n > 8 ? PackedBytes.load(bytes, start &+ 8, i) : 0)
    }

    /// ``word()`` for the words it leaves: Unicode letters after ASCII ones, and the keywords
    /// with hyphens.
    @inline(never)
    private mutating func wordInFull() -> Token {
        let start = pos, count = bytes.count
        var i = start + 1
        while i < count && Self.isIdentContinue(bytes[i]) { i += 1 }
        pos = i
        if pos < count && bytes[pos] >= 0x80, let end = unicodeIdentifierEnd(from: start) {
            pos = end
        }
        // UTI-CONFORMS-TO and UTI-EQUALS contain hyphens (reference §1.2).
        if pos - start == 3 && peek() == UInt8(ascii: "-") && matchesUpper("UTI", at: start) {
            if matchesUpper("-CONFORMS-TO", at: pos) && !Self.isIdentContinue(peek(12)) {
                pos += 12
                var t = Token(.keyword, start, pos)
                t.keyword = .utiConformsTo
                return t
            }
            if matchesUpper("-EQUALS", at: pos) && !Self.isIdentContinue(peek(7)) {
                pos += 7
                var t = Token(.keyword, start, pos)
                t.keyword = .utiEquals
                return t
            }
        }
        let n = pos - start
        if n >= 2 && n <= 15,
           let k = Keyword.lookup(length: n, low: PackedBytes.load(bytes, start, start + min(n, 8)),
                                  high: n > 8 ? PackedBytes.load(bytes, start + 8, pos) : 0) {
            var t = Token(.keyword, start, pos)
            t.keyword = k
            return t
        }
        return Token(.identifier, start, pos)
    }

    private func matchesUpper(_ word: String, at i: Int) -> Bool {
        var k = i
        for w in word.utf8 {
            guard k < bytes.count else { return false }
            var b = bytes[k]
            if b >= 0x61 && b <= 0x7A { b -= 0x20 }
            if b != w { return false }
            k += 1
        }
        return true
    }

    /// `#word` (a reserved word used as a key) or `#"any text"` (PQL's escape for keys that are
    /// not identifiers, so that every key path prints re-parseably).
    private mutating func escapedIdentifier() throws(PredicateFormatError) -> Token {
        let start = pos
        pos += 1
        if peek() == UInt8(ascii: "\"") || peek() == UInt8(ascii: "'") {
            let s = try string()
            var t = Token(.identifier, start, pos)
            t.textStart = s.textStart
            t.textEnd = s.textEnd
            t.hasEscapes = s.hasEscapes
            t.escaped = true
            return t
        }
        guard let end = unicodeIdentifierEnd(from: pos) else {
            throw error(.unexpectedToken, "expected a key name after '#'", start, pos + (pos < bytes.count ? 1 : 0),
                        hint: "'#' escapes a reserved word used as a key, as in #size or #first")
        }
        pos = end
        var t = Token(.identifier, start, end)
        t.textStart = start + 1
        t.escaped = true
        return t
    }

    private mutating func variable() throws(PredicateFormatError) -> Token {
        let start = pos
        pos += 1
        var nameStart = pos
        if peek() == UInt8(ascii: "#") { pos += 1; nameStart = pos }
        guard let end = unicodeIdentifierEnd(from: pos) else {
            throw error(.unexpectedToken, "expected a variable name after '$'", start, min(pos + 1, bytes.count),
                        hint: "variables are written $name; a name starts with a letter or '_'")
        }
        pos = end
        var t = Token(.variable, start, end)
        t.textStart = nameStart
        return t
    }

    private mutating func collectionOperator() throws(PredicateFormatError) -> Token {
        let start = pos
        pos += 1
        guard let end = unicodeIdentifierEnd(from: pos) else {
            throw error(.unexpectedToken, "expected a collection operator name after '@'", start, min(pos + 1, bytes.count),
                        hint: "collection operators are @count, @sum, @avg, @min, @max, @distinctUnionOfObjects…")
        }
        pos = end
        return Token(.collectionOperator, start, end)
    }

    // MARK: - Numbers

    private mutating func number() throws(PredicateFormatError) -> Token {
        let start = pos
        if bytes[pos] == UInt8(ascii: "0"), pos + 1 < bytes.count {
            let radix: UInt64?
            switch bytes[pos + 1] | 0x20 {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix { return try radixInteger(radix, start: start) }
        }
        var magnitude: UInt64? = 0
        while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 {
            let d = UInt64(bytes[pos] - 0x30)
            if let m = magnitude {
                let (p, o1) = m.multipliedReportingOverflow(by: 10)
                let (s, o2) = p.addingReportingOverflow(d)
                magnitude = (o1 || o2) ? nil : s
            }
            pos += 1
        }
        var isFloat = false
        if peek() == UInt8(ascii: "."), peek(1) >= 0x30, peek(1) <= 0x39 {
            isFloat = true
            pos += 1
            while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 { pos += 1 }
        }
        if peek() | 0x20 == UInt8(ascii: "e") {
            var k = 1
            if peek(k) == UInt8(ascii: "+") || peek(k) == UInt8(ascii: "-") { k += 1 }
            guard peek(k) >= 0x30 && peek(k) <= 0x39 else {
                throw error(.invalidNumber, "the exponent of this number has no digits", start, pos + k,
                            hint: "write an exponent such as 1e5 or 2.5e-3")
            }
            isFloat = true
            pos += k
            while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 { pos += 1 }
        }
        if pos < bytes.count, Self.isIdentContinue(bytes[pos]) || bytes[pos] >= 0x80 {
            try rejectTrailingLetters(start: start, what: "number")
        }
        if isFloat || magnitude == nil {
            var t = Token(.float, start, pos)
            t.double = Double(text(start, pos)) ?? .infinity
            return t
        }
        var t = Token(.integer, start, pos)
        t.integer = magnitude
        return t
    }

    private mutating func radixInteger(_ radix: UInt64, start: Int) throws(PredicateFormatError) -> Token {
        pos += 2
        let digitsStart = pos
        var value: UInt64 = 0
        var overflow = false
        while pos < bytes.count {
            let b = bytes[pos]
            let d: UInt64
            switch b {
            case 0x30...0x39: d = UInt64(b - 0x30)
            case 0x61...0x66: d = UInt64(b - 0x61 + 10)
            case 0x41...0x46: d = UInt64(b - 0x41 + 10)
            default: d = 99
            }
            guard d < radix else { break }
            let (p, o1) = value.multipliedReportingOverflow(by: radix)
            let (s, o2) = p.addingReportingOverflow(d)
            overflow = overflow || o1 || o2
            value = s
            pos += 1
        }
        let name = radix == 16 ? "hexadecimal" : (radix == 8 ? "octal" : "binary")
        if pos == digitsStart {
            throw error(.invalidNumber, "this \(name) number has no digits", start, min(pos + 1, bytes.count),
                        hint: radix == 16 ? "write 0x1F" : (radix == 8 ? "write 0o17" : "write 0b101"))
        }
        try rejectTrailingLetters(start: start, what: "\(name) number")
        if overflow {
            throw error(.invalidNumber, "this \(name) number does not fit in 64 bits", start, pos)
        }
        var t = Token(.integer, start, pos)
        t.integer = value
        return t
    }

    /// `12abc`, `0x1G`, `5.5.5`: a number glued to more word characters is one mistake, not two tokens.
    private mutating func rejectTrailingLetters(start: Int, what: String) throws(PredicateFormatError) {
        guard pos < bytes.count, Self.isIdentContinue(bytes[pos]) || bytes[pos] >= 0x80 else { return }
        var end = pos
        while end < bytes.count && (Self.isIdentContinue(bytes[end]) || bytes[end] >= 0x80) { end += 1 }
        throw error(.invalidNumber, "invalid \(what) '\(text(start, end))'", start, end,
                    hint: "separate a number from the next word with a space, or write a key that starts with a letter")
    }

    // MARK: - Strings

    /// A quoted string with the escapes of reference §1.6, checked but not decoded: the
    /// parser decodes the few strings that have escapes when it needs their value.
    private mutating func string() throws(PredicateFormatError) -> Token {
        var decoded: [UInt8]? = nil
        return try string(decoding: &decoded)
    }

    /// A quoted string; `decoded` receives its value when it has escapes (and stays nil when
    /// the value is the source text between the quotes).
    private mutating func string(decoding decoded: inout [UInt8]?) throws(PredicateFormatError) -> Token {
        let start = pos
        let quote = bytes[pos]
        pos += 1
        let firstContent = pos
        var contentStart = pos
        while true {
            guard pos < bytes.count else {
                throw error(.unterminatedString, "this string is never closed", start, pos,
                            hint: "end the string with \(quote == 0x22 ? "\"" : "'")")
            }
            let b = bytes[pos]
            if b == quote { break }
            if b != UInt8(ascii: "\\") { pos += 1; continue }
            if decoded == nil { decoded = [] }
            decoded!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]))
            try escape(into: &decoded!)
            contentStart = pos
        }
        var t = Token(.string, start, pos + 1)
        t.textStart = firstContent
        t.textEnd = pos
        if decoded != nil {
            decoded!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]))
            guard String(validating: decoded!, as: UTF8.self) != nil else {
                throw error(.invalidEscape, "the escapes in this string do not form valid UTF-8", start, pos + 1,
                            hint: "use \\u with four hex digits for characters outside ASCII")
            }
            t.hasEscapes = true
        }
        pos += 1
        return t
    }

    private mutating func escape(into out: inout [UInt8]) throws(PredicateFormatError) {
        let start = pos
        pos += 1  // the backslash
        guard pos < bytes.count else {
            throw error(.unterminatedString, "this string ends in the middle of an escape", start, pos,
                        hint: "write \\\\ for a backslash")
        }
        let c = bytes[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "a"): out.append(0x07)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "v"): out.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(c - 0x30)
            var n = 1
            while n < 3, pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x37 {
                value = value * 8 + UInt32(bytes[pos] - 0x30)
                pos += 1
                n += 1
            }
            appendScalar(value, into: &out)
        case UInt8(ascii: "x"), UInt8(ascii: "X"):
            let v = try hexDigits(2, escapeStart: start)
            appendScalar(v, into: &out)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            var v = try hexDigits(4, escapeStart: start)
            if (0xD800...0xDBFF).contains(v) {
                // A high surrogate must be followed by \u and a low surrogate.
                guard peek() == UInt8(ascii: "\\"), peek(1) | 0x20 == UInt8(ascii: "u") else {
                    throw error(.invalidEscape, "a \\u escape for a high surrogate must be followed by a low surrogate",
                                start, pos, hint: "write the character itself, or both halves: \\uD83D\\uDE00")
                }
                pos += 2
                let low = try hexDigits(4, escapeStart: start)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(.invalidEscape, "\\u escape \(String(low, radix: 16)) is not a low surrogate", start, pos)
                }
                v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(v) {
                throw error(.invalidEscape, "a \\u escape cannot be a lone low surrogate", start, pos)
            }
            appendScalar(v, into: &out)
        default:
            // Any other escaped character stands for itself (reference §1.6), including multi-byte ones.
            out.append(c)
        }
    }

    private mutating func hexDigits(_ count: Int, escapeStart: Int) throws(PredicateFormatError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<count {
            let b = peek()
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            default:
                throw error(.invalidEscape, "this escape needs \(count) hexadecimal digits", escapeStart,
                            min(pos + 1, bytes.count), hint: count == 2 ? "write \\x41" : "write \\u00E9")
            }
            v = v * 16 + d
            pos += 1
        }
        return v
    }

    private func appendScalar(_ v: UInt32, into out: inout [UInt8]) {
        let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    // MARK: - Format specifiers

    /// `%@`, `%K`, `%%`, and the C conversions of reference §5.2 with length modifiers; width and
    /// precision digits are accepted and ignored, positional forms (`%1$@`) rejected.
    private mutating func formatSpecifier() throws(PredicateFormatError) -> Token {
        let start = pos
        pos += 1
        if peek() == UInt8(ascii: "%") {
            pos += 1
            return Token(.formatSpecifier, start, pos)
        }
        // Flags, width, precision.
        var sawDigits = false
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: " ") || b == UInt8(ascii: "#") || b == UInt8(ascii: ".") {
                pos += 1
            } else if b >= 0x30 && b <= 0x39 {
                sawDigits = true
                pos += 1
            } else if b == UInt8(ascii: "$") && sawDigits {
                throw error(.badSpecifier, "positional format specifiers such as %1$@ are not supported", start, pos + 1,
                            hint: "arguments bind to specifiers in order; reorder the arguments instead")
            } else {
                break
            }
        }
        // Length modifiers.
        while pos < bytes.count, [UInt8(ascii: "h"), UInt8(ascii: "l"), UInt8(ascii: "q"), UInt8(ascii: "L"),
                                  UInt8(ascii: "z"), UInt8(ascii: "t"), UInt8(ascii: "j")].contains(bytes[pos]) {
            pos += 1
        }
        guard pos < bytes.count else {
            throw error(.badSpecifier, "a '%' at the end of the format string starts no format specifier", start, pos,
                        hint: "use %@ for a value, %K for a key path, %% for a literal percent sign")
        }
        let conversion = bytes[pos]
        let valid = "@KdiDuUoOxXcCeEfFgGaAsSpP".utf8
        guard valid.contains(conversion) else {
            let end = conversion >= 0x80 ? (decodeScalar(at: pos).map { pos + $0.1 } ?? pos + 1) : pos + 1
            let shown = text(start, end)
            let hint: String
            if conversion == UInt8(ascii: "k") {
                hint = "the key-path specifier is upper-case: %K"
            } else if bytes[start + 1] == UInt8(ascii: " ") {
                // `a % 2`: a remainder, which the language spells as a function (reference §1.2).
                hint = "there is no % operator; for a remainder write modulus:by:(a, b)"
            } else {
                hint = "use %@ for a value, %K for a key path, %d for an integer, %f for a double, %% for a percent sign"
            }
            throw error(.badSpecifier, "unrecognized conversion specifier '\(shown)' in format string", start, end,
                        hint: hint)
        }
        pos += 1
        return Token(.formatSpecifier, start, pos)
    }

    // MARK: - Punctuation

    /// The operators and the other punctuation but brackets and commas (``next()`` makes
    /// those). The kind and length are chosen first and the token made once.
    private mutating func punctuation() throws(PredicateFormatError) -> Token {
        let start = pos
        let c = bytes[pos]
        let n = peek(1)
        let kind: Token.Kind
        var length = 1
        switch c {
        case UInt8(ascii: "."):
            if n >= 0x30 && n <= 0x39 {
                throw error(.invalidNumber, "a number cannot start with '.'", start, start + 1,
                            hint: "write a leading zero, as in 0.5")
            }
            kind = .dot
        case UInt8(ascii: ":"):
            if n == UInt8(ascii: "=") { kind = .assign; length = 2 } else { kind = .colon }
        case UInt8(ascii: "="):
            switch n {
            case UInt8(ascii: "="): kind = .equal; length = 2
            case UInt8(ascii: "<"): kind = .lessEqual; length = 2
            case UInt8(ascii: ">"): kind = .greaterEqual; length = 2
            default: kind = .equal
            }
        case UInt8(ascii: "!"):
            if n == UInt8(ascii: "=") { kind = .notEqual; length = 2 } else { kind = .bang }
        case UInt8(ascii: "<"):
            switch n {
            case UInt8(ascii: "="): kind = .lessEqual; length = 2
            case UInt8(ascii: ">"): kind = .notEqual; length = 2
            case UInt8(ascii: "<"): kind = .shiftLeft; length = 2
            default: kind = .less
            }
        case UInt8(ascii: ">"):
            switch n {
            case UInt8(ascii: "="): kind = .greaterEqual; length = 2
            case UInt8(ascii: ">"): kind = .shiftRight; length = 2
            default: kind = .greater
            }
        case UInt8(ascii: "&"):
            if n == UInt8(ascii: "&") { kind = .andAnd; length = 2 } else { kind = .ampersand }
        case UInt8(ascii: "|"):
            if n == UInt8(ascii: "|") { kind = .orOr; length = 2 } else { kind = .pipe }
        case UInt8(ascii: "+"): kind = .plus
        case UInt8(ascii: "-"): kind = .minus
        case UInt8(ascii: "*"):
            if n == UInt8(ascii: "*") { kind = .starStar; length = 2 } else { kind = .star }
        case UInt8(ascii: "/"):
            if n == UInt8(ascii: "*") || n == UInt8(ascii: "/") {
                throw error(.invalidCharacter, "the predicate language has no comments", start, start + 2,
                            hint: "remove the comment")
            }
            kind = .slash
        case UInt8(ascii: "^"): kind = .caret
        case UInt8(ascii: "~"): kind = .tilde
        case UInt8(ascii: "?"):
            throw error(.invalidCharacter, "'?' is not a token of the predicate language", start, start + 1,
                        hint: "use %@ for an argument or $name for a variable")
        default:
            throw invalidCharacter(at: start)
        }
        pos = start + length
        return Token(kind, start, pos)
    }

    // MARK: - Errors

    private func invalidCharacter(at start: Int) -> PredicateFormatError {
        var end = start + 1
        if bytes[start] >= 0x80, let (_, len) = decodeScalar(at: start) { end = start + len }
        let shown = text(start, end)
        let code = shown.unicodeScalars.first.map { "U+" + String($0.value, radix: 16, uppercase: true) } ?? ""
        let printable = bytes[start] >= 0x20 && bytes[start] != 0x7F
        return error(.invalidCharacter,
                     printable ? "unexpected character '\(shown)'" : "unexpected control character \(code)",
                     start, end, hint: bytes[start] == UInt8(ascii: ";")
                        ? "the predicate language has no statements; combine conditions with AND or OR"
                        : "strings must be quoted, as in name == 'Zoë'")
    }

    private func error(_ kind: PredicateFormatError.Kind, _ message: String, _ start: Int, _ end: Int,
                       hint: String? = nil) -> PredicateFormatError {
        Diagnostics.error(kind, message, start: start, end: end, source: source, hint: hint)
    }
}

/// Builds errors with ranges from byte offsets.
enum Diagnostics {
    static func error(_ kind: PredicateFormatError.Kind, _ message: String, start: Int, end: Int,
                      source: String, expected: [String] = [], found: String? = nil,
                      hint: String? = nil) -> PredicateFormatError {
        let range = SourceRange(offset: start, length: end - start, in: source)
        let utf8 = source.utf8
        let found = found ?? {
            guard start < utf8.count else { return "end of input" }
            let s = utf8.index(utf8.startIndex, offsetBy: start)
            let e = utf8.index(utf8.startIndex, offsetBy: min(max(end, start + 1), utf8.count))
            return "'" + String(decoding: utf8[s..<e], as: UTF8.self) + "'"
        }()
        return PredicateFormatError(kind: kind, message: message, range: range, expected: expected,
                                    found: found, hint: hint, source: source)
    }
}

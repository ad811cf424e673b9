/// One lexical token. Identifier, string and variable text is decoded once, here.
struct Token: Sendable {
    enum Kind: UInt8, Sendable {
        case eof
        /// A key name; `#`-escaped words and `#"…"` are always identifiers.
        case identifier
        /// `@count`, `@avg`… (``text`` includes the `@`).
        case collectionOperator
        case keyword
        case integer
        case float
        case string
        /// `$name` (``text`` is the name).
        case variable
        /// `%@`, `%K`, `%d`… (``text`` is the whole specifier).
        case formatSpecifier
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
        case comma, dot, colon, assign
        case equal, notEqual, less, lessEqual, greater, greaterEqual
        case andAnd, orOr, bang
        case plus, minus, star, slash, starStar
        case ampersand, pipe, caret, shiftLeft, shiftRight, tilde
    }

    var kind: Kind
    /// UTF-8 offsets into the source.
    var start: Int
    var end: Int
    var text: String = ""
    var keyword: Keyword? = nil
    /// Integer literals: the magnitude (the sign is unary minus); nil if it overflows UInt64.
    var integer: UInt64? = nil
    var double: Double = 0
    /// Identifiers written with `#`: never a keyword, even a contextual one.
    var escaped: Bool = false
    /// Whitespace separates this token from the one before it.
    var spaceBefore: Bool = false

    init(_ kind: Kind, _ start: Int, _ end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
    }

    func isKeyword(_ k: Keyword) -> Bool { kind == .keyword && keyword == k }

    /// Case-insensitive test for contextual keywords (FUNCTION, TERNARY, UNION…).
    func isContextual(_ word: String) -> Bool {
        kind == .identifier && !escaped && text.utf8.count == word.utf8.count
            && text.uppercased() == word
    }
}

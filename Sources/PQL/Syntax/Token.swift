/// One lexical token: a kind and where it was written, nothing the parse must copy with
/// reference counting. The text of identifiers, strings and variables stays in the source
/// until the parser asks for it (``Lexer/text(of:)``), so a token is copied as plain bytes and
/// most tokens (operators, keywords, numbers) never become a `String` at all.
struct Token: Sendable {
    enum Kind: UInt8, Sendable {
        case eof
        /// A key name; `#`-escaped words and `#"…"` are always identifiers.
        case identifier
        /// `@count`, `@avg`… (the text includes the `@`).
        case collectionOperator
        case keyword
        case integer
        case float
        case string
        /// `$name` (the text is the name).
        case variable
        /// `%@`, `%K`, `%d`… (the text is the whole specifier).
        case formatSpecifier
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
        case comma, dot, colon, assign
        case equal, notEqual, less, lessEqual, greater, greaterEqual
        case andAnd, orOr, bang
        case plus, minus, star, slash, starStar
        case ampersand, pipe, caret, shiftLeft, shiftRight, tilde
    }

    var kind: Kind
    var keyword: Keyword? = nil
    /// Identifiers written with `#`: never a keyword, even a contextual one.
    var escaped: Bool = false
    /// Whitespace separates this token from the one before it.
    var spaceBefore: Bool = false
    /// The text between ``textStart`` and ``textEnd`` holds backslash escapes to decode
    /// (strings, and `#"…"` identifiers).
    var hasEscapes: Bool = false
    /// UTF-8 offsets into the source.
    var start: Int
    var end: Int
    /// Where the token's text lies inside it: the name after `$` or `#`, a string's content
    /// between its quotes; the whole token otherwise.
    var textStart: Int
    var textEnd: Int
    /// Integer literals: the magnitude (the sign is unary minus); nil if it overflows UInt64.
    var integer: UInt64? = nil
    var double: Double = 0

    init(_ kind: Kind, _ start: Int, _ end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        textStart = start
        textEnd = end
    }

    func isKeyword(_ k: Keyword) -> Bool { kind == .keyword && keyword == k }
}

/// One lexical token: a kind and where it was written, nothing the parse must copy with
/// reference counting. The text of identifiers, strings and variables stays in the source
/// until the parser asks for it (``Lexer/text(of:)``), so a token is copied as plain bytes and
/// most tokens (operators, keywords, numbers) never become a `String` at all.
///
/// Offsets are stored in 32 bits (inputs are at most ``Parser/maxSourceLength`` bytes) and a
/// number's value in one word, so that a token is 32 bytes: the parser copies tokens at every
/// step (current, lookahead, the token an error may point at).
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
    /// The flags below are bits of ``flags``. A token of a few plain fields is moved through
    /// registers whole, where one of separate `Bool`s was taken apart and put together again at
    /// every step of the parser. The keyword is kept as the optional itself (one byte, as its
    /// raw value was): reading a raw value back went through `Keyword(rawValue:)`'s check.
    var keyword: Keyword? = nil
    private var flags: UInt8 = 0
    private var start32: Int32
    private var end32: Int32
    private var textStart32: Int32
    private var textEnd32: Int32
    /// An integer's magnitude, or a float's bit pattern.
    private var bits: UInt64 = 0

    private static let escapedFlag: UInt8 = 1
    private static let spaceBeforeFlag: UInt8 = 2
    private static let hasEscapesFlag: UInt8 = 4
    private static let overflowsFlag: UInt8 = 8

    /// Identifiers written with `#`: never a keyword, even a contextual one.
    var escaped: Bool {
        get { flags & Self.escapedFlag != 0 }
        set { setFlag(Self.escapedFlag, newValue) }
    }
    /// Whitespace separates this token from the one before it.
    var spaceBefore: Bool {
        get { flags & Self.spaceBeforeFlag != 0 }
        set { setFlag(Self.spaceBeforeFlag, newValue) }
    }
    /// The text between ``textStart`` and ``textEnd`` holds backslash escapes to decode
    /// (strings, and `#"…"` identifiers).
    var hasEscapes: Bool {
        get { flags & Self.hasEscapesFlag != 0 }
        set { setFlag(Self.hasEscapesFlag, newValue) }
    }
    /// An integer literal too large for UInt64 (``integer`` is nil).
    private var overflows: Bool {
        get { flags & Self.overflowsFlag != 0 }
        set { setFlag(Self.overflowsFlag, newValue) }
    }

    private mutating func setFlag(_ flag: UInt8, _ on: Bool) {
        flags = on ? flags | flag : flags & ~flag
    }

    init(_ kind: Kind, _ start: Int, _ end: Int) {
        self.kind = kind
        start32 = Int32(truncatingIfNeeded: start)
        end32 = Int32(truncatingIfNeeded: end)
        textStart32 = start32
        textEnd32 = end32
    }

    /// UTF-8 offsets into the source.
    var start: Int {
        get { Int(start32) }
        set { start32 = Int32(truncatingIfNeeded: newValue) }
    }
    var end: Int {
        get { Int(end32) }
        set { end32 = Int32(truncatingIfNeeded: newValue) }
    }
    /// Where the token's text lies inside it: the name after `$` or `#`, a string's content
    /// between its quotes; the whole token otherwise.
    var textStart: Int {
        get { Int(textStart32) }
        set { textStart32 = Int32(truncatingIfNeeded: newValue) }
    }
    var textEnd: Int {
        get { Int(textEnd32) }
        set { textEnd32 = Int32(truncatingIfNeeded: newValue) }
    }

    /// Integer literals: the magnitude (the sign is unary minus); nil if it overflows UInt64.
    var integer: UInt64? {
        get { overflows ? nil : bits }
        set {
            overflows = newValue == nil
            bits = newValue ?? 0
        }
    }

    /// Float literals: the value.
    var double: Double {
        get { Double(bitPattern: bits) }
        set { bits = newValue.bitPattern }
    }

    func isKeyword(_ k: Keyword) -> Bool { kind == .keyword && keyword == k }

    /// `NOT` or `!`.
    var isNotOperator: Bool { kind == .bang || (kind == .keyword && keyword == .not) }
}

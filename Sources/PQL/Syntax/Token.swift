/// One lexical token: a kind and where it was written, nothing the parse must copy with
/// reference counting. The text of identifiers, strings and variables stays in the source
/// until the parser asks for it (``Lexer/text(of:)``), so a token is copied as plain bytes and
/// most tokens (operators, keywords, numbers) never become a `String` at all.
///
/// Offsets are stored in 32 bits (inputs are at most ``Parser/maxSourceLength`` bytes) and a
/// number's value in one word, so that a token is 32 bytes: the parser copies tokens at every
/// step (current, next, the token an error may point at).
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

    // A token is four words, whatever its fields: the parser copies one at every step
    // (current, next, the token an error may point at), and four words move through four
    // registers as they are, where eight fields of one to eight bytes were shifted apart and
    // put together again at every copy. `w0` holds the kind, the keyword, the flags and the
    // start; `w1` the end and the text's start; `w2` the text's end; `bits` a number's value.
    private var w0: UInt64
    private var w1: UInt64
    private var w2: UInt64
    /// An integer's magnitude, or a float's bit pattern.
    private var bits: UInt64 = 0

    private static let escapedFlag: UInt64 = 1 << 16
    private static let spaceBeforeFlag: UInt64 = 2 << 16
    private static let hasEscapesFlag: UInt64 = 4 << 16
    private static let overflowsFlag: UInt64 = 8 << 16

    var kind: Kind {
        // Only bit patterns of `Kind` values are ever stored in this byte.
        get { unsafeBitCast(UInt8(truncatingIfNeeded: w0), to: Kind.self) }
    }

    /// The keyword of a `.keyword` token. Kept as the optional's own byte (stored and read back
    /// unchanged), so that reading it is no `Keyword(rawValue:)` check.
    var keyword: Keyword? {
        get { unsafeBitCast(UInt8(truncatingIfNeeded: w0 >> 8), to: Keyword?.self) }
        set { w0 = w0 & ~0xFF00 | UInt64(unsafeBitCast(newValue, to: UInt8.self)) << 8 }
    }
    /// Identifiers written with `#`: never a keyword, even a contextual one.
    var escaped: Bool {
        get { w0 & Self.escapedFlag != 0 }
        set { setFlag(Self.escapedFlag, newValue) }
    }
    /// Whitespace separates this token from the one before it.
    var spaceBefore: Bool {
        get { w0 & Self.spaceBeforeFlag != 0 }
        set { setFlag(Self.spaceBeforeFlag, newValue) }
    }
    /// The text between ``textStart`` and ``textEnd`` holds backslash escapes to decode
    /// (strings, and `#"…"` identifiers).
    var hasEscapes: Bool {
        get { w0 & Self.hasEscapesFlag != 0 }
        set { setFlag(Self.hasEscapesFlag, newValue) }
    }
    /// An integer literal too large for UInt64 (``integer`` is nil).
    private var overflows: Bool {
        get { w0 & Self.overflowsFlag != 0 }
        set { setFlag(Self.overflowsFlag, newValue) }
    }

    private mutating func setFlag(_ flag: UInt64, _ on: Bool) {
        w0 = on ? w0 | flag : w0 & ~flag
    }

    init(_ kind: Kind, _ start: Int, _ end: Int) {
        let s = UInt64(UInt32(truncatingIfNeeded: start)), e = UInt64(UInt32(truncatingIfNeeded: end))
        let noKeyword = UInt64(unsafeBitCast(Keyword?.none, to: UInt8.self))
        w0 = UInt64(unsafeBitCast(kind, to: UInt8.self)) | noKeyword << 8 | s << 32
        w1 = e | s << 32
        w2 = e
    }

    /// UTF-8 offsets into the source.
    var start: Int {
        get { Int(Int32(truncatingIfNeeded: w0 >> 32)) }
        set { w0 = w0 & 0xFFFF_FFFF | UInt64(UInt32(truncatingIfNeeded: newValue)) << 32 }
    }
    var end: Int {
        get { Int(Int32(truncatingIfNeeded: w1)) }
        set { w1 = w1 & ~0xFFFF_FFFF | UInt64(UInt32(truncatingIfNeeded: newValue)) }
    }
    /// Where the token's text lies inside it: the name after `$` or `#`, a string's content
    /// between its quotes; the whole token otherwise.
    var textStart: Int {
        get { Int(Int32(truncatingIfNeeded: w1 >> 32)) }
        set { w1 = w1 & 0xFFFF_FFFF | UInt64(UInt32(truncatingIfNeeded: newValue)) << 32 }
    }
    var textEnd: Int {
        get { Int(Int32(truncatingIfNeeded: w2)) }
        set { w2 = UInt64(UInt32(truncatingIfNeeded: newValue)) }
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
    @inline(__always) var isNotOperator: Bool { kind == .bang || (kind == .keyword && keyword == .not) }
}

/// The one error type of PQL's front end: a format string that does not parse, or format
/// arguments that do not fit it.
///
/// It carries what went wrong, where (``range``), what the parser expected and found, and a fix
/// hint where one is likely. ``rendered`` shows the source line with a caret under the problem.
///
/// ```swift
/// do {
///     _ = try PredicateNode(format: "name NOT IN {'a'}")
/// } catch let error as PredicateFormatError {
///     print(error.rendered)
///     // error: NOT cannot negate an operator; negate the whole comparison
///     //  --> line 1, column 6
///     //   |
///     // 1 | name NOT IN {'a'}
///     //   |      ^~~
///     //   = hint: write NOT (name IN {'a'})
/// }
/// ```
public struct PredicateFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The families of mistakes, for programs that react to them.
    ///
    /// ```swift
    /// do { _ = try PredicateNode(format: "name == 'abc") }
    /// catch { print(error.kind) }   // unterminatedString
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// A token that does not fit the grammar here.
        case unexpectedToken
        /// A character no token starts with.
        case invalidCharacter
        /// A string whose closing quote is missing.
        case unterminatedString
        /// A malformed `\x` or `\u` escape, or a lone surrogate.
        case invalidEscape
        /// A malformed number: `.5`, `12abc`, `0x` without digits, a radix literal beyond 64 bits.
        case invalidNumber
        /// A reserved word used where a key or value is expected; escape it with `#`.
        case reservedWord
        /// A function name PQL does not know; the hint names the nearest one.
        case unknownFunction
        /// A call with the wrong number of arguments for its function.
        case wrongArgumentCount
        /// `x NOT IN y`, `x NOT LIKE y`… (decision D6).
        case negatedOperator
        /// `1 < x < 5` (decision D6).
        case chainedComparison
        /// A bare expression where a predicate is expected: `isActive`, `TRUE` (decision D6).
        case bareExpression
        /// A literal right side of BETWEEN that is not a pair: `x BETWEEN 18`, `x BETWEEN {1}`.
        case badBetweenBounds
        /// A construct PQL parses in Apple's language but does not support.
        case unsupported
        /// Parentheses, operators, calls or `SUBQUERY`s nested past the limit.
        case nestingTooDeep
        /// A format string or an aggregate literal longer than the limit.
        case inputTooLong
        /// Input bytes that are not UTF-8.
        case invalidUTF8
        /// A `%` conversion that is not a known specifier.
        case badSpecifier
        /// A specifier such as `%@` with no argument left to take.
        case missingArgument
        /// Arguments left over after every specifier took its own.
        case surplusArgument
        /// An argument of the wrong kind for its specifier: `%d` given a string, `%K` a number.
        case argumentType
    }

    /// What went wrong, as a value a program can switch on.
    public let kind: Kind
    /// One sentence saying what is wrong.
    public let message: String
    /// Where in the format string.
    public let range: SourceRange
    /// What the parser would have accepted here, if that is a short list.
    public let expected: [String]
    /// The text found at ``range`` ("end of input" at the end).
    public let found: String
    /// How to fix it, when a likely fix is known.
    public let hint: String?
    /// The whole format string.
    public let source: String

    /// Creates an error about `source` at `range`; the parser and the argument binder raise these.
    ///
    /// ```swift
    /// let e = PredicateFormatError(kind: .unexpectedToken, message: "expected a value", range: SourceRange(offset: 4, length: 0, line: 1, column: 5), found: "end of input", source: "a ==")
    /// ```
    public init(kind: Kind, message: String, range: SourceRange, expected: [String] = [],
                found: String, hint: String? = nil, source: String) {
        self.kind = kind
        self.message = message
        self.range = range
        self.expected = expected
        self.found = found
        self.hint = hint
        self.source = source
    }

    /// The message and where it happened, on one line; ``rendered`` shows the source with a caret.
    public var description: String {
        var s = "\(message) at \(range)"
        if let hint { s += " (hint: \(hint))" }
        return s
    }

    /// A compiler-style rendering: the message, the position, the source line and a caret
    /// under the offending text, then the hint.
    ///
    /// Made for terminals: control characters of the input show as symbols (`␛`, `␇`…), never
    /// raw, and a long line is cut to the part around the caret, marked with `…`.
    public var rendered: String {
        // Lines end at "\n" bytes, as SourceRange counts them ("\r\n" is one Character, so
        // splitting the String would not split CRLF text); the "\r" is not shown.
        let lines = source.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var lineText = range.line - 1 < lines.count ? String(decoding: lines[range.line - 1], as: UTF8.self) : ""
        if lineText.hasSuffix("\r") { lineText.removeLast() }
        let number = String(range.line)
        let gutter = String(repeating: " ", count: number.count)
        let split = lineText.index(lineText.startIndex, offsetBy: range.column - 1, limitedBy: lineText.endIndex) ?? lineText.endIndex
        let (head, tail) = TerminalText.window(before: lineText[..<split], after: lineText[split...])
        // Tabs keep their width in the caret line so the caret stays under the text.
        let prefix = TerminalText.blanks(under: head)
        let width = min(caretWidth(), max(1, tail.count))
        var out = "error: \(TerminalText.visible(message))\n"
        out += "\(gutter)--> \(range)\n"
        out += "\(gutter) |\n"
        out += "\(number) | \(head)\(tail)\n"
        out += "\(gutter) | \(prefix)^\(String(repeating: "~", count: max(0, width - 1)))"
        if !expected.isEmpty && kind == .unexpectedToken {
            out += "\n\(gutter) = expected \(TerminalText.visible(Self.list(expected))), found \(TerminalText.visible(found))"
        }
        if let hint { out += "\n\(gutter) = hint: \(TerminalText.visible(hint))" }
        return out
    }

    /// The number of characters the range covers on its first line, as shown (at least 1).
    private func caretWidth() -> Int {
        guard range.length > 0 else { return 1 }
        let utf8 = source.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: min(range.offset, utf8.count))
        let end = utf8.index(start, offsetBy: min(range.length, utf8.distance(from: start, to: utf8.endIndex)))
        let s = String(decoding: utf8[start..<end], as: UTF8.self)
        let firstLine = s.prefix { $0 != "\n" }
        return max(1, TerminalText.visible(String(firstLine), keepingLineBreaks: false).count)
    }

    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        case 2: return "\(items[0]) or \(items[1])"
        default: return items.dropLast().joined(separator: ", ") + " or " + items.last!
        }
    }
}

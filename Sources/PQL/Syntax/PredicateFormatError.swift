import Foundation

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
public struct PredicateFormatError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
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
        /// Arguments left over after every specifier took its own. No longer raised: they are
        /// ignored, as Apple ignores them, with a warning (``PredicateDiagnostic/Kind/surplusArgument``,
        /// decision D15); kept so that code switching on it still compiles.
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

    /// The message, so that `error.localizedDescription` reads as it should.
    ///
    /// ```swift
    /// do { _ = try PredicateNode(format: "age >") } catch { print(error.localizedDescription) }
    /// // expected an expression, found end of input
    /// ```
    public var errorDescription: String? { message }

    /// The hint, for `LocalizedError` readers.
    ///
    /// ```swift
    /// do { _ = try PredicateNode(format: "name NOT IN {'a'}") } catch { print(error.recoverySuggestion ?? "") }
    /// // write NOT (name IN {'a'})
    /// ```
    public var recoverySuggestion: String? { hint }

    /// A compiler-style rendering (``CaretRenderer``): the message, the position, the source
    /// line and a caret under the offending text, then what was expected and the hint.
    ///
    /// Made for terminals: control characters of the input show as symbols (`␛`, `␇`…), never
    /// raw, and a long line is cut to the part around the caret, marked with `…`.
    public var rendered: String {
        // "expected X, found Y" is often the message itself: say it once.
        let note = "expected \(Self.list(expected)), found \(found)"
        let notes = !expected.isEmpty && kind == .unexpectedToken && !message.contains(note) ? [note] : []
        return CaretRenderer.render(message: message, source: source, range: range, notes: notes, hint: hint)
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

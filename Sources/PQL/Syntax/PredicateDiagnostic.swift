/// Something worth telling about a format string that is not (or not only) an error: an
/// argument no specifier takes, a `'%@'` inside quotes, a comparison that can never be true.
///
/// Parsing returns warnings beside the tree (``PredicateNode/parseWithWarnings(format:argumentArray:)``),
/// and ``PredicateLinter`` returns them with errors for what does not parse. Each has a place
/// (``range``), a message, a hint and, where one is certain, the text to put at ``range``
/// instead (``replacement``); ``rendered`` shows it as errors are shown, with a caret.
///
/// ```swift
/// let (tree, warnings) = try PredicateNode.parseWithWarnings(format: "id == '%@'", argumentArray: ["x"])
/// print(tree)                     // id == "%@"
/// print(warnings.map(\.kind))    // [surplusArgument, quotedSpecifier]
/// print(warnings[1].rendered)
/// // warning: '%@' inside quotes is text, not a specifier: argument 1 is never used
/// //  --> line 1, column 7
/// //   |
/// // 1 | id == '%@'
/// //   |       ^~~~
/// //   = hint: remove the quotes to compare with the argument: %@
/// ```
public struct PredicateDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How bad it is: a ``warning`` leaves a working predicate; an ``error`` means none was made.
    ///
    /// ```swift
    /// PredicateLinter.lint(format: "a ==").first?.severity   // .error
    /// ```
    public enum Severity: String, Hashable, Sendable {
        /// The predicate parses and runs, but probably not as meant.
        case warning
        /// The predicate does not parse (or its arguments do not fit it).
        case error
    }

    /// What was found, as a value a program can switch on.
    ///
    /// ```swift
    /// PredicateLinter.lint(format: "name LIKE 'Bob'").map(\.kind)   // [.likeWithoutWildcard]
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// More arguments than specifiers; the extra ones are ignored, as Apple ignores them.
        case surplusArgument
        /// A specifier inside quotes (`'%@'`) while arguments go unused: quoted, it is text.
        case quotedSpecifier
        /// A specifier with no argument left (an error: the predicate does not parse).
        case missingArgument
        /// Any other reason the format string does not parse (an error).
        case invalidFormat
        /// A constant compared with a constant: `%@ == %@` given two strings (keys belong in
        /// `%K`), or `'story_id' == %d` (a key name in quotes).
        case constantComparison
        /// A comparison whose operand kinds mean it can never be true: `'5' == 5`.
        case neverTrue
        /// `[c]` or `[d]` where the operands are numbers: the options change nothing.
        case optionsOnNumber
        /// `LIKE` with a pattern that has no `*` or `?`: the same as `==`.
        case likeWithoutWildcard
        /// A part of the predicate that is always true or always false: `1 == 1`,
        /// `TRUEPREDICATE` inside `AND`.
        case constantPredicate
    }

    /// ``Severity/warning`` or ``Severity/error``.
    public let severity: Severity
    /// What was found.
    public let kind: Kind
    /// One sentence saying what is wrong.
    public let message: String
    /// Where in the format string.
    public let range: SourceRange
    /// How to fix it, when a likely fix is known.
    public let hint: String?
    /// Text to put at ``range`` instead, when the fix is certain (`%@` for `'%@'`).
    public let replacement: String?
    /// The whole format string.
    public let source: String

    /// Creates a diagnostic about `range` of `source`; the parser and ``PredicateLinter`` make these.
    ///
    /// ```swift
    /// let d = PredicateDiagnostic(severity: .warning, kind: .likeWithoutWildcard, message: "LIKE without * or ?",
    ///                             range: SourceRange(offset: 5, length: 4, line: 1, column: 6), source: "a LIKE 'x'")
    /// ```
    public init(severity: Severity, kind: Kind, message: String, range: SourceRange, hint: String? = nil,
                replacement: String? = nil, source: String) {
        self.severity = severity
        self.kind = kind
        self.message = message
        self.range = range
        self.hint = hint
        self.replacement = replacement
        self.source = source
    }

    /// The error as a diagnostic of severity ``Severity/error``: ``Kind/missingArgument`` for a
    /// specifier without an argument, ``Kind/invalidFormat`` for everything else.
    ///
    /// ```swift
    /// do { _ = try PredicateNode(format: "a == %@") }
    /// catch { print(PredicateDiagnostic(error).kind) }   // missingArgument
    /// ```
    public init(_ error: PredicateFormatError) {
        self.init(severity: .error, kind: error.kind == .missingArgument ? .missingArgument : .invalidFormat,
                  message: error.message, range: error.range, hint: error.hint, source: error.source)
    }

    /// The severity, message and place on one line.
    public var description: String {
        var s = "\(severity.rawValue): \(message) at \(range)"
        if let hint { s += " (hint: \(hint))" }
        return s
    }

    /// A compiler-style rendering (``CaretRenderer``), as errors are rendered but starting
    /// `warning:` for a warning.
    public var rendered: String {
        CaretRenderer.render(message: message, source: source, range: range, hint: hint, label: severity.rawValue)
    }

    /// A warning at byte offsets `start..<end` of `source`.
    static func warning(_ kind: Kind, _ message: String, start: Int, end: Int, source: String,
                        hint: String? = nil, replacement: String? = nil) -> PredicateDiagnostic {
        PredicateDiagnostic(severity: .warning, kind: kind, message: message,
                            range: SourceRange(offset: start, length: end - start, in: source),
                            hint: hint, replacement: replacement, source: source)
    }
}

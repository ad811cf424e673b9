import Foundation

/// An error while compiling a predicate for a kind of value, or while evaluating it.
///
/// ``context`` is the canonical text of the part of the predicate that failed, so a message
/// can be shown beside the predicate the user wrote. When the predicate was compiled with its
/// ``SourceMap``, ``source`` and ``range`` say where in the text the failing sub-expression
/// was written, and ``rendered`` puts a caret under it.
///
/// ```swift
/// do { _ = try PredicateNode(format: "name < 5").evaluate(on: ["name": "Bo"] as PredicateValue) }
/// catch let e as PredicateEvaluationError { print(e) }
/// // cannot order a string against a number in name < 5
/// ```
public struct PredicateEvaluationError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The families of evaluation errors, for programs that react to them.
    ///
    /// ```swift
    /// do { _ = try PredicateNode(format: "nickname == 'x'").compiled(for: Person.self) }
    /// catch let e as PredicateEvaluationError where e.kind == .unknownKey { print(e.hint ?? "") }
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// A key the value's type does not have (typed values; dictionaries give nil instead).
        case unknownKey
        /// A `$variable` read with no value bound or substituted.
        case unboundVariable
        /// ANY/ALL, IN/CONTAINS, SUBQUERY or a collection operator needed a collection.
        case notACollection
        /// A string operator got a non-string, or a function an argument of the wrong type.
        case typeMismatch
        /// `<`, `>`… between values that have no order (a number and a string).
        case incomparable
        /// BETWEEN without a two-element array.
        case badBetweenBounds
        /// A MATCHES pattern PCRE2 rejects.
        case invalidRegex
        /// A MATCHES pattern hit PCRE2's match or depth limit, or the MATCHES of one call used
        /// more backtracking than ``EvaluationLimits/maxRegexSteps``.
        case regexLimit
        /// Arithmetic, or a math function (`sqrt:`, `abs:`…), on nil or non-numbers.
        case arithmetic
        /// An integer result beyond 64 bits (`9223372036854775807 + 1`, `abs:` of the smallest
        /// integer, a `@sum` of integers past the range, a shift by more than 63 bits): PQL
        /// never wraps silently.
        case integerOverflow
        /// Aggregate function misuse: min:/max:/average: of an empty collection, non-numbers,
        /// or a `sum:`/`count:`… argument that is not a collection.
        case aggregate
        /// Index misuse: out of range, wrong index type.
        case index
        /// A construct with no meaning here (ANYKEY, `[w]`, an unregistered FUNCTION…).
        case unsupported
        /// The evaluation was cancelled.
        case cancelled
        /// The call took more steps than ``EvaluationLimits/maxSteps``.
        case workLimit
    }

    /// What went wrong, as a value a program can switch on.
    public let kind: Kind
    /// One sentence saying what is wrong.
    public let message: String
    /// Canonical text of the failing part of the predicate, when known.
    public var context: String?
    /// How to fix it, when a likely fix is known.
    public let hint: String?
    /// The position (0-based) of the element the error happened on, in the sequence a filter,
    /// ``PredicateQuery`` or ``CompiledPredicate/evaluate(_:variables:limits:)`` call was given;
    /// nil for errors that belong to no element (compiling, a limit of the whole call).
    public var elementIndex: Int?
    /// The predicate text ``range`` points into, when the predicate was compiled with its
    /// ``SourceMap``.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "x + 1 > 2")
    /// do { _ = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map).evaluate(["x": "a"]) }
    /// catch let e as PredicateEvaluationError { print(e.source!) }   // x + 1 > 2
    /// ```
    public var source: String?
    /// Where in ``source`` the sub-expression that failed was written.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND b.c + 1 > 2")
    /// do { _ = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
    ///          .evaluate(["a": 1, "b": ["c": "x"]]) }
    /// catch let e as PredicateEvaluationError { print(e.range!) }   // line 1, column 12 (b.c + 1)
    /// ```
    public var range: SourceRange?

    /// Creates an evaluation error; a ``PredicateFunctions`` closure may throw one to report its own failure.
    ///
    /// ```swift
    /// throw PredicateEvaluationError(kind: .typeMismatch, message: "double: needs an integer", hint: "pass a whole number")
    /// ```
    public init(kind: Kind, message: String, context: String? = nil, hint: String? = nil, elementIndex: Int? = nil) {
        self.kind = kind
        self.message = message
        self.context = context
        self.hint = hint
        self.elementIndex = elementIndex
    }

    /// The message, the comparison and element it happened on, and the hint, on one line.
    public var description: String {
        var s = message
        if let context { s += " in \(context)" }
        if let elementIndex { s += " on element \(elementIndex)" }
        if let range { s += " at \(range)" }
        if let hint { s += " (hint: \(hint))" }
        return s
    }

    /// The message, so that `error.localizedDescription` reads as it should.
    ///
    /// ```swift
    /// let e = PredicateEvaluationError(kind: .arithmetic, message: "arithmetic needs numbers, not a string")
    /// (e as Error).localizedDescription   // "arithmetic needs numbers, not a string"
    /// ```
    public var errorDescription: String? { message }

    /// The hint, for `LocalizedError` readers.
    ///
    /// ```swift
    /// PredicateEvaluationError(kind: .arithmetic, message: "…", hint: "use CAST").recoverySuggestion   // "use CAST"
    /// ```
    public var recoverySuggestion: String? { hint }

    /// The message with the predicate's line and a caret under the failing sub-expression
    /// (``CaretRenderer``) when the error has a ``range``; else the ``description``, made safe
    /// for a terminal.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND name < 5")
    /// do { _ = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
    ///          .evaluate(["a": 1, "name": "Bo"]) }
    /// catch let e as PredicateEvaluationError { print(e.rendered) }
    /// // error: cannot order a string against a number
    /// //  --> line 1, column 12
    /// //   |
    /// // 1 | a == 1 AND name < 5
    /// //   |            ^~~~~~~~
    /// ```
    public var rendered: String {
        guard let source, let range else { return "error: " + TerminalText.visible(description) }
        var notes: [String] = []
        if let context { notes.append("in \(context)") }
        if let elementIndex { notes.append("on element \(elementIndex)") }
        return CaretRenderer.render(message: message, source: source, range: range, notes: notes, hint: hint)
    }

    /// The same error, placed at `range` of `source` unless it already has a place.
    func placed(_ range: @autoclosure () -> SourceRange, in source: String) -> PredicateEvaluationError {
        guard self.range == nil else { return self }
        var e = self
        e.range = range()
        e.source = source
        return e
    }

    /// The same error, on the element at `index` unless it already names one.
    @usableFromInline
    func on(element index: Int) -> PredicateEvaluationError {
        guard elementIndex == nil else { return self }
        var e = self
        e.elementIndex = index
        return e
    }

    /// The same error, located in `context` unless it already has a place.
    func located(_ context: @autoclosure () -> String) -> PredicateEvaluationError {
        guard self.context == nil else { return self }
        var e = self
        e.context = context()
        return e
    }
}

@usableFromInline typealias EvalError = PredicateEvaluationError

extension PredicateEvaluationError {
    static func typeMismatch(_ message: String, hint: String? = nil) -> Self { .init(kind: .typeMismatch, message: message, hint: hint) }
    static func notACollection(_ message: String, hint: String? = nil) -> Self { .init(kind: .notACollection, message: message, hint: hint) }
    static func arithmetic(_ message: String, hint: String? = nil) -> Self { .init(kind: .arithmetic, message: message, hint: hint) }
    static func aggregate(_ message: String, hint: String? = nil) -> Self { .init(kind: .aggregate, message: message, hint: hint) }
    static func unsupported(_ message: String, hint: String? = nil) -> Self { .init(kind: .unsupported, message: message, hint: hint) }
    static func index(_ message: String, hint: String? = nil) -> Self { .init(kind: .index, message: message, hint: hint) }
}

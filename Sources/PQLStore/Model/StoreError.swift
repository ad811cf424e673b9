import PQL

/// Every error the store, its model and the SQL compiler raise: what went wrong, where (the
/// predicate text's range when the error comes from a predicate), and how to fix it.
///
/// ```swift
/// do { _ = try store.fetch(EntityQuery("Flight", where: "delay > 5")) }
/// catch let error as StoreError { print(error.rendered) }   // unknown key 'delay' … did you mean 'dep_delay'?
/// ```
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The families of store errors, for programs that react to them.
    ///
    /// ```swift
    /// do { _ = try store.count(EntityQuery("Flights")) }
    /// catch { if error.kind == .unknownEntity { print(error.hint ?? "") } }   // did you mean 'Flight'?
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// The model is inconsistent (duplicate names, a missing destination or inverse, …).
        case invalidModel
        /// A model file could not be read.
        case modelFile
        /// An entity name the model lacks.
        case unknownEntity
        /// A key (attribute or relationship) the entity lacks (decision D5).
        case unknownKey
        /// A predicate construct with no SQL form.
        case unsupported
        /// Operands of kinds that cannot be compared or combined.
        case typeMismatch
        /// A `$variable` without a value.
        case unboundVariable
        /// A value that does not fit its attribute (wrong type, NULL in a non-optional attribute).
        case invalidValue
        /// A uniqueness or foreign-key rule, or a deny delete rule, refused a change.
        case constraint
        /// SQLite reported an error PQL has no plainer words for (the message says what SQLite said).
        case sqlite
        /// The file cannot be opened, read or written: missing, a directory, a pipe, no
        /// permission, a read-only file or directory, an I/O error.
        case fileAccess
        /// The file is not an SQLite database (empty, text, another format).
        case notADatabase
        /// The file is an SQLite database with damaged pages.
        case corrupt
        /// Another connection held a lock for longer than the store waits (5 seconds).
        case busy
        /// The disk is full, or the database reached its size limit: nothing of the change was written.
        case diskFull
        /// The operation was cancelled (task cancellation or an interrupt).
        case cancelled
        /// A data file (JSON, CSV) could not be imported.
        case importFailed
        /// The predicate text did not parse.
        case syntax
        /// In-memory evaluation failed (a MATCHES pattern, arithmetic, …) while the store ran it.
        case evaluation
        /// The model a store is opened with differs from the one saved in it in ways the store
        /// cannot migrate by itself (a type change, a removed attribute holding data, …), or the
        /// store is read-only; ``StoreError/modelChanges`` lists each difference.
        case modelMismatch
    }

    /// What went wrong, as a value a program can switch on.
    public let kind: Kind
    /// One sentence saying what is wrong.
    public let message: String
    /// How to fix it, when a likely fix is known.
    public let hint: String?
    /// The predicate text the error refers to, when there is one.
    public var source: String?
    /// Where in `source` the problem is.
    public var range: SourceRange?
    /// For an ``Kind/evaluation`` error, the evaluator's own error: the kind, message and hint
    /// in-memory evaluation raises for the same predicate on the same values (decision D3).
    ///
    /// ```swift
    /// do { _ = try store.count(EntityQuery("Flight", where: "dep_delay * 4611686018427387904 > 0")) }
    /// catch let e as StoreError { print(e.evaluationError?.kind as Any) }   // integerOverflow
    /// ```
    public var evaluationError: PredicateEvaluationError?
    /// For a ``Kind/modelMismatch`` error, each difference between the saved model and the new
    /// one that stopped the migration (entity, property, old → new), as the message lists them.
    ///
    /// ```swift
    /// do { _ = try PredicateStore(path: "app.sqlite", model: v2) }
    /// catch let e as StoreError { for c in e.modelChanges { print(c) } }   // attribute Person.age: type integer16 → string
    /// ```
    public var modelChanges: [ModelChange] = []

    /// Creates a store error, with the predicate text and the range it refers to when there is one.
    ///
    /// ```swift
    /// let e = StoreError(.unknownEntity, "no entity 'Flights'", hint: "did you mean 'Flight'?")
    /// ```
    public init(_ kind: Kind, _ message: String, hint: String? = nil, source: String? = nil, range: SourceRange? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
        self.source = source
        self.range = range
    }

    /// The store's form of an error the evaluator raised (in a shared SQLite function, or
    /// while folding constants): same message and hint, the original kept.
    ///
    /// ```swift
    /// let e = StoreError(evaluation: PredicateEvaluationError(kind: .integerOverflow, message: "integer overflow: …"))
    /// e.kind                      // .evaluation
    /// e.evaluationError?.kind     // .integerOverflow
    /// ```
    public init(evaluation error: PredicateEvaluationError) {
        self.init(.evaluation, error.message, hint: error.hint)
        var original = error
        original.context = nil
        evaluationError = original
    }

    /// The message after the place in the predicate, then the hint, on one line.
    public var description: String {
        var s = message
        if let range { s = "\(range): \(s)" }
        if let hint { s += " (\(hint))" }
        return s
    }

    /// The message with the source line and a caret under the problem, for terminals: control
    /// characters of the input show as symbols (`␛`, `␇`…), never raw, and a long line is cut
    /// to the part around the caret.
    public var rendered: String {
        guard let source, let range else { return TerminalText.visible(description) }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard range.line >= 1, range.line <= lines.count else { return TerminalText.visible(description) }
        let line = lines[range.line - 1]
        let split = line.index(line.startIndex, offsetBy: max(0, range.column - 1), limitedBy: line.endIndex) ?? line.endIndex
        let (head, tail) = TerminalText.window(before: line[..<split], after: line[split...])
        let caret = TerminalText.blanks(under: head)
            + String(repeating: "^", count: max(1, min(range.length, tail.count)))
        var s = "error: \(TerminalText.visible(message))\n  \(head)\(tail)\n  \(caret)"
        if let hint { s += "\nhint: \(TerminalText.visible(hint))" }
        return s
    }

    /// The same error, located where `needle` occurs in `source` (key paths and operators
    /// have no positions in the tree, so the store finds them in the text: see `offset(of:in:)`).
    func located(in source: String?, at needle: String?) -> StoreError {
        var e = self
        guard let source else { return e }
        e.source = source
        if let needle, !needle.isEmpty, let offset = Self.offset(of: needle, in: source) {
            e.range = SourceRange(locating: offset, length: needle.utf8.count, in: source)
        }
        return e
    }

    /// The UTF-8 offset of `needle` in `source`: preferably an occurrence outside quoted
    /// strings that is a whole word (so `nam` is not found inside `name`, nor inside `'nam'`),
    /// else the first occurrence.
    static func offset(of needle: String, in source: String) -> Int? {
        let text = Array(source.utf8), word = Array(needle.utf8)
        guard !word.isEmpty, word.count <= text.count else { return nil }
        func isWordByte(_ b: UInt8) -> Bool {
            b >= 0x80 || b == UInt8(ascii: "_") || (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A)
        }
        var first: Int? = nil, outside: Int? = nil
        var quote: UInt8? = nil
        var i = 0
        while i + word.count <= text.count {
            let b = text[i]
            if let q = quote {
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
                if first == nil, text[i..<(i + word.count)].elementsEqual(word) { first = i }
                quote = b
                i += 1
                continue
            }
            if text[i..<(i + word.count)].elementsEqual(word) {
                if first == nil { first = i }
                if quote == nil {
                    let before = i == 0 || !isWordByte(word[0]) || !isWordByte(text[i - 1])
                    let end = i + word.count
                    let after = end == text.count || !isWordByte(word[word.count - 1]) || !isWordByte(text[end])
                    if before && after { return i }
                    if outside == nil { outside = i }
                }
            }
            i += 1
        }
        return outside ?? first
    }

    static func unknownKey(_ key: String, entity: String, candidates: [String]) -> StoreError {
        let near = SharedSemantics.nearestNames(to: key, in: candidates)
        let hint = near.isEmpty ? "the entity's keys are: \(candidates.sorted().prefix(12).joined(separator: ", "))"
                                : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?"
        return StoreError(.unknownKey, "keypath '\(key)' not found in entity \(entity)", hint: hint)
    }
}

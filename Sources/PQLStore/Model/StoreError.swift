import Foundation
import PQL

/// Every error the store, its model and the SQL compiler raise: what went wrong, where (the
/// predicate text's range when the error comes from a predicate), and how to fix it.
///
/// ```swift
/// do { _ = try store.fetch(EntityQuery("Flight", where: "delay > 5")) }
/// catch let error as StoreError { print(error.rendered) }   // unknown key 'delay' … did you mean 'dep_delay'?
/// ```
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
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
        /// A database server (PostgreSQL, through PQLPostgres) could not be reached or reported an
        /// error PQL has no plainer words for (the message says what the server said).
        case server
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
        /// A wait the store bounds ran out: a connection to the server, a free connection of
        /// its pool, a cancelled statement to stop (PQLPostgres's `PostgresWaitLimits`). The
        /// message names what was waited for, and for how long.
        case timedOut
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
    /// The entity the error is about, when it is about one: the entity of an unknown key, the
    /// entity a model file or model check found wrong.
    ///
    /// ```swift
    /// do { _ = try StoreModel(json: Data(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "float128"}]}]}"#.utf8)) }
    /// catch let e as StoreError { print(e.entity ?? "-", e.property ?? "-") }   // A x
    /// ```
    public var entity: String?
    /// The property (attribute, relationship, key) of ``entity`` the error is about.
    ///
    /// ```swift
    /// do { _ = try store.fetch(EntityQuery("Flight", where: "airline.nme == 'x'")) }
    /// catch let e as StoreError { print(e.entity ?? "", e.property ?? "") }   // Airline nme
    /// ```
    public var property: String?
    /// The fetch template the error is about (a model file's template that does not fit).
    ///
    /// ```swift
    /// do { _ = try StoreModel([ModelEntity("A")], templates: [FetchTemplate(name: "T", entity: "B", predicate: "TRUEPREDICATE")]) }
    /// catch let e as StoreError { print(e.template ?? "") }   // T
    /// ```
    public var template: String?
    /// The nodes the error passed through in the SQL compiler, until it is placed.
    var trail = NodeTrail()

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

    /// The message, so that `error.localizedDescription` reads as it should.
    ///
    /// ```swift
    /// do { _ = try store.count(EntityQuery("Flight", where: "delay > 5")) }
    /// catch { print(error.localizedDescription) }   // keypath 'delay' not found in entity Flight
    /// ```
    public var errorDescription: String? { message }

    /// The hint, for `LocalizedError` readers.
    ///
    /// ```swift
    /// StoreError(.unknownKey, "keypath 'agee' not found", hint: "did you mean 'age'?").recoverySuggestion
    /// ```
    public var recoverySuggestion: String? { hint }

    /// The message with the source line and a caret under the problem, by the renderer of
    /// every PQL error (`CaretRenderer`): control characters of the input show as symbols
    /// (`␛`, `␇`…), never raw, a long line is cut to the part around the caret, CRLF line ends
    /// and wide characters keep the caret in place. Without a place, the ``description``.
    public var rendered: String {
        guard let source, let range else { return TerminalText.visible(description) }
        return CaretRenderer.render(message: message, source: source, range: range, hint: hint)
    }

    /// The same error saying `message`: its place, subject and evaluator's error kept (a file
    /// name or a row number put before the message must not lose them).
    package func reworded(_ message: String) -> StoreError {
        var e = StoreError(kind, message, hint: hint, source: source, range: range)
        e.evaluationError = evaluationError
        e.entity = entity
        e.property = property
        e.template = template
        return e
    }

    /// The same error, about `entity` (and its `property`, or a `template`), unless an inner
    /// step named a subject already.
    func about(entity: String? = nil, property: String? = nil, template: String? = nil) -> StoreError {
        guard self.entity == nil && self.template == nil else { return self }
        var e = self
        e.entity = entity
        e.property = property
        e.template = template
        return e
    }

    /// The same error, noting that it passed through the compilation of `node` (the SQL
    /// compiler's predicate and operand functions call this as errors leave them).
    func passing(through node: SourceMap.Item) -> StoreError {
        guard range == nil else { return self }
        var e = self
        e.trail.items.append(node)
        return e
    }

    /// For an error a `pql_*` SQL function raised while SQLite ran the statement (or one of
    /// the functions PQL installs in PostgreSQL): the index of the node it computes in the
    /// query's ``SourceMap`` (the call's last argument).
    package var sourceNode: Int? {
        get { trail.node }
        set { trail.node = newValue }
    }

    /// The same error, placed at the node of `map` that the SQL function which raised it
    /// computes (``sourceNode``), as the evaluator places it; unchanged without a node or map.
    package func placedAtSourceNode(of map: SourceMap?) -> StoreError {
        guard range == nil, let node = sourceNode, let map, let r = SourceLocator.range(ofNode: node, in: map) else { return self }
        var e = self
        e.source = map.source
        e.range = r
        e.sourceNode = nil
        return e
    }

    /// The same error, placed in the predicate text at the innermost node it passed through,
    /// as the parser recorded it (`map`); unplaced when the map is missing or does not fit.
    func placed(in tree: PredicateNode, map: SourceMap?) -> StoreError {
        guard range == nil, let map else { return self }
        var e = self
        e.source = map.source
        e.range = map.range(ofInnermost: trail.items.reversed(), in: tree) ?? map.range(of: map.root)
        e.trail = NodeTrail()
        return e
    }

    package static func unknownKey(_ key: String, entity: String, candidates: [String]) -> StoreError {
        let near = SharedSemantics.nearestNames(to: key, in: candidates)
        let hint = near.isEmpty ? "the entity's keys are: \(candidates.sorted().prefix(12).joined(separator: ", "))"
                                : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?"
        // Control characters (a NUL from %K) shown escaped: printed raw, 'name\0' looks like 'name'.
        let shown = key.unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        var e = StoreError(.unknownKey, "keypath '\(shown)' not found in entity \(entity)", hint: hint)
        e.entity = entity
        e.property = key
        return e
    }
}

/// The nodes an error left on its way out of the SQL compiler, innermost first. Bookkeeping,
/// not part of what the error says: two errors are equal whatever their trails.
struct NodeTrail: Hashable, Sendable {
    var items: [SourceMap.Item] = []
    /// See ``StoreError/sourceNode``.
    var node: Int? = nil

    static func == (a: NodeTrail, b: NodeTrail) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

import CLineEdit
import Foundation
import PQL
import PQLStore

/// What the REPL asks of the data it was opened on: an SQLite store or a PostgreSQL database
/// (fetches compiled to SQL) or a file read into memory (the evaluator), behind one interface so that every command
/// works the same on both.
protocol QuerySource: AnyObject {
    /// One line for the banner: what is loaded.
    var title: String { get }
    /// Entities, in the order `.entities` lists them.
    var entityNames: [String] { get }
    /// The entity to start on.
    var defaultEntity: String? { get }
    func entity(named name: String) -> EntityInfo?
    func count(_ request: QueryRequest) throws -> Int
    /// The values of `columns` (key paths) for each row of the page `request` selects.
    func rows(_ request: QueryRequest, columns: [String]) throws -> [[PredicateValue]]
    /// The rows of a grouping query (`.group`): the store groups in SQL, a file in memory.
    func groups(_ query: GroupQuery) throws -> [[String: PredicateValue]]
    /// The different values of `keyPaths` over the rows `request` matches (`.distinct`), sorted
    /// ascending and paged: the store with SQL's DISTINCT, a file in memory.
    func distinct(_ keyPaths: [String], _ request: QueryRequest) throws -> [[PredicateValue]]
    /// The SQL and its bound values, or nil when the source is evaluated in memory.
    func sql(_ request: QueryRequest) throws -> (sql: String, bindings: [String])?
    /// How the SQL names its parameters: `?` (`?1`, `?2`… in listings) on SQLite, `$` on PostgreSQL.
    var parameterPrefix: String { get }
    /// The database's plan, or nil when the source is evaluated in memory.
    func plan(_ request: QueryRequest) throws -> [String]?
    /// Checks that `keyPaths` name keys of `entity` (for `.columns` and `.sort`): an unknown
    /// one is an error with the nearest names.
    func checkKeyPaths(_ keyPaths: [String], entity: String) throws
    /// Stops a running query from another thread (a signal handler's flag is read here too).
    func interrupt()
    /// The file this source read or keeps open, first, then the files SQLite keeps beside a
    /// database: what `.output` and `.once` must never empty. None for a server.
    var protectedFiles: [String] { get }
    /// Tables model inference left out, each with the reason (none in a file read into memory).
    var skippedTables: [String: String] { get }
}

extension QuerySource {
    var parameterPrefix: String { "?" }
    var protectedFiles: [String] { [] }
    var skippedTables: [String: String] { [:] }

    /// One line per left-out table, `left out: NAME: REASON`, for the banner and `.entities`.
    var skippedTableLines: [String] {
        skippedTables.sorted { $0.key < $1.key }.map { "left out: \($0.key): \($0.value)" }
    }
}

/// An entity as the REPL shows and completes it.
struct EntityInfo {
    struct Attribute { var name: String; var type: String; var notes: String = "" }
    /// `joinTable`: a many-to-many's, which `.schema` names.
    struct Relationship { var name: String; var target: String; var toMany: Bool; var joinTable: String? = nil }
    var name: String
    var attributes: [Attribute]
    var relationships: [Relationship]
    var rowCount: Int?
}

/// One query as typed: the predicate (with its text, for carets) and the session's settings.
struct QueryRequest {
    var entity: String
    var text: String
    var predicate: PredicateNode
    var sort: [SortRule]
    var offset: Int
    var limit: Int?
    var variables: [String: PredicateValue]
    /// The work the query may do (`.limits`).
    var limits: EvaluationLimits
    /// Where each node of `predicate` was written in `text`.
    var sourceMap: SourceMap? = nil

    /// The same request without paging (for the count of all matches).
    var unpaged: QueryRequest {
        var r = self
        r.limit = nil
        r.offset = 0
        return r
    }
}

/// An error the REPL words itself (a bad command, an unknown entity).
struct ReplError: Error {
    var message: String
    var hint: String?
    /// The predicate text and the place in it the error is about, when there is one.
    var place: (source: String, range: SourceRange)?

    init(_ message: String, hint: String? = nil, place: (source: String, range: SourceRange)? = nil) {
        self.message = message
        self.hint = hint
        self.place = place
    }

    var rendered: String {
        if let place { return CaretRenderer.render(message: message, source: place.source, range: place.range, hint: hint) }
        return "error: \(message)" + (hint.map { "\nhint: \($0)" } ?? "")
    }
}

/// Raised by the SIGINT handler while a query runs; cleared when the next one starts. Read by
/// the thread that interrupts SQLite, so it is an atomic (in CLineEdit's C).
enum InterruptFlag {
    static var isRaised: Bool { pql_interrupt_is_raised() != 0 }
    static func raise() { pql_interrupt_raise() }
    static func clear() { pql_interrupt_clear() }
}

extension QueryRequest {
    /// The request as a fetch: the session parsed the predicate already; its text goes along
    /// so that errors point into it.
    var entityQuery: EntityQuery {
        var q = EntityQuery(entity, predicate: predicate, sort: sort, offset: offset, limit: limit,
                            variables: variables, limits: limits)
        q.predicateText = text
        q.sourceMap = sourceMap
        return q
    }
}

extension EntityInfo {
    /// What `.entities` and `.columns` show of a store's entity (SQLite or PostgreSQL alike).
    init(_ e: ModelEntity, in model: StoreModel, rowCount: Int?) {
        let attributes = model.allAttributes(e).map { a -> EntityInfo.Attribute in
            var notes: [String] = []
            if a.isUnique { notes.append("unique") }
            if a.isIndexed { notes.append("indexed") }
            if !a.isOptional { notes.append("required") }
            return EntityInfo.Attribute(name: a.name, type: a.isUntyped ? "untyped" : a.type.rawValue, notes: notes.joined(separator: ", "))
        }
        let relationships = model.allRelationships(e).map {
            EntityInfo.Relationship(name: $0.name, target: $0.destination, toMany: $0.isToMany, joinTable: $0.joinTable)
        }
        self.init(name: e.name, attributes: attributes, relationships: relationships, rowCount: rowCount)
    }
}

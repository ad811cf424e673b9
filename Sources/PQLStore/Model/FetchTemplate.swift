import PQL

/// A fetch request stored in the model under a name, with `$variables` filled in when it is
/// instantiated (Core Data's fetch request templates).
///
/// ```swift
/// let template = FetchTemplate(name: "DelayedBy", entity: "Flight", predicate: "dep_delay > $minutes")
/// ```
public struct FetchTemplate: Hashable, Sendable {
    public var name: String
    public var entity: String
    /// The predicate's format text, `$variables` and all.
    public var predicate: String
    public var sort: [SortRule]
    public var limit: Int?

    public init(name: String, entity: String, predicate: String, sort: [SortRule] = [], limit: Int? = nil) {
        self.name = name
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }
}

import PQL

/// A fetch request stored in the model under a name, with `$variables` filled in when it is
/// instantiated (Core Data's fetch request templates).
///
/// ```swift
/// let template = FetchTemplate(name: "DelayedBy", entity: "Flight", predicate: "dep_delay > $minutes")
/// ```
public struct FetchTemplate: Hashable, Sendable {
    /// The name the template is fetched by (`fetch(template:variables:)`).
    public var name: String
    /// The entity the template fetches.
    public var entity: String
    /// The predicate's format text, `$variables` and all.
    public var predicate: String
    /// The sort keys, most significant first.
    public var sort: [SortRule]
    /// The most records to return; nil for no limit.
    public var limit: Int?

    /// Creates a template; `predicate` is format text whose `$variables` get values when it is fetched.
    public init(name: String, entity: String, predicate: String, sort: [SortRule] = [], limit: Int? = nil) {
        self.name = name
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }
}

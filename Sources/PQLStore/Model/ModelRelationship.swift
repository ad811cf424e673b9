/// A link from one entity to another: to-one (a foreign-key column on the source table) or
/// to-many (the inverse to-one's column on the destination table).
///
/// ```swift
/// let airline = ModelRelationship("airline", to: "Airline", inverse: "flights")
/// let flights = ModelRelationship("flights", toMany: "Flight", inverse: "airline", deleteRule: .cascade)
/// ```
public struct ModelRelationship: Hashable, Sendable {
    /// What happens to the related objects when the source object is deleted.
    ///
    /// ```swift
    /// let books = ModelRelationship("books", toMany: "Book", inverse: "author", deleteRule: .cascade)
    /// ```
    public enum DeleteRule: String, Hashable, Sendable, Codable, CaseIterable {
        /// Clear the inverse link (the default).
        case nullify
        /// Delete the related objects too.
        case cascade
        /// Refuse to delete while related objects exist.
        case deny
        /// Leave the related objects as they are.
        case noAction
    }

    /// The name predicates use in key paths (`airline.name`).
    public var name: String
    /// The entity the relationship leads to.
    public var destination: String
    /// Whether it leads to many objects (`ANY flights.dest == …`) rather than one.
    public var isToMany: Bool
    /// The inverse relationship's name on the destination entity.
    public var inverse: String?
    /// What deleting the source object does to the related objects.
    public var deleteRule: DeleteRule
    /// Whether a to-one may be nil; a non-optional one must always name an object.
    public var isOptional: Bool
    /// For a to-one: the column on the source table holding the destination's key. For a
    /// to-many it is unused (the inverse to-one's column is used). Defaults to the name.
    public var foreignKeyColumn: String
    /// For a to-one: the destination column the foreign key refers to; nil means the
    /// destination's primary key. Inferred models use it for keys like `carrier` → `airlines.carrier`.
    public var referencedColumn: String?
    /// The relationship's name in the previous model version, when it was renamed (Core Data's
    /// renaming identifier): a to-one's key column is renamed on open, keeping the links.
    ///
    /// ```swift
    /// var writer = ModelRelationship("writer", to: "Author")
    /// writer.renamingIdentifier = "author"
    /// ```
    public var renamingIdentifier: String?

    /// A to-one relationship.
    public init(_ name: String, to destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
                isOptional: Bool = true, foreignKeyColumn: String? = nil, referencedColumn: String? = nil) {
        self.name = name
        self.destination = destination
        self.isToMany = false
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.foreignKeyColumn = foreignKeyColumn ?? name
        self.referencedColumn = referencedColumn
    }

    /// A to-many relationship; `inverse` names the to-one on the destination that stores the link.
    public init(_ name: String, toMany destination: String, inverse: String, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.isToMany = true
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = true
        self.foreignKeyColumn = name
        self.referencedColumn = nil
    }
}

/// A link from one entity to another: to-one (a foreign-key column on the source table),
/// to-many (the inverse to-one's column on the destination table), or many-to-many (a to-many
/// whose inverse is a to-many too: a join table holds one row per link).
///
/// ```swift
/// let airline = ModelRelationship("airline", to: "Airline", inverse: "flights")
/// let flights = ModelRelationship("flights", toMany: "Flight", inverse: "airline", deleteRule: .cascade)
/// let tags = ModelRelationship("tags", toMany: "Tag", inverse: "notes")     // Tag.notes is to-many too
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
    /// For a many-to-many relationship: the join table holding one row per link (the same table
    /// for both sides). A model fills it in when a declared pair leaves it out: the first side's
    /// entity and relationship names, `Note_tags` for `Note.tags` and `Tag.notes` (the sides
    /// ordered by entity name, then relationship name). nil for a to-one and for a to-many
    /// stored in its inverse's foreign key.
    ///
    /// ```swift
    /// let tags = ModelRelationship("tags", toMany: "Tag", inverse: "notes", joinTable: "note_tag",
    ///                              joinColumn: "note_id", inverseJoinColumn: "tag_id")
    /// ```
    public var joinTable: String?
    /// For a many-to-many relationship: the join table's column holding the source object's
    /// key (the inverse's ``inverseJoinColumn``). Filled in when left out: the inverse
    /// relationship's name (`notes` for `Note.tags`: the column holding notes' keys).
    ///
    /// ```swift
    /// let column = try model.entity(named: "Note").relationships[0].joinColumn   // "notes"
    /// ```
    public var joinColumn: String?
    /// For a many-to-many relationship: the join table's column holding the destination
    /// object's key (the inverse's ``joinColumn``). Filled in when left out: the relationship's
    /// own name (`tags` for `Note.tags`).
    ///
    /// ```swift
    /// let column = try model.entity(named: "Note").relationships[0].inverseJoinColumn   // "tags"
    /// ```
    public var inverseJoinColumn: String?

    /// Whether links are rows of a join table: a to-many whose inverse is a to-many.
    ///
    /// ```swift
    /// let isJoin = try model.entity(named: "Note").relationships[0].isManyToMany
    /// ```
    public var isManyToMany: Bool { isToMany && joinTable != nil }

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

    /// A to-many relationship; `inverse` names the relationship on the destination that leads
    /// back: a to-one storing the link, or a to-many, which makes the pair many-to-many (stored
    /// in a join table; the model names it, and its columns, unless they are given here).
    ///
    /// ```swift
    /// let notes = ModelRelationship("notes", toMany: "Note", inverse: "tags")
    /// ```
    public init(_ name: String, toMany destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
                joinTable: String? = nil, joinColumn: String? = nil, inverseJoinColumn: String? = nil) {
        self.name = name
        self.destination = destination
        self.isToMany = true
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = true
        self.foreignKeyColumn = name
        self.referencedColumn = nil
        self.joinTable = joinTable
        self.joinColumn = joinColumn
        self.inverseJoinColumn = inverseJoinColumn
    }
}

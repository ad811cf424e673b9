/// An entity: a named kind of record with attributes and relationships, stored in one table.
///
/// Sub-entities (`parent`) share their root entity's table, told apart by an entity column,
/// as Core Data does; an abstract entity has no instances of its own.
///
/// ```swift
/// let airline = ModelEntity("Airline", attributes: [
///     ModelAttribute("carrier", .string, isOptional: false, isUnique: true),
///     ModelAttribute("name", .string),
/// ], relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")])
/// ```
public struct ModelEntity: Hashable, Sendable {
    /// The name queries and predicates use.
    public var name: String
    /// Attributes declared on this entity (a sub-entity also has its parents' attributes).
    public var attributes: [ModelAttribute]
    /// Links to other entities declared on this entity.
    public var relationships: [ModelRelationship]
    /// The parent entity's name, for inheritance.
    public var parent: String?
    /// Whether the entity has no records of its own, only through its sub-entities.
    public var isAbstract: Bool
    /// Composite indexes, each a list of attribute names.
    public var indexes: [[String]]
    /// Composite uniqueness constraints, each a list of attribute names.
    public var uniqueness: [[String]]
    /// The table; the entity name unless the model maps it elsewhere.
    public var table: String
    /// The integer primary-key column. `Z_PK` for stores PQL creates; the table's own
    /// `INTEGER PRIMARY KEY` (or `rowid`) for inferred models.
    public var primaryKey: String
    /// The entity's name in the previous model version, when it was renamed (Core Data's
    /// renaming identifier): a store saved with that model keeps the entity's rows, renaming
    /// its table, instead of dropping one entity and adding another.
    ///
    /// ```swift
    /// let author = ModelEntity("Author", attributes: [ModelAttribute("name", .string)], renamingIdentifier: "Writer")
    /// ```
    public var renamingIdentifier: String?

    /// Creates an entity stored in a table of its name with the primary key `Z_PK`, unless `table` and `primaryKey` say otherwise.
    ///
    /// ```swift
    /// let tag = ModelEntity("Tag", attributes: [ModelAttribute("name", .string, isOptional: false)])
    /// ```
    public init(_ name: String, attributes: [ModelAttribute] = [], relationships: [ModelRelationship] = [],
                parent: String? = nil, isAbstract: Bool = false, indexes: [[String]] = [], uniqueness: [[String]] = [],
                table: String? = nil, primaryKey: String = "Z_PK", renamingIdentifier: String? = nil) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.parent = parent
        self.isAbstract = isAbstract
        self.indexes = indexes
        self.uniqueness = uniqueness
        self.table = table ?? name
        self.primaryKey = primaryKey
        self.renamingIdentifier = renamingIdentifier
    }
}

extension ModelEntity {
    /// Whether an attribute or a relationship declared on this entity has the name (inferences
    /// use it to find a free name for a relationship they add).
    package func hasProperty(named name: String) -> Bool {
        attributes.contains { $0.name == name } || relationships.contains { $0.name == name }
    }
}

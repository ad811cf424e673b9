import PQL

/// One stored property of an entity.
///
/// ```swift
/// let name = ModelAttribute("name", .string, isOptional: false, isIndexed: true)
/// let rating = ModelAttribute("rating", .double, defaultValue: .double(0))
/// ```
public struct ModelAttribute: Hashable, Sendable {
    /// The name predicates use.
    public var name: String
    /// The stored type: the column type and how values convert.
    public var type: AttributeType
    /// Whether the attribute may be nil. Non-optional attributes are `NOT NULL` columns.
    public var isOptional: Bool
    /// The value an insert without this attribute stores.
    public var defaultValue: PredicateValue?
    /// Whether a single-column index is created for it.
    public var isIndexed: Bool
    /// Whether its values must be distinct (a `UNIQUE` index).
    public var isUnique: Bool
    /// The SQLite column; the attribute name unless the model maps it elsewhere (inferred models
    /// keep the database's own names).
    public var column: String
    /// The attribute's name in the previous model version, when it was renamed (Core Data's
    /// renaming identifier): a store saved with that model renames the column on open, keeping
    /// its values, instead of dropping one attribute and adding another.
    ///
    /// ```swift
    /// let nickname = ModelAttribute("nickname", .string, renamingIdentifier: "nick")
    /// ```
    public var renamingIdentifier: String?
    /// Whether the column was declared without a type (`CREATE TABLE note(folder_id)`), so that
    /// SQLite keeps each value as the kind it was given. Predicates then compare its values row
    /// by row as the evaluator does, and writes store any value; only inferred SQLite models
    /// have such attributes.
    public var isUntyped: Bool = false

    /// Creates an attribute; the column is named after it unless `column` says otherwise.
    ///
    /// ```swift
    /// let code = ModelAttribute("carrier", .string, isOptional: false, isUnique: true)
    /// ```
    public init(_ name: String, _ type: AttributeType, isOptional: Bool = true, defaultValue: PredicateValue? = nil,
                isIndexed: Bool = false, isUnique: Bool = false, column: String? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.isUnique = isUnique
        self.column = column ?? name
        self.renamingIdentifier = renamingIdentifier
    }
}

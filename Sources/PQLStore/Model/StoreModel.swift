import PQL

/// A model: the entities a store holds, their relationships, and named fetch templates.
///
/// Build one in Swift, load it from a JSON model file (``StoreModel/init(json:)``), import an
/// Xcode model (``StoreModel/init(xcdatamodel:)``), or infer it from an existing SQLite file
/// (``PredicateStore/inferModel()``). Validation runs once, when the model is made.
///
/// ```swift
/// let model = try StoreModel([
///     ModelEntity("Airline", attributes: [ModelAttribute("carrier", .string), ModelAttribute("name", .string)],
///                 relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
///     ModelEntity("Flight", attributes: [ModelAttribute("dep_delay", .integer64)],
///                 relationships: [ModelRelationship("airline", to: "Airline", inverse: "flights")]),
/// ])
/// ```
public struct StoreModel: Hashable, Sendable {
    /// The entities in declaration order.
    public let entities: [ModelEntity]
    /// The named fetch request templates, fetched with `fetch(template:variables:)`.
    public let templates: [FetchTemplate]
    private let index: [String: Int]

    /// Whose rules decide which names of a model are one table or one column: SQLite's (the
    /// default), which ignore the case of ASCII letters (`Person` and `person` are one table),
    /// or PostgreSQL's, whose quoted names are exact (`"Thing"` and `"thing"` are two).
    ///
    /// ```swift
    /// let model = try StoreModel([ModelEntity("Thing"), ModelEntity("thing")], names: .postgreSQL)   // two tables
    /// ```
    public enum NameRules: Sendable, Hashable {
        /// SQLite's: names that differ only in ASCII case are one; `sqlite_` names are SQLite's own.
        case sqlite
        /// PostgreSQL's: quoted names are compared exactly.
        case postgreSQL
    }

    /// Creates a model, checking it: names, destinations and inverses, parents, indexes; an
    /// inconsistent model is a ``StoreError/Kind/invalidModel`` error. Names that would be one
    /// table or column are refused by `names`' rules: SQLite's unless the model is for a
    /// PostgreSQL store (an SQLite store checks a model by its rules again when it opens).
    ///
    /// ```swift
    /// let model = try StoreModel([ModelEntity("Tag", attributes: [ModelAttribute("name", .string)])])
    /// ```
    public init(_ entities: [ModelEntity], templates: [FetchTemplate] = [], names: NameRules = .sqlite) throws(StoreError) {
        // A many-to-many pair that leaves its join table unnamed gets the default names here,
        // so every reader of the model (compiler, writes, schema, saved model) sees one table.
        let entities = Self.completingJoinTables(entities).map(Self.withKeyAttribute)
        self.entities = entities
        self.templates = templates
        var index: [String: Int] = [:]
        for (i, e) in entities.enumerated() {
            guard index[e.name] == nil else { throw StoreError(.invalidModel, "entity '\(e.name)' is declared twice").about(entity: e.name) }
            index[e.name] = i
        }
        self.index = index
        try validate(names)
    }

    /// `entity` with its declared key readable: a root entity keyed by a column of its own
    /// (`primaryKey: "id"`) that no attribute declares gets an optional integer attribute of
    /// that name, so `id == 15`, `--sort id:desc` and records carry the key as Core Data apps
    /// and REST APIs use it (nil on insert: the store assigns the key). The store's own
    /// `Z_PK` stays hidden, as in Core Data; `SELF` and object comparisons reach it.
    static func withKeyAttribute(_ entity: ModelEntity) -> ModelEntity {
        guard entity.parent == nil, entity.primaryKey != "Z_PK",
              !entity.attributes.contains(where: { SQLName.key($0.column) == SQLName.key(entity.primaryKey) || $0.name == entity.primaryKey }),
              !entity.relationships.contains(where: { $0.name == entity.primaryKey || (!$0.isToMany && $0.foreignKeyColumn == entity.primaryKey) })
        else { return entity }
        var e = entity
        e.attributes.insert(ModelAttribute(entity.primaryKey, .integer64), at: 0)
        return e
    }

    /// The entity with this name; an error with the nearest names otherwise.
    ///
    /// ```swift
    /// let flight = try model.entity(named: "Flight")
    /// ```
    public func entity(named name: String) throws(StoreError) -> ModelEntity {
        if let i = index[name] { return entities[i] }
        let names = entities.map(\.name)
        let near = SharedSemantics.nearestNames(to: name, in: names)
        throw StoreError(.unknownEntity, "no entity named '\(name)'",
                         hint: near.isEmpty ? "the model's entities are: \(names.joined(separator: ", "))"
                                            : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?")
    }

    /// The template with this name.
    public func template(named name: String) throws(StoreError) -> FetchTemplate {
        if let t = templates.first(where: { $0.name == name }) { return t }
        let near = SharedSemantics.nearestNames(to: name, in: templates.map(\.name))
        throw StoreError(.unknownEntity, "no fetch template named '\(name)'",
                         hint: near.first.map { "did you mean '\($0)'?" } ?? "templates: \(templates.map(\.name).joined(separator: ", "))")
    }

    func contains(_ name: String) -> Bool { index[name] != nil }

    /// The chain from the root entity down to `entity` (inclusive).
    package func lineage(_ entity: ModelEntity) -> [ModelEntity] {
        var chain = [entity]
        var seen: Set<String> = [entity.name]
        while let p = chain[0].parent, let i = index[p], !seen.contains(p) {
            seen.insert(p)
            chain.insert(entities[i], at: 0)
        }
        return chain
    }

    /// The root of `entity`'s inheritance tree: its table holds the whole tree.
    package func root(_ entity: ModelEntity) -> ModelEntity { lineage(entity)[0] }

    /// Attributes of `entity` including inherited ones, parents first.
    public func allAttributes(_ entity: ModelEntity) -> [ModelAttribute] { lineage(entity).flatMap(\.attributes) }

    /// Relationships of `entity` including inherited ones.
    public func allRelationships(_ entity: ModelEntity) -> [ModelRelationship] { lineage(entity).flatMap(\.relationships) }

    /// `entity` and every entity below it.
    package func descendants(_ entity: ModelEntity) -> [ModelEntity] {
        var out = [entity]
        var i = 0
        while i < out.count {
            let name = out[i].name
            out += entities.filter { $0.parent == name }
            i += 1
        }
        return out
    }

    /// Whether the entity's table holds more than one entity (so rows carry an entity column).
    package func isInheritanceTree(_ entity: ModelEntity) -> Bool {
        let r = root(entity)
        return entities.contains { $0.parent != nil && self.root($0).name == r.name }
    }

    /// The stable number of an entity in the entity column (1-based declaration order).
    package func entityNumber(_ entity: ModelEntity) -> Int { (index[entity.name] ?? 0) + 1 }

    /// The relationship on `r.destination` that stores the link of the to-many `r`.
    package func storingInverse(of r: ModelRelationship, on source: ModelEntity) throws(StoreError) -> ModelRelationship {
        let dest = try entity(named: r.destination)
        guard let inv = r.inverse, let rel = allRelationships(dest).first(where: { $0.name == inv }) else {
            throw StoreError(.invalidModel, "to-many relationship \(source.name).\(r.name) has no inverse to-one on \(r.destination)",
                             hint: "give it an inverse: a to-one relationship on \(r.destination) back to \(source.name)")
        }
        guard !rel.isToMany else {
            // Callers ask only for a to-many stored by a foreign key; a many-to-many's links
            // are rows of its join table (``joinLink(of:on:)``).
            throw StoreError(.invalidModel, "\(source.name).\(r.name) and \(r.destination).\(inv) are many-to-many: their links are rows of the join table '\(r.joinTable ?? "")', not a foreign key",
                             hint: "read the join table's columns (joinColumn, inverseJoinColumn)")
        }
        return rel
    }

    private func validate(_ names: NameRules) throws(StoreError) {
        let rules = names
        for e in entities {
            // SQLite reads SQL text as a C string: a NUL in a name would end the statement early.
            let identifiers = [e.name, e.table, e.primaryKey] + e.attributes.flatMap { [$0.name, $0.column] } + e.relationships.flatMap { [$0.name, $0.foreignKeyColumn] }
            if let bad = identifiers.first(where: { $0.utf8.contains(0) }) {
                throw StoreError(.invalidModel, "entity '\(e.name)' uses a name with a NUL character: \(bad.debugDescription)",
                                 hint: "remove the NUL from the name; SQLite cannot store it in an identifier").about(entity: e.name)
            }
            if let p = e.parent, !contains(p) {
                throw StoreError(.invalidModel, "entity '\(e.name)' names an unknown parent '\(p)'").about(entity: e.name)
            }
            if lineage(e).count > entities.count { throw StoreError(.invalidModel, "entity '\(e.name)' is its own ancestor").about(entity: e.name) }
            var names: Set<String> = []
            for a in allAttributes(e) {
                guard !a.name.isEmpty, !CollectionOperator.isOperator(a.name) else { throw StoreError(.invalidModel, "entity '\(e.name)' has an attribute with an invalid name '\(a.name)'").about(entity: e.name, property: a.name) }
                guard names.insert(a.name).inserted else { throw StoreError(.invalidModel, "entity '\(e.name)' declares '\(a.name)' twice").about(entity: e.name, property: a.name) }
            }
            for r in allRelationships(e) {
                guard names.insert(r.name).inserted else { throw StoreError(.invalidModel, "entity '\(e.name)' declares '\(r.name)' twice").about(entity: e.name, property: r.name) }
                guard contains(r.destination) else {
                    throw StoreError(.invalidModel, "relationship \(e.name).\(r.name) leads to an unknown entity '\(r.destination)'")
                        .about(entity: e.name, property: r.name)
                }
                let inverseRelationship = r.inverse.flatMap { inv in (try? entity(named: r.destination)).flatMap { dest in allRelationships(dest).first { $0.name == inv } } }
                if r.isToMany, let other = inverseRelationship, other.isToMany {
                    do throws(StoreError) { try checkManyToMany(r, on: e, inverse: other, names: rules) } catch { throw error.about(entity: e.name, property: r.name) }
                } else {
                    if r.isToMany {
                        do throws(StoreError) { _ = try storingInverse(of: r, on: e) } catch { throw error.about(entity: e.name, property: r.name) }
                    }
                    if r.joinTable != nil || r.joinColumn != nil || r.inverseJoinColumn != nil {
                        throw StoreError(.invalidModel, "\(e.name).\(r.name) names a join table, but it is not many-to-many",
                                         hint: "a join table belongs to a to-many relationship whose inverse is a to-many too; a to-one keeps its link in foreignKey")
                            .about(entity: e.name, property: r.name)
                    }
                }
                if let inv = r.inverse, let dest = try? entity(named: r.destination),
                   !allRelationships(dest).contains(where: { $0.name == inv }) {
                    throw StoreError(.invalidModel, "relationship \(e.name).\(r.name) names an inverse '\(inv)' that \(r.destination) lacks")
                        .about(entity: e.name, property: r.name)
                }
            }
            for group in e.indexes + e.uniqueness {
                for name in group where !names.contains(name) {
                    throw StoreError(.invalidModel, "index or uniqueness constraint on \(e.name) names an unknown key '\(name)'")
                        .about(entity: e.name, property: name)
                }
            }
        }
        for t in templates {
            guard contains(t.entity) else { throw StoreError(.invalidModel, "fetch template '\(t.name)' names an unknown entity '\(t.entity)'").about(template: t.name) }
        }
        try checkSQLNames(names)
    }
}

import PQL

/// One difference between two versions of a model: what changed (entity, property, old → new)
/// and whether a store can apply it by itself (Core Data's lightweight migration).
///
/// ```swift
/// let diff = ModelDiff(from: savedModel, to: newModel)
/// for change in diff.changes { print(change) }   // attribute Person.age: type integer16 → string
/// ```
public struct ModelChange: Hashable, Sendable, CustomStringConvertible {
    /// What kind of difference it is.
    ///
    /// ```swift
    /// let typeChanges = diff.changes.filter { $0.kind == .attributeTypeChanged }
    /// ```
    public enum Kind: String, Hashable, Sendable {
        /// An entity the old model lacks.
        case entityAdded
        /// An entity the new model lacks (and no entity names as its renaming identifier).
        case entityRemoved
        /// An entity whose renaming identifier names an entity of the old model.
        case entityRenamed
        /// An entity's parent, table, primary key or abstractness changed.
        case entityChanged
        /// An attribute the old entity lacks.
        case attributeAdded
        /// An attribute the new entity lacks.
        case attributeRemoved
        /// An attribute whose renaming identifier names one of the old entity's.
        case attributeRenamed
        /// An attribute of another type.
        case attributeTypeChanged
        /// An optional attribute made required without a default value.
        case attributeMadeRequired
        /// An attribute's optionality, default value or column changed.
        case attributeChanged
        /// A relationship the old entity lacks.
        case relationshipAdded
        /// A relationship the new entity lacks.
        case relationshipRemoved
        /// A relationship whose renaming identifier names one of the old entity's.
        case relationshipRenamed
        /// A relationship's destination, cardinality, optionality, inverse, delete rule or column changed.
        case relationshipChanged
        /// An index or uniqueness constraint the old model lacks.
        case indexAdded
        /// An index or uniqueness constraint the new model lacks.
        case indexRemoved
        /// The fetch templates differ (nothing to migrate in the data).
        case templatesChanged
    }

    /// Whether a store can make the change without a migration step.
    ///
    /// ```swift
    /// let refused = diff.changes.filter { $0.migration == .needsStep }
    /// ```
    public enum Migration: String, Hashable, Sendable {
        /// Always: the store applies it (adding a column, renaming, an index).
        case lightweight
        /// Only while the entity or attribute holds no data (dropping one, or adding a
        /// required attribute without a default): the store checks before migrating.
        case whenEmpty
        /// Never by itself: it needs a migration step that transforms the data (a type change,
        /// making an attribute required without a default, moving an entity in the hierarchy).
        case needsStep
    }

    /// What kind of difference it is.
    public let kind: Kind
    /// The entity's name in the new model (in the old one when it was removed).
    public let entity: String
    /// The attribute or relationship, when the change is to one.
    public let property: String?
    /// What it was, in words (`integer16`, `optional`), when that is part of the change.
    public let old: String?
    /// What it becomes.
    public let new: String?
    /// Whether the store can make the change by itself.
    public let migration: Migration
    /// Why the change is refused, or what to do about it (set when it cannot be migrated).
    public var hint: String?

    /// Makes a change record; ``ModelDiff`` makes them when it compares two models.
    ///
    /// ```swift
    /// let c = ModelChange(.attributeTypeChanged, entity: "Person", property: "age", old: "integer16", new: "string", migration: .needsStep)
    /// ```
    public init(_ kind: Kind, entity: String, property: String? = nil, old: String? = nil, new: String? = nil,
                migration: Migration, hint: String? = nil) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.old = old
        self.new = new
        self.migration = migration
        self.hint = hint
    }

    /// `attribute Person.age: type integer16 → string`.
    public var description: String {
        let subject: String
        switch kind {
        case .entityAdded, .entityRemoved, .entityRenamed, .entityChanged: subject = "entity \(entity)"
        case .attributeAdded, .attributeRemoved, .attributeRenamed, .attributeTypeChanged, .attributeMadeRequired, .attributeChanged:
            subject = "attribute \(entity).\(property ?? "")"
        case .relationshipAdded, .relationshipRemoved, .relationshipRenamed, .relationshipChanged:
            subject = "relationship \(entity).\(property ?? "")"
        case .indexAdded, .indexRemoved: subject = "index on \(entity)(\(property ?? ""))"
        case .templatesChanged: subject = "fetch templates"
        }
        let what: String
        switch kind {
        case .entityAdded, .attributeAdded, .relationshipAdded, .indexAdded: what = "added"
        case .entityRemoved, .attributeRemoved, .relationshipRemoved, .indexRemoved: what = "removed"
        case .entityRenamed, .attributeRenamed, .relationshipRenamed: what = "renamed"
        case .attributeTypeChanged: what = "type"
        case .attributeMadeRequired: what = "made required without a default"
        case .entityChanged, .attributeChanged, .relationshipChanged, .templatesChanged: what = "changed"
        }
        var s = "\(subject): \(what)"
        switch kind {
        case .entityAdded, .attributeAdded, .relationshipAdded, .indexAdded, .entityRemoved, .attributeRemoved, .relationshipRemoved, .indexRemoved:
            let notes = [old, new].compactMap { $0 }
            if !notes.isEmpty { s += " (\(notes.joined(separator: "; ")))" }
        case .attributeMadeRequired:
            break
        default:
            if let old, let new { s += " \(old) → \(new)" } else if let note = new ?? old { s += " (\(note))" }
        }
        return s
    }
}

/// What changed between two models: the entities, attributes, relationships and indexes added,
/// removed, renamed or changed, matched by name or by a declared `renamingIdentifier`.
///
/// Independent of SQL: a store applies the lightweight changes in its own dialect, and refuses
/// the others unless the caller gives a migration step.
///
/// ```swift
/// let diff = ModelDiff(from: try StoreModel(json: v1), to: try StoreModel(json: v2))
/// if diff.changes.contains(where: { $0.migration == .needsStep }) { print("needs a migration step") }
/// ```
public struct ModelDiff: Hashable, Sendable {
    /// The model a store was saved with.
    public let old: StoreModel
    /// The model it is opened with.
    public let new: StoreModel
    /// Every difference, in the new model's entity order (removed entities last).
    public private(set) var changes: [ModelChange] = []
    /// For each entity of the new model that existed before, its name in the old model.
    private(set) var oldEntityName: [String: String] = [:]
    /// For each (new entity, new property) that existed before, the property's old name.
    private(set) var oldPropertyName: [String: [String: String]] = [:]

    /// Compares `old` with `new`.
    ///
    /// ```swift
    /// let diff = ModelDiff(from: v1, to: v2)
    /// print(diff.changes.map(\.description).joined(separator: "\n"))
    /// ```
    public init(from old: StoreModel, to new: StoreModel) {
        self.old = old
        self.new = new
        // All entities are matched first: parents and destinations are compared through it.
        oldEntityName = Self.match(new.entities.map { ($0.name, $0.renamingIdentifier) }, old: old.entities.map(\.name))
        for e in new.entities {
            guard let oldName = oldEntityName[e.name], let o = try? old.entity(named: oldName) else {
                changes.append(ModelChange(.entityAdded, entity: e.name, migration: .lightweight))
                continue
            }
            if oldName != e.name { changes.append(ModelChange(.entityRenamed, entity: e.name, old: oldName, new: e.name, migration: .lightweight)) }
            compareEntity(o, e)
        }
        let kept = Set(oldEntityName.values)
        for o in old.entities where !kept.contains(o.name) {
            changes.append(ModelChange(.entityRemoved, entity: o.name, migration: .whenEmpty,
                                       hint: "delete its objects first, or give the entity that replaces it renamingIdentifier \"\(o.name)\""))
        }
        if old.templates != new.templates { changes.append(ModelChange(.templatesChanged, entity: "", migration: .lightweight)) }
    }

    /// Whether the models describe the same entities, properties and templates.
    public var isEmpty: Bool { changes.isEmpty }

    /// The changes a store cannot make by itself (before it looks at the data).
    public var needingStep: [ModelChange] { changes.filter { $0.migration == .needsStep } }

    /// The old model's entity for a new one (nil when it was added).
    func oldEntity(of e: ModelEntity) -> ModelEntity? { oldEntityName[e.name].flatMap { try? old.entity(named: $0) } }

    /// The old name of property `name` of new entity `entity` (nil when it was added).
    func oldProperty(_ name: String, of entity: String) -> String? { oldPropertyName[entity]?[name] }

    /// New name → old name, by name or by a renaming identifier naming an old one that the
    /// new model no longer has (a renaming identifier naming a kept name is ignored: that
    /// store was migrated already).
    private static func match(_ new: [(name: String, previous: String?)], old: [String]) -> [String: String] {
        let oldNames = Set(old), newNames = Set(new.map(\.name))
        var out: [String: String] = [:]
        var taken: Set<String> = []
        for n in new where oldNames.contains(n.name) {
            out[n.name] = n.name
            taken.insert(n.name)
        }
        for n in new where out[n.name] == nil {
            if let p = n.previous, oldNames.contains(p), !newNames.contains(p), taken.insert(p).inserted { out[n.name] = p }
        }
        return out
    }

    private mutating func compareEntity(_ o: ModelEntity, _ e: ModelEntity) {
        let parentWas = o.parent, parentIs = e.parent.map { oldEntityName[$0] ?? "(new) \($0)" }
        if parentWas != parentIs {
            changes.append(ModelChange(.entityChanged, entity: e.name, old: "parent \(o.parent ?? "none")", new: "parent \(e.parent ?? "none")", migration: .needsStep,
                                       hint: "moving an entity in the hierarchy moves its rows between tables: do it in a migration step"))
        }
        if o.primaryKey != e.primaryKey {
            changes.append(ModelChange(.entityChanged, entity: e.name, old: "primary key \(o.primaryKey)", new: "primary key \(e.primaryKey)", migration: .needsStep))
        }
        if e.parent == nil, o.table != e.table, !(o.table == o.name && e.table == e.name) {
            changes.append(ModelChange(.entityChanged, entity: e.name, old: "table \(o.table)", new: "table \(e.table)", migration: .lightweight))
        }
        if o.isAbstract != e.isAbstract {
            changes.append(ModelChange(.entityChanged, entity: e.name, old: o.isAbstract ? "abstract" : "concrete", new: e.isAbstract ? "abstract" : "concrete",
                                       migration: e.isAbstract ? .whenEmpty : .lightweight,
                                       hint: "an abstract entity has no objects of its own: delete them first"))
        }
        var names: [String: String] = [:]
        let attributeMatch = Self.match(e.attributes.map { ($0.name, $0.renamingIdentifier) }, old: o.attributes.map(\.name))
        for a in e.attributes {
            guard let oldName = attributeMatch[a.name], let was = o.attributes.first(where: { $0.name == oldName }) else {
                let fine = a.isOptional || !(a.defaultValue ?? .null).isNull
                changes.append(ModelChange(.attributeAdded, entity: e.name, property: a.name, new: a.type.rawValue + (a.isOptional ? "" : ", required"),
                                           migration: fine ? .lightweight : .whenEmpty,
                                           hint: fine ? nil : "give it a default value, make it optional, or fill it in a migration step"))
                if a.isUnique || a.isIndexed { changes.append(ModelChange(.indexAdded, entity: e.name, property: a.name, migration: .lightweight)) }
                continue
            }
            names[a.name] = oldName
            compareAttribute(was, a, entity: e.name)
        }
        for was in o.attributes where !names.values.contains(was.name) {
            changes.append(ModelChange(.attributeRemoved, entity: e.name, property: was.name, old: was.type.rawValue, migration: .whenEmpty,
                                       hint: "clear its values first (set them to nil), give the attribute that replaces it renamingIdentifier \"\(was.name)\", or pass a migration step"))
        }
        let relationshipMatch = Self.match(e.relationships.map { ($0.name, $0.renamingIdentifier) }, old: o.relationships.map(\.name))
        var relationshipNames: [String: String] = [:]
        for r in e.relationships {
            guard let oldName = relationshipMatch[r.name], let was = o.relationships.first(where: { $0.name == oldName }) else {
                let fine = r.isToMany || r.isOptional
                changes.append(ModelChange(.relationshipAdded, entity: e.name, property: r.name, new: (r.isToMany ? "to-many " : "to-one ") + r.destination,
                                           migration: fine ? .lightweight : .whenEmpty,
                                           hint: fine ? nil : "make it optional, or link every object in a migration step"))
                continue
            }
            relationshipNames[r.name] = oldName
            compareRelationship(was, r, entity: e.name)
        }
        for was in o.relationships where !relationshipNames.values.contains(was.name) {
            changes.append(ModelChange(.relationshipRemoved, entity: e.name, property: was.name, old: (was.isToMany ? "to-many " : "to-one ") + was.destination,
                                       migration: was.isToMany ? .lightweight : .whenEmpty,
                                       hint: "unlink the objects first (set it to nil), or pass a migration step"))
        }
        oldPropertyName[e.name] = names.merging(relationshipNames) { a, _ in a }
        // Composite indexes and uniqueness, in the new model's names.
        let rename = { (group: [String]) -> [String] in group.map { old in self.oldPropertyName[e.name]?.first { $0.value == old }?.key ?? old } }
        for (groups, oldGroups, unique) in [(e.indexes, o.indexes, false), (e.uniqueness, o.uniqueness, true)] {
            let before = Set(oldGroups.map(rename)), after = Set(groups)
            for g in groups where !before.contains(g) {
                changes.append(ModelChange(.indexAdded, entity: e.name, property: g.joined(separator: ", "), new: unique ? "unique" : nil, migration: .lightweight))
            }
            for g in oldGroups.map(rename) where !after.contains(g) {
                changes.append(ModelChange(.indexRemoved, entity: e.name, property: g.joined(separator: ", "), old: unique ? "unique" : nil, migration: .lightweight))
            }
        }
    }

    private mutating func compareAttribute(_ o: ModelAttribute, _ a: ModelAttribute, entity: String) {
        if o.name != a.name {
            changes.append(ModelChange(.attributeRenamed, entity: entity, property: a.name, old: o.name, new: a.name, migration: .lightweight))
        }
        if o.type != a.type {
            changes.append(ModelChange(.attributeTypeChanged, entity: entity, property: a.name, old: o.type.rawValue, new: a.type.rawValue, migration: .needsStep,
                                       hint: "convert the values in a migration step, or add an attribute of the new type beside it"))
        }
        if o.isOptional && !a.isOptional {
            if (a.defaultValue ?? .null).isNull {
                changes.append(ModelChange(.attributeMadeRequired, entity: entity, property: a.name, old: "optional", new: "required", migration: .needsStep,
                                           hint: "give it a default value (nil values take it), or fill the nil values in a migration step"))
            } else {
                changes.append(ModelChange(.attributeChanged, entity: entity, property: a.name, old: "optional", new: "required with a default", migration: .lightweight))
            }
        } else if !o.isOptional && a.isOptional {
            changes.append(ModelChange(.attributeChanged, entity: entity, property: a.name, old: "required", new: "optional", migration: .lightweight))
        }
        if o.defaultValue != a.defaultValue {
            changes.append(ModelChange(.attributeChanged, entity: entity, property: a.name, old: "default \(o.defaultValue.map { "\($0)" } ?? "none")",
                                       new: "default \(a.defaultValue.map { "\($0)" } ?? "none")", migration: .lightweight))
        }
        if o.column != a.column && !(o.column == o.name && a.column == a.name) {
            changes.append(ModelChange(.attributeChanged, entity: entity, property: a.name, old: "column \(o.column)", new: "column \(a.column)", migration: .lightweight))
        }
        let index = { (x: ModelAttribute) -> String? in x.isUnique ? "unique" : x.isIndexed ? "indexed" : nil }
        if index(o) != index(a) {
            if let was = index(o) { changes.append(ModelChange(.indexRemoved, entity: entity, property: a.name, old: was, migration: .lightweight)) }
            if let now = index(a) { changes.append(ModelChange(.indexAdded, entity: entity, property: a.name, new: now, migration: .lightweight)) }
        }
    }

    private mutating func compareRelationship(_ o: ModelRelationship, _ r: ModelRelationship, entity: String) {
        if o.name != r.name {
            changes.append(ModelChange(.relationshipRenamed, entity: entity, property: r.name, old: o.name, new: r.name, migration: .lightweight))
        }
        if o.isToMany != r.isToMany || oldEntityName[r.destination] != o.destination {
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: (o.isToMany ? "to-many " : "to-one ") + o.destination,
                                       new: (r.isToMany ? "to-many " : "to-one ") + r.destination, migration: .needsStep,
                                       hint: "relink the objects in a migration step, or add a relationship beside it"))
            return
        }
        if !r.isToMany && o.isOptional && !r.isOptional {
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: "optional", new: "required", migration: .needsStep,
                                       hint: "link every object in a migration step, or keep it optional"))
        }
        if !r.isToMany && o.referencedColumn != r.referencedColumn {
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: "references \(o.referencedColumn ?? "the key")",
                                       new: "references \(r.referencedColumn ?? "the key")", migration: .needsStep))
        }
        if o.inverse != r.inverse || o.deleteRule != r.deleteRule || (r.isToMany && o.isOptional != r.isOptional) {
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: "inverse \(o.inverse ?? "none"), \(o.deleteRule.rawValue)",
                                       new: "inverse \(r.inverse ?? "none"), \(r.deleteRule.rawValue)", migration: .lightweight))
        }
        // A many-to-many whose join table or columns change would start from a new, empty join
        // table (the old one is dropped): its links need a step, or the old names kept.
        if o.joinTable != r.joinTable || o.joinColumn != r.joinColumn || o.inverseJoinColumn != r.inverseJoinColumn {
            let keep = o.joinTable.map { "keep the links: give the relationship joinTable '\($0)', joinColumn '\(o.joinColumn ?? "")' and inverseJoinColumn '\(o.inverseJoinColumn ?? "")'" }
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: "join table \(o.joinTable ?? "none")",
                                       new: "join table \(r.joinTable ?? "none")", migration: .needsStep,
                                       hint: keep ?? "move the links into the join table in a migration step"))
        }
        if !r.isToMany && o.foreignKeyColumn != r.foreignKeyColumn && !(o.foreignKeyColumn == o.name && r.foreignKeyColumn == r.name) {
            changes.append(ModelChange(.relationshipChanged, entity: entity, property: r.name, old: "column \(o.foreignKeyColumn)", new: "column \(r.foreignKeyColumn)", migration: .lightweight))
        }
    }
}

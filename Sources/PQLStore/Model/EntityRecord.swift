import Foundation
import PQL

/// A Codable type stored as an entity: declared once, it gives the model its entity (name,
/// attributes, key, relationships) and is what fetch, insert, update, upsert and delete take.
///
/// Each stored property is an attribute of the type's Swift type: `Int`, `Int64`, `Int32`,
/// `Int16`, `Double`, `Float`, `Decimal`, `Bool`, `String`, `Date`, `Data`, `UUID`, `URL`, or an
/// enum whose raw value is a `String` or an integer (a non-optional enum must also be
/// `CaseIterable`, so its entity can be read without a row). An `Optional` property is an
/// optional attribute. A property named ``primaryKey`` (`id` unless the type says otherwise)
/// is the object's key: an `Int64?` (or `Int?`) that is nil for an object not yet inserted,
/// the key the store assigned once it is. A type without one is keyed by the store alone.
///
/// Relationships are declared by ``relationships``; a to-one's property holds the related
/// object's key (`Int64?`), a many-to-many's an array of keys (`[Int64]`). A to-many stored in
/// its inverse (Folder's notes) needs no property.
///
/// ```swift
/// struct Folder: EntityRecord {
///     var id: Int64?
///     var name: String
///     static let relationships = [ModelRelationship("notes", toMany: "Note", inverse: "folder")]
/// }
/// struct Note: EntityRecord {
///     var id: Int64?
///     var title: String
///     var folder: Int64?
///     static let relationships = [ModelRelationship("folder", to: "Folder", inverse: "notes")]
/// }
/// let store = try PredicateStore(path: "notes.sqlite", records: [Folder.self, Note.self])
/// let inbox = try store.insert(Folder(name: "Inbox"))
/// try store.insert(Note(title: "Milk", folder: inbox))
/// let notes = try store.fetch(Note.self, where: "folder == %@", inbox)
/// ```
public protocol EntityRecord: Codable, Sendable {
    /// The entity's name: the type's name unless the type says otherwise.
    static var entityName: String { get }
    /// The property holding the object's key: `id` unless the type says otherwise. A type
    /// without such a property is keyed by the store alone (Core Data's `Z_PK`).
    static var primaryKey: String { get }
    /// The entity's relationships; their properties hold keys, not attributes.
    static var relationships: [ModelRelationship] { get }
    /// Attributes to index.
    static var indexedAttributes: [String] { get }
    /// Attributes whose values are unique (an upsert's conflict key, say).
    static var uniqueAttributes: [String] { get }
}

extension EntityRecord {
    /// The type's name.
    public static var entityName: String { String(describing: Self.self) }
    /// `id`.
    public static var primaryKey: String { "id" }
    /// None.
    public static var relationships: [ModelRelationship] { [] }
    /// None.
    public static var indexedAttributes: [String] { [] }
    /// None.
    public static var uniqueAttributes: [String] { [] }

    /// The entity the type declares, read from its `Decodable` conformance.
    ///
    /// ```swift
    /// let entity = try Note.modelEntity()   // Note: id, title, folder → Folder
    /// ```
    public static func modelEntity() throws(StoreError) -> ModelEntity {
        let properties = try RecordSchemaProbe.properties(of: Self.self)
        let linked = Set(relationships.map(\.name))
        var attributes: [ModelAttribute] = []
        var hasKey = false
        for p in properties where !linked.contains(p.name) {
            guard let type = p.type else {
                throw StoreError(.invalidModel, "\(Self.self).\(p.name) is of type \(p.swiftType), which no attribute stores",
                                 hint: "give it a stored type (Int64, Double, Bool, String, Date, Data, UUID, URL, Decimal, a String- or Int-backed enum), or declare it in relationships")
                    .about(entity: entityName, property: p.name)
            }
            if p.name == primaryKey {
                guard [.integer64, .integer32, .integer16].contains(type) else {
                    throw StoreError(.invalidModel, "\(Self.self).\(p.name) is the key, and a \(p.swiftType); stores keep 64-bit integer keys",
                                     hint: "make it Int64? (nil until the object is inserted)").about(entity: entityName, property: p.name)
                }
                hasKey = true
                attributes.append(ModelAttribute(p.name, .integer64))
                continue
            }
            attributes.append(ModelAttribute(p.name, type, isOptional: p.isOptional, isIndexed: indexedAttributes.contains(p.name),
                                             isUnique: uniqueAttributes.contains(p.name)))
        }
        for name in indexedAttributes + uniqueAttributes where !attributes.contains(where: { $0.name == name }) {
            throw StoreError(.invalidModel, "\(Self.self) indexes '\(name)', which is not one of its attributes",
                             hint: "its attributes are: \(attributes.map(\.name).joined(separator: ", "))").about(entity: entityName, property: name)
        }
        return ModelEntity(entityName, attributes: attributes, relationships: relationships, primaryKey: hasKey ? primaryKey : "Z_PK")
    }
}

extension ModelRelationship {
    /// A to-one relationship to a record type's entity.
    ///
    /// ```swift
    /// static let relationships = [ModelRelationship("folder", to: Folder.self, inverse: "notes")]
    /// ```
    public init<R: EntityRecord>(_ name: String, to destination: R.Type, inverse: String? = nil, deleteRule: DeleteRule = .nullify, isOptional: Bool = true) {
        self.init(name, to: destination.entityName, inverse: inverse, deleteRule: deleteRule, isOptional: isOptional)
    }

    /// A to-many relationship to a record type's entity (many-to-many when its inverse is to-many too).
    ///
    /// ```swift
    /// static let relationships = [ModelRelationship("tags", toMany: Tag.self, inverse: "notes")]
    /// ```
    public init<R: EntityRecord>(_ name: String, toMany destination: R.Type, inverse: String, deleteRule: DeleteRule = .nullify) {
        self.init(name, toMany: destination.entityName, inverse: inverse, deleteRule: deleteRule)
    }
}

extension StoreModel {
    /// The model of record types: one entity each, as ``EntityRecord/modelEntity()`` reads it.
    ///
    /// ```swift
    /// let model = try StoreModel(records: [Folder.self, Note.self, Tag.self])
    /// ```
    public init(records: [any EntityRecord.Type], templates: [FetchTemplate] = [], names: NameRules = .sqlite) throws(StoreError) {
        var entities: [ModelEntity] = []
        for r in records { entities.append(try r.modelEntity()) }
        try self.init(entities, templates: templates, names: names)
    }

    /// Every difference between this model's entities and the record types', named: a missing
    /// entity or attribute, another type, optionality, key or relationship. Empty when they agree.
    ///
    /// ```swift
    /// for difference in model.differences(from: [Note.self]) { print(difference) }
    /// ```
    public func differences(from records: [any EntityRecord.Type]) -> [String] {
        var out: [String] = []
        for r in records {
            let declared: ModelEntity
            do { declared = try r.modelEntity() } catch {
                out.append(error.message)
                continue
            }
            guard let e = entities.first(where: { $0.name == declared.name }) else {
                out.append("the model has no entity \(declared.name) (record type \(r))")
                continue
            }
            let attributes = allAttributes(e), relationships = allRelationships(e)
            for a in declared.attributes {
                if declared.primaryKey == a.name {
                    if root(e).primaryKey != a.name { out.append("\(r).\(a.name) is the key, but \(e.name) is keyed by \(root(e).primaryKey)") }
                    continue
                }
                guard let m = attributes.first(where: { $0.name == a.name }) else {
                    out.append(relationships.contains { $0.name == a.name }
                               ? "\(r).\(a.name) is an attribute, but \(e.name).\(a.name) is a relationship (declare it in \(r).relationships)"
                               : "\(e.name) has no attribute \(a.name) (\(r).\(a.name))")
                    continue
                }
                if m.type != a.type { out.append("\(e.name).\(a.name) is \(m.type.withArticle) attribute, \(r).\(a.name) \(a.type.withArticle)") }
                if m.isOptional && !a.isOptional && m.defaultValue == nil {
                    out.append("\(e.name).\(a.name) is optional, \(r).\(a.name) is not (a nil would not decode)")
                }
            }
            if declared.primaryKey == "Z_PK" && root(e).primaryKey != "Z_PK" && attributes.contains(where: { $0.name == root(e).primaryKey }) == false {
                out.append("\(e.name) is keyed by \(root(e).primaryKey), which \(r) has no property for")
            }
            for a in attributes where !a.isOptional && a.defaultValue == nil && !declared.attributes.contains(where: { $0.name == a.name }) {
                out.append("\(e.name).\(a.name) is required, and \(r) has no property for it (an insert would fail)")
            }
            for rel in declared.relationships {
                guard let m = relationships.first(where: { $0.name == rel.name }) else {
                    out.append("\(e.name) has no relationship \(rel.name) (\(r).relationships)")
                    continue
                }
                if m.destination != rel.destination || m.isToMany != rel.isToMany {
                    out.append("\(e.name).\(rel.name) is a relationship \(m.isToMany ? "to many " : "to ")\(m.destination), \(r) declares one \(rel.isToMany ? "to many " : "to ")\(rel.destination)")
                }
            }
        }
        return out
    }

    /// Throws when the record types and this model differ, naming every difference.
    package func check(records: [any EntityRecord.Type]) throws(StoreError) {
        let differences = differences(from: records)
        guard !differences.isEmpty else { return }
        throw StoreError(.modelMismatch, "the record types and the store's model differ: \(differences.joined(separator: "; "))",
                         hint: "change the record types or the model so that they agree, or build the model from the types: StoreModel(records:)")
    }
}

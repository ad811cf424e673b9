import Foundation

/// An object's identity: its entity and its key, as Core Data's `NSManagedObjectID` is. Pass
/// one as a `%@` argument (or bind it to a `$variable`) where a predicate compares objects:
/// `folder == %@`, `SELF IN %@`, `ANY tags == %@`, `%@ IN members`.
///
/// As a predicate value an ID is a dictionary tagged with two members, `$entity` and `$key`,
/// which is also its JSON form on the command line (`--arg '{"$entity": "Folder", "$key": 1}'`)
/// and its canonical text (`CAST({{"$entity", "Folder"}, {"$key", 1}}, "NSDictionary")`). Any
/// dictionary with both members is an object: a fetched record's value carries them too.
///
/// An object equals another object of the same entity with the same key, and a bare key equal
/// to its own (a to-one read from a record is its destination's key). It has no order. A nil
/// link is `!=` every object, as in NSPredicate.
///
/// ```swift
/// let work = ObjectID("Folder", key: 1)
/// let notes = try store.fetch(EntityQuery("Note", where: "folder == %@", [work]))
/// let filtered = try records.filter(PredicateNode(format: "folder == %@", work))
/// ```
public struct ObjectID: Hashable, Sendable, PredicateValueConvertible, CustomStringConvertible {
    /// The member of an object's dictionary that names its entity.
    public static let entityMember = "$entity"
    /// The member of an object's dictionary that holds its key.
    public static let keyMember = "$key"

    /// How to write an object ID, for errors about a malformed one (`entity` names an entity
    /// the reader knows, when there is one).
    package static func formHint(entity: String = "Folder") -> String {
        "write an object ID as {\"$entity\": \"\(entity)\", \"$key\": 1}"
    }

    /// The entity's name, as the model spells it.
    public let entity: String
    /// The key: an integer, or a string for a table keyed by text.
    public let key: PredicateValue

    /// The ID of the object of `entity` whose key is `key`.
    ///
    /// ```swift
    /// let id = ObjectID("Note", key: 15)
    /// ```
    public init(_ entity: String, key: Int64) {
        self.entity = entity
        self.key = .int(key)
    }

    /// The ID of the object of `entity` whose key is the text `key` (a PostgreSQL table keyed
    /// by text or a UUID).
    ///
    /// ```swift
    /// let id = ObjectID("Order", key: "A-1042")
    /// ```
    public init(_ entity: String, key: String) {
        self.entity = entity
        self.key = .string(key)
    }

    /// The ID a predicate value holds: a dictionary with a string `$entity` and an integer or
    /// string `$key`; nil for any other value. ``PredicateValue/objectProblem`` says what is
    /// wrong with a dictionary that has one tag and not the other.
    ///
    /// ```swift
    /// ObjectID(PredicateValue.dictionary(["$entity": "Folder", "$key": 2]))   // Folder 2
    /// ```
    public init?(_ value: PredicateValue) {
        guard case .dictionary(let d) = value, case .string(let e)? = d[Self.entityMember] else { return nil }
        switch d[Self.keyMember] {
        case .int(let k)?: self.init(e, key: k)
        case .string(let k)?: self.init(e, key: k)
        default: return nil
        }
    }

    /// The tagged dictionary predicates see.
    public var predicateValue: PredicateValue {
        .dictionary([Self.entityMember: .string(entity), Self.keyMember: key])
    }

    /// An object whose entity the caller checked already (the store's shared SQL functions
    /// rebuild one from a key): equal to objects of any entity with its key.
    package static func anonymous(key: PredicateValue) -> PredicateValue {
        .dictionary([entityMember: .string(""), keyMember: key])
    }

    /// `Folder 1`, `Order "A-1042"`.
    public var description: String { "\(entity) \(key)" }
}

extension PredicateValue {
    /// The object ID this value is or carries (an ``ObjectID``'s value, or a record's
    /// dictionary with `$entity` and `$key`); nil for anything else.
    ///
    /// ```swift
    /// PredicateValue.dictionary(["$entity": "Tag", "$key": 3, "name": "urgent"]).objectID   // Tag 3
    /// ```
    public var objectID: ObjectID? {
        guard case .dictionary = self else { return nil }
        return ObjectID(self)
    }

    /// Whether this is a dictionary with an `$entity` or a `$key` member: an object ID, a
    /// record, or a malformed attempt at one (``objectProblem`` says which).
    package var hasObjectTags: Bool {
        guard case .dictionary(let d) = self else { return false }
        return d[ObjectID.entityMember] != nil || d[ObjectID.keyMember] != nil
    }

    /// What keeps a dictionary that uses the `$entity` or `$key` member from being an object
    /// ID; nil for a well-formed ID and for every value that uses neither.
    ///
    /// ```swift
    /// PredicateValue.dictionary(["$entity": "Tag"]).objectProblem   // "…has no $key…"
    /// ```
    public var objectProblem: String? {
        guard hasObjectTags, case .dictionary(let d) = self else { return nil }
        let entity = d[ObjectID.entityMember], key = d[ObjectID.keyMember]
        guard let entity else { return "the object ID has a $key but no $entity naming its entity" }
        guard case .string = entity else { return "an object ID's $entity is the entity's name, a string, not \(entity.kindDescription)" }
        guard let key else { return "the object ID has an $entity but no $key" }
        switch key {
        case .int, .string: return nil
        case .double, .decimal: return "an object ID's $key is a whole number within 64 bits or a string, not \(key)"
        default: return "an object ID's $key is a whole number or a string, not \(key.kindDescription)"
        }
    }
}

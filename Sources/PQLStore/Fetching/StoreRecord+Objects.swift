import PQL

/// A fetched record is an object to predicates: as a `%@` argument it stands for itself
/// (`folder == %@` with a fetched folder), and records filter in memory with the store's
/// object semantics, `SELF` being the record.
extension StoreRecord: PredicateValueConvertible, PredicateEvaluable {
    /// The record's identity: its entity and its key.
    ///
    /// ```swift
    /// let work = try store.fetch(EntityQuery("Folder", where: "name == 'Work'"))[0]
    /// let notes = try store.fetch(EntityQuery("Note", where: "folder == %@", [work.objectID]))
    /// ```
    public var objectID: ObjectID { ObjectID(entity, key: id) }

    /// The record's values with its identity (`$entity` and `$key`) beside them, so that it
    /// equals its object ID and its key in a predicate.
    public var predicateValue: PredicateValue {
        var d = values
        for (name, destination) in linkEntities { if let v = d[name] { d[name] = Self.linked(v, destination) } }
        d[ObjectID.entityMember] = .string(entity)
        d[ObjectID.keyMember] = .int(id)
        return .dictionary(d)
    }

    /// A link's value as objects: a key as the ID of the object it names, an array of keys as
    /// an array of IDs.
    static func linked(_ value: PredicateValue, _ destination: String) -> PredicateValue {
        switch value {
        case .int(let k): return ObjectID(destination, key: k).predicateValue
        case .string(let k): return ObjectID(destination, key: k).predicateValue
        case .array(let keys): return .array(keys.map { linked($0, destination) })
        default: return value
        }
    }

    /// Reads attributes and links straight from the record, each link as the object (or the
    /// array of objects) it leads to; `SELF` is the record as an object. A key the record does
    /// not hold reads as nil, as in a dictionary; one-to-many relationships are not among a
    /// record's values.
    ///
    /// ```swift
    /// let urgent = try records.filter(PredicateNode(format: "ANY tag == 1"))
    /// ```
    public static var predicateReader: ValueReader<StoreRecord> {
        ValueReader(selfValue: { $0.predicateValue },
                    key: { name in
                        .value { record in
                            guard let v = record.values[name] else { return .null }
                            guard let destination = record.linkEntities[name] else { return v }
                            return linked(v, destination)
                        }
                    })
    }
}

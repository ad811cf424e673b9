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
        d[ObjectID.entityMember] = .string(entity)
        d[ObjectID.keyMember] = .int(id)
        return .dictionary(d)
    }

    /// Reads attributes and links straight from the record; `SELF` is the record as an object.
    ///
    /// ```swift
    /// let urgent = try records.filter(PredicateNode(format: "ANY tag == 1"))
    /// ```
    public static var predicateReader: ValueReader<StoreRecord> {
        ValueReader(selfValue: { $0.predicateValue },
                    key: { name in .value { record in record.values[name] ?? .null } })
    }
}

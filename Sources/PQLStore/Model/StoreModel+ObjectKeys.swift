import PQL

extension StoreModel {
    /// The key a write stores for a link given as `value`: an object ID or a fetched record
    /// becomes its key once its entity is checked against the relationship's destination;
    /// any other value is the key itself (checked by the caller).
    ///
    /// ```swift
    /// try model.linkKey(ObjectID("Folder", key: 2).predicateValue, for: folder, of: "Note")   // .int(2)
    /// ```
    package func linkKey(_ value: PredicateValue, for r: ModelRelationship, of entity: String) throws(StoreError) -> PredicateValue {
        guard case .dictionary = value else { return value }
        if let problem = value.objectProblem {
            throw StoreError(.invalidValue, "\(entity).\(r.name): \(problem)", hint: "give a key, or " + ObjectID.formHint(entity: r.destination))
        }
        guard let id = value.objectID else {
            throw StoreError(.invalidValue, "\(entity).\(r.name) takes the key of a \(r.destination), not a dictionary",
                             hint: #"give its key, or an object ID as {"$entity": "\#(r.destination)", "$key": 1}"#)
        }
        let given: ModelEntity
        do { given = try self.entity(named: id.entity) } catch {
            throw StoreError(.unknownEntity, "\(entity).\(r.name) is given the object ID \(id), but the model has no entity '\(id.entity)'", hint: error.hint)
        }
        let destination = try self.entity(named: r.destination)
        guard descendants(destination).contains(where: { $0.name == given.name }) else {
            throw StoreError(.typeMismatch, "\(entity).\(r.name) links to \(destination.name) objects, and the object ID \(id) is of \(given.name)",
                             hint: "give the ID of a \(destination.name)")
        }
        return id.key
    }

    /// The entity each link a fetched record of `entity` (or of a sub-entity) holds leads to:
    /// to-ones that hold their destination's key, and many-to-manys. A to-one that refers to
    /// another unique attribute (a flight's carrier code) holds no key and is left out.
    package func linkEntities(of entity: ModelEntity) -> [String: String] {
        var out: [String: String] = [:]
        for e in descendants(entity) {
            for r in allRelationships(e) {
                if r.isManyToMany { out[r.name] = r.destination; continue }
                guard !r.isToMany, let destination = try? self.entity(named: r.destination) else { continue }
                if let column = r.referencedColumn, SQLName.key(column) != SQLName.key(root(destination).primaryKey) { continue }
                out[r.name] = r.destination
            }
        }
        return out
    }
}

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
            throw StoreError(.invalidValue, "\(entity).\(r.name): \(problem)", hint: #"give a key, or an object ID as {"$entity": "Folder", "$key": 1}"#)
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
}

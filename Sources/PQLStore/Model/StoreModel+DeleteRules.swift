extension StoreModel {
    /// The to-one relationships into `entity`'s table that no relationship of `entity` answers
    /// for (they have no inverse), so no delete rule applies to them: both stores refuse a
    /// delete that would leave such a link dangling.
    package func linksWithoutRule(into entity: ModelEntity) -> [(source: ModelEntity, relationship: ModelRelationship)] {
        let root = self.root(entity)
        var out: [(source: ModelEntity, relationship: ModelRelationship)] = []
        for source in entities {
            for r in source.relationships where !r.isToMany {
                guard let dest = try? self.entity(named: r.destination), self.root(dest).name == root.name else { continue }
                let answered = r.inverse.map { inv in allRelationships(dest).contains { $0.name == inv && $0.isToMany } } ?? false
                if !answered { out.append((source, r)) }
            }
        }
        return out
    }
}

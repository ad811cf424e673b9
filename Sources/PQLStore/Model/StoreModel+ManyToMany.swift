import PQL

/// Many-to-many relationships: a to-many whose inverse is a to-many. Their links are rows of a
/// join table with two key columns, which the model names (the table and both columns), so the
/// compiler, the writes and the schema all read one place.
extension StoreModel {
    /// Where a many-to-many relationship keeps its links, as seen from one side.
    package struct JoinLink: Hashable, Sendable {
        /// The join table.
        package var table: String
        /// The join table's column holding the source object's key.
        package var sourceColumn: String
        /// The join table's column holding the destination object's key.
        package var destinationColumn: String
    }

    /// One join table of the model, as the schema creates it: seen from the side declared
    /// first, whose `sourceColumn` leads the primary key.
    package struct JoinTable: Hashable, Sendable {
        package var link: JoinLink
        /// The entity whose key the link's `sourceColumn` holds.
        package var source: String
        /// The entity whose key the link's `destinationColumn` holds.
        package var destination: String
    }

    /// The join table and columns of the many-to-many `r` declared on (or inherited by) `source`.
    package func joinLink(of r: ModelRelationship, on source: ModelEntity) throws(StoreError) -> JoinLink {
        guard r.isManyToMany, let table = r.joinTable, let from = r.joinColumn, let to = r.inverseJoinColumn else {
            throw StoreError(.invalidModel, "\(source.name).\(r.name) is not a many-to-many relationship").about(entity: source.name, property: r.name)
        }
        return JoinLink(table: table, sourceColumn: from, destinationColumn: to)
    }

    /// The model's join tables, each once, in declaration order of their first side.
    package var joinTables: [JoinTable] {
        var out: [JoinTable] = []
        var seen: Set<ExactText> = []
        for e in entities {
            for r in e.relationships where r.isManyToMany {
                guard let table = r.joinTable, let from = r.joinColumn, let to = r.inverseJoinColumn,
                      seen.insert(ExactText(table)).inserted else { continue }
                out.append(JoinTable(link: JoinLink(table: table, sourceColumn: from, destinationColumn: to),
                                     source: e.name, destination: r.destination))
            }
        }
        return out
    }

    /// The entities with each many-to-many pair's join table and columns filled in where the
    /// declaration leaves them out (from the other side when it names them, else by the
    /// default names documented on ``ModelRelationship/joinTable``).
    static func completingJoinTables(_ entities: [ModelEntity]) -> [ModelEntity] {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // The relationship named `name` on `entity` or its parents, with the entity declaring it.
        func find(_ name: String, on entity: String) -> (declaring: String, relationship: ModelRelationship)? {
            var current: String? = entity
            var seen: Set<String> = []
            while let c = current, seen.insert(c).inserted, let e = byName[c] {
                if let r = e.relationships.first(where: { $0.name == name }) { return (c, r) }
                current = e.parent
            }
            return nil
        }
        var out = entities
        for (ei, e) in entities.enumerated() {
            for (ri, r) in e.relationships.enumerated() where r.isToMany {
                guard let inv = r.inverse, let other = find(inv, on: r.destination), other.relationship.isToMany else { continue }
                var filled = r
                let o = other.relationship
                if filled.joinTable == nil {
                    filled.joinTable = o.joinTable ?? {
                        let mine = (e.name, r.name), theirs = (other.declaring, o.name)
                        let first = Self.ordered(mine, theirs) ? mine : theirs
                        return "\(first.0)_\(first.1)"
                    }()
                }
                if filled.joinColumn == nil { filled.joinColumn = o.inverseJoinColumn ?? o.name }
                if filled.inverseJoinColumn == nil { filled.inverseJoinColumn = o.joinColumn ?? r.name }
                out[ei].relationships[ri] = filled
            }
        }
        return out
    }

    /// Whether side `a` comes before side `b` (entity name, then relationship name, by bytes).
    private static func ordered(_ a: (String, String), _ b: (String, String)) -> Bool {
        let x = Array(a.0.utf8) + [0] + Array(a.1.utf8), y = Array(b.0.utf8) + [0] + Array(b.1.utf8)
        return x.lexicographicallyPrecedes(y)
    }

    /// Checks the many-to-many `r` on `e` against its inverse `inv`: both name each other and
    /// agree on the join table and its columns, which are two.
    func checkManyToMany(_ r: ModelRelationship, on e: ModelEntity, inverse inv: ModelRelationship, names: NameRules) throws(StoreError) {
        let pair = "\(e.name).\(r.name) and \(r.destination).\(inv.name)"
        guard inv.inverse == r.name else {
            throw StoreError(.invalidModel, "\(pair) are both to-many, but \(r.destination).\(inv.name) names \(inv.inverse.map { "'\($0)'" } ?? "no inverse") as its inverse",
                             hint: "a many-to-many pair names each other as inverses: give \(r.destination).\(inv.name) the inverse '\(r.name)'")
        }
        guard r.joinTable == inv.joinTable, r.joinColumn == inv.inverseJoinColumn, r.inverseJoinColumn == inv.joinColumn else {
            throw StoreError(.invalidModel, "\(pair) name different join tables or columns",
                             hint: "give both sides one joinTable, and swap joinColumn and inverseJoinColumn between them (or give them on one side only)")
        }
        let same = names == .sqlite ? SQLName.same : { (a: String, b: String) in SQLName.identical(a, b) }
        if let a = r.joinColumn, let b = r.inverseJoinColumn, same(a, b) {
            throw StoreError(.invalidModel, "\(pair) would keep both keys in the join table's column '\(a)'",
                             hint: r.name == inv.name && r.destination == e.name
                                ? "a many-to-many relationship cannot be its own inverse: declare two, such as 'friends' and 'friendOf'"
                                : "give joinColumn and inverseJoinColumn different names")
        }
        for name in [r.joinTable, r.joinColumn, r.inverseJoinColumn].compactMap({ $0 }) where name.isEmpty || name.utf8.contains(0) {
            throw StoreError(.invalidModel, "\(pair) name a join table or column \(name.debugDescription), which is no SQL name",
                             hint: "leave joinTable, joinColumn and inverseJoinColumn out to take the default names")
        }
    }

    /// Join tables must not be taken for an entity's table, the store's own, or each other.
    func checkJoinTableNames(_ names: NameRules, tables: [ExactText: String]) throws(StoreError) {
        let key: (String) -> ExactText = names == .sqlite ? { SQLName.key($0) } : { ExactText($0) }
        var joins: [ExactText: String] = [:]
        for j in joinTables {
            let f = key(j.link.table)
            let pair = "\(j.source)–\(j.destination)"
            if let entity = tables[f] {
                throw StoreError(.invalidModel, "the join table '\(j.link.table)' of the many-to-many \(pair) would be the table of entity '\(entity)'",
                                 hint: "give the relationships a joinTable of their own")
            }
            if let other = joins[f] {
                throw StoreError(.invalidModel, "the many-to-many relationships \(other) and \(pair) would share the join table '\(j.link.table)'",
                                 hint: "give one pair a joinTable of its own")
            }
            if f == key(StoreSchema.metadataTable) || names == .sqlite && SQLName.isSQLiteInternal(j.link.table) {
                throw StoreError(.invalidModel, "the many-to-many \(pair) cannot use the join table name '\(j.link.table)': the store or the database keeps it for itself",
                                 hint: "give the relationships another joinTable")
            }
            joins[f] = pair
        }
    }
}

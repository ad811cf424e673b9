import PQL

/// Key paths: attributes are columns, to-one relationships LEFT JOINs, and a to-many
/// relationship ends the scalar part of the path (what follows runs in a subquery).
extension PredicateSQLCompiler {
    /// The SQL of one side of a relationship: (column on the source, column on the destination).
    func link(_ r: ModelRelationship, from entity: ModelEntity) throws(StoreError) -> (local: String, remote: String, destination: ModelEntity) {
        let dest = try model.entity(named: r.destination)
        if r.isManyToMany {
            // The owner's key; `remote` is the join table's column holding it (see `elements(of:)`).
            let join = try model.joinLink(of: r, on: entity)
            return (model.root(entity).primaryKey, join.sourceColumn, dest)
        }
        if r.isToMany {
            let inverse = try model.storingInverse(of: r, on: entity)
            return (inverse.referencedColumn ?? model.root(entity).primaryKey, inverse.foreignKeyColumn, dest)
        }
        return (r.foreignKeyColumn, r.referencedColumn ?? model.root(dest).primaryKey, dest)
    }

    /// Checks that the keys after a to-many relationship name keys of its destination (up to
    /// the first collection operator or attribute), so an unknown key is reported as such even
    /// where the to-many path itself is then rejected (`tags.nam == 'x'`), as decision D5 asks.
    func checkKeys(_ rest: [String], from destination: ModelEntity) throws(StoreError) {
        var entity = destination
        for key in rest {
            if CollectionOperator.isOperator(key) || model.allAttributes(entity).contains(where: { $0.name == key }) { return }
            guard let r = model.allRelationships(entity).first(where: { $0.name == key }) else {
                let candidates = model.allAttributes(entity).map(\.name) + model.allRelationships(entity).map(\.name)
                throw StoreError.unknownKey(key, entity: entity.name, candidates: candidates)
            }
            entity = try model.entity(named: r.destination)
        }
    }

    mutating func resolve(_ path: [String], from scope: SQLScope, alias: String, entity: ModelEntity,
                          whole: [String]) throws(StoreError) -> SQLOperand {
        var alias = alias, entity = entity
        var i = 0
        let model = self.model
        let attributes = { (e: ModelEntity) in model.allAttributes(e) }
        while i < path.count {
            let key = path[i]
            let last = i == path.count - 1
            if CollectionOperator.isOperator(key) {
                throw fail(.unsupported, "the collection operator \(key) needs a to-many relationship before it",
                           hint: "write toManyRelationship.\(key)\(CollectionOperator(component: key) == .count ? "" : ".attribute")")
            }
            if let a = attributes(entity).first(where: { $0.name == key }) {
                guard last else {
                    throw fail(.unsupported, "invalid keypath '\(whole.joined(separator: "."))': it continues after the attribute '\(key)'",
                               hint: "\(key) is a \(a.type.rawValue); only relationships can be followed with '.'")
                }
                // A uuid is compared as the text memory and SQLite hold (see SQLFunction.uuidText).
                let column = SQLNode.column(alias: alias, name: a.column)
                let node = a.type == .uuid ? SQLNode.call(.uuidText, [column]) : column
                let nullable = a.isOptional || alias != scope.alias || model.root(entity).name != model.root(scope.entity).name
                return .scalar(SQLExpression(node: node, kind: SQLKind(a), nullable: nullable || i > 0,
                                             column: IndexedColumn(table: model.root(entity).table, column: a.column)))
            }
            guard let r = model.allRelationships(entity).first(where: { $0.name == key }) else {
                let candidates = attributes(entity).map(\.name) + model.allRelationships(entity).map(\.name)
                throw StoreError.unknownKey(key, entity: entity.name, candidates: candidates)
            }
            let l = try link(r, from: entity)
            if r.isToMany {
                try checkKeys(Array(path[(i + 1)...]), from: l.destination)
                let outer = SQLExpression(node: .column(alias: alias, name: l.local), kind: .unknown,
                                          nullable: l.local != model.root(entity).primaryKey || i > 0)
                let links = try r.isManyToMany ? model.joinLink(of: r, on: entity) : nil
                return .collection(CollectionSource(name: key, outerKey: outer, destination: l.destination,
                                                    remoteColumn: l.remote, links: links, rest: Array(path[(i + 1)...])))
            }
            let next = scope.join(r, from: alias, destinationTable: model.root(l.destination).table, destination: l.destination,
                                  localColumn: l.local, remoteColumn: l.remote, nextAlias: nextAlias)
            alias = next
            entity = l.destination
            if last { return .scalar(object(alias: alias, entity: entity, nullable: true)) }
            i += 1
        }
        // An empty path (a bare SUBQUERY variable) is the object itself.
        return .scalar(object(alias: alias, entity: entity, nullable: false))
    }
}

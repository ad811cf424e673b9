import PQL

/// Objects in predicates, as Core Data apps write them: `folder == %@`, `SELF IN %@`,
/// `ANY tags == %@`, `%@ IN members`. An object is its row's key in SQL, so an object equals
/// another object of the same entity tree with the same key, or a key value; a nil to-one is
/// `!=` every object (NSPredicate's nil rules, §6.2), which `compare`'s nil handling gives.
/// `compare` sends every comparison with an object here, whichever form made it.
extension PredicateSQLCompiler {
    /// The object whose row is `scope`'s.
    func object(_ scope: SQLScope, entity: ModelEntity, nullable: Bool) -> SQLExpression {
        object(alias: scope.alias, entity: entity, nullable: nullable)
    }

    /// The object of `entity` whose row is under `alias` (nullable when reached by a LEFT JOIN).
    func object(alias: String, entity: ModelEntity, nullable: Bool) -> SQLExpression {
        SQLExpression(node: .column(alias: alias, name: model.root(entity).primaryKey), kind: keyKind(entity),
                      nullable: nullable, isObject: true, objectEntity: entity.name)
    }

    /// The kind of `entity`'s key: the key attribute's type where one is declared (a PostgreSQL
    /// table keyed by text), otherwise an integer (`Z_PK`, a rowid).
    func keyKind(_ entity: ModelEntity) -> SQLKind {
        let root = model.root(entity)
        if let a = root.attributes.first(where: { SQLName.key($0.column) == SQLName.key(root.primaryKey) }) { return SQLKind(a) }
        return .integer
    }

    /// A constant operand: an object ID (or a record) becomes its key, bound, marked as an
    /// object of its entity; any other value is bound as it is.
    mutating func constant(_ v: PredicateValue) throws(StoreError) -> SQLExpression {
        guard case .dictionary = v else { return bind(v) }
        if let problem = v.objectProblem {
            throw fail(.typeMismatch, problem, hint: ObjectID.formHint(entity: model.entities.first?.name ?? "Entity") + ", naming one of the model's entities")
        }
        guard let id = v.objectID else { return bind(v) }
        let entity: ModelEntity
        do { entity = try model.entity(named: id.entity) } catch {
            throw fail(.unknownEntity, "the object ID's $entity '\(id.entity)' names no entity of the model", hint: error.hint)
        }
        var x = bind(id.key)
        x.isObject = true
        x.objectEntity = entity.name
        let kind = keyKind(entity)
        if kind.domain != .unknown, x.kind.domain != kind.domain {
            let expected = kind.domain == .number ? "an integer" : "a string"
            throw fail(.typeMismatch, "the object ID \(id) has \(id.key.kindDescription) for its key, but \(entity.name)'s keys are \(kind.domain == .number ? "integers" : "strings")",
                       hint: "give $key as \(expected)")
        }
        return x
    }

    /// An object's key as a plain value, for `compare`.
    private func key(of object: SQLExpression) -> SQLExpression {
        var k = object
        k.isObject = false
        k.objectEntity = nil
        return k
    }

    /// `object == value` and `object != value`: value nil, another object, or a key.
    mutating func objectComparison(_ op: ComparisonOperator, _ l: SQLExpression, _ r: SQLExpression) throws(StoreError) -> SQLCondition {
        let other = l.isObject ? r : l, object = l.isObject ? l : r
        if !op.isEqualityOrOrder && op != .in && op != .contains && op != .between {
            throw fail(.typeMismatch, "\(describe(object)) cannot be compared with \(op.symbol): objects are no strings",
                       hint: "compare with == or !=, test membership with IN, or apply \(op.symbol) to one of its attributes")
        }
        if op == .in || op == .contains {
            // `SELF IN %@` given one object rather than a collection of them.
            throw fail(.typeMismatch, "\(op.symbol) needs a collection, and \(describe(object)) is one object",
                       hint: "compare it with ==, or give an array of objects or keys")
        }
        guard op == .equal || op == .notEqual else {
            throw fail(.typeMismatch, "\(describe(object)) cannot be compared with \(op.symbol): objects have no order",
                       hint: "compare with == or !=, test membership with IN, or compare one of its attributes")
        }
        if other.isNullConstant {
            return SQLCondition(node: .isNull(object.node, negated: op != .equal), nullable: false)
        }
        if other.isObject {
            if let a = object.objectEntity, let b = other.objectEntity, !sameTree(a, b) {
                throw fail(.typeMismatch, "\(describe(object)) is never \(describe(other)): they are objects of unrelated entities",
                           hint: "compare objects of one entity (or of its sub-entities)")
            }
            if let narrowing = subEntityFilter(object, other) ?? subEntityFilter(other, object) {
                // An ID of a sub-entity names an object of that sub-entity: the same key in a
                // sibling (a Book where the ID says Toy) is another object.
                let eq = try compare(.equal, options: literalOptions(), key(of: object), key(of: other))
                let both = SQLCondition(node: .chain([eq.node, narrowing], .and), nullable: eq.nullable)
                return op == .equal ? both : SQLCondition(node: both.negated, nullable: false)
            }
        } else {
            try checkKey(other, for: object)
            if other.kind.domain == .unknown, other.constant == nil, !nativeOnly {
                // An untyped column (or an expression of no known kind) may hold text: the
                // evaluator's object rules decide row by row, raising where memory raises.
                return shared(op, try literalOptions(), object, other)
            }
        }
        return try compare(op, options: literalOptions(), key(of: object), key(of: other))
    }

    /// Refuses a value that can never be `object`'s key: a string, a date, data or a
    /// collection where keys are integers (and the reverse for a text key).
    private func checkKey(_ value: SQLExpression, for object: SQLExpression) throws(StoreError) {
        let keyDomain = object.kind.domain
        if value.kind.domain == .unknown || keyDomain == .unknown || value.kind.comparesNatively(with: object.kind) { return }
        if value.kind == .boolean, keyDomain == .number { return }
        let what = value.constant.map { $0.kindDescription } ?? "a value of another kind"
        throw fail(.typeMismatch, "\(describe(object)) is compared with \(what): an object equals only an object or its key",
                   hint: keyDomain == .number ? "give the object's key, an integer (or nil)" : "give the object's key (or nil)")
    }

    /// The entity test that `row`'s object must also pass to be the object `id` names: when
    /// `id` is a constant of a sub-entity that does not cover `row`'s entity, `Z_ENT IN (…)`.
    private mutating func subEntityFilter(_ row: SQLExpression, _ id: SQLExpression) -> SQLNode? {
        guard id.constant != nil, let name = id.objectEntity, case .column(let alias, _) = row.node,
              let entity = try? model.entity(named: name), entity.parent != nil, model.isInheritanceTree(entity) else { return nil }
        if let rowName = row.objectEntity, let rowEntity = try? model.entity(named: rowName),
           model.descendants(entity).contains(where: { $0.name == rowEntity.name }) { return nil }
        return entityFilter(entity, alias: alias)
    }

    private func sameTree(_ a: String, _ b: String) -> Bool {
        guard let x = try? model.entity(named: a), let y = try? model.entity(named: b) else { return true }
        return model.root(x).name == model.root(y).name
    }

    /// "an object of Folder", for messages.
    func describe(_ object: SQLExpression) -> String {
        object.objectEntity.map { "an object of \($0)" } ?? "an object"
    }

    /// Options that compare exactly (no `[c]`, `[d]`, `[l]`).
    func literalOptions() throws(StoreError) -> SharedSemantics.Options {
        do { return try SharedSemantics.Options(rawValue: 0) } catch { throw evaluationError(error) }
    }
}

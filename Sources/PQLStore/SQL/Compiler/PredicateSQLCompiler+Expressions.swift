import Foundation
import PQL

/// A compiled comparison operand.
enum SQLOperand {
    /// One value per row.
    case scalar(SQLExpression)
    /// The elements of a to-many key path (or a SUBQUERY over one).
    case collection(CollectionSource)
    /// A collection of separately compiled values (`{1, 2}`, `%@` with an array, `{a, b}`).
    case values([SQLExpression])
}

/// A to-many relationship reached from a row: its destination rows are those whose
/// `remoteColumn` equals the row's `outerKey`, or for a many-to-many those a row of the join
/// table `links` pairs with it (see `elements(of:)`).
struct CollectionSource {
    var name: String
    var outerKey: SQLExpression
    var destination: ModelEntity
    var remoteColumn: String
    /// A many-to-many's join table and columns; nil when the destination holds the link.
    var links: StoreModel.JoinLink? = nil
    /// The key path after the relationship (`tags.name` → `["name"]`), operators included.
    var rest: [String]
    /// A SUBQUERY's variable and condition.
    var filter: (variable: String, predicate: PredicateNode)? = nil
    /// Where the SUBQUERY stands: its condition's plain key paths (and SELF) mean that row, not
    /// the element, as the evaluator runs the condition on the object being filtered (§4.8).
    var filterScope: SQLScope? = nil

    /// Whether the path after the relationship holds a collection operator (`@count`, `@sum`…).
    var hasOperator: Bool { rest.contains(where: CollectionOperator.isOperator) }
}

extension PredicateSQLCompiler {
    mutating func operand(_ e: ExpressionNode, in scope: SQLScope) throws(StoreError) -> SQLOperand {
        locator?.enter(.expression(e))
        defer { locator?.leave() }
        do throws(StoreError) { return try operandNode(e, in: scope) } catch { throw error.passing(through: .expression(e)) }
    }

    private mutating func operandNode(_ e: ExpressionNode, in scope: SQLScope) throws(StoreError) -> SQLOperand {
        switch e {
        case .constant(.array(let items)), .constant(.set(let items)):
            var out: [SQLExpression] = []
            for v in items { out.append(try constant(v)) }
            return .values(out)
        case .constant(let v) where v.hasObjectTags:
            return .scalar(try constant(v))
        case .constant(.dictionary(let d)):
            var out: [SQLExpression] = []
            for v in d.values { out.append(try constant(v)) }
            return .values(out)
        case .aggregate(let items):
            if e.isRowIndependent { return try operand(.constant(try fold(e)), in: scope) }
            var out: [SQLExpression] = []
            for i in items { out.append(try scalar(i, in: scope)) }
            return .values(out)
        case .keyPath(let path):
            return try collapse(try resolve(path, from: scope, alias: scope.alias, entity: scope.entity, whole: path))
        case .keyPathOn(let base, let path):
            if case .variable(let v) = base, case .object(let s)? = variables[v] {
                return try collapse(try resolve(path, from: s, alias: s.alias, entity: s.entity, whole: ["$" + v] + path))
            }
            if case .subquery = base, path.count == 1, CollectionOperator(component: path[0]) == .count {
                guard case .collection(let src) = try operand(base, in: scope) else { break }
                return .scalar(try count(src))
            }
            if case .aggregate(let items) = base, path.count == 1, let op = CollectionOperator(component: path[0]),
               op == .count || op.aggregate != nil,
               !e.isRowIndependent {
                // {a, b}.@sum: the evaluator's operator over the row's values.
                return .scalar(try aggregateOfValues(path[0], items, in: scope))
            }
            if e.isRowIndependent { return .scalar(bind(try fold(e))) }
            throw fail(.unsupported, "the key path '\(path.joined(separator: "."))' on \(base) has no SQL form",
                       hint: "key paths in the store start at the entity or at a SUBQUERY variable")
        case .subquery(let collection, let variable, let predicate):
            guard case .collection(var src) = try operand(collection, in: scope), src.filter == nil else {
                throw fail(.unsupported, "SUBQUERY needs a to-many key path as its collection",
                           hint: "write SUBQUERY(toManyRelationship, $x, condition on $x)")
            }
            src.filter = (variable, predicate)
            src.filterScope = scope
            return .collection(src)
        default:
            // The same node: entered once, so that the locator's walk is the tree's.
            return .scalar(try scalarNode(e, in: scope))
        }
        throw fail(.unsupported, "\(e) has no SQL form")
    }

    /// A to-many path with a collection operator (`rel.@count`, `rel.@sum.x`) is one value per row.
    mutating func collapse(_ o: SQLOperand) throws(StoreError) -> SQLOperand {
        if case .collection(let src) = o, src.hasOperator {
            return .scalar(try aggregate(src))
        }
        return o
    }

    /// An operand that must be one value per row.
    mutating func scalar(_ e: ExpressionNode, in scope: SQLScope) throws(StoreError) -> SQLExpression {
        locator?.enter(.expression(e))
        defer { locator?.leave() }
        do throws(StoreError) { return try scalarNode(e, in: scope) } catch { throw error.passing(through: .expression(e)) }
    }

    private mutating func scalarNode(_ e: ExpressionNode, in scope: SQLScope) throws(StoreError) -> SQLExpression {
        switch e {
        case .constant(let v):
            if case .array = v { break }
            if case .set = v { break }
            if case .dictionary = v, !v.hasObjectTags { break }
            return try constant(v)
        case .keyPath, .keyPathOn, .subquery, .aggregate:
            switch try operandNode(e, in: scope) {
            case .scalar(let x): return x
            case .collection(let src):
                throw fail(.unsupported, "to-many key '\(src.name)' not allowed here",
                           hint: "use ANY/ALL/NONE, @count, @sum/@avg/@min/@max or a SUBQUERY over it")
            case .values: break
            }
        case .variable(let name):
            switch variables[name] {
            case .value(let x)?: return x
            case .object(let s)?:
                return object(s, entity: s.entity, nullable: false)
            case nil:
                throw fail(.unboundVariable, "no value for the variable $\(name)",
                           hint: "give it a value in the query's variables: variables: [\"\(name)\": value]")
            }
        case .function(let f, let args):
            return try function(f, args, in: scope)
        case .index(let base, let sub):
            if e.isRowIndependent { return bind(try fold(e)) }
            if case .size = sub, case .collection(let src) = try operand(base, in: scope) { return try count(src) }
            throw fail(.unsupported, "the index [\(sub)] has no SQL form: a to-many relationship has no order in the store",
                       hint: "use [SIZE] or @count; FIRST, LAST and numeric indexes work on arrays in memory")
        case .cast(let value, let type):
            if e.isRowIndependent { return bind(try fold(e)) }
            if nativeOnly {
                throw fail(.unsupported, "CAST of a key path has no PostgreSQL form in PQL yet", hint: "compare the attribute as it is stored")
            }
            let x = try scalar(value, in: scope)
            if x.isObject {
                throw fail(.typeMismatch, "CAST cannot convert \(describe(x)): an object is no number, string or date",
                           hint: "cast one of its attributes, or compare the object itself with a key or an object ID")
            }
            guard case .constant(let typeName) = type else {
                throw fail(.unsupported, "CAST needs a constant type name in the store")
            }
            let kind: SQLKind
            switch typeName {
            case .string("NSString"): kind = .string
            case .string("NSDate"): kind = .date
            case .string("NSNumber"): kind = .unknown
            default: kind = .unknown
            }
            let tag = bindRaw(.integer(x.tag)), t = bind(typeName).node
            return SQLExpression(node: .call(.cast, [x.node, tag, t, sourceNode]), kind: kind, nullable: true)
        case .ternary(let p, let a, let b):
            let c = try compile(p, in: scope)
            let x = try scalar(a, in: scope), y = try scalar(b, in: scope)
            let cond = c.definite
            if nativeOnly, x.kind != y.kind, !x.isNullConstant, !y.isNullConstant {
                throw fail(.unsupported, "a ternary whose branches are of different kinds has no PostgreSQL form",
                           hint: "give both branches values of one kind")
            }
            return SQLExpression(node: .parenthesized(.caseWhen(cond, then: x.node, else: y.node)),
                                 kind: x.kind == y.kind ? x.kind : .unknown, nullable: x.nullable || y.nullable)
        case .evaluatedObject:
            return object(scope, entity: scope.entity, nullable: false)
        case .setOperation:
            if e.isRowIndependent { return bind(try fold(e)) }
            throw fail(.unsupported, "UNION, INTERSECT and MINUS of key paths have no SQL form",
                       hint: "filter in memory with PredicateQuery, or compare against a constant collection")
        case .customFunction(_, let selector, let args):
            // `a isKindOfClass: b` is FUNCTION(a, 'isKindOfClass:', b) == YES; name it as written.
            let operatorForm = args.count == 1 && selector.hasSuffix(":") && selector.dropLast().allSatisfy { $0 != ":" }
            throw fail(.unsupported, operatorForm ? "the selector '\(selector)' (FUNCTION or selector operator) has no SQL form"
                                                  : "FUNCTION(…, '\(selector)') has no SQL form",
                       hint: "custom functions run in memory only; filter the fetched records with the evaluator")
        case .anyKey:
            throw fail(.unsupported, "ANYKEY has no SQL form")
        case .assignment(let v, _):
            throw fail(.unsupported, "the assignment $\(v) := … has no SQL form", hint: "bind variables before the fetch")
        }
        throw fail(.unsupported, "a collection cannot stand where a single value is needed",
                   hint: "compare with IN, or quantify with ANY/ALL")
    }

    /// Evaluates a row-independent expression once, in memory.
    func fold(_ e: ExpressionNode) throws(StoreError) -> PredicateValue {
        do { return try SharedSemantics.evaluateConstant(e) } catch {
            throw evaluationError(error)
        }
    }

    mutating func function(_ f: BuiltinFunction, _ args: [ExpressionNode], in scope: SQLScope) throws(StoreError) -> SQLExpression {
        // now() too is computed once: one statement reads the clock once.
        if args.allSatisfy(\.isRowIndependent) && !f.isRandom {
            return bind(try fold(.function(f, args)))
        }
        switch f {
        case .count:
            guard args.count == 1 else { break }
            if case .aggregate(let items) = args[0] { return try aggregateOfValues(f.selector, items, in: scope) }
            guard case .collection(let src) = try operand(args[0], in: scope) else { break }
            return try count(src)
        case .sum, .average, .min, .max:
            // sum:({a, b}): the evaluator's function over the row's values.
            if args.count == 1, case .aggregate(let items) = args[0] {
                return try aggregateOfValues(f.selector, items, in: scope)
            }
            // sum:(rel.attr): the evaluator's function aggregate over the to-many's values.
            guard args.count == 1, case .collection(let src) = try operand(args[0], in: scope),
                  !src.rest.isEmpty, !src.hasOperator,
                  let operation = SharedSemantics.Aggregate.Operation(rawValue: f.selector) else {
                throw fail(.unsupported, "\(f.selector) in the store takes the values of a to-many key path",
                           hint: "write \(f.selector)(relationship.attribute)")
            }
            return try aggregate(operation, over: src)
        case .median, .mode, .stddev, .distinct:
            throw fail(.unsupported, "\(f.selector) of a key path has no SQL form",
                       hint: "fetch the records and compute \(f.selector) in memory")
        case _ where nativeOnly:
            if let native = try nativeFunction(f, args, in: scope) { return native }
            throw fail(.unsupported, "the function \(f.selector) of a key path has no PostgreSQL form in PQL yet",
                       hint: "PostgreSQL fetches take arithmetic, abs:, length:, uppercase:, lowercase:, count:, @count, @sum, @avg, @min and @max; compute the rest in memory")
        case .noindex:
            // noindex: keeps the value and stops SQLite from using an index for it (unary +).
            let x = try scalar(args[0], in: scope)
            return SQLExpression(node: .parenthesized(.unaryPlus(x.node)), kind: x.kind, nullable: x.nullable)
        case .distanceToLocation, .tokenize, .indexed:
            throw fail(.unsupported, "\(f.selector) has no SQL form")
        default: break
        }
        var parts = [bindRaw(.text(f.rawValue))]
        var kinds: [SQLKind] = []
        for a in args {
            let x = try scalar(a, in: scope)
            if x.isObject {
                throw fail(.typeMismatch, "\(f.selector) cannot take \(describe(x)): an object is no number or string",
                           hint: "apply \(f.selector) to one of its attributes (folder.name), or compare the object itself with ==")
            }
            parts.append(x.node)
            parts.append(bindRaw(.integer(x.tag)))
            kinds.append(x.kind)
        }
        parts.append(sourceNode)
        return SQLExpression(node: .call(.builtin, parts), kind: f.resultKind(kinds), nullable: true, nullIsNaN: true)
    }

    /// The most values `pql_values` takes: SQLite allows 127 arguments to a function.
    static let maxAggregateValues = 60

    /// `{a, b}.@sum`, `sum:({a, b})`, `count:({a, b})`…: an aggregate over values computed for the
    /// row, by the evaluator's own code (`pql_values`).
    mutating func aggregateOfValues(_ name: String, _ items: [ExpressionNode], in scope: SQLScope) throws(StoreError) -> SQLExpression {
        if nativeOnly {
            throw fail(.unsupported, "\(name) of values computed per row has no PostgreSQL form in PQL yet",
                       hint: "aggregate a to-many relationship's attribute, or compute it in memory")
        }
        guard items.count <= Self.maxAggregateValues else {
            throw fail(.unsupported, "\(name) of more than \(Self.maxAggregateValues) values computed per row has no SQL form",
                       hint: "compare fewer values, or aggregate a to-many relationship")
        }
        var parts = [bindRaw(.text(name))]
        for item in items {
            let x = try scalar(item, in: scope)
            if x.isObject {
                throw fail(.typeMismatch, "\(name) cannot take \(describe(x)): an object is no number",
                           hint: "aggregate one of its attributes, or count the objects with @count")
            }
            parts.append(x.node)
            parts.append(bindRaw(.integer(x.tag)))
        }
        parts.append(sourceNode)
        let kind: SQLKind = name == "@count" || name == "count:" ? .integer : name == "@avg" || name == "average:" ? .real : .unknown
        return SQLExpression(node: .call(.values, parts), kind: kind, nullable: true, nullIsNaN: kind == .real)
    }
}

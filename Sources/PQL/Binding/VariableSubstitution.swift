/// `$variables`: listing them and substituting values for them (reference §5.3).
extension PredicateNode {
    /// Replaces every `$name` found in `variables` with a constant holding its value; variables
    /// not in the dictionary stay in place. A SUBQUERY's own variable is never replaced inside
    /// that SUBQUERY.
    ///
    /// ```swift
    /// let template = try PredicateNode(format: "age > $MIN AND city == $CITY")
    /// let p = template.substituting(["MIN": 18, "CITY": "Paris"])
    /// print(p)   // age > 18 AND city == "Paris"
    /// ```
    public func substituting(_ variables: [String: PredicateValue]) -> PredicateNode {
        substituted(by: Substitution(values: variables.mapValues { ExpressionNode.constant($0) }))
    }

    /// Replaces variables with expressions (an `NSExpression` in a substitution dictionary).
    ///
    /// ```swift
    /// let p = try PredicateNode(format: "$KEY > 5").substituting(expressions: ["KEY": .keyPath(["age"])])
    /// print(p)   // age > 5
    /// ```
    public func substituting(expressions: [String: ExpressionNode]) -> PredicateNode {
        substituted(by: Substitution(values: expressions))
    }

    /// Substitution recurses: a deep tree built in code is rewritten on a large stack.
    private func substituted(by substitution: Substitution) -> PredicateNode {
        let tree = self
        return LargeStack.run(if: nestsDeeper(than: PredicateNode.inlineWalkDepth)) { substitution.apply(tree) }
    }

    /// Replaces variables with Swift values, converted as `%@` arguments are. `NSNull` and nil
    /// become the nil constant, which is how a template tests for a missing value.
    ///
    /// ```swift
    /// let p = try PredicateNode(format: "date == $D").substitutingValues(["D": nil])
    /// print(p)   // date == nil
    /// ```
    /// - Throws: ``PredicateFormatError`` (`.argumentType`) naming the variable whose value has
    ///   no predicate value, positioned on that variable in the canonical text.
    public func substitutingValues(_ variables: [String: Any?]) throws(PredicateFormatError) -> PredicateNode {
        var converted: [String: ExpressionNode] = [:]
        for (name, raw) in variables {
            if let e = PredicateValue.unwrap(raw) as? ExpressionNode { converted[name] = e; continue }
            guard let v = PredicateValue(any: raw) else {
                // The canonical text parses back to this tree (D9): the parser places the variable in it.
                let text = description
                let range = (try? PredicateNode.parse(format: text))
                    .flatMap { $0.sourceMap.range(ofFirst: .expression(.variable(name)), in: $0.tree) }
                let start = range?.offset ?? 0
                let typeName = PredicateValue.unwrap(raw).map { "\(type(of: $0))" } ?? "nil"
                throw Diagnostics.error(.argumentType, "the value for $\(name) of type \(typeName) has no predicate value",
                                        start: start, end: start + (range?.length ?? 0), source: text,
                                        hint: "pass a string, number, Bool, Date, Data, array, set, dictionary or nil")
            }
            converted[name] = .constant(v)
        }
        return Substitution(values: converted).apply(self)
    }

    /// The names of the variables the predicate reads, excluding SUBQUERY iteration variables
    /// inside their SUBQUERY and `:=` targets.
    ///
    /// ```swift
    /// try PredicateNode(format: "a == $X OR SUBQUERY(k, $k, $k > $Y).@count > 0").variableNames
    /// // ["X", "Y"]
    /// ```
    public var variableNames: Set<String> {
        var use = VariableCollector.Use()
        VariableCollector.collect(self, bound: [], into: &use)
        return use.read
    }

    /// Whether evaluating the predicate can change its variable bindings (`$x := …`), so that
    /// each element must start again from the caller's variables.
    var assignsVariables: Bool { !assignedVariableNames.isEmpty }

    /// The names of the variables the predicate assigns (`$x := …`): a read of one of them may
    /// find the value the evaluation gave it, so only the others must be bound beforehand.
    package var assignedVariableNames: Set<String> {
        var use = VariableCollector.Use()
        VariableCollector.collect(self, bound: [], into: &use)
        return use.assigned
    }
}

extension ExpressionNode {
    /// Replaces variables with constants, as ``PredicateNode/substituting(_:)`` does.
    ///
    /// ```swift
    /// let e = try ExpressionNode(format: "price * $RATE").substituting(["RATE": 1.2])   // price * 1.2
    /// ```
    public func substituting(_ variables: [String: PredicateValue]) -> ExpressionNode {
        Substitution(values: variables.mapValues { ExpressionNode.constant($0) }).apply(self)
    }
}

/// One walk of the tree that replaces free variables.
private struct Substitution {
    var values: [String: ExpressionNode]

    func apply(_ p: PredicateNode) -> PredicateNode {
        switch p {
        case .constant: return p
        case .comparison(var c):
            c.lhs = apply(c.lhs)
            c.rhs = apply(c.rhs)
            return .comparison(c)
        case .and(let ps): return .and(ps.map(apply))
        case .or(let ps): return .or(ps.map(apply))
        case .not(let inner): return .not(apply(inner))
        }
    }

    func apply(_ e: ExpressionNode) -> ExpressionNode {
        switch e {
        case .constant, .evaluatedObject, .keyPath, .anyKey: return e
        case .variable(let name): return values[name] ?? e
        case .keyPathOn(let operand, let path): return .keyPathOn(apply(operand), path)
        case .aggregate(let es):
            // Fold what the parser folds (all-constant lists, CASTs of literals), so that a
            // substituted template prints text that parses back to the same tree (D9).
            let mapped = es.map(apply)
            var values: [PredicateValue] = []
            for e in mapped {
                guard case .constant(let v) = e else { return .aggregate(mapped) }
                values.append(v)
            }
            return .constant(.array(values))
        case .function(let f, let args): return .function(f, args.map(apply))
        case .index(let base, let sub):
            if case .expression(let i) = sub { return .index(apply(base), .expression(apply(i))) }
            return .index(apply(base), sub)
        case .customFunction(let target, let selector, let args):
            return .customFunction(target: apply(target), selector: selector, arguments: args.map(apply))
        case .cast(let v, let t):
            let (value, type) = (apply(v), apply(t))
            if case .constant(let c) = value, case .constant(.string(let name)) = type,
               let folded = CastFolding.fold(c, to: name) {
                return .constant(folded)
            }
            return .cast(value, type: type)
        case .ternary(let p, let a, let b): return .ternary(apply(p), apply(a), apply(b))
        case .subquery(let collection, let variable, let predicate):
            // The iteration variable shadows a substitution (copying the bindings only then:
            // a copy per SUBQUERY would make many SUBQUERYs times many bindings).
            guard values[variable] != nil else {
                return .subquery(collection: apply(collection), variable: variable, predicate: apply(predicate))
            }
            var inner = self
            inner.values[variable] = nil
            return .subquery(collection: apply(collection), variable: variable, predicate: inner.apply(predicate))
        case .assignment(let variable, let value): return .assignment(variable: variable, value: apply(value))
        case .setOperation(let op, let a, let b): return .setOperation(op, apply(a), apply(b))
        }
    }
}

private enum VariableCollector {
    /// The variables a tree reads (free ones only) and whether it assigns any.
    struct Use {
        var read = Set<String>()
        var assigned = Set<String>()
    }

    static func collect(_ p: PredicateNode, bound: Set<String>, into names: inout Use) {
        switch p {
        case .constant: break
        case .comparison(let c):
            collect(c.lhs, bound: bound, into: &names)
            collect(c.rhs, bound: bound, into: &names)
        case .and(let ps), .or(let ps): for q in ps { collect(q, bound: bound, into: &names) }
        case .not(let q): collect(q, bound: bound, into: &names)
        }
    }

    static func collect(_ e: ExpressionNode, bound: Set<String>, into names: inout Use) {
        switch e {
        case .constant, .evaluatedObject, .keyPath, .anyKey: break
        case .variable(let name): if !bound.contains(name) { names.read.insert(name) }
        case .keyPathOn(let operand, _): collect(operand, bound: bound, into: &names)
        case .aggregate(let es): for x in es { collect(x, bound: bound, into: &names) }
        case .function(_, let args): for x in args { collect(x, bound: bound, into: &names) }
        case .index(let base, let sub):
            collect(base, bound: bound, into: &names)
            if case .expression(let i) = sub { collect(i, bound: bound, into: &names) }
        case .customFunction(let target, _, let args):
            collect(target, bound: bound, into: &names)
            for x in args { collect(x, bound: bound, into: &names) }
        case .cast(let v, let t):
            collect(v, bound: bound, into: &names)
            collect(t, bound: bound, into: &names)
        case .ternary(let p, let a, let b):
            collect(p, bound: bound, into: &names)
            collect(a, bound: bound, into: &names)
            collect(b, bound: bound, into: &names)
        case .subquery(let collection, let variable, let predicate):
            collect(collection, bound: bound, into: &names)
            collect(predicate, bound: bound.union([variable]), into: &names)
        case .assignment(let variable, let value):
            names.assigned.insert(variable)
            collect(value, bound: bound, into: &names)
        case .setOperation(_, let a, let b):
            collect(a, bound: bound, into: &names)
            collect(b, bound: bound, into: &names)
        }
    }
}

@usableFromInline typealias PredicateFunction<Root> = (Root, inout EvaluationState) throws(EvalError) -> Bool
typealias ExpressionFunction<Root> = (Root, inout EvaluationState) throws(EvalError) -> PredicateValue

/// Compiles a tree once, for one kind of root value, into nested closures: key names are
/// resolved, constants folded for their options, patterns and membership sets built, so the
/// per-element work is only the reading and comparing ("speed comes from compiling").
struct EvaluatorCompiler<Root> {
    let reader: ValueReader<Root>
    let functions: PredicateFunctions
    /// Whether parts that depend on no row are computed now (see ConstantFolding.swift);
    /// false in the compiler that computes them.
    var folds = true

    init(reader: ValueReader<Root>, functions: PredicateFunctions, folds: Bool = true) {
        self.reader = reader
        self.functions = functions
        self.folds = folds
    }

    // MARK: Predicates

    /// `place` is where `p` was written, when the predicate came with its ``SourceMap``: errors
    /// then carry the range of the innermost node that raised them, at compile and run time.
    func compile(_ p: PredicateNode, at place: SourcePlace? = nil) throws(EvalError) -> PredicateFunction<Root> {
        guard let place else { return try compileNode(p, at: nil) }
        let f: PredicateFunction<Root>
        do throws(EvalError) { f = try compileNode(p, at: place) } catch { throw place.placing(error) }
        // AND, OR and NOT raise nothing of their own at run time: their operands place their errors.
        guard case .comparison = p else { return f }
        return { root, state throws(EvalError) in
            do throws(EvalError) { return try f(root, &state) } catch { throw place.placing(error) }
        }
    }

    private func compileNode(_ p: PredicateNode, at place: SourcePlace?) throws(EvalError) -> PredicateFunction<Root> {
        switch p {
        case .constant(let b):
            return { _, _ in b }
        case .not(let inner):
            if let fused = FusedPaths.not(inner, reader: reader) { return fused.run }
            let f = try compile(inner, at: place?.child(0))
            return { root, state throws(EvalError) in try !f(root, &state) }
        case .and(let ps):
            let places = SourcePlace.children(of: place, count: ps.count)
            let fs = try ps.indices.map { (i) throws(EvalError) in PredicateStep(try compile(ps[i], at: places[place: i])) }
            let general = PredicateStep.all(fs[...])
            // Not `?.run ?? general`: through the generic `??` the closure is held at the most
            // general abstraction, and each call pays two reabstraction thunks.
            if let fused = FusedPaths.sameIntKey(ps, all: true, reader: reader, general: general) { return fused.run }
            return general
        case .or(let ps):
            let places = SourcePlace.children(of: place, count: ps.count)
            let fs = try ps.indices.map { (i) throws(EvalError) in PredicateStep(try compile(ps[i], at: places[place: i])) }
            let general = PredicateStep.any(fs[...])
            // Not `?.run ?? general`: through the generic `??` the closure is held at the most
            // general abstraction, and each call pays two reabstraction thunks.
            if let fused = FusedPaths.sameIntKey(ps, all: false, reader: reader, general: general) { return fused.run }
            return general
        case .comparison(let c):
            do throws(EvalError) {
                return try compile(c, at: place)
            } catch {
                throw error.located(c.description)
            }
        }
    }

    func compile(_ original: ComparisonNode, at place: SourcePlace? = nil) throws(EvalError) -> PredicateFunction<Root> {
        let options = try StringOptions(original.options)
        if original.op == .between, let e = SharedSemantics.betweenShapeError(original.rhs) { throw e }
        var c = original
        if folds {
            if c.lhs.isRowIndependent && c.rhs.isRowIndependent {
                let holds = try SharedSemantics.evaluateConstant(c)
                return { _, _ in holds }
            }
            // Operands computed now are constants to the fast paths and the prepared forms.
            if c.lhs.isRowIndependent && !c.lhs.isConstant { c.lhs = .constant(try place.folding(c.lhs, child: 0)) }
            if c.rhs.isRowIndependent && !c.rhs.isConstant { c.rhs = .constant(try place.folding(c.rhs, child: 1)) }
            if c.op == .between, let e = SharedSemantics.betweenShapeError(c.rhs) { throw e }
        }
        let fast: PredicateStep<Root>?
        do throws(EvalError) { fast = try FastPaths.comparison(c, options: options, reader: reader) } catch {
            // A fast path reads its left key without compiling it: an unknown key of a typed
            // value is that operand's error, placed there (a single key: no recursion).
            if let place { _ = try compile(c.lhs, at: place.child(0)) }
            throw error
        }
        if let fast { return fast.run }
        let lhs = try compile(c.lhs, at: place?.child(0))
        let rhs = try compile(c.rhs, at: place?.child(1))
        var prepared = ComparisonEvaluation.PreparedOperand.none
        if case .constant(let v) = c.rhs { prepared = try ComparisonEvaluation.prepare(c.op, rhs: v, options: options) }
        let op = c.op
        let located = { original.description }
        // IN and CONTAINS go through a collection unless a constant's members were hashed.
        var membersHashed = false
        switch prepared {
        case .members, .foldedMembers: membersHashed = true
        default: break
        }
        let scansLeft = op == .contains, scansRight = op == .in && !membersHashed
        switch c.quantifier {
        case .direct where scansLeft || scansRight:
            return { root, state throws(EvalError) in
                do throws(EvalError) {
                    let l = try lhs(root, &state)
                    let r = try rhs(root, &state)
                    try state.charge(scansLeft ? l.elementCount : r.elementCount)
                    return try ComparisonEvaluation.apply(op, l, r, options, prepared)
                } catch { throw error.located(located()) }
            }
        case .direct:
            return { root, state throws(EvalError) in
                do throws(EvalError) {
                    let l = try lhs(root, &state)
                    let r = try rhs(root, &state)
                    return try ComparisonEvaluation.apply(op, l, r, options, prepared)
                } catch { throw error.located(located()) }
            }
        case .any, .all:
            let isAll = c.quantifier == .all
            return { root, state throws(EvalError) in
                do throws(EvalError) {
                    let l = try lhs(root, &state)
                    let r = try rhs(root, &state)
                    if l.isNull { return isAll }
                    guard let elements = l.collectionElements else {
                        throw EvalError.notACollection("the left side of \(isAll ? "ALL" : "ANY") must be an array or a set, not \(l.kindDescription)")
                    }
                    try state.charge(elements.count)
                    for e in elements {
                        let holds = try ComparisonEvaluation.apply(op, e, r, options, prepared)
                        if isAll && !holds { return false }
                        if !isAll && holds { return true }
                    }
                    return isAll
                } catch { throw error.located(located()) }
            }
        }
    }

    // MARK: Expressions

    /// `place` as for predicates.
    func compile(_ e: ExpressionNode, at place: SourcePlace? = nil) throws(EvalError) -> ExpressionFunction<Root> {
        guard let place else { return try compileNode(e, at: nil) }
        let f: ExpressionFunction<Root>
        do throws(EvalError) { f = try compileNode(e, at: place) } catch { throw place.placing(error) }
        // A constant and a list of operands raise nothing of their own at run time.
        switch e {
        case .constant, .aggregate: return f
        default: break
        }
        return { root, state throws(EvalError) in
            do throws(EvalError) { return try f(root, &state) } catch { throw place.placing(error) }
        }
    }

    private func compileNode(_ e: ExpressionNode, at place: SourcePlace?) throws(EvalError) -> ExpressionFunction<Root> {
        if folds, !e.isConstant, e.isRowIndependent {
            let v = try SharedSemantics.evaluateConstant(e)
            return { _, _ in v }
        }
        let kids = SourcePlace.children(of: place, count: e.positionedChildCount)
        switch e {
        case .constant(let v):
            return { _, _ in v }
        case .evaluatedObject:
            let selfValue = reader.selfValue
            return { root, _ throws(EvalError) in try selfValue(root) }
        case .variable(let name):
            return { _, state throws(EvalError) in
                guard let v = state.variables[name] else {
                    throw EvalError(kind: .unboundVariable, message: "$\(name) has no value",
                                    hint: "bind it when evaluating: variables: [\"\(name)\": …]")
                }
                return v
            }
        case .keyPath(let path):
            return try compileKeyPath(path)
        case .keyPathOn(let operand, let path):
            let base = try compile(operand, at: kids[place: 0])
            let rest = path[...]
            return { root, state throws(EvalError) in
                let b = try base(root, &state)
                // A key or an operator goes through every element of a collection.
                try state.charge(b.elementCount)
                return try KeyPathReading.value(b, path: rest)
            }
        case .aggregate(let elements):
            let fs = try elements.indices.map { (i) throws(EvalError) in try compile(elements[i], at: kids[place: i]) }
            return { root, state throws(EvalError) in
                var out: [PredicateValue] = []
                out.reserveCapacity(fs.count)
                for f in fs { out.append(try f(root, &state)) }
                return .array(out)
            }
        case .function(let f, let args):
            guard args.count == f.arity else {
                throw EvalError.unsupported("\(f.selector) takes \(f.arity) argument\(f.arity == 1 ? "" : "s"), not \(args.count)")
            }
            if [.distanceToLocation, .indexed].contains(f) {
                throw EvalError.unsupported("\(f.selector) is a Core Location / Core Data internal with no meaning outside Apple platforms")
            }
            let fs = try args.indices.map { (i) throws(EvalError) in try compile(args[i], at: kids[place: i]) }
            if f.goesThroughCollection {
                return { root, state throws(EvalError) in
                    var values: [PredicateValue] = []
                    values.reserveCapacity(fs.count)
                    for g in fs {
                        let v = try g(root, &state)
                        try state.charge(v.elementCount)
                        values.append(v)
                    }
                    return try FunctionEvaluation.apply(f, values)
                }
            }
            if fs.count == 2 {
                let a = fs[0], b = fs[1]
                return { root, state throws(EvalError) in try FunctionEvaluation.apply(f, [try a(root, &state), try b(root, &state)]) }
            }
            return { root, state throws(EvalError) in
                var values: [PredicateValue] = []
                values.reserveCapacity(fs.count)
                for g in fs { values.append(try g(root, &state)) }
                return try FunctionEvaluation.apply(f, values)
            }
        case .index(let base, let sub):
            let b = try compile(base, at: kids[place: 0])
            if case .expression(let i) = sub {
                let idx = try compile(i, at: kids[place: 1])
                return { root, state throws(EvalError) in try IndexAccess.element(try b(root, &state), sub, try idx(root, &state)) }
            }
            return { root, state throws(EvalError) in try IndexAccess.element(try b(root, &state), sub, nil) }
        case .customFunction(let target, let selector, let args):
            // The caller's functions first, then the few selectors with a meaning of their own.
            guard let body = functions.table[selector] ?? SelectorEvaluation.builtin(selector) else {
                throw EvalError.unsupported(SelectorOperator.isOperatorSelector(selector) && args.count == 1
                                                ? "the selector '\(selector)' has no meaning without the Objective-C runtime, and no function is registered for it"
                                                : "FUNCTION selector '\(selector)' is not registered",
                                            hint: "register it: PredicateFunctions([\"\(selector)\": { target, args in … }])")
            }
            let t = try compile(target, at: kids[place: 0])
            let fs = try args.indices.map { (i) throws(EvalError) in try compile(args[i], at: kids[place: i + 1]) }
            return { root, state throws(EvalError) in
                let tv = try t(root, &state)
                if tv.isNull { return .null }
                var values: [PredicateValue] = []
                for g in fs { values.append(try g(root, &state)) }
                do { return try body(tv, values) } catch let error as EvalError { throw error } catch {
                    throw EvalError.unsupported("FUNCTION '\(selector)' failed: \(error)")
                }
            }
        case .cast(let value, let type):
            let v = try compile(value, at: kids[place: 0]), t = try compile(type, at: kids[place: 1])
            return { root, state throws(EvalError) in try Casting.cast(try v(root, &state), to: try t(root, &state)) }
        case .ternary(let p, let a, let b):
            let cond = try compile(p, at: kids[place: 0]), x = try compile(a, at: kids[place: 1]), y = try compile(b, at: kids[place: 2])
            return { root, state throws(EvalError) in
                if try cond(root, &state) { return try x(root, &state) }
                return try y(root, &state)
            }
        case .subquery(let collection, let variable, let predicate):
            let coll = try compile(collection, at: kids[place: 0])
            let pred = try compile(predicate, at: kids[place: 1])
            // Each element tested costs the inner predicate's nodes and the binding.
            let testWeight = predicate.nodeCount + 1
            return { root, state throws(EvalError) in
                let c = try coll(root, &state)
                if c.isNull { return .null }
                guard let elements = c.collectionElements else {
                    throw EvalError.notACollection("SUBQUERY needs a collection, not \(c.kindDescription)")
                }
                let saved = state.variables[variable]
                defer { state.variables[variable] = saved }
                var out: [PredicateValue] = []
                for e in elements {
                    try state.charge(testWeight)
                    state.variables[variable] = e
                    if try pred(root, &state) { out.append(e) }
                }
                return .array(out)
            }
        case .assignment(let variable, let value):
            let v = try compile(value, at: kids[place: 0])
            return { root, state throws(EvalError) in
                let x = try v(root, &state)
                state.variables[variable] = x
                return x
            }
        case .setOperation(let op, let a, let b):
            let x = try compile(a, at: kids[place: 0]), y = try compile(b, at: kids[place: 1])
            return { root, state throws(EvalError) in
                let l = try x(root, &state), r = try y(root, &state)
                guard let le = l.collectionElements ?? (l.isNull ? [] : nil),
                      let re = r.collectionElements ?? r.dictionaryValues ?? (r.isNull ? [] : nil) else {
                    throw EvalError.notACollection("\(op.rawValue) needs collections on both sides")
                }
                try state.charge(le.count + re.count)
                let right = Set(re)
                switch op {
                case .union: return .set(Aggregates.distinct(le + re))
                case .intersect: return .set(Aggregates.distinct(le.filter { right.contains($0) }))
                case .minus: return .set(Aggregates.distinct(le.filter { !right.contains($0) }))
                }
            }
        case .anyKey:
            throw EvalError.unsupported("ANYKEY is a Spotlight construct and cannot be evaluated",
                                        hint: "name the key to compare")
        }
    }

    /// A key path on SELF: the first key through the root's reader (resolved now), the rest on
    /// the values it yields.
    func compileKeyPath(_ path: [String]) throws(EvalError) -> ExpressionFunction<Root> {
        guard let first = path.first else { return { _, _ in .null } }
        if CollectionOperator.isOperator(first) {
            let selfValue = reader.selfValue
            let rest = path[...]
            return { root, state throws(EvalError) in
                let v = try selfValue(root)
                try state.charge(v.elementCount)
                return try KeyPathReading.value(v, path: rest)
            }
        }
        let accessor = try reader.key(first)
        try reader.checkPath?(path)
        if path.count == 1 {
            return { root, _ throws(EvalError) in try accessor.read(root) }
        }
        let rest = path[1...]
        return { root, state throws(EvalError) in
            let v = try accessor.read(root)
            // A key or an operator after a collection goes through each of its elements.
            try state.charge(v.elementCount)
            return try KeyPathReading.value(v, path: rest)
        }
    }
}

/// Swift functions for `FUNCTION(target, 'selector', args…)`, keyed by selector. Apple calls an
/// Objective-C method; on every platform PQL calls a registered closure instead.
///
/// ```swift
/// let functions = PredicateFunctions(["double:": { target, args in
///     guard case .int(let i) = target else { return .null }
///     return .int(i * 2)
/// }])
/// let p = try PredicateNode(format: "FUNCTION(age, 'double:') > 60").compiled(for: PredicateValue.self, functions: functions)
/// ```
public struct PredicateFunctions: Sendable {
    /// A registered function: it gets the target and the arguments, evaluated, and returns the result or throws.
    ///
    /// ```swift
    /// let scale: PredicateFunctions.Body = { target, args in
    ///     guard case .double(let x) = target, case .double(let k)? = args.first else { return .null }
    ///     return .double(x * k)
    /// }
    /// ```
    public typealias Body = @Sendable (PredicateValue, [PredicateValue]) throws -> PredicateValue
    let table: [String: Body]

    /// Creates a table of functions keyed by selector (`"double:"`, `"scale:by:"`).
    public init(_ table: [String: Body] = [:]) { self.table = table }

    /// No functions: any `FUNCTION(…)` is an `unsupported` error when compiled.
    public static let none = PredicateFunctions()
}

extension PredicateValue {
    /// The elements of an array, set or dictionary, 0 for anything else: the steps going
    /// through it costs (see ``EvaluationLimits``).
    @inline(__always)
    var elementCount: Int {
        switch self {
        case .array(let a), .set(let a): return a.count
        case .dictionary(let d): return d.count
        default: return 0
        }
    }
}

extension BuiltinFunction {
    /// The functions of a collection, which go through each of its elements.
    var goesThroughCollection: Bool {
        switch self {
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev, .distinct: return true
        default: return false
        }
    }
}

/// Where a node being compiled was written: a node of a ``SourceMap``. Only predicates compiled
/// with their map have places; the others compile as before, with no wrapping closures.
struct SourcePlace {
    let map: SourceMap
    let node: SourceMap.Node

    func child(_ i: Int) -> SourcePlace? {
        map.child(i, of: node).map { SourcePlace(map: map, node: $0) }
    }

    /// The places of `place`'s `count` children (nils without a place), listed once: an OR of
    /// many terms must not look its children up one by one.
    static func children(of place: SourcePlace?, count: Int) -> [SourcePlace?] {
        guard let place, count > 0 else { return [] }
        return place.map.children(of: place.node).map { SourcePlace(map: place.map, node: $0) }
    }

    /// `error` placed at this node unless an inner node placed it already.
    func placing(_ error: PredicateEvaluationError) -> PredicateEvaluationError {
        error.placed(map.range(of: node), in: map.source)
    }
}

extension Array where Element == SourcePlace? {
    /// The `i`th place, nil past the end (every place of a tree compiled without a map).
    subscript(place i: Int) -> SourcePlace? { i < count ? self[i] : nil }
}

extension Optional where Wrapped == SourcePlace {
    /// The value of a row-independent operand, computed now; its errors placed at the operand.
    func folding(_ e: ExpressionNode, child i: Int) throws(EvalError) -> PredicateValue {
        do throws(EvalError) { return try SharedSemantics.evaluateConstant(e) } catch {
            guard let operand = self?.child(i) else { throw error }
            throw operand.placing(error)
        }
    }
}

extension ExpressionNode {
    /// The number of children a ``SourceMap`` lists for this node.
    var positionedChildCount: Int {
        switch self {
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey: return 0
        case .keyPathOn, .assignment: return 1
        case .aggregate(let items), .function(_, let items): return items.count
        case .index(_, let sub): if case .expression = sub { return 2 } else { return 1 }
        case .customFunction(_, _, let args): return args.count + 1
        case .cast, .setOperation, .subquery: return 2
        case .ternary: return 3
        }
    }
}

/// A predicate compiled for one kind of value: immutable, `Sendable`, reusable across threads.
///
/// ```swift
/// let adults = try PredicateNode(format: "age >= %@", 18).compiled(for: PredicateValue.self)
/// let ok = try adults.evaluate(["age": 30])   // true
/// ```
public struct CompiledPredicate<Root>: Sendable {
    /// The predicate this was compiled from.
    public let predicate: PredicateNode
    let test: @Sendable (Root, inout EvaluationState) throws(EvalError) -> Bool

    /// Compiles with an explicit reader (for types that are not ``PredicateEvaluable``).
    ///
    /// ```swift
    /// let p = try CompiledPredicate(PredicateNode(format: "price < 10"), reader: EncodableValues.reader(for: Item.self))
    /// ```
    public init(_ predicate: PredicateNode, reader: ValueReader<Root>, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) {
        self.predicate = predicate
        let f = try EvaluatorCompiler(reader: reader, functions: functions).compile(predicate)
        self.test = unsafeBitCast(f, to: (@Sendable (Root, inout EvaluationState) throws(EvalError) -> Bool).self)
    }

    /// Whether `value` satisfies the predicate; `variables` bind `$names`.
    public func evaluate(_ value: Root, variables: [String: PredicateValue] = [:]) throws(PredicateEvaluationError) -> Bool {
        var state = EvaluationState(variables: variables)
        return try test(value, &state)
    }
}

extension PredicateNode {
    /// Compiles the predicate for values of `type`. Unknown keys of typed values are reported
    /// here, once, not per element.
    ///
    /// ```swift
    /// let p = try PredicateNode(format: "name BEGINSWITH[c] 'a'").compiled(for: Person.self)
    /// ```
    public func compiled<Root: PredicateEvaluable>(for type: Root.Type = Root.self,
                                                   functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> CompiledPredicate<Root> {
        try CompiledPredicate(self, reader: Root.predicateReader, functions: functions)
    }

    /// Evaluates the predicate on one value.
    ///
    /// ```swift
    /// try PredicateNode(format: "SELF BETWEEN {1, 5}").evaluate(on: 3)   // true
    /// ```
    public func evaluate<Root: PredicateEvaluable>(on value: Root, variables: [String: PredicateValue] = [:],
                                                   functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> Bool {
        try compiled(for: Root.self, functions: functions).evaluate(value, variables: variables)
    }
}

extension Sequence {
    /// The elements that satisfy a compiled predicate, in order.
    ///
    /// ```swift
    /// let vip = try people.filter(PredicateNode(format: "ANY tags == 'vip'").compiled(for: Person.self))
    /// ```
    public func filter(_ predicate: CompiledPredicate<Element>,
                       variables: [String: PredicateValue] = [:]) throws(PredicateEvaluationError) -> [Element] {
        var state = EvaluationState(variables: variables)
        var out: [Element] = []
        var n = 0
        for e in self {
            n &+= 1
            if n & 0xFFFF == 0, Task.isCancelled {
                throw EvalError(kind: .cancelled, message: "the evaluation was cancelled after \(n) elements")
            }
            if try predicate.test(e, &state) { out.append(e) }
            if !state.variables.isEmpty && state.variables != variables { state.variables = variables }
        }
        return out
    }

    /// The indices (0-based positions) of the elements that satisfy a compiled predicate.
    public func indices(matching predicate: CompiledPredicate<Element>,
                        variables: [String: PredicateValue] = [:]) throws(PredicateEvaluationError) -> [Int] {
        var state = EvaluationState(variables: variables)
        var out: [Int] = []
        for (i, e) in self.enumerated() {
            if i & 0xFFFF == 0xFFFF, Task.isCancelled {
                throw EvalError(kind: .cancelled, message: "the evaluation was cancelled after \(i) elements")
            }
            if try predicate.test(e, &state) { out.append(i) }
        }
        return out
    }
}

extension Sequence where Element: PredicateEvaluable {
    /// The elements that satisfy a predicate, in order.
    ///
    /// ```swift
    /// let adults = try people.filter(PredicateNode(format: "age >= 18"))
    /// ```
    public func filter(_ predicate: PredicateNode, variables: [String: PredicateValue] = [:],
                       functions: PredicateFunctions = .none) throws(PredicateEvaluationError) -> [Element] {
        try filter(predicate.compiled(for: Element.self, functions: functions), variables: variables)
    }
}

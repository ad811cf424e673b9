/// A predicate compiled for one kind of value: immutable, `Sendable`, reusable across threads.
///
/// ```swift
/// let adults = try PredicateNode(format: "age >= %@", 18).compiled(for: PredicateValue.self)
/// let ok = try adults.evaluate(["age": 30])   // true
/// ```
public struct CompiledPredicate<Root>: @unchecked Sendable {
    /// The predicate this was compiled from.
    public let predicate: PredicateNode
    /// The compiled closures capture only immutable values (resolved accessors, constants,
    /// folded needles, patterns), hence `@unchecked Sendable`. The closure is stored as the
    /// compiler returns it: converting it to a `@Sendable` type through a generic function
    /// (`unsafeBitCast`) wrapped every call in two reabstraction thunks.
    @usableFromInline let test: PredicateFunction<Root>
    /// Whether `:=` can change the bindings while evaluating; only then must each element start
    /// again from the caller's variables (SUBQUERY restores its own variable).
    @usableFromInline let assigns: Bool
    /// The steps one element costs: the tree's nodes (see ``EvaluationLimits``).
    @usableFromInline let weight: Int

    /// Compiles with an explicit reader (for types that are not ``PredicateEvaluable``).
    ///
    /// ```swift
    /// let p = try CompiledPredicate(PredicateNode(format: "price < 10"), reader: EncodableValues.reader(for: Item.self))
    /// ```
    public init(_ predicate: PredicateNode, reader: ValueReader<Root>, functions: PredicateFunctions = .none) throws(PredicateEvaluationError) {
        try self.init(predicate, reader: reader, functions: functions, sourceMap: nil)
    }

    /// Compiles with the ``SourceMap`` the predicate was parsed with: its errors, at compile
    /// and at run time, carry the ``PredicateEvaluationError/range`` of the sub-expression that
    /// failed. A map that does not fit the tree (the tree was changed since) is ignored.
    ///
    /// ```swift
    /// let (tree, map) = try PredicateNode.parse(format: "a == 1 AND b + 1 > 2")
    /// let p = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
    /// do { _ = try p.evaluate(["a": 1, "b": "x"]) }
    /// catch let e as PredicateEvaluationError { print(e.range!) }   // line 1, column 12: b + 1
    /// ```
    public init(_ predicate: PredicateNode, reader: ValueReader<Root>, functions: PredicateFunctions = .none,
                sourceMap: SourceMap?) throws(PredicateEvaluationError) {
        // Trees built in code skipped the parser's nesting limit; compiling recurses.
        let depth = predicate.nestingDepth(cappedAt: PredicateNode.maxCompileDepth)
        if depth > PredicateNode.maxCompileDepth {
            throw PredicateEvaluationError(kind: .unsupported, message: "the predicate nests deeper than \(PredicateNode.maxCompileDepth) levels",
                                           hint: "flatten it: AND and OR take any number of operands")
        }
        self.predicate = predicate
        let compiler = EvaluatorCompiler(reader: reader, functions: functions)
        let place = sourceMap.flatMap { $0.fits(predicate) ? SourcePlace(map: $0, node: $0.root) : nil }
        // The closure comes back in a `PredicateStep`: through the generic result of
        // `LargeStack.run` a bare closure is held at the most general abstraction, and every
        // call of the stored test then went through two reabstraction thunks.
        let (step, assigns) = try LargeStack.run(if: depth > PredicateNode.inlineCompileDepth) {
            () throws(PredicateEvaluationError) -> (PredicateStep<Root>, Bool) in
            (PredicateStep(try compiler.compile(predicate, at: place)), predicate.assignsVariables)
        }
        let test = step.run
        self.assigns = assigns
        weight = predicate.nodeCount
        if depth > PredicateNode.inlineWalkDepth {
            // Only trees built in code nest this deep: each test runs on a large stack (a
            // thread per call, tens of microseconds) rather than risk the caller's.
            self.test = { root, state throws(EvalError) in
                let before = state
                let budget = EvaluationBudget.current
                let (result, after) = try LargeStack.run(if: true) { () throws(EvalError) -> (Bool, EvaluationState) in
                    var s = before
                    let r = try EvaluationBudget.continuing(budget) { () throws(EvalError) in try test(root, &s) }
                    return (r, s)
                }
                state = after
                return result
            }
        } else {
            self.test = test
        }
    }

    /// Gives the next element the caller's bindings, undoing what `:=` did to the last one.
    @inlinable @inline(__always)
    func restart(_ state: inout EvaluationState, _ variables: [String: PredicateValue]) {
        if assigns { state.variables = variables }
    }

    /// Whether `value` satisfies the predicate; `variables` bind `$names`; `limits` bound the
    /// work of this one evaluation.
    ///
    /// ```swift
    /// let adult = try PredicateNode(format: "age >= $MIN").compiled(for: PredicateValue.self)
    /// try adult.evaluate(["age": 30], variables: ["MIN": 18])   // true
    /// ```
    public func evaluate(_ value: Root, variables: [String: PredicateValue] = [:],
                         limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> Bool {
        var state = EvaluationState(variables: variables, limits: limits)
        return try EvaluationBudget.run(limits, about: predicate) { () throws(EvalError) -> Bool in
            try state.charge(weight)
            return try test(value, &state)
        }
    }
}

/// A compiled closure held in a struct. Arrays of bare closures store them at the most general
/// abstraction, so each call would go through two reabstraction thunks; a struct field keeps
/// the closure's own calling convention.
struct PredicateStep<Root> {
    let run: PredicateFunction<Root>

    init(_ run: @escaping PredicateFunction<Root>) { self.run = run }

    /// AND: every step holds, tried left to right up to the first that does not. Built as a
    /// balanced tree of pairs, so evaluating touches no array (iterating one from generic code
    /// looks up type metadata on every call) and nests only log2(n) calls deep.
    static func all(_ steps: ArraySlice<PredicateStep>) -> PredicateFunction<Root> {
        switch steps.count {
        case 0: return { _, _ in true }
        case 1: return steps[steps.startIndex].run
        case 3:
            // Three operands (a common AND) in one closure rather than two levels.
            let a = steps[steps.startIndex].run, b = steps[steps.startIndex + 1].run, c = steps[steps.startIndex + 2].run
            return { root, state throws(EvalError) in
                guard try a(root, &state), try b(root, &state) else { return false }
                return try c(root, &state)
            }
        default:
            let middle = steps.startIndex + steps.count / 2
            let a = all(steps[..<middle]), b = all(steps[middle...])
            return { root, state throws(EvalError) in
                guard try a(root, &state) else { return false }
                return try b(root, &state)
            }
        }
    }

    /// OR: some step holds, tried left to right up to the first that does (see ``all(_:)``).
    static func any(_ steps: ArraySlice<PredicateStep>) -> PredicateFunction<Root> {
        switch steps.count {
        case 0: return { _, _ in false }
        case 1: return steps[steps.startIndex].run
        case 3:
            let a = steps[steps.startIndex].run, b = steps[steps.startIndex + 1].run, c = steps[steps.startIndex + 2].run
            return { root, state throws(EvalError) in
                if try a(root, &state) { return true }
                if try b(root, &state) { return true }
                return try c(root, &state)
            }
        default:
            let middle = steps.startIndex + steps.count / 2
            let a = any(steps[..<middle]), b = any(steps[middle...])
            return { root, state throws(EvalError) in
                if try a(root, &state) { return true }
                return try b(root, &state)
            }
        }
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
                                                   functions: PredicateFunctions = .none,
                                                   limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> Bool {
        try compiled(for: Root.self, functions: functions).evaluate(value, variables: variables, limits: limits)
    }
}

/// Filtering any sequence with a ``CompiledPredicate`` for its element type.
extension Sequence {
    /// The elements that satisfy a compiled predicate, in order. `limits` bound the work of
    /// the whole call; an error names the element it happened on
    /// (``PredicateEvaluationError/elementIndex``).
    ///
    /// ```swift
    /// let vip = try people.filter(PredicateNode(format: "ANY tags == 'vip'").compiled(for: Person.self))
    /// ```
    @inlinable   // so that the loop over an array is specialized for its element type
    public func filter(_ predicate: CompiledPredicate<Element>, variables: [String: PredicateValue] = [:],
                       limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> [Element] {
        try EvaluationBudget.run(limits, about: predicate.predicate) { () throws(EvalError) -> [Element] in
            // Arrays and other contiguous storage: through the buffer, without an iterator, moving
            // each match into the result instead of copying it twice (see `filter(_:variables:)` below).
            var failure: EvalError? = nil
            let contiguous = withContiguousStorageIfAvailable { buffer -> [Element] in
                do throws(EvalError) {
                    return try predicate.filter(buffer, variables: variables, limits: limits)
                } catch {
                    failure = error
                    return []
                }
            }
            if let failure { throw failure }
            if let contiguous { return contiguous }

            var out: [Element] = []
            try forEachMatch(of: predicate, variables: variables, limits: limits) { _, e in out.append(e) }
            return out
        }
    }

    /// The indices (0-based positions) of the elements that satisfy a compiled predicate.
    ///
    /// ```swift
    /// let positions = try people.indices(matching: PredicateNode(format: "age >= 18").compiled(for: Person.self))   // [0, 2]
    /// ```
    public func indices(matching predicate: CompiledPredicate<Element>, variables: [String: PredicateValue] = [:],
                        limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> [Int] {
        try EvaluationBudget.run(limits, about: predicate.predicate) { () throws(EvalError) -> [Int] in
            var failure: EvalError? = nil
            let contiguous = withContiguousStorageIfAvailable { buffer -> [Int] in
                do throws(EvalError) {
                    let (words, count) = try predicate.matches(buffer, variables: variables, limits: limits)
                    return CompiledPredicate<Element>.positions(words, count: count)
                } catch {
                    failure = error
                    return []
                }
            }
            if let failure { throw failure }
            if let contiguous { return contiguous }

            var out: [Int] = []
            try forEachMatch(of: predicate, variables: variables, limits: limits) { i, _ in out.append(i) }
            return out
        }
    }

    /// The generic path of ``filter(_:variables:limits:)`` and
    /// ``indices(matching:variables:limits:)``, for sequences without contiguous storage.
    @usableFromInline
    func forEachMatch(of predicate: CompiledPredicate<Element>, variables: [String: PredicateValue],
                              limits: EvaluationLimits, _ body: (Int, Element) -> Void) throws(EvalError) {
        var state = EvaluationState(variables: variables, limits: limits)
        var i = 0
        do throws(EvalError) {
            for e in self {
                try state.charge(predicate.weight)
                if try predicate.test(e, &state) { body(i, e) }
                predicate.restart(&state, variables)
                i += 1
            }
        } catch {
            throw error.on(element: i)
        }
    }
}

extension CompiledPredicate {
    /// Which elements of `buffer` match, as a bitmap (bit `i % 64` of word `i / 64`), and how
    /// many.
    @inlinable   // specialized with `filter`, which calls it
    func matches(_ buffer: UnsafeBufferPointer<Root>, variables: [String: PredicateValue],
                 limits: EvaluationLimits) throws(EvalError) -> (words: [UInt64], count: Int) {
        let n = buffer.count
        var words = [UInt64](repeating: 0, count: (n + 63) >> 6)
        var count = 0
        guard n > 0, let base = buffer.baseAddress else { return (words, 0) }
        var state = EvaluationState(variables: variables, limits: limits)
        let test = self.test, weight = self.weight
        let borrowing = ElementBorrow<Root>()
        defer { borrowing.release() }
        var i = 0
        do throws(EvalError) {
            try words.withUnsafeMutableBufferPointer { (w) throws(EvalError) in
                while i < n {
                    // One word of bits at a time.
                    let end = Swift.min(i + 64, n)
                    var bits: UInt64 = 0
                    var bit: UInt64 = 1
                    // The word's steps at once, unless a checkpoint falls inside it: then one by
                    // one, so that a limit stops at the exact element.
                    let counted = state.chargeIfClear(weight &* (end - i))
                    while i < end {
                        if !counted { try state.charge(weight) }
                        if try borrowing.test(base + i, test, &state) { bits |= bit }
                        restart(&state, variables)
                        bit &<<= 1
                        i += 1
                    }
                    w[(i - 1) >> 6] = bits
                    count += bits.nonzeroBitCount
                }
            }
        } catch {
            throw error.on(element: i)
        }
        return (words, count)
    }

    /// The matching elements of `buffer`, in one pass: each element is tested where it lies
    /// (see ``ElementBorrow``) and a match is copied into the result at once, while what it
    /// refers to is still in the cache.
    ///
    /// The result's room comes from the first elements' rate of matches. Room for every element
    /// would cost a page fault per page written once the buffer is large (the C allocator maps
    /// anything over 32 MiB afresh on every call), and trimming it a second copy; a second pass
    /// over a bitmap of matches would retain each match's references after they left the cache.
    /// If the rate was low the result grows by doubling, as `Array.filter`'s does; if it was
    /// high, the matches are copied into a result of their size at the end.
    @inlinable
    func filter(_ buffer: UnsafeBufferPointer<Root>, variables: [String: PredicateValue],
                limits: EvaluationLimits) throws(EvalError) -> [Root] {
        let n = buffer.count
        guard n > 0, let base = buffer.baseAddress else { return [] }
        let test = self.test, weight = self.weight
        let borrowing = ElementBorrow<Root>()
        defer { borrowing.release() }
        var result: [Root] = []
        var state = EvaluationState(variables: variables, limits: limits)
        let sample = Swift.min(n, 1024)
        var i = 0
        do throws(EvalError) {
            while i < n {
                // 64 elements' steps at once, unless a checkpoint falls among them: then one
                // by one, so that a limit stops at the exact element.
                let end = Swift.min(i + 64, n)
                let counted = state.chargeIfClear(weight &* (end - i))
                while i < end {
                    if !counted { try state.charge(weight) }
                    if try borrowing.test(base + i, test, &state) { result.append(base[i]) }
                    restart(&state, variables)
                    i += 1
                }
                if i == sample && i < n {
                    let expected = result.count * (n / sample)
                    result.reserveCapacity(Swift.min(n, expected + expected / 8 + 16))
                }
            }
        } catch {
            throw error.on(element: i)
        }
        // The first elements promised more matches than came (they were bunched at the
        // front): copied into a result of their size, as doubling would have left them.
        let count = result.count
        guard count < result.capacity / 2 else { return result }
        guard count > 0 else { return [] }   // capacity 0 would write into the shared empty array
        return [Root](unsafeUninitializedCapacity: count) { out, initialized in
            initialized = result.withUnsafeBufferPointer { out.initialize(fromContentsOf: $0) }
        }
    }

    /// The positions of the set bits.
    static func positions(_ words: [UInt64], count: Int) -> [Int] {
        // With capacity 0 the initializer writes the count into the empty-array singleton every
        // empty array shares: a data race with any thread reading one (the thread sanitizer saw
        // it beside a test building an empty dictionary).
        guard count > 0 else { return [] }
        return [Int](unsafeUninitializedCapacity: count) { out, initialized in
            var j = 0
            for (w, word) in words.enumerated() {
                var bits = word
                while bits != 0 {
                    out[j] = w << 6 | bits.trailingZeroBitCount
                    j += 1
                    bits &= bits &- 1
                }
            }
            initialized = j
        }
    }
}

/// Filtering sequences of ``PredicateEvaluable`` values with a predicate compiled on the spot.
extension Sequence where Element: PredicateEvaluable {
    /// The elements that satisfy a predicate, in order.
    ///
    /// ```swift
    /// let adults = try people.filter(PredicateNode(format: "age >= 18"))
    /// ```
    public func filter(_ predicate: PredicateNode, variables: [String: PredicateValue] = [:],
                       functions: PredicateFunctions = .none,
                       limits: EvaluationLimits = .default) throws(PredicateEvaluationError) -> [Element] {
        try filter(predicate.compiled(for: Element.self, functions: functions), variables: variables, limits: limits)
    }
}

/// Lends the elements of a buffer to a compiled test without copying them.
///
/// In the unspecialized generic code that runs a ``CompiledPredicate``, passing `buffer[i]` to
/// a closure copies the element first (the compiler cannot prove the closure leaves the
/// unsafe memory alone): a value-witness call that retains every reference the element holds,
/// and as many releases after. On an array of structs with strings and arrays in them that
/// cost more than most tests (P3 of the benchmarks: a third of its instructions).
///
/// Instead the element's bits are *moved* out of the buffer (a read: nothing is written there
/// and nothing is retained), tested, and moved into a scratch slot that is never
/// deinitialized: the buffer keeps owning the element, the test borrows it, as a `borrowing`
/// parameter would. That is sound only for bitwise-takable types, whose move is a plain copy
/// of bytes that leaves the source as it was; any other type (a C++ value, a weak reference
/// on Darwin) is copied as before.
@usableFromInline
struct ElementBorrow<Root> {
    @usableFromInline let scratch: UnsafeMutablePointer<Root>?

    @inlinable
    init() {
        scratch = _isBitwiseTakable(Root.self) ? .allocate(capacity: 1) : nil
    }

    /// The test's answer for the element at `element`, which stays owned by its buffer.
    @inlinable @inline(__always)
    func test(_ element: UnsafePointer<Root>, _ test: PredicateFunction<Root>,
              _ state: inout EvaluationState) throws(EvalError) -> Bool {
        state.element = UnsafeRawPointer(element)
        guard let scratch else { return try test(element.pointee, &state) }
        let lent = UnsafeMutablePointer(mutating: element).move()
        do throws(EvalError) {
            let holds = try test(lent, &state)
            scratch.initialize(to: consume lent)
            return holds
        } catch {
            scratch.initialize(to: consume lent)
            throw error
        }
    }

    /// Frees the scratch slot, whose last contents belong to the buffer.
    @inlinable
    func release() { scratch?.deallocate() }
}

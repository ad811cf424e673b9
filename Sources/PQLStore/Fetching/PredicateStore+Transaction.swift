import PQL

extension PredicateStore {
    /// Runs `body` as one transaction, letting it throw errors of its own: everything it wrote
    /// is kept if it returns, nothing if it throws.
    ///
    /// The call throws untyped, because two kinds of failure can end it: an error `body` throws
    /// comes out unchanged, as the caller threw it (after the rollback), and a failure of the
    /// store's own (the commit, a write inside `body` that `body` lets through) is a
    /// ``StoreError``. A closure that throws only ``StoreError`` and says so,
    /// `{ () throws(StoreError) in … }`, gets the typed overload instead, which throws
    /// ``StoreError`` alone.
    ///
    /// ```swift
    /// struct OutOfStock: Error {}
    /// do {
    ///     try store.transaction {
    ///         try store.update("Item", id: id, ["stock": .int(stock - 1)])
    ///         if stock == 0 { throw OutOfStock() }   // the update is rolled back
    ///     }
    /// } catch is OutOfStock { … } catch let e as StoreError { … }
    /// ```
    public func transaction<T, Failure: Error>(_ body: () throws(Failure) -> T) throws -> T {
        var thrown: Failure? = nil
        do {
            return try transaction { () throws(StoreError) -> T in
                do throws(Failure) { return try body() } catch {
                    thrown = error
                    // Only makes the store roll back; the caller gets `thrown` itself below.
                    throw StoreError(.cancelled, "the transaction's body threw: \(error)")
                }
            }
        } catch {
            if let thrown { throw thrown }
            throw error
        }
    }
}

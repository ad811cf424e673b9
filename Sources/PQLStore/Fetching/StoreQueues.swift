import Dispatch

/// The threads the async API runs a store's synchronous work on, so that a fetch never blocks
/// a thread of Swift's cooperative pool (one per core): writes on one serial queue (the store
/// writes one at a time anyway), reads on a concurrent one (each on a pooled read-only
/// connection, side by side with each other and with the writer).
struct StoreQueues: Sendable {
    let writes = DispatchQueue(label: "PQLStore.writes")
    let reads = DispatchQueue(label: "PQLStore.reads", attributes: .concurrent)

    /// Runs `body` on `queue` with a cancellation the calling task's cancellation sets, which
    /// stops the SQLite statement running then (and any later one) with a `.cancelled` error.
    static func run<T: Sendable>(on queue: DispatchQueue,
                                 _ body: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        let cancellation = StatementCancellation()
        let result: Result<T, StoreError> = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<T, StoreError>, Never>) in
                queue.async {
                    continuation.resume(returning: cancellation.installed { () -> Result<T, StoreError> in
                        // Cancelled while it waited for its turn: it never starts.
                        if cancellation.isCancelled { return .failure(StatementCancellation.error) }
                        do throws(StoreError) { return .success(try body()) } catch { return .failure(error) }
                    })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }
}

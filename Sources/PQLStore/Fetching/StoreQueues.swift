import Dispatch

/// The threads the async API runs a store's synchronous work on, so that a fetch never blocks
/// a thread of Swift's cooperative pool (one per core): writes on one serial queue (the store
/// writes one at a time anyway), reads on a concurrent one (each on a pooled read-only
/// connection, side by side with each other and with the writer).
struct StoreQueues: Sendable {
    let writes = QueueExecutor(DispatchQueue(label: "PQLStore.writes"))
    let reads = QueueExecutor(DispatchQueue(label: "PQLStore.reads", attributes: .concurrent))

    /// Runs `body` in the calling task, on `executor`'s queue: the task's cancellation is then
    /// seen by the connection's progress handler (`Task.isCancelled` on the thread the
    /// statement runs on), which stops the statement with a `.cancelled` error.
    static func run<T: Sendable>(on executor: QueueExecutor,
                                 _ body: @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        try await withTaskExecutorPreference(executor, isolation: nil) { () async throws(StoreError) -> T in
            // Cancelled while it waited for its turn: it never starts.
            if Task.isCancelled { throw StatementCancellation.error }
            return try body()
        }
    }
}

/// A task executor running jobs on a dispatch queue (the runtime's hand-over, which the thread
/// sanitizer understands, rather than continuations resumed from a queue).
final class QueueExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(_ queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

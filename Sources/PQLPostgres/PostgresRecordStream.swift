import Foundation
import PQL
import PQLStore
import Synchronization

extension PostgresPredicateStore {
    /// The matching records as an `AsyncSequence` that reads them as the server sends them:
    /// memory stays bounded however many rows match.
    ///
    /// Iterating starts the fetch (the statement ``fetch(_:)-(EntityQuery)`` runs) in a task of its own, which
    /// hands records over a few hundred at a time and stops reading from the server while the
    /// consumer has a full buffer (PostgresNIO's backpressure then holds the server back). When
    /// the consumer stops early (a `break`, a thrown error, the iterator dropped) or its task is
    /// cancelled, the statement is cancelled on the server (`pg_cancel_backend`) and the
    /// connection goes back to the pool once the server has stopped it; cancellation throws a
    /// `StoreError` of kind `StoreError.Kind.cancelled`. Errors are the `StoreError`s ``fetch(_:)-(EntityQuery)``
    /// throws. Each iteration runs the query anew.
    ///
    /// ```swift
    /// var total = 0.0
    /// for try await flight in store.records(matching: try EntityQuery("Flight", where: "dest == 'HNL'")) {
    ///     total += flight["distance"]?.doubleValue ?? 0
    /// }
    /// ```
    public func records(matching query: EntityQuery) -> PostgresRecordStream {
        PostgresRecordStream(store: self, query: query)
    }
}

/// The records of a fetch on PostgreSQL, read as they arrive, with backpressure (see
/// ``PostgresPredicateStore/records(matching:)``): the PostgreSQL store's counterpart of the
/// SQLite store's `RecordStream`, with the same elements, order and errors.
///
/// ```swift
/// for try await record in store.records(matching: try EntityQuery("Person", where: "age > 30")) {
///     print(record.id)
/// }
/// ```
public struct PostgresRecordStream: AsyncSequence, Sendable {
    /// A stream's elements: the records, in the query's order.
    public typealias Element = StoreRecord
    /// What a stream throws: the fetch's errors, and `.cancelled` when its task is cancelled.
    public typealias Failure = StoreError

    let store: PostgresPredicateStore
    let query: EntityQuery

    /// An iterator that starts the fetch at its first `next()`.
    ///
    /// ```swift
    /// var records = store.records(matching: try EntityQuery("Person")).makeAsyncIterator()
    /// let first = try await records.next()
    /// ```
    public func makeAsyncIterator() -> Iterator {
        Iterator(handle: Handle(store: store, query: query))
    }

    /// Reads a stream's records; dropping it stops the fetch.
    public struct Iterator: AsyncIteratorProtocol {
        /// What the iterator yields.
        public typealias Element = StoreRecord
        /// What the iterator throws.
        public typealias Failure = StoreError

        private let handle: Handle
        private var batch: [StoreRecord] = []
        private var index = 0
        private var finished = false

        init(handle: Handle) { self.handle = handle }

        /// The next record, nil after the last; throws the fetch's error, or `.cancelled`
        /// when the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(StoreError) -> StoreRecord? {
            if index < batch.count {
                defer { index += 1 }
                return batch[index]
            }
            guard !finished else { return nil }
            handle.startOnce()
            let channel = handle.channel
            let taken = await withTaskCancellationHandler(operation: {
                await channel.take()
            }, onCancel: {
                channel.cancel()
            }, isolation: actor)
            switch taken {
            case .records(let records):
                batch = records
                index = 1
                return records[0]
            case .end:
                finished = true
                batch = []
                return nil
            case .failure(let error):
                finished = true
                batch = []
                // The fetch runs in a task of its own, which the consumer's cancellation does not mark.
                throw ServerErrors.cancellation(of: error, "fetching \(handle.query.entity) was cancelled")
            }
        }

        /// Plain `next()` for callers without isolation.
        public mutating func next() async throws(StoreError) -> StoreRecord? {
            try await next(isolation: nil)
        }
    }

    /// Owns the fetch for the iterator (a value type, copied freely): when the last copy goes,
    /// the fetch is stopped.
    final class Handle: Sendable {
        let channel: BatchChannel
        private let store: PostgresPredicateStore
        let query: EntityQuery
        private let started = Locked(false)

        init(store: PostgresPredicateStore, query: EntityQuery) {
            self.store = store
            self.query = query
            channel = BatchChannel(cancelled: ServerErrors.storeError(CancellationError(), doing: "fetching \(query.entity)"))
        }

        func startOnce() {
            guard started.withLock({ (s: inout Bool) -> Bool in defer { s = true }; return !s }) else { return }
            let channel = channel, store = store, query = query
            // Unstructured: the fetch outlives each `next()`, and is cancelled through the channel.
            channel.attach(Task {
                do throws(StoreError) {
                    try await store.forEachBatch(query, size: BatchChannel.batchSize) { records in
                        try await channel.send(records)
                    }
                    channel.finish(nil)
                } catch {
                    channel.finish(error)
                }
            })
        }

        deinit { channel.cancel() }
    }
}

/// Hands batches of records from the fetching task to the consumer: the producer waits while
/// ``capacity`` batches wait (backpressure), the consumer while none do. Cancelling it (the
/// consumer went or was cancelled) cancels the producing task, which cancels the statement.
final class BatchChannel: Sendable {
    enum Taken: Sendable {
        case records([StoreRecord])
        case end
        case failure(StoreError)
    }

    static let batchSize = 256
    static let capacity = 2

    private struct State {
        var queued: [[StoreRecord]] = []
        var outcome: StoreError?? = nil
        var cancelled = false
        var consumer: CheckedContinuation<Taken, Never>?
        var producer: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let cancelledError: StoreError

    init(cancelled: StoreError) { cancelledError = cancelled }

    /// The producing task, cancelled with the channel (at once if the channel already is).
    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Queues a batch, waiting while the queue is full; throws `CancellationError` when the
    /// consumer is gone.
    func send(_ batch: [StoreRecord]) async throws {
        while true {
            let outcome: (done: Bool, consumer: CheckedContinuation<Taken, Never>?) = state.withLock { s in
                if s.cancelled { return (true, nil) }
                if let c = s.consumer {
                    s.consumer = nil
                    return (true, c)
                }
                if s.queued.count < Self.capacity {
                    s.queued.append(batch)
                    return (true, nil)
                }
                return (false, nil)
            }
            if let c = outcome.consumer { c.resume(returning: .records(batch)) }
            if outcome.done {
                if state.withLock({ $0.cancelled }) { throw CancellationError() }
                return
            }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s in
                    if s.cancelled || s.queued.count < Self.capacity { return true }
                    s.producer = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    /// Ends the stream: with `error`, or at its end when nil.
    func finish(_ error: StoreError?) {
        let consumer: CheckedContinuation<Taken, Never>? = state.withLock { s in
            s.outcome = .some(error)
            s.task = nil
            guard s.queued.isEmpty, let c = s.consumer else { return nil }
            s.consumer = nil
            return c
        }
        consumer?.resume(returning: error.map { .failure($0) } ?? .end)
    }

    /// The next batch, the end, or the error, once the producer has one.
    func take() async -> Taken {
        await withCheckedContinuation { (c: CheckedContinuation<Taken, Never>) in
            let (ready, producer): (Taken?, CheckedContinuation<Void, Never>?) = state.withLock { s in
                if let t = available(&s) {
                    defer { s.producer = nil }
                    return (t, s.producer)
                }
                s.consumer = c
                return (nil, nil)
            }
            producer?.resume()
            if let ready { c.resume(returning: ready) }
        }
    }

    /// What the consumer can have now (under the lock).
    private func available(_ s: inout State) -> Taken? {
        if s.cancelled { return .failure(cancelledError) }
        if !s.queued.isEmpty { return .records(s.queued.removeFirst()) }
        if let outcome = s.outcome { return outcome.map { .failure($0) } ?? .end }
        return nil
    }

    /// Stops the fetch: the producing task is cancelled (and with it the statement on the
    /// server), a producer or consumer waiting wakes.
    func cancel() {
        let (task, consumer, producer) = state.withLock { s in
            s.cancelled = true
            s.queued.removeAll()
            defer { (s.task, s.consumer, s.producer) = (nil, nil, nil) }
            return (s.task, s.consumer, s.producer)
        }
        task?.cancel()
        producer?.resume()
        consumer?.resume(returning: .failure(cancelledError))
    }
}

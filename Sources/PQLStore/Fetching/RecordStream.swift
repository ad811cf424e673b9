import Foundation
import PQL

extension PredicateStore {
    /// The matching records as an `AsyncSequence` that reads them lazily: memory stays bounded
    /// however many rows match.
    ///
    /// Iterating starts the fetch on a thread of the store's read queue, which hands records over
    /// a few hundred at a time and waits while the consumer has a full buffer (backpressure).
    /// When the consumer stops early (a `break`, a thrown error, the iterator dropped) or its task is
    /// cancelled, the statement stops and its read transaction ends; cancellation throws a
    /// ``StoreError`` of kind ``StoreError/Kind/cancelled``. Each iteration runs the query anew.
    ///
    /// ```swift
    /// var total = 0.0
    /// for try await flight in store.records(matching: EntityQuery("Flight")) {
    ///     total += flight["distance"]?.doubleValue ?? 0
    /// }
    /// ```
    public func records(matching query: EntityQuery) -> RecordStream {
        RecordStream(store: self, query: query)
    }
}

/// The records of a fetch, read lazily with backpressure (see
/// ``PredicateStore/records(matching:)``).
///
/// ```swift
/// for try await record in store.records(matching: EntityQuery("Person", where: "age > 30")) {
///     print(record.id)
/// }
/// ```
public struct RecordStream: AsyncSequence, Sendable {
    /// A stream's elements: the records, in the query's order.
    public typealias Element = StoreRecord
    /// What a stream throws: the fetch's errors, and `.cancelled` when its task is cancelled.
    public typealias Failure = StoreError

    let store: PredicateStore
    let query: EntityQuery

    /// An iterator that starts the fetch at its first `next()`.
    ///
    /// ```swift
    /// var records = store.records(matching: EntityQuery("Person")).makeAsyncIterator()
    /// let first = try await records.next()
    /// ```
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: RecordChannel(), store: store, query: query)
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
        private var started = false
        private var finished = false

        init(channel: RecordChannel, store: PredicateStore, query: EntityQuery) {
            handle = Handle(channel: channel, store: store, query: query)
        }

        /// The next record, nil after the last; throws the fetch's error, or `.cancelled`
        /// when the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(StoreError) -> StoreRecord? {
            if index < batch.count {
                defer { index += 1 }
                return batch[index]
            }
            guard !finished else { return nil }
            if !started {
                started = true
                handle.start()
            }
            let channel = handle.channel
            // Waits on a thread of the store's read queue, not of the cooperative pool.
            let taken = await withTaskExecutorPreference(handle.store.queues.reads, isolation: nil) {
                await withTaskCancellationHandler(operation: {
                    channel.take()
                }, onCancel: {
                    channel.cancel()
                }, isolation: nil)
            }
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
                throw error
            }
        }

        /// Plain `next()` for callers without isolation.
        public mutating func next() async throws(StoreError) -> StoreRecord? {
            try await next(isolation: nil)
        }
    }

    /// Owns the channel for the iterator (a value type, copied freely): when the last copy
    /// goes, the fetch is told to stop.
    final class Handle: Sendable {
        let channel: RecordChannel
        let store: PredicateStore
        let query: EntityQuery

        init(channel: RecordChannel, store: PredicateStore, query: EntityQuery) {
            self.channel = channel
            self.store = store
            self.query = query
        }

        func start() {
            let channel = channel, store = store, query = query
            store.queues.reads.queue.async {
                channel.cancellation.installed {
                    channel.produce(store: store, query: query)
                }
            }
        }

        deinit { channel.cancel() }
    }
}

/// Hands records from the fetching thread to the consuming task: the producer blocks while
/// ``capacity`` batches wait (backpressure); the consumer suspends (never blocks) while none do.
final class RecordChannel: @unchecked Sendable {
    // @unchecked: every field is used under `condition`'s lock.
    enum Taken: Sendable {
        case records([StoreRecord])
        case end
        case failure(StoreError)
    }

    static let batchSize = 256
    static let capacity = 2

    let cancellation = StatementCancellation()
    private let condition = NSCondition()
    private var queued: [[StoreRecord]] = []
    private var outcome: StoreError?? = nil
    private var cancelled = false

    /// Runs the fetch on this thread, pushing batches until it ends or the consumer goes.
    func produce(store: PredicateStore, query: EntityQuery) {
        var pending: [StoreRecord] = []
        pending.reserveCapacity(Self.batchSize)
        do throws(StoreError) {
            try store.forEach(query) { (r) throws(StoreError) in
                pending.append(r)
                if pending.count == Self.batchSize {
                    try push(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if !pending.isEmpty { try push(pending) }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// Queues a batch, waiting while the queue is full; throws when the consumer is gone.
    private func push(_ batch: [StoreRecord]) throws(StoreError) {
        condition.lock()
        while queued.count >= Self.capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            throw StatementCancellation.error
        }
        queued.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    private func finish(_ error: StoreError?) {
        condition.lock()
        outcome = .some(cancelled ? StatementCancellation.error : error)
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, the end, or the error; waits (blocking its thread, one of the store's
    /// read queue) until the producer has one.
    func take() -> Taken {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let taken = available() {
                condition.broadcast()
                return taken
            }
            condition.wait()
        }
    }

    /// What the consumer can have now (under the lock).
    private func available() -> Taken? {
        if cancelled { return .failure(StatementCancellation.error) }
        if !queued.isEmpty { return .records(queued.removeFirst()) }
        if let outcome { return outcome.map { .failure($0) } ?? .end }
        return nil
    }

    /// Stops the fetch (the consumer went or its task was cancelled): the statement running is
    /// interrupted at its next progress check, a producer waiting for room wakes and stops.
    func cancel() {
        cancellation.cancel()
        condition.lock()
        cancelled = true
        queued.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

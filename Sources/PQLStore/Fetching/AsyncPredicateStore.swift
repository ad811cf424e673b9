import Foundation
import PQL

/// The async face of a ``PredicateStore``, for servers and other concurrent code: each call
/// runs the store's synchronous work on a dispatch queue of the store's own (never on a
/// thread of Swift's cooperative pool), and cancelling the calling task stops the SQLite
/// statement it runs, which then throws a ``StoreError`` of kind ``StoreError/Kind/cancelled``.
///
/// Reads run side by side, each on a pooled read-only connection that sees the last committed
/// state (in a file store; an in-memory store runs every call on its one connection, one at a
/// time), while writes run one at a time on a serial queue. It is `Sendable` because the store
/// is: share one value between tasks. The synchronous API stays on ``store``.
///
/// ```swift
/// let store = AsyncPredicateStore(try PredicateStore(path: "flights.sqlite", model: model))
/// async let late = store.fetch(EntityQuery("Flight", where: "dep_delay > 600"))
/// async let n = store.count(EntityQuery("Flight"))
/// try await store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
/// print(try await late.count, try await n)
/// ```
public struct AsyncPredicateStore: Sendable {
    /// The store the calls run on (its synchronous API, for calls that need no `await`).
    public let store: PredicateStore

    /// Wraps `store`; several wrappers of one store share its queues.
    ///
    /// ```swift
    /// let server = AsyncPredicateStore(store)
    /// ```
    public init(_ store: PredicateStore) { self.store = store }

    private func read<T: Sendable>(_ body: @escaping @Sendable (PredicateStore) throws(StoreError) -> T) async throws(StoreError) -> T {
        let store = store
        return try await StoreQueues.run(on: store.queues.reads) { () throws(StoreError) in try body(store) }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (PredicateStore) throws(StoreError) -> T) async throws(StoreError) -> T {
        let store = store
        return try await StoreQueues.run(on: store.queues.writes) { () throws(StoreError) in try body(store) }
    }

    // MARK: reading

    /// The matching records, in the query's order (``PredicateStore/fetch(_:)->[StoreRecord]``).
    ///
    /// ```swift
    /// let late = try await store.fetch(EntityQuery("Flight", where: "dep_delay > 600"))
    /// ```
    public func fetch(_ query: EntityQuery) async throws(StoreError) -> [StoreRecord] {
        try await read { (s) throws(StoreError) in try s.fetch(query) }
    }

    /// The matching records decoded as `type` (``PredicateStore/fetch(_:as:)``).
    ///
    /// ```swift
    /// struct Airline: Decodable, Sendable { var carrier: String; var name: String }
    /// let airlines = try await store.fetch(EntityQuery("Airline"), as: Airline.self)
    /// ```
    public func fetch<T: Decodable & Sendable>(_ query: EntityQuery, as type: T.Type) async throws(StoreError) -> [T] {
        try await read { (s) throws(StoreError) in try s.fetch(query, as: T.self) }
    }

    /// The keys of the matching records (``PredicateStore/fetchIDs(_:)``).
    ///
    /// ```swift
    /// let ids = try await store.fetchIDs(EntityQuery("Flight", where: "dep_delay > 600"))
    /// ```
    public func fetchIDs(_ query: EntityQuery) async throws(StoreError) -> [Int64] {
        try await read { (s) throws(StoreError) in try s.fetchIDs(query) }
    }

    /// How many records match (``PredicateStore/count(_:)``).
    ///
    /// ```swift
    /// let n = try await store.count(EntityQuery("Flight", where: "dest == 'SFO'"))
    /// ```
    public func count(_ query: EntityQuery) async throws(StoreError) -> Int {
        try await read { (s) throws(StoreError) in try s.count(query) }
    }

    /// The matching records one at a time, as SQLite produces them
    /// (``PredicateStore/records(matching:)``).
    ///
    /// ```swift
    /// for try await flight in store.records(matching: EntityQuery("Flight")) { print(flight.id) }
    /// ```
    public func records(matching query: EntityQuery) -> RecordStream {
        store.records(matching: query)
    }

    // MARK: writing

    /// Inserts one object and returns its key (the store's synchronous `insert(_:_:)`).
    ///
    /// ```swift
    /// let id = try await store.insert("Airline", ["carrier": "UA", "name": "United Air Lines Inc."])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ values: [String: PredicateValue]) async throws(StoreError) -> Int64 {
        try await write { (s) throws(StoreError) in try s.insert(entity, values) }
    }

    /// Inserts objects in one transaction and returns their keys (the store's synchronous `insert(_:_:)`).
    ///
    /// ```swift
    /// let ids = try await store.insert("Airline", [["carrier": "UA"], ["carrier": "AA"]])
    /// ```
    @discardableResult
    public func insert(_ entity: String, _ objects: [[String: PredicateValue]]) async throws(StoreError) -> [Int64] {
        try await write { (s) throws(StoreError) in try s.insert(entity, objects) }
    }

    /// Sets attributes of one object (``PredicateStore/update(_:id:_:)``).
    ///
    /// ```swift
    /// try await store.update("Airline", id: id, ["name": "United Airlines"])
    /// ```
    public func update(_ entity: String, id: Int64, _ values: [String: PredicateValue]) async throws(StoreError) {
        try await write { (s) throws(StoreError) in try s.update(entity, id: id, values) }
    }

    /// Deletes one object (``PredicateStore/delete(_:id:)-(String,_)``).
    ///
    /// ```swift
    /// try await store.delete("Airline", id: id)
    /// ```
    public func delete(_ entity: String, id: Int64) async throws(StoreError) {
        try await write { (s) throws(StoreError) in try s.delete(entity, id: id) }
    }

    /// Links one object to others through a many-to-many relationship and returns how many
    /// links are new (``PredicateStore/link(_:id:_:to:)``).
    ///
    /// ```swift
    /// try await store.link("Note", id: note, "tags", to: [urgent])
    /// ```
    @discardableResult
    public func link(_ entity: String, id: Int64, _ relationship: String, to ids: [Int64]) async throws(StoreError) -> Int {
        try await write { (s) throws(StoreError) in try s.link(entity, id: id, relationship, to: ids) }
    }

    /// Removes links of one object through a many-to-many relationship and returns how many
    /// were removed (``PredicateStore/unlink(_:id:_:from:)``).
    ///
    /// ```swift
    /// try await store.unlink("Note", id: note, "tags", from: [urgent])
    /// ```
    @discardableResult
    public func unlink(_ entity: String, id: Int64, _ relationship: String, from ids: [Int64]) async throws(StoreError) -> Int {
        try await write { (s) throws(StoreError) in try s.unlink(entity, id: id, relationship, from: ids) }
    }

    /// Sets attributes of every matching record and returns how many changed
    /// (``PredicateStore/batchUpdate(_:set:)``).
    ///
    /// ```swift
    /// let n = try await store.batchUpdate(EntityQuery("Flight", where: "dep_delay > 600"), set: ["late": true])
    /// ```
    @discardableResult
    public func batchUpdate(_ query: EntityQuery, set values: [String: PredicateValue]) async throws(StoreError) -> Int {
        try await write { (s) throws(StoreError) in try s.batchUpdate(query, set: values) }
    }

    /// Deletes every matching record and returns how many (``PredicateStore/batchDelete(_:)``).
    ///
    /// ```swift
    /// let n = try await store.batchDelete(EntityQuery("Flight", where: "cancelled == 1"))
    /// ```
    @discardableResult
    public func batchDelete(_ query: EntityQuery) async throws(StoreError) -> Int {
        try await write { (s) throws(StoreError) in try s.batchDelete(query) }
    }

    /// Runs `body` as one transaction on the writing queue: everything it wrote is kept if it
    /// returns, nothing if it throws or its task is cancelled while it runs. `body` is
    /// synchronous and gets the store's synchronous API (its reads see its own writes).
    ///
    /// ```swift
    /// let moved = try await store.transaction { (s) throws(StoreError) in
    ///     let n = try s.batchDelete(EntityQuery("Draft", where: "age > 30"))
    ///     try s.insert("Log", ["text": .string("deleted \(n) drafts")])
    ///     return n
    /// }
    /// ```
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PredicateStore) throws(StoreError) -> T) async throws(StoreError) -> T {
        try await write { (s) throws(StoreError) in try s.transaction { () throws(StoreError) in try body(s) } }
    }
}

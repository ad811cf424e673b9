import Foundation
import PQL
import PQLStore

/// The record types' calls (`EntityRecord`), as on SQLite: the type gives the entity.
extension PostgresPredicateStore {
    /// The records of type `R` that match the predicate (all without one), sorted and paged.
    ///
    /// ```swift
    /// let items = try await store.fetch(Item.self, where: "vendor == %@ AND price < %@", vendor, 20, limit: 50)
    /// ```
    public func fetch<R: EntityRecord>(_ type: R.Type, where format: String? = nil, _ arguments: Any?..., sort: [SortRule] = [],
                                       offset: Int = 0, limit: Int? = nil) async throws(StoreError) -> [R] {
        let query = try RecordQueries.query(R.self, format, arguments, sort: sort, offset: offset, limit: limit)
        return try await fetch(query, as: R.self)
    }

    /// The record of type `R` with key `id`, or nil.
    ///
    /// ```swift
    /// guard let item = try await store.fetch(Item.self, id: 15) else { throw NotFound() }
    /// ```
    public func fetch<R: EntityRecord>(_ type: R.Type, id: Int64) async throws(StoreError) -> R? {
        try await fetch(try RecordQueries.byKey(R.self, id), as: R.self).first
    }

    /// How many records of type `R` match the predicate (all without one).
    ///
    /// ```swift
    /// let n = try await store.count(Item.self, where: "vendor == %@", vendor)
    /// ```
    public func count<R: EntityRecord>(_ type: R.Type, where format: String? = nil, _ arguments: Any?...) async throws(StoreError) -> Int {
        let query = try RecordQueries.query(R.self, format, arguments)
        return try await count(query)
    }

    /// Inserts the record and returns its key (the record's own when it gives one).
    ///
    /// ```swift
    /// let id = try await store.insert(Item(name: "Lamp", price: 19.5, vendor: vendor))
    /// ```
    @discardableResult
    public func insert<R: EntityRecord>(_ record: R) async throws(StoreError) -> Int64 {
        try await insert(R.entityName, try RecordQueries.values(record))
    }

    /// Writes every property of the record to the object with its key (a nil optional clears it).
    ///
    /// ```swift
    /// item.price = 17
    /// try await store.update(item)
    /// ```
    public func update<R: EntityRecord>(_ record: R) async throws(StoreError) {
        let (id, values) = try RecordQueries.keyed(record)
        try await update(R.entityName, id: id, values)
    }

    /// Inserts the record, or updates the object whose unique attribute `key` holds the same value.
    ///
    /// ```swift
    /// let id = try await store.upsert(Vendor(code: "ACME", name: "Acme"), onConflict: "code")
    /// ```
    @discardableResult
    public func upsert<R: EntityRecord>(_ record: R, onConflict key: String) async throws(StoreError) -> Int64 {
        try await upsert(R.entityName, try RecordQueries.values(record, clearingNil: true), onConflict: key)
    }

    /// Deletes the object the record is (by its key), applying the delete rules.
    ///
    /// ```swift
    /// try await store.delete(item)
    /// ```
    public func delete<R: EntityRecord>(_ record: R) async throws(StoreError) {
        try await delete(R.entityName, id: try RecordQueries.keyed(record).id)
    }

    /// Deletes the object of type `R` with key `id`.
    ///
    /// ```swift
    /// try await store.delete(Item.self, id: 15)
    /// ```
    public func delete<R: EntityRecord>(_ type: R.Type, id: Int64) async throws(StoreError) {
        try await delete(R.entityName, id: id)
    }
}

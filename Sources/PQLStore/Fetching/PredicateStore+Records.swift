import Foundation
import PQL

extension PredicateStore {
    /// Opens (or creates) the store at `path` with the model the record types declare
    /// (``StoreModel/init(records:templates:names:)``), migrating a store saved with an older one.
    ///
    /// ```swift
    /// let store = try PredicateStore(path: "notes.sqlite", records: [Folder.self, Note.self])
    /// ```
    public convenience init(path: String, records: [any EntityRecord.Type], migration: MigrationStep? = nil) throws(StoreError) {
        try self.init(path: path, model: try StoreModel(records: records), migration: migration)
    }

    /// Opens the store at `path` with `model` (from a JSON model file or an Xcode model, say),
    /// first checking it against the record types the app declares: every difference is named
    /// in one ``StoreError/Kind/modelMismatch`` error, before the file is touched.
    ///
    /// ```swift
    /// let model = try StoreModel(json: Data(contentsOf: modelURL))
    /// let store = try PredicateStore(path: "notes.sqlite", model: model, records: [Folder.self, Note.self])
    /// ```
    public convenience init(path: String, model: StoreModel, records: [any EntityRecord.Type], migration: MigrationStep? = nil) throws(StoreError) {
        try model.check(records: records)
        try self.init(path: path, model: model, migration: migration)
    }

    /// The records of type `R` that match the predicate (all without one), sorted and paged.
    ///
    /// ```swift
    /// let notes = try store.fetch(Note.self, where: "folder == %@ AND title BEGINSWITH[c] %@", inbox, "m")
    /// ```
    public func fetch<R: EntityRecord>(_ type: R.Type, where format: String? = nil, _ arguments: Any?..., sort: [SortRule] = [],
                                       offset: Int = 0, limit: Int? = nil) throws(StoreError) -> [R] {
        try fetch(try RecordQueries.query(R.self, format, arguments, sort: sort, offset: offset, limit: limit), as: R.self)
    }

    /// The record of type `R` with key `id`, or nil.
    ///
    /// ```swift
    /// let note = try store.fetch(Note.self, id: 15)
    /// ```
    public func fetch<R: EntityRecord>(_ type: R.Type, id: Int64) throws(StoreError) -> R? {
        try fetch(try RecordQueries.byKey(R.self, id), as: R.self).first
    }

    /// How many records of type `R` match the predicate (all without one).
    ///
    /// ```swift
    /// let n = try store.count(Note.self, where: "folder == %@", inbox)
    /// ```
    public func count<R: EntityRecord>(_ type: R.Type, where format: String? = nil, _ arguments: Any?...) throws(StoreError) -> Int {
        try count(try RecordQueries.query(R.self, format, arguments))
    }

    /// Inserts the record and returns its key: the record's own when it gives one (its entity
    /// declares the key), else the one the store assigns.
    ///
    /// ```swift
    /// let id = try store.insert(Note(title: "Milk", folder: inbox))
    /// ```
    @discardableResult
    public func insert<R: EntityRecord>(_ record: R) throws(StoreError) -> Int64 {
        try insert(R.entityName, try RecordQueries.values(record))
    }

    /// Writes every property of the record to the object with its key (a nil optional clears
    /// the attribute). The record must carry its key.
    ///
    /// ```swift
    /// note.title = "Oat milk"
    /// try store.update(note)
    /// ```
    public func update<R: EntityRecord>(_ record: R) throws(StoreError) {
        let (id, values) = try RecordQueries.keyed(record)
        try update(R.entityName, id: id, values)
    }

    /// Inserts the record, or updates the object whose unique attribute `key` holds the same
    /// value; returns the object's key.
    ///
    /// ```swift
    /// let ua = try store.upsert(Airline(carrier: "UA", name: "United"), onConflict: "carrier")
    /// ```
    @discardableResult
    public func upsert<R: EntityRecord>(_ record: R, onConflict key: String) throws(StoreError) -> Int64 {
        try upsert(R.entityName, try RecordQueries.values(record, clearingNil: true), onConflict: key)
    }

    /// Deletes the object the record is (by its key), applying the delete rules.
    ///
    /// ```swift
    /// try store.delete(note)
    /// ```
    public func delete<R: EntityRecord>(_ record: R) throws(StoreError) {
        try delete(R.entityName, id: try RecordQueries.keyed(record).id)
    }

    /// Deletes the object of type `R` with key `id`.
    ///
    /// ```swift
    /// try store.delete(Note.self, id: 15)
    /// ```
    public func delete<R: EntityRecord>(_ type: R.Type, id: Int64) throws(StoreError) {
        try delete(R.entityName, id: id)
    }
}

/// What the typed calls of both stores share: queries and the values of a record.
package enum RecordQueries {
    package static func query<R: EntityRecord>(_ type: R.Type, _ format: String?, _ arguments: [Any?], sort: [SortRule] = [],
                                               offset: Int = 0, limit: Int? = nil) throws(StoreError) -> EntityQuery {
        guard let format else {
            guard arguments.isEmpty else {
                throw StoreError(.invalidValue, "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") given without a predicate", hint: "pass where: with a %@ for each")
            }
            return EntityQuery(R.entityName, sort: sort, offset: offset, limit: limit)
        }
        return try EntityQuery(R.entityName, where: format, arguments, sort: sort, offset: offset, limit: limit)
    }

    package static func byKey<R: EntityRecord>(_ type: R.Type, _ id: Int64) throws(StoreError) -> EntityQuery {
        try EntityQuery(R.entityName, where: "SELF == %@", [id])
    }

    /// The record's properties as a write's values. `clearingNil`: a nil optional (which the
    /// encoder leaves out) is given as NULL, so that it clears what the object held.
    package static func values<R: EntityRecord>(_ record: R, clearingNil: Bool = false) throws(StoreError) -> [String: PredicateValue] {
        clearingNil ? try cleared(record, properties: try RecordSchemaProbe.properties(of: R.self)) : try PredicateStore.dictionary(encoding: record)
    }

    /// The record's values with each property the encoder left out (a nil) given as NULL.
    private static func cleared<R: EntityRecord>(_ record: R, properties: [RecordSchemaProbe.Property]) throws(StoreError) -> [String: PredicateValue] {
        var values = try PredicateStore.dictionary(encoding: record)
        for p in properties where values[p.name] == nil && p.name != R.primaryKey { values[p.name] = .null }
        return values
    }

    /// The record's key and its other properties (nil optionals as NULL), for an update or delete.
    package static func keyed<R: EntityRecord>(_ record: R) throws(StoreError) -> (id: Int64, values: [String: PredicateValue]) {
        let properties = try RecordSchemaProbe.properties(of: R.self)
        var values = try cleared(record, properties: properties)
        guard properties.contains(where: { $0.name == R.primaryKey }) else {
            throw StoreError(.invalidValue, "\(R.self) has no key property '\(R.primaryKey)', so its objects cannot be told apart",
                             hint: "add var \(R.primaryKey): Int64? to \(R.self) (nil until the object is inserted)")
        }
        guard case .int(let id)? = values.removeValue(forKey: R.primaryKey) else {
            throw StoreError(.invalidValue, "this \(R.self) has no \(R.primaryKey): it was never inserted",
                             hint: "insert it first, or set \(R.primaryKey) to the key insert returned")
        }
        return (id, values)
    }
}

import Foundation
import PQL

/// A migration step: run inside the migration's transaction when the new model differs from
/// the saved one in ways the store cannot migrate by itself (see ``StoreMigration``).
public typealias MigrationStep = (StoreMigration) throws(StoreError) -> Void

/// What a migration step works with: the two models, what changed between them, and SQL on
/// the store's connection, inside the migration's transaction.
///
/// When the step runs, the store has made the lightweight part of the migration: tables and
/// columns are renamed and added (new columns hold their defaults), while the columns and
/// tables the new model drops still hold their values, so that the step can move them. After
/// the step, dropped columns and tables go (and the objects of a removed sub-entity, which
/// until then keep a negative entity number), a table whose column changed type or lost NOT NULL
/// is rebuilt with the new model's columns, and the new model is saved. If the step throws,
/// nothing of the migration is kept.
///
/// ```swift
/// // v2 turns Person.age from a string into an integer.
/// let store = try PredicateStore(path: "app.sqlite", model: v2) { (migration) throws(StoreError) in
///     try migration.execute("UPDATE Person SET age = CAST(age AS INTEGER) WHERE age IS NOT NULL")
/// }
/// ```
public struct StoreMigration {
    /// What changed between the saved model and the new one.
    public let diff: ModelDiff
    /// The model version the store had before this migration.
    public let fromVersion: Int
    let connection: SQLiteConnection

    /// The model the store was saved with.
    public var oldModel: StoreModel { diff.old }
    /// The model the store is being opened with.
    public var newModel: StoreModel { diff.new }

    /// Runs one SQL statement (its values bound as parameters), such as an `UPDATE` converting
    /// a column's values.
    ///
    /// ```swift
    /// try migration.execute("UPDATE Person SET nickname = ?1 WHERE nickname IS NULL", [.text("—")])
    /// ```
    public func execute(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) {
        let s = try connection.prepare(sql)
        try s.run(values)
    }

    /// The rows one SQL query returns, each a list of column values.
    ///
    /// ```swift
    /// let rows = try migration.rows("SELECT Z_PK, age FROM Person")
    /// ```
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        let s = try connection.prepare(sql)
        try s.bind(values)
        var out: [[SQLValue]] = []
        let n = s.columnCount
        while try s.step() { out.append((0..<n).map { s.value($0) }) }
        return out
    }
}

extension PredicateStore {
    /// The version of the model saved in the store: 1 when it was created, one more after each
    /// change of its model (a migration at open, an import or ``addEntities(_:)`` that adds to
    /// it); 0 for a database PQL did not create.
    ///
    /// ```swift
    /// let store = try PredicateStore(path: "app.sqlite", model: v2)
    /// print(store.modelVersion)   // 2 after migrating from v1
    /// ```
    public var modelVersion: Int { currentVersion() }

    /// Brings the file from `saved` to `model` inside the caller's transaction, or throws a
    /// ``StoreError/Kind/modelMismatch`` error naming every change it cannot make by itself
    /// (when there is no `step`). Creating new tables and indexes and saving the model are
    /// left to the caller (`createSchema`, `saveModel`).
    func migrateSchema(from saved: StoreModel, to model: StoreModel, step: MigrationStep?) throws(StoreError) {
        let diff = ModelDiff(from: saved, to: model)
        guard !diff.isEmpty else { return }
        let migrator = SQLiteMigrator(connection: connection, diff: diff)
        let refused = try migrator.refusals()
        if !refused.isEmpty && step == nil {
            throw Self.mismatch(refused, version: currentVersion(), readOnly: false)
        }
        try migrator.prepareSchema()
        if let step {
            try step(StoreMigration(diff: diff, fromVersion: currentVersion(), connection: connection))
        }
        try migrator.finishSchema()
    }

    /// The error for changes a store will not migrate: each named, with what to do.
    static func mismatch(_ changes: [ModelChange], version: Int, readOnly: Bool) -> StoreError {
        let list = changes.map { $0.description }.joined(separator: "; ")
        let message = readOnly
            ? "the model differs from the one saved in the store (version \(version)), and a read-only store does not migrate: \(list)"
            : "the model differs from the one saved in the store (version \(version)) in \(changes.count == 1 ? "a change" : "changes") the store cannot migrate by itself: \(list)"
        var hints: [String] = []
        for c in changes { if let h = c.hint, !hints.contains(h) { hints.append(h) } }
        hints.append(readOnly ? "open the store for writing to migrate it, or read it with its saved model: PredicateStore(path:readOnly:)"
                              : "\(hints.isEmpty ? "" : "or ")pass a migration step that moves the data: PredicateStore(path:model:migration:)")
        var e = StoreError(.modelMismatch, message, hint: hints.joined(separator: "; "))
        e.modelChanges = changes
        return e
    }
}

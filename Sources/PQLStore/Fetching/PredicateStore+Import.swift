import Foundation
import PQL

extension PredicateStore {
    /// Loads a table (from ``ImportTable/read(contentsOf:)``) into `entity`, creating the
    /// entity from the table's columns and inferred types when the model lacks it. Returns the
    /// number of rows inserted; all or none are.
    ///
    /// ```swift
    /// let n = try store.importTable(try ImportTable.read(contentsOf: url), into: "Airport")
    /// ```
    @discardableResult
    public func importTable(_ table: ImportTable, into entity: String) throws(StoreError) -> Int {
        let existing: ModelEntity? = try locked { () throws(StoreError) in model.entities.first { $0.name == entity } }
        if let existing {
            // Same names; each column must fit its attribute (checked value by value on insert).
            let names = Set(model.allAttributes(existing).map(\.name))
            for c in table.columns where !names.contains(c) {
                throw StoreError.unknownKey(c, entity: entity, candidates: Array(names))
            }
        } else {
            guard !entity.isEmpty, !entity.hasPrefix("Z_"), !entity.lowercased().hasPrefix("sqlite_") else {
                throw StoreError(.importFailed, "'\(entity)' cannot name an entity", hint: "choose a name that does not start with Z_ or sqlite_")
            }
            var seen: Set<String> = []
            var attributes: [ModelAttribute] = []
            for (i, c) in table.columns.enumerated() {
                guard !c.isEmpty, seen.insert(c).inserted, c != "Z_PK", c != StoreSchema.entityColumn else {
                    throw StoreError(.importFailed, "column \(i + 1) has the name '\(c)', which is empty, repeated or reserved",
                                     hint: "give every column a distinct name in the header")
                }
                attributes.append(ModelAttribute(c, table.types[i], isOptional: true))
            }
            try addEntities([ModelEntity(entity, attributes: attributes)])
        }
        return try insertRows(entity, columns: table.columns, rows: table.rows)
    }
}

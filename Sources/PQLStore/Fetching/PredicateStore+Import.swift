import Foundation
import PQL

extension PredicateStore {
    /// Imports a data file into `entity`, streaming it in bounded memory (see ``ImportSource``),
    /// and returns the number of rows inserted.
    ///
    /// When the model lacks the entity, it is created from the file's columns (read in a first
    /// pass, unless `columns` gives them) with their inferred types, every attribute optional.
    /// Into an existing entity, values are converted to its attributes' types, and one that does
    /// not fit is an error naming the row; a column the entity lacks becomes a new optional
    /// attribute of the column's inferred type, the store migrating as at open (a column is
    /// added to the table and the model saved again, see ``modelVersion``). A column named
    /// like one of the entity's relationships, or like an attribute but for case, is refused.
    ///
    /// All or nothing: the new entity's table, the model saved in the file and every row are
    /// written in one transaction, so a failed import leaves the store (and its model) as it
    /// was. Column or entity names that SQLite would take for one another (`id` and `ID`, an
    /// entity `person` beside `Person`) and the store's own names (`Z_PK`, `Z_ENT`, `Z_…`
    /// tables, in any case) are refused before anything is written.
    ///
    /// `links` turn columns into to-one relationships (see ``ImportLink``): each value must name
    /// exactly one object of the destination, or the import fails naming the row and the value.
    /// A column named as the entity's declared key (`primaryKey: "id"`) sets each object's key.
    ///
    /// ```swift
    /// let source = try ImportSource(contentsOf: URL(fileURLWithPath: "flights.jsonl"))
    /// let n = try store.importFile(source, into: "Flight", links: [ImportLink("carrier", to: "Airline", by: "carrier")])
    /// ```
    @discardableResult
    public func importFile(_ source: ImportSource, into entity: String, columns: ImportColumns? = nil, links: [ImportLink] = []) throws(StoreError) -> Int {
        let columns = if let columns { columns } else { try source.inferColumns() }
        return try importRows(into: entity, columns: columns, links: links) { (types, insert) throws(StoreError) in
            var given = columns
            given.types = types
            try source.forEachRow(given) { (row, _) throws(StoreError) in try insert(row) }
        }
    }

    /// Loads a table read into memory (``ImportTable/read(contentsOf:limits:)``) into `entity`,
    /// as ``importFile(_:into:columns:links:)`` does a file: the entity created from the table's
    /// columns when the model lacks it, all rows or none in one transaction with the schema.
    ///
    /// ```swift
    /// let n = try store.importTable(try ImportTable.read(contentsOf: url), into: "Airport")
    /// ```
    @discardableResult
    public func importTable(_ table: ImportTable, into entity: String, links: [ImportLink] = []) throws(StoreError) -> Int {
        try importRows(into: entity, columns: table.importColumns, links: links) { (_, insert) throws(StoreError) in
            for (r, row) in table.rows.enumerated() {
                do throws(StoreError) { try insert(row) } catch {
                    throw error.reworded("row \(r + 1): \(error.message)")
                }
            }
        }
    }

    /// The entity and its rows in one transaction. `rows` gets the types to convert values to
    /// (an existing entity's attribute types, else the inferred ones) and a function inserting
    /// one row.
    private func importRows(into entity: String, columns: ImportColumns, links: [ImportLink],
                            rows: (_ types: [AttributeType], _ insert: ([PredicateValue]) throws(StoreError) -> Void) throws(StoreError) -> Void) throws(StoreError) -> Int {
        try locked { () throws(StoreError) in
            var target = model, changed = false
            var version: Int? = nil
            let n = try connection.transaction { () throws(StoreError) in
                // The model as the file has it now, under the write lock: another process may
                // have saved one since this store read it (two imports into one store), and a
                // model saved from the older reading would drop what that process added.
                try adoptSavedModel()
                (target, changed) = try importModel(entity, columns, links: links)
                let created = changed && !model.entities.contains { SQLName.identical($0.name, entity) }
                let e = try target.entity(named: entity)
                let attributes = target.allAttributes(e)
                var keys: [[PredicateValue]] = []
                for (dest, key) in try ImportLinkResolver.destinations(links, in: target) { keys.append(try keyValues(of: dest, key, in: target)) }
                let resolver = try ImportLinkResolver(links: links, model: target, columnNames: columns.names, values: keys)
                // A link column is read as its key attribute's type ("0042" stays a code, not a number).
                let types = columns.names.map { name in
                    resolver.keyType(ofColumn: name) ?? attributes.first { $0.name == name }?.type ?? .string
                }
                if changed {
                    // A new entity only needs its table; new columns of an existing one (or a
                    // destination gaining an inverse), a migration.
                    if !created || !links.isEmpty { try migrateSchema(from: model, to: target, step: nil) }
                    try createSchema(target)
                    version = try saveModel(target)
                }
                let plan = try InsertPlan(model: target, entity: e, columns: resolver.planColumns(columns.names))
                let s = try connection.prepare(plan.sql)
                let slots = plan.slots()
                var n = 0
                try rows(types) { (row) throws(StoreError) in
                    try resolver.check(row)
                    try plan.bind(positional: row, rowNumber: n + 1, slots: slots, into: s)
                    while try s.step() {}
                    n += 1
                }
                return n
            }
            // Readers see the new entity only now that its table and rows are committed.
            if changed { setModel(target) }
            if let version { setVersion(version) }
            return n
        }
    }

    /// Inside a write transaction: takes the model saved in the file when another process
    /// saved one since this store read it (its version, counted on every change, differs),
    /// so that what is written next starts from it. (A store opened with a model of its own
    /// saved that model when it opened: the file's differs only if another process changed it.)
    func adoptSavedModel() throws(StoreError) {
        guard connection.isInTransaction else { return }
        let saved = try Self.savedVersion(on: connection)
        guard saved != currentVersion(), let fresh = try Self.savedModel(on: connection) else { return }
        setModel(fresh)
        setVersion(saved)
    }

    /// The model an import writes with: the store's own when it has `entity` with an attribute
    /// for every column, the store's with the missing ones added to `entity` (optional, of the
    /// columns' types), else the store's with `entity` made from the columns.
    private func importModel(_ entity: String, _ columns: ImportColumns, links: [ImportLink]) throws(StoreError) -> (StoreModel, changed: Bool) {
        let (model, changed) = try importModel(entity, columns.removing(links.map(\.column)))
        let linked = try model.addingImportLinks(links, to: model.entities.first { SQLName.identical($0.name, entity) }?.name ?? entity, names: .sqlite)
        return (linked, changed || linked != model)
    }

    /// The key values of every object of `dest` (its sub-entities' too), for a link to find objects by.
    private func keyValues(of dest: ModelEntity, _ key: ModelAttribute, in model: StoreModel) throws(StoreError) -> [PredicateValue] {
        let root = model.root(dest)
        var sql = "SELECT \(SQLIdentifier.quote(key.column)) FROM \(SQLIdentifier.quote(root.table))"
        var bindings: [SQLValue] = []
        if model.isInheritanceTree(dest) {
            let numbers = model.descendants(dest).map { Int64(model.entityNumber($0)) }
            sql += " WHERE \(SQLIdentifier.quote(StoreSchema.entityColumn)) IN (\(numbers.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
            bindings = numbers.map { .integer($0) }
        }
        let s = try connection.prepare(sql)
        try s.bind(bindings)
        var out: [PredicateValue] = []
        while try s.step() {
            // As stored; the resolver converts these and the file's values alike, by the key's type.
            switch s.value(0) {
            case .null: out.append(.null)
            case .integer(let i): out.append(.int(i))
            case .real(let d): out.append(.double(d))
            case .text(let t): out.append(.string(t))
            case .blob(let b): out.append(.data(b))
            }
        }
        return out
    }

    private func importModel(_ entity: String, _ columns: ImportColumns) throws(StoreError) -> (StoreModel, changed: Bool) {
        if let existing = model.entities.first(where: { SQLName.identical($0.name, entity) }) {
            let attributes = model.allAttributes(existing)
            let names = Set(attributes.map(\.name))
            var added: [ModelAttribute] = []
            for (i, c) in columns.names.enumerated() where !names.contains(c) {
                if let r = model.allRelationships(existing).first(where: { SQLName.same($0.name, c) }) {
                    throw StoreError(.importFailed, "column '\(c)' names the relationship \(entity).\(r.name); an import sets attributes only",
                                     hint: "link the column to \(r.destination) objects by one of their attributes (pql import --link \(c)=\(r.destination).KEY), or rename it in the file")
                }
                if let a = attributes.first(where: { SQLName.same($0.name, c) || SQLName.same($0.column, c) }) ?? added.first(where: { SQLName.same($0.name, c) }) {
                    throw StoreError(.importFailed, "column '\(c)' differs only in case from \(entity).\(a.name); SQLite takes them for one column",
                                     hint: "rename the column in the file to '\(a.name)'")
                }
                try checkNewColumn(c, number: i + 1)
                added.append(ModelAttribute(c, columns.types[i], isOptional: true))
            }
            if added.isEmpty { return (model, false) }
            var grown = existing
            grown.attributes += added
            let merged = try StoreModel(model.entities.map { $0.name == existing.name ? grown : $0 }, templates: model.templates)
            return (merged, true)
        }
        guard !entity.isEmpty, !SQLName.folded(entity).hasPrefix("z_"), !SQLName.isSQLiteInternal(entity), !entity.utf8.contains(0) else {
            throw StoreError(.importFailed, "'\(entity)' cannot name an entity",
                             hint: "choose a name that does not start with Z_ or sqlite_ (in any case): the store and SQLite keep those for their own tables")
        }
        if let other = model.entities.first(where: { SQLName.same($0.name, entity) || SQLName.same($0.table, entity) }) {
            throw StoreError(.importFailed, "the store has an entity '\(other.name)', and SQLite does not tell '\(entity)' apart from it (table names ignore case)",
                             hint: "import into the entity '\(other.name)', or choose a name that differs in more than case")
        }
        var seen: [ExactText: Int] = [:]
        var attributes: [ModelAttribute] = []
        for (i, c) in columns.names.enumerated() {
            let f = SQLName.key(c)
            guard !c.isEmpty, !c.utf8.contains(0) else {
                throw StoreError(.importFailed, "column \(i + 1) has no usable name", hint: "give every column a name in the header (or every key a name)")
            }
            if let earlier = seen[f] {
                throw StoreError(.importFailed, "columns '\(columns.names[earlier])' and '\(c)' differ only in case; SQLite takes them for one column",
                                 hint: "rename one of them in the file (a CSV header, or JSON keys)")
            }
            try checkNewColumn(c, number: i + 1)
            seen[f] = i
            attributes.append(ModelAttribute(c, columns.types[i], isOptional: true))
        }
        let merged = try StoreModel(model.entities + [ModelEntity(entity, attributes: attributes)], templates: model.templates)
        return (merged, true)
    }

    /// Refuses a column name the store keeps for its own columns.
    private func checkNewColumn(_ c: String, number: Int) throws(StoreError) {
        guard !c.isEmpty, !c.utf8.contains(0) else {
            throw StoreError(.importFailed, "column \(number) has no usable name", hint: "give every column a name in the header (or every key a name)")
        }
        let f = SQLName.key(c)
        guard f != SQLName.key("Z_PK"), f != SQLName.key(StoreSchema.entityColumn) else {
            throw StoreError(.importFailed, "column \(number) is named '\(c)', which the store keeps for its own column",
                             hint: "rename it in the file: Z_PK and Z_ENT (in any case) are the store's")
        }
    }
}

import PQL

/// How SQLite matches names: table, index and column names are compared byte for byte but
/// ignoring the case of ASCII letters (and only those: `É` and `é` stay distinct, as do the
/// composed and decomposed spellings of `é`, which Swift's `String` equality would merge), so
/// `Person` and `person` are one table and `id` and `ID` one column. Every name the store turns
/// into an SQL identifier is checked with this key, so that two names never alias one table or
/// column.
///
/// ```swift
/// SQLName.key("Person") == SQLName.key("PERSON")             // true
/// SQLName.key("caf\u{E9}") == SQLName.key("cafe\u{301}")    // false
/// ```
enum SQLName {
    /// `name` as SQLite compares it: ASCII letters lowercased, everything else as written.
    static func folded(_ name: String) -> String {
        // Most names are already folded: then no new string is built.
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The name as a dictionary key that matches exactly the names SQLite takes for it.
    static func key(_ name: String) -> ExactText { ExactText(folded(name)) }

    /// Whether two names are one identifier to SQLite.
    static func same(_ a: String, _ b: String) -> Bool { key(a) == key(b) }

    /// Whether two names are spelled with the same bytes (not Swift's canonical equivalence).
    static func identical(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Names SQLite keeps for itself: tables (and indexes) starting with `sqlite_`, in any case.
    static func isSQLiteInternal(_ name: String) -> Bool { folded(name).hasPrefix("sqlite_") }
}

extension StoreModel {
    /// Refuses names that SQLite would take for one another: entities, tables and the columns
    /// of one table that differ only in ASCII case, and names taken by the store itself (its
    /// model table, SQLite's `sqlite_` tables, a table's key and entity columns).
    ///
    /// Exact repeats that mean one column stay allowed, as the schema relies on them: an
    /// integer attribute on the primary key column (inferred models' `id`), a to-one's foreign
    /// key on an attribute's column (`carrier`), and sub-entities sharing an attribute column.
    ///
    /// By PostgreSQL's rules (`names: .postgreSQL`) quoted names are exact: only identical
    /// names are one, and `sqlite_` means nothing.
    func checkSQLNames(_ rules: NameRules = .sqlite) throws(StoreError) {
        let key: (String) -> ExactText = rules == .sqlite ? { SQLName.key($0) } : { ExactText($0) }
        let engine = rules == .sqlite ? "SQLite" : "PostgreSQL"
        var entityNames: [ExactText: String] = [:]
        for e in entities {
            let f = key(e.name)
            if let other = entityNames[f], !SQLName.identical(other, e.name) {
                throw StoreError(.invalidModel, "entities '\(other)' and '\(e.name)' differ only in case, which SQLite ignores in table names",
                                 hint: "rename one of them; as they are, both would use one table").about(entity: e.name)
            }
            entityNames[f] = e.name
        }
        var tables: [ExactText: String] = [:]
        for root in entities where root.parent == nil {
            let f = key(root.table)
            if let other = tables[f] {
                throw StoreError(.invalidModel, "entities '\(other)' and '\(root.name)' would share one table: \(engine) takes '\(root.table)' for '\(try entity(named: other).table)'",
                                 hint: "give each entity a table name of its own\(rules == .sqlite ? " that differs in more than case" : "")").about(entity: root.name)
            }
            if f == key(StoreSchema.metadataTable) || rules == .sqlite && SQLName.isSQLiteInternal(root.table) {
                throw StoreError(.invalidModel, "entity '\(root.name)' cannot use the table name '\(root.table)': the store or \(engine) keeps it for itself",
                                 hint: rules == .sqlite ? "choose a name that is not \(StoreSchema.metadataTable) and does not start with sqlite_ (in any case)"
                                                        : "choose a name that is not \(StoreSchema.metadataTable)")
                    .about(entity: root.name)
            }
            tables[f] = root.name
            try checkColumns(of: root, key: key)
        }
        try checkJoinTableNames(rules, tables: tables)
    }

    /// The columns of one table (the root's, holding its whole inheritance tree).
    private func checkColumns(of root: ModelEntity, key: (String) -> ExactText) throws(StoreError) {
        enum Owner: Equatable {
            case key, entityColumn
            case attribute(entity: String, name: String, isInteger: Bool)
            case foreignKey(entity: String, name: String)

            var description: String {
                switch self {
                case .key: "the primary key"
                case .entityColumn: "the entity column"
                case .attribute(let e, let n, _): "attribute \(e).\(n)"
                case .foreignKey(let e, let n): "relationship \(e).\(n)"
                }
            }

            var subject: (entity: String, name: String)? {
                switch self {
                case .key, .entityColumn: nil
                case .attribute(let e, let n, _), .foreignKey(let e, let n): (e, n)
                }
            }
        }
        var columns: [ExactText: (name: String, owner: Owner)] = [:]
        func claim(_ column: String, _ owner: Owner) throws(StoreError) {
            let f = key(column)
            guard let (name, earlier) = columns[f] else {
                columns[f] = (column, owner)
                return
            }
            let same = SQLName.identical(name, column)
            if same {
                // One column meant twice: a key attribute, a shared key column, sibling attributes.
                switch (earlier, owner) {
                case (.key, .attribute(_, _, true)), (.attribute, .attribute), (.attribute, .foreignKey),
                     (.foreignKey, .foreignKey), (.key, .foreignKey): return
                default: break
                }
            }
            let what = same ? "both use the column '\(column)'" : "use the columns '\(name)' and '\(column)', which SQLite takes for one"
            let reserved = earlier == .key || earlier == .entityColumn
            throw StoreError(.invalidModel, "\(earlier.description) and \(owner.description) \(what)",
                             hint: reserved ? "rename it, or map it to another column; the store keeps '\(name)' for itself"
                                            : "rename one of them, or map it to another column")
                .about(entity: owner.subject?.entity ?? root.name, property: owner.subject?.name)
        }
        try claim(root.primaryKey, .key)
        let tree = descendants(root)
        if isInheritanceTree(root) { try claim(StoreSchema.entityColumn, .entityColumn) }
        for e in tree {
            for a in e.attributes { try claim(a.column, .attribute(entity: e.name, name: a.name, isInteger: a.type.isInteger && a.type != .boolean)) }
        }
        for e in tree {
            for r in e.relationships where !r.isToMany { try claim(r.foreignKeyColumn, .foreignKey(entity: e.name, name: r.name)) }
        }
    }
}

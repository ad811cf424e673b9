/// What the store read of a file's indexes (again whenever its schema version changes).
struct SQLiteIndexes: Sendable {
    /// The columns that lead an index with SQLite's BINARY order, which the compiler uses to
    /// choose between a form an index serves and one cheaper to scan.
    var leading: Set<IndexedColumn> = []
    /// For each column leading a BINARY index that is not partial (which SQLite can use for any
    /// condition on the column): the columns of each such index, lower-cased. An index holds
    /// the row key besides, so it answers a statement that reads nothing else of the table
    /// without visiting the table (a covering index).
    var searchable: [IndexedColumn: [Set<String>]] = [:]

    /// Reads the catalog on `connection`; nil if SQLite cannot say.
    static func read(on connection: SQLiteConnection) -> SQLiteIndexes? {
        let sql = """
            SELECT m.name, l.name, l.partial, x.seqno, x.name, x.coll FROM sqlite_schema m, pragma_index_list(m.name) l,
            pragma_index_xinfo(l.name) x WHERE m.type = 'table' ORDER BY 1, 2, 4
            """
        guard let s = try? connection.prepare(sql) else { return nil }
        defer { s.reset() }
        var out = SQLiteIndexes()
        var current: (table: String, index: String, lead: IndexedColumn?, partial: Bool, columns: Set<String>)? = nil
        func finish() {
            guard let c = current, let lead = c.lead, !c.partial else { return }
            out.searchable[lead, default: []].append(c.columns)
        }
        do throws(StoreError) {
            while try s.step() {
                let table = s.text(0), index = s.text(1), seqno = s.int64(3)
                let name: String? = s.isNull(4) ? nil : s.text(4)
                if current?.table != table || current?.index != index {
                    finish()
                    current = (table, index, nil, s.int64(2) != 0, [])
                }
                if let name { current?.columns.insert(name.lowercased()) }
                if seqno == 0, let name, s.text(5) == "BINARY" {
                    let column = IndexedColumn(table: table, column: name)
                    out.leading.insert(column)
                    current?.lead = column
                }
            }
        } catch {
            return nil
        }
        finish()
        return out
    }
}

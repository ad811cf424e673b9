import PQL

/// Builds the SELECT of a query: FROM the entity's table `t0`, the predicate as WHERE, the
/// JOINs its to-one key paths need, ORDER BY with the key as the last tie-breaker (so the
/// order is the evaluator's stable order), LIMIT and OFFSET as parameters.
package struct SelectBuilder {
    let model: StoreModel
    let query: EntityQuery
    let entity: ModelEntity
    var compiler: PredicateSQLCompiler
    let scope: SQLScope
    /// How the statement is spelled: the compiler's structure is the same for every database.
    let dialect: any SQLDialect
    /// What the catalog says of the columns sorted by, when the store read it (PostgreSQL's).
    package var sortedColumns: SortedColumns? = nil
    /// The indexes of the SQLite file the statement runs on, and its connection, for choosing
    /// between an index search and a scan for ranges (`IndexUse`); nil: SQLite's planner decides.
    var indexUse: IndexUse?

    /// A statement and how to read its columns.
    package struct Statement {
        package var compiled: CompiledSQL
        /// For records: the attribute read from each column after the key (and entity number).
        package var attributes: [(name: String, kind: SQLKind)] = []
        /// For records with links: the to-one relationships read after the attributes, each
        /// as the key of the object it links to.
        package var links: [(name: String, kind: SQLKind)] = []
        /// The links that are many-to-many: text of comma-separated keys (see ``keyArray(_:)``).
        package var keyLists: Set<String> = []
        package var hasEntityColumn = false
    }

    /// The statement of `query` in another database's `dialect` (PostgreSQL's), knowing
    /// `prefixIndexes` when the store read them.
    package init(_ query: EntityQuery, model: StoreModel, dialect: any SQLDialect, prefixIndexes: PrefixIndexes? = nil) throws(StoreError) {
        try self.init(model: model, query: query, indexedColumns: nil, dialect: dialect)
        compiler.prefixIndexes = prefixIndexes
    }

    init(model: StoreModel, query: EntityQuery, indexes: IndexUse? = nil,
         dialect: any SQLDialect = SQLiteDialect()) throws(StoreError) {
        try self.init(model: model, query: query, indexedColumns: indexes?.leadingColumns, dialect: dialect)
        indexUse = indexes
    }

    init(model: StoreModel, query: EntityQuery, indexedColumns: Set<IndexedColumn>?,
         dialect: any SQLDialect = SQLiteDialect()) throws(StoreError) {
        self.dialect = dialect
        self.model = model
        self.query = query
        entity = try model.entity(named: query.entity)
        compiler = PredicateSQLCompiler(model: model)
        compiler.indexedColumns = indexedColumns
        compiler.nativeOnly = dialect.nativeOnly
        scope = compiler.makeScope(entity, alias: "t0")
    }

    /// ` WHERE …` (empty when every row matches). `selected`: the columns of the entity's
    /// table the statement reads besides its WHERE and ORDER BY (nil: unknown), which decide
    /// whether an index covers it (see `IndexUse`).
    mutating func whereClause(selecting selected: Set<String>?) throws(StoreError) -> String {
        // Trees built in code skipped the parser's nesting limit; compiling recurses.
        let depth = query.predicate.nestingDepth(cappedAt: PredicateNode.maxCompileDepth)
        if depth > PredicateNode.maxCompileDepth {
            throw StoreError(.unsupported, "the predicate nests deeper than \(PredicateNode.maxCompileDepth) levels",
                             hint: "flatten it: AND and OR take any number of operands")
        }
        var parts: [String] = []
        var reads = selected
        if let f = compiler.entityFilter(entity, alias: "t0") {
            parts.append(dialect.render(f))
            reads?.insert(StoreSchema.entityColumn)
        }
        let sorted = sortKeyColumns(), indexUse = dialect.nativeOnly ? nil : self.indexUse
        if let sorted { reads?.formUnion(sorted.all) } else { reads = nil }
        var compiler = self.compiler
        let (query, scope, dialect) = (self.query, self.scope, self.dialect)
        // Rendering walks the SQL structure recursively too: on the same large stack.
        let condition = try LargeStack.run(if: depth > PredicateNode.inlineCompileDepth) { () throws(StoreError) -> String? in
            let predicate = query.variables.isEmpty ? query.predicate : query.predicate.substituting(query.variables)
            // Substituting values for variables keeps the tree's shape: the map still fits.
            // Only the predicate's own pql_* calls point into its map.
            compiler.locator = SourceLocator(map: query.sourceMap, tree: predicate)
            defer { compiler.locator = nil }
            let c: SQLCondition
            do throws(StoreError) {
                c = try compiler.compile(predicate, in: scope)
                if let refusal = compiler.refusal { throw refusal }
            } catch {
                throw error.placed(in: predicate, map: query.sourceMap)
            }
            if c.isAlwaysTrue { return nil }
            // PostgreSQL's planner runs the terms of a WHERE's AND in the order of their cost:
            // a term that can raise (a nil operand, an overflow) must run after the guards
            // before it, as in memory. A CASE keeps the condition one term, evaluated in order.
            if dialect.nativeOnly && c.node.canRaise {
                let guarded = SQLNode.caseWhen(c.node, then: .boolean(true), else: .boolean(false))
                let lead = Self.leadingSafeTerms(of: c.node)
                return dialect.render(lead.isEmpty ? guarded : .chain(lead + [guarded], .and))
            }
            guard let indexUse else { return dialect.render(c.node) }
            return dialect.render(try indexUse.choose(c.node, in: scope, reads: reads, sortedBy: sorted?.first,
                                                      bindings: compiler.bindings.values, dialect: dialect))
        }
        self.compiler = compiler
        if let condition { parts.append(condition) }
        return parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND ")
    }

    /// The terms of a top-level AND, from the first, that come before every term that can raise
    /// and read no subquery (`age > 30` in `age > 30 AND salary * 2 > 100`), as plain conditions:
    /// copies of them go in front of the CASE that keeps the whole condition in memory's order,
    /// so that PostgreSQL's planner sees them and can serve them with an index, which it cannot
    /// do inside a CASE.
    ///
    /// Why the rows and the errors stay memory's. The CASE still holds the whole condition,
    /// copies included, evaluated left to right with short-circuits, whatever the order the
    /// planner runs the WHERE's terms in: a row it accepts is one memory accepts, and a row on
    /// which it raises is one on which memory raises. A copy can only keep rows from reaching
    /// the CASE, and only rows for which it is false or NULL; since it is one of the leading
    /// terms, memory's AND stops on such a row before any term that can raise (a NULL
    /// comparison is false to the evaluator), and the leading terms themselves cannot raise:
    /// memory neither raises on such a row nor accepts it. A term after the first that can raise
    /// must not be copied out: on a row where it is false memory has already run (and may have
    /// raised on) the raising term before it, and the copy would hide that row from the CASE.
    /// A subquery is not copied: no index on the table serves it, and it would run twice.
    static func leadingSafeTerms(of node: SQLNode) -> [SQLNode] {
        let terms: [SQLNode]
        switch node {
        case .chain(let t, .and), .parenthesized(.chain(let t, .and)): terms = t
        default: return []
        }
        var lead: [SQLNode] = []
        for term in terms {
            if term.canRaise { break }
            // The compiler made a NULL-able term 0 or 1 (coalesce(term, false)), for the CASE's
            // AND; in the WHERE, NULL already drops the row, and an index serves only the term.
            var plain = term
            if case .call(.coalesce, let args) = term, args.count == 2, args[1].isBoolean(false) { plain = args[0] }
            if !plain.readsSubquery { lead.append(plain) }
        }
        return lead
    }

    /// The columns of the entity's table the sort rules read, and the first rule's; nil when a
    /// rule reads another table (a to-one key path).
    func sortKeyColumns() -> (all: Set<String>, first: String?)? {
        var all: Set<String> = [], first: String? = nil
        let attributes = model.descendants(entity).flatMap { model.allAttributes($0) }
        for (i, rule) in query.sort.enumerated() {
            guard rule.keyPath.count == 1, let a = attributes.first(where: { $0.name == rule.keyPath[0] }) else { return nil }
            all.insert(a.column)
            if i == 0 { first = a.column }
        }
        return (all, first)
    }

    private mutating func orderClause() throws(StoreError) -> String {
        var terms: [String] = []
        for rule in query.sort {
            let x: SQLExpression
            switch try compiler.resolve(rule.keyPath, from: scope, alias: "t0", entity: entity, whole: rule.keyPath) {
            case .scalar(let e) where !e.isObject: x = e
            default:
                throw StoreError(.unsupported, "cannot sort by '\(rule.keyPath.joined(separator: "."))'",
                                 hint: "sort by an attribute, or an attribute of a to-one relationship")
            }
            var values = SortedValues()
            if let known = sortedColumns, let column = x.column {
                // Through a LEFT JOIN, a NOT NULL column is NULL where the row links to nothing.
                if case .column(let alias, _) = x.node, alias == scope.alias { values.haveNoNull = known.holdingNoNull.contains(column) }
                values.haveNoNaN = known.holdingNoNaN.contains(column)
            }
            terms.append(try dialect.sortTerm(dialect.render(x.node), rule, kind: x.kind, values: values))
        }
        if terms.isEmpty { return "" }
        terms.append(dialect.render(scope.keyColumn))
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    private mutating func pageClause() -> String {
        guard query.limit != nil || query.offset > 0 else { return "" }
        let l = compiler.bindRaw(.integer(Int64(query.limit ?? -1)))
        let o = compiler.bindRaw(.integer(Int64(query.offset)))
        return dialect.page(limit: l, offset: o)
    }

    /// A many-to-many link column's text (`"1,5"`, NULL for none) as the array of keys that
    /// inserts take.
    package static func keyArray(_ text: String?) -> PredicateValue {
        .array((text ?? "").split(separator: ",").compactMap { Int64($0).map(PredicateValue.int) })
    }

    /// Whole records: the key, the entity number if entities share the table, every attribute,
    /// and with `links` every to-one relationship's key column and every many-to-many's keys.
    package mutating func records(links: Bool = false) throws(StoreError) -> Statement {
        var selected: Set<String> = model.isInheritanceTree(entity) ? [StoreSchema.entityColumn] : []
        for e in model.descendants(entity) {
            selected.formUnion(model.allAttributes(e).map(\.column))
            if links { selected.formUnion(model.allRelationships(e).filter { !$0.isToMany }.map(\.foreignKeyColumn)) }
        }
        let w = try whereClause(selecting: selected), o = try orderClause(), p = pageClause()
        var columns = [dialect.render(scope.keyColumn)]
        var st = Statement(compiled: CompiledSQL(sql: "", bindings: []))
        if model.isInheritanceTree(entity) {
            columns.append(dialect.column(StoreSchema.entityColumn, of: "t0"))
            st.hasEntityColumn = true
        }
        var seen: Set<String> = []
        for e in model.descendants(entity) {
            for a in model.allAttributes(e) where seen.insert(a.name).inserted {
                columns.append(dialect.column(a.column, of: "t0"))
                st.attributes.append((a.name, SQLKind(a)))
            }
        }
        if links {
            for e in model.descendants(entity) {
                for r in model.allRelationships(e) where !r.isToMany && seen.insert(r.name).inserted {
                    let dest = try model.entity(named: r.destination)
                    let key = r.referencedColumn.flatMap { c in model.allAttributes(dest).first { $0.column == c } }
                    columns.append(dialect.column(r.foreignKeyColumn, of: "t0"))
                    st.links.append((r.name, key.map { SQLKind($0) } ?? .integer))
                }
            }
            // Many-to-many links after the to-ones: the linked keys in ascending order, as one
            // text ("1,5"; NULL for none) that the reader turns into an array of keys.
            for e in model.descendants(entity) {
                for r in model.allRelationships(e) where r.isManyToMany && seen.insert(r.name).inserted {
                    let join = try model.joinLink(of: r, on: e)
                    let keys = "SELECT \(dialect.quote(join.destinationColumn)) AS k FROM \(dialect.table(join.table)) "
                        + "WHERE \(dialect.quote(join.sourceColumn)) = \(dialect.render(scope.keyColumn)) ORDER BY 1"
                    columns.append("(SELECT \(dialect.keyList("links.k")) FROM (\(keys)) links)")
                    st.links.append((r.name, .string))
                    st.keyLists.insert(r.name)
                }
            }
        }
        st.compiled = CompiledSQL(sql: "SELECT \(columns.joined(separator: ", ")) FROM \(dialect.from(scope))\(w)\(o)\(p)",
                                  bindings: compiler.bindings.values)
        return st
    }

    /// The keys of the matching rows (for batch update and delete).
    package mutating func keys() throws(StoreError) -> CompiledSQL {
        let w = try whereClause(selecting: []), o = try orderClause(), p = pageClause()
        return CompiledSQL(sql: "SELECT \(dialect.render(scope.keyColumn)) FROM \(dialect.from(scope))\(w)\(o)\(p)",
                           bindings: compiler.bindings.values)
    }

    /// The key of each matching row and the value of each expression on it (a batch update
    /// computing its values), with each expression's compiled form for reading the values.
    package mutating func computed(_ expressions: [ExpressionNode], keys: [String]) throws(StoreError) -> (CompiledSQL, [ComputedColumn]) {
        let deep = expressions.contains { PredicateNode.comparison(ComparisonNode($0, .equal, .constant(.null))).nestsDeeper(than: PredicateNode.inlineCompileDepth) }
        var local = compiler
        let scope = self.scope, entityName = entity.name, dialect = self.dialect
        // Compiled and rendered on one stack: both walk the expression recursively.
        let results = try LargeStack.run(if: deep) { () throws(StoreError) -> [(sql: String, column: ComputedColumn)] in
            var out: [(sql: String, column: ComputedColumn)] = []
            for (e, key) in zip(expressions, keys) {
                let x = try local.scalar(e, in: scope)
                if x.isObject {
                    throw StoreError(.unsupported, "the expression for \(entityName).\(key) is a related object, not a value",
                                     hint: "set a to-one relationship to a key, or choose one of the object's attributes")
                }
                out.append((dialect.render(x.node), ComputedColumn(kind: x.kind, nullIsNaN: x.nullIsNaN)))
            }
            return out
        }
        compiler = local
        let w = try whereClause(selecting: nil), o = try orderClause(), p = pageClause()
        let columns = [dialect.render(scope.keyColumn)] + results.map(\.sql)
        return (CompiledSQL(sql: "SELECT \(columns.joined(separator: ", ")) FROM \(dialect.from(scope))\(w)\(o)\(p)",
                            bindings: compiler.bindings.values), results.map(\.column))
    }

    /// The predicate's own value behind each parameter, where it has one (see `SQLBindings.typed`).
    package var typedBindings: [PredicateValue?] { compiler.bindings.typed }

    /// How to read a computed column's values.
    package struct ComputedColumn {
        package var kind: SQLKind
        /// See `SQLExpression.nullIsNaN`.
        package var nullIsNaN: Bool
    }

    /// `SELECT count(*)` of the matching rows (after offset and limit, when given).
    package mutating func count() throws(StoreError) -> CompiledSQL {
        let w = try whereClause(selecting: [])
        if query.limit != nil || query.offset > 0 {
            let p = pageClause()
            // PostgreSQL before 16 requires a name for a subquery in FROM; SQLite takes none.
            let name = dialect.nativeOnly ? " AS page" : ""
            return CompiledSQL(sql: "SELECT count(*) FROM (SELECT 1 FROM \(dialect.from(scope))\(w)\(p))\(name)", bindings: compiler.bindings.values)
        }
        return CompiledSQL(sql: "SELECT count(*) FROM \(dialect.from(scope))\(w)", bindings: compiler.bindings.values)
    }

    /// Chosen properties (attributes and to-one key paths like `airline.name`), optionally distinct.
    package mutating func properties(_ keyPaths: [String], distinct: Bool) throws(StoreError) -> Statement {
        var columns: [String] = []
        var selected: Set<String> = []
        var st = Statement(compiled: CompiledSQL(sql: "", bindings: []))
        for key in keyPaths {
            let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch try compiler.resolve(path, from: scope, alias: "t0", entity: entity, whole: path) {
            case .scalar(let e) where !e.isObject:
                columns.append(dialect.render(e.node))
                e.node.collectColumns(of: "t0", into: &selected)
                st.attributes.append((key, e.kind))
            case .scalar, .values:
                throw StoreError(.unsupported, "'\(key)' is a relationship, not a value", hint: "choose one of its attributes: \(key).name")
            case .collection(let src):
                if src.hasOperator {
                    let e = try compiler.aggregate(src)
                    columns.append(dialect.render(e.node))
                    e.node.collectColumns(of: "t0", into: &selected)
                    st.attributes.append((key, .unknown))
                } else {
                    throw StoreError(.unsupported, "'\(key)' is a to-many key path: one row has many values",
                                     hint: "fetch \(src.name).@count, or fetch the \(src.destination.name) entity instead")
                }
            }
        }
        guard !columns.isEmpty else { throw StoreError(.unsupported, "no properties to fetch", hint: "name at least one attribute") }
        let w = try whereClause(selecting: selected), o = try orderClause(), p = pageClause()
        st.compiled = CompiledSQL(sql: "SELECT \(distinct ? "DISTINCT " : "")\(columns.joined(separator: ", ")) FROM \(dialect.from(scope))\(w)\(o)\(p)",
                                  bindings: compiler.bindings.values)
        return st
    }
}

import Foundation
import PQL

extension PredicateStore {
    /// The matching records, in the query's order.
    ///
    /// ```swift
    /// let late = try store.fetch(EntityQuery("Flight", where: "dep_delay > 600", sort: [SortRule("dep_delay")]))
    /// ```
    public func fetch(_ query: EntityQuery) throws(StoreError) -> [StoreRecord] {
        var out: [StoreRecord] = []
        try forEach(query) { (r) throws(StoreError) in out.append(r) }
        return out
    }

    /// Calls `body` with each matching record as SQLite produces it: memory stays bounded
    /// however many rows match.
    ///
    /// ```swift
    /// try store.forEach(EntityQuery("Flight")) { flight in print(flight["dest"]) }
    /// ```
    public func forEach(_ query: EntityQuery, _ body: (StoreRecord) throws(StoreError) -> Void) throws(StoreError) {
        try forEach(query, links: true, body)
    }

    /// ``forEach(_:_:)``; with `links`, each record's values also hold its to-one
    /// relationships, each the key of the linked object (or null), as inserts take them.
    func forEach(_ query: EntityQuery, links: Bool, _ body: (StoreRecord) throws(StoreError) -> Void) throws(StoreError) {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let st = try builder.records(links: links)
            let s = try run(st.compiled, on: connection)
            // A cached statement left open would hold its read transaction (an old snapshot, and no checkpoints).
            defer { s.reset() }
            // Which columns each entity's rows read, worked out once rather than per row: in a
            // shared inheritance table a row has only its own entity's attributes.
            let reading = SQLiteRecordLayout(st)
            typealias Layout = (entity: String, columns: [(index: Int32, name: String, kind: SQLKind)], keys: [String])
            func layout(_ entity: String, _ own: Set<String>?) -> Layout {
                let columns = reading.columns(own: own)
                return (entity, columns, Array(columns.map(\.name).prefix { name in !st.links.contains { $0.name == name } }))
            }
            let all = layout(query.entity, nil)
            let linkEntities = links ? model.linkEntities(of: builder.entity) : [:]
            let layouts = st.hasEntityColumn ? Dictionary(uniqueKeysWithValues: SQLiteRecordLayout.ownNames(model).map {
                ($0.number, layout($0.entity.name, $0.names))
            }) : [:]
            // A number no entity has (a foreign row) reads as the fetched entity.
            let fallback = layouts[Int64(model.entityNumber(builder.entity))] ?? all
            while try step(s) {
                let l = st.hasEntityColumn ? layouts[s.int64(1)] ?? fallback : all
                var values: [String: PredicateValue] = [:]
                values.reserveCapacity(l.columns.count)
                for c in l.columns { values[c.name] = c.kind.value(s.value(c.index)) }
                for name in st.keyLists where values[name] != nil {
                    if case .string(let text)? = values[name] { values[name] = SelectBuilder.keyArray(text) } else { values[name] = .array([]) }
                }
                try body(StoreRecord(entity: l.entity, id: s.int64(0), values: values, keys: l.keys, linkEntities: linkEntities))
            }
        }
    }

    /// The keys of the matching records (Core Data's object-ID result type): the cheapest
    /// fetch, for counting, paging or fetching details later.
    ///
    /// ```swift
    /// let ids = try store.fetchIDs(try EntityQuery("Flight", where: "dep_delay > 600"))
    /// ```
    public func fetchIDs(_ query: EntityQuery) throws(StoreError) -> [Int64] {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let s = try run(try builder.keys(), on: connection)
            defer { s.reset() }
            var out: [Int64] = []
            while try step(s) { out.append(s.int64(0)) }
            return out
        }
    }

    /// The number of matching records.
    ///
    /// ```swift
    /// let n = try store.count(EntityQuery("Airline", where: "ANY flights.dest == 'HNL'"))
    /// ```
    public func count(_ query: EntityQuery) throws(StoreError) -> Int {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let s = try run(try builder.count(), on: connection)
            defer { s.reset() }
            guard try step(s) else { return 0 }
            return Int(s.int64(0))
        }
    }

    /// Chosen properties of the matching records, as dictionaries: attributes, to-one key paths
    /// (`airline.name`) and aggregates (`flights.@count`); `distinct` drops repeated rows.
    ///
    /// ```swift
    /// let rows = try store.fetchProperties(["name", "flights.@count"], EntityQuery("Airline"))
    /// // [["name": "United Air Lines Inc.", "flights.@count": 58665], …]
    /// ```
    public func fetchProperties(_ keyPaths: [String], _ query: EntityQuery, distinct: Bool = false) throws(StoreError) -> [[String: PredicateValue]] {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let st = try builder.properties(keyPaths, distinct: distinct)
            let s = try run(st.compiled, on: connection)
            // A cached statement left open would hold its read transaction (an old snapshot, and no checkpoints).
            defer { s.reset() }
            var out: [[String: PredicateValue]] = []
            while try step(s) {
                var row: [String: PredicateValue] = [:]
                for (i, a) in st.attributes.enumerated() { row[a.name] = a.kind.value(s.value(Int32(i))) }
                out.append(row)
            }
            return out
        }
    }

    /// The matching records decoded as `T`, each row straight from its columns: attribute and
    /// relationship names are the coding keys and `id` the record's key (unless an attribute
    /// has that name); a to-one decodes as the key of the linked object (nil for none), a
    /// many-to-many as the array of linked keys. Integers of every width, `Double`, `Float`,
    /// `Bool`, `String`, `Date` (seconds since 2001, as the store keeps them), `Data`, `UUID`,
    /// `URL`, `Decimal`, optionals (nil for NULL or for a field the entity lacks) and enums with
    /// `String` or integer raw values decode as `JSONDecoder` decoded the record's JSON form,
    /// which this replaces (``StoreRecord/decode(_:using:)`` still takes that path), except
    /// that an infinite or NaN double reads as itself rather than nil.
    ///
    /// A record that does not fit `T` (a field it lacks, a value of another type) throws a
    /// `StoreError` of kind `.invalidValue` naming the entity, the record's key and the field.
    /// A `Codable` type inserted with ``insert(_:encoding:)`` reads back equal.
    ///
    /// ```swift
    /// struct Book: Codable, Equatable { var title: String; var author: Int64? }
    /// try store.insert("Book", encoding: Book(title: "Emma", author: austen))
    /// let books = try store.fetch(EntityQuery("Book"), as: Book.self)
    /// ```
    public func fetch<T: Decodable>(_ query: EntityQuery, as type: T.Type) throws(StoreError) -> [T] {
        try reading(query) { (connection, model, indexes) throws(StoreError) in
            var builder = try SelectBuilder(model: model, query: query, indexes: indexes)
            let st = try builder.records(links: true)
            let s = try run(st.compiled, on: connection)
            // A cached statement left open would hold its read transaction (an old snapshot, and no checkpoints).
            defer { s.reset() }
            let layout = SQLiteRecordLayout(st)
            func fields(_ entity: String, _ own: Set<String>?) -> RecordFields {
                RecordFields(entity: entity, fields: layout.columns(own: own).map { ($0.name, Int($0.index)) })
            }
            let all = fields(query.entity, nil)
            let byNumber = st.hasEntityColumn ? Dictionary(uniqueKeysWithValues: SQLiteRecordLayout.ownNames(model).map {
                ($0.number, fields($0.entity.name, $0.names))
            }) : [:]
            // A number no entity has (a foreign row) reads as the fetched entity.
            let fallback = byNumber[Int64(model.entityNumber(builder.entity))] ?? all
            let decoder = RecordDecoder(row: SQLiteRecordRow(statement: s, readings: layout.readings), fields: all)
            var out: [T] = []
            while try step(s) {
                out.append(try decoder.decode(T.self, fields: st.hasEntityColumn ? byNumber[s.int64(1)] ?? fallback : all))
            }
            return out
        }
    }

    /// Runs a fetch request template of the model with values for its variables.
    ///
    /// ```swift
    /// let delayed = try store.fetch(template: "DelayedBy", variables: ["minutes": 60])
    /// ```
    public func fetch(template name: String, variables: [String: PredicateValue] = [:]) throws(StoreError) -> [StoreRecord] {
        try fetch(try model.template(named: name).query(variables: variables))
    }

    /// ``reading(_:)`` with `limits` bounding the work of everything it runs.
    /// `predicate`, when given, is what a step-limit error's hint looks into.
    func reading<T>(within limits: EvaluationLimits, about predicate: PredicateNode? = nil,
                    _ body: (SQLiteConnection, StoreModel, IndexUse) throws(StoreError) -> T) throws(StoreError) -> T {
        try EvaluationBudget.run(limits, store: true, about: predicate) { () throws(StoreError) -> T in try reading(body) }
    }

    /// ``reading(within:_:)`` for `query`, an error that one of PQL's SQL functions raised
    /// placed at the sub-expression of the predicate it computes.
    func reading<T>(_ query: EntityQuery,
                    _ body: (SQLiteConnection, StoreModel, IndexUse) throws(StoreError) -> T) throws(StoreError) -> T {
        try placingErrors(of: query) { () throws(StoreError) -> T in try reading(within: query.limits, about: query.predicate, body) }
    }

    /// Runs `body`; an error that one of PQL's SQL functions raised while it ran `query` is
    /// placed at the sub-expression of the predicate that the function computes.
    func placingErrors<T>(of query: EntityQuery, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) { return try body() } catch { throw error.placedAtSourceNode(of: query.sourceMap) }
    }

    func run(_ c: CompiledSQL, on connection: SQLiteConnection) throws(StoreError) -> SQLiteStatement {
        let limit = connection.variableLimit
        if c.bindings.count > limit {
            throw StoreError(.unsupported, "the query binds \(c.bindings.count) values; SQLite allows at most \(limit) in one statement",
                             hint: "split a long IN list over several fetches, or keep the values in an entity and use a relationship")
        }
        let s = try connection.prepare(c.sql, cached: true)
        try s.bind(c.bindings, foldedAllowed: true)
        return s
    }

    /// One step, with errors raised inside PQL's SQL functions located in the predicate text.
    func step(_ s: SQLiteStatement) throws(StoreError) -> Bool {
        if Task.isCancelled { throw StoreError(.cancelled, "the fetch was cancelled") }
        return try s.step()
    }
}

extension FetchTemplate {
    /// The template as a query, its `$variables` replaced by `variables`.
    public func query(variables: [String: PredicateValue] = [:]) throws(StoreError) -> EntityQuery {
        var q = try EntityQuery(entity, where: predicate, sort: sort, limit: limit, variables: variables)
        let missing = q.predicate.variableNames.subtracting(variables.keys)
        if let name = missing.sorted().first {
            throw StoreError(.unboundVariable, "fetch template '\(self.name)' needs a value for $\(name)",
                             hint: "pass variables: [\"\(name)\": …]", source: predicate,
                             range: q.sourceMap?.range(ofFirst: .expression(.variable(name)), in: q.predicate))
        }
        q.variables = variables
        return q
    }
}

extension StoreRecord {
    /// The record decoded as `T` through its JSON form, with `decoder`'s strategies (a store's
    /// `fetch(_:as:)` decodes rows without this detour, as the default strategies would).
    ///
    /// ```swift
    /// let record = try #require(try store.fetch(EntityQuery("Book")).first)
    /// let book = try record.decode(Book.self)
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws(StoreError) -> T {
        var object: [String: Any] = ["id": id]
        for (k, v) in values { object[k] = v.foundationJSON }
        do {
            let data = try JSONSerialization.data(withJSONObject: object)
            return try decoder.decode(T.self, from: data)
        } catch {
            throw StoreError.decoding(error, entity: entity, id: id, as: T.self, fields: ["id"] + (keys + values.keys.filter { !keys.contains($0) }.sorted()).filter { $0 != "id" })
        }
    }
}

extension PredicateValue {
    /// The JSON object JSONDecoder's default strategies read back (dates as seconds since 2001,
    /// data as base64).
    var foundationJSON: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d.isFinite ? d : NSNull()
        case .decimal(let d): return NSDecimalNumber(decimal: d)
        case .string(let s): return s
        case .date(let d): return d.timeIntervalSinceReferenceDate
        case .data(let d): return d.base64EncodedString()
        case .array(let a), .set(let a): return a.map(\.foundationJSON)
        case .dictionary(let d): return d.mapValues(\.foundationJSON)
        }
    }
}

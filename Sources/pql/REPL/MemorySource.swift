import Foundation
import PQL
import PQLStore

/// A JSON, JSON Lines, CSV or property-list file read into memory: one entity, named after the
/// file, whose rows the evaluator filters, sorts and pages (nested objects and arrays keep
/// their shape, so `address.city` and `ANY tags == 'x'` work as on the original data).
final class MemorySource: QuerySource {
    let title: String
    let name: String
    let records: [PredicateValue]
    /// Keys in the order they first appear, with the kind of their first non-nil value.
    let keys: [(name: String, type: String)]
    /// The column that shows elements that are not objects (`1`, `"x"`, `null`, `[1, 2]`), as
    /// `pql filter` shows them: `value` (`(value)` when a key is named so); nil when every
    /// element is an object. Predicates read such an element as SELF.
    let bareColumn: String?

    /// The file read (for `.output`, which must not empty it), or nil for a stream.
    let file: String?

    /// `data`: the contents when they were read already (a pipe, which cannot be read twice).
    init(url: URL, data: Data? = nil) throws {
        self.file = data == nil ? url.path : nil
        let file = url.lastPathComponent
        var stem = url.deletingPathExtension().lastPathComponent
        if stem.hasSuffix(".csv") { stem = String(stem.dropLast(4)) }
        let cleaned = String(stem.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "_" ? Character($0) : "_" })
        name = cleaned.isEmpty || cleaned.first!.isNumber ? "Row" + cleaned : cleaned
        let (records, header, document) = try Self.read(url, data: data)
        self.records = records
        self.keys = Self.keys(of: records, header: header, document: document)
        let bare = records.contains { if case .dictionary = $0 { false } else { true } }
        bareColumn = bare ? (keys.contains { $0.name == "value" } ? "(value)" : "value") : nil
        title = "\(file): \(records.count.formatted()) rows in memory"
    }

    /// The keys in the file's order: a CSV file's header, then the keys of JSON objects in the
    /// order they first appear in the text (a property list's dictionaries have no order: theirs
    /// are alphabetical), each with the kind of its first non-nil value.
    private static func keys(of records: [PredicateValue], header: [String], document: JSONDocument?) -> [(name: String, type: String)] {
        var seen: [String: Int] = [:]
        var keys: [(name: String, type: String)] = []
        for c in header where seen[c] == nil {
            seen[c] = keys.count
            keys.append((c, "nil"))
        }
        for (n, r) in records.enumerated() {
            guard case .dictionary(let d) = r else { continue }
            // Only a record with a key not seen yet needs its text read again for the order.
            let order = d.keys.contains { seen[$0] == nil } ? (document?.keys(of: n) ?? []) + d.keys.sorted() : Array(d.keys)
            for k in order {
                guard let v = d[k] else { continue }
                if let i = seen[k] {
                    if keys[i].type == "nil" { keys[i].type = Self.kind(v) }
                } else {
                    seen[k] = keys.count
                    keys.append((k, Self.kind(v)))
                }
            }
        }
        return keys
    }

    /// The records, a CSV file's header, and a JSON file's document (for the order of its keys).
    private static func read(_ url: URL, data given: Data?) throws -> ([PredicateValue], [String], JSONDocument?) {
        let file = url.lastPathComponent.lowercased()
        let data: Data
        if let given { data = given } else {
            do { data = try InputFile.read(url.path) } catch { throw ReplError(error.message, hint: error.hint) }
        }
        if file.hasSuffix(".plist") {
            let value = try PropertyListFile.read(data, name: url.lastPathComponent)
            if case .array(let rows) = value { return (rows, [], nil) }
            return ([value], [], nil)
        }
        if file.hasSuffix(".csv") || file.hasSuffix(".zip") {
            let table = try ImportTable.read(contentsOf: url)
            let rows = table.rows.map { row -> PredicateValue in
                var d: [String: PredicateValue] = [:]
                for (i, c) in table.columns.enumerated() where i < row.count && !row[i].isNull { d[c] = row[i] }
                return .dictionary(d)
            }
            return (rows, table.columns, nil)
        }
        do {
            let document = try JSONDocument(bytes: [UInt8](data))
            return (document.values, [], document)
        } catch {
            if error.isAboutAValue {
                throw ReplError("\(url.lastPathComponent) holds a value PQL cannot read: \(error)",
                                hint: "fix the file there: " + error.valueHint(otherwise: "write dates in ISO-8601, as in {\"$date\": \"2024-05-01T12:00:00Z\"}"))
            }
            throw ReplError("\(url.lastPathComponent) is not valid JSON: \(error)",
                            hint: "fix the file there: pql reads a JSON array of objects, or JSON Lines (one object per line)")
        }
    }

    static func kind(_ v: PredicateValue) -> String {
        switch v {
        case .null: "nil"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .data: "binary"
        case .array, .set: "array"
        case .dictionary: "object"
        @unknown default: "value"
        }
    }

    var entityNames: [String] { [name] }
    var defaultEntity: String? { name }

    func entity(named n: String) -> EntityInfo? {
        guard n == name else { return nil }
        return EntityInfo(name: name, attributes: columnNames.map { c in .init(name: c, type: keys.first { $0.name == c }?.type ?? "value") },
                          relationships: [], rowCount: records.count)
    }

    /// The columns a row shows: the keys, then ``bareColumn``.
    var columnNames: [String] { keys.map(\.name) + (bareColumn.map { [$0] } ?? []) }

    /// The values of `columns` for `record`: an object's keys, or for an element that is not
    /// an object, itself in ``bareColumn`` and nil under every key.
    func row(_ record: PredicateValue, columns: [String]) -> [PredicateValue] {
        let isObject = if case .dictionary = record { true } else { false }
        return columns.map { c in
            if c == bareColumn { return isObject ? .null : record }
            return isObject ? Self.value(at: c.split(separator: ".").map(String.init)[...], in: record) : .null
        }
    }

    /// Key paths that name no key of any row are mistakes, as they would be in a store.
    private func checkKeys(_ r: QueryRequest) throws {
        guard !keys.isEmpty else { return }
        let known = Set(keys.map(\.name))
        for path in KeyPathCollector.firstKeys(of: r.predicate) + r.sort.compactMap(\.keyPath.first) where !known.contains(path) && !path.hasPrefix("@") {
            if path == bareColumn {
                throw ReplError("'\(path)' is the column of the elements that are not objects, not a key",
                                hint: "a predicate reads such an element as SELF: SELF == 1, SELF BEGINSWITH 'x'")
            }
            // The caret goes under the first key path that starts with the key, where the parser saw it.
            let range = r.sourceMap?.range(ofFirstWhere: { item in
                switch item {
                case .expression(.keyPath(let p)): return p.first == path
                default: return false
                }
            }, in: r.predicate)
            throw ReplError("keypath '\(path)' not found in \(name)", hint: hint(for: path),
                            place: range.map { (r.text, $0) })
        }
    }

    private func hint(for key: String) -> String {
        let near = SharedSemantics.nearestNames(to: key, in: keys.map(\.name))
        return near.isEmpty ? "`.schema` lists the keys" : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?"
    }

    func checkKeyPaths(_ keyPaths: [String], entity: String) throws {
        guard !keys.isEmpty else { return }
        let known = Set(keys.map(\.name))
        for path in keyPaths {
            let first = String(path.prefix { $0 != "." })
            guard !known.contains(first) && !first.hasPrefix("@") && path != bareColumn else { continue }
            throw ReplError("keypath '\(path)' not found in \(name)", hint: hint(for: first))
        }
    }

    /// The task evaluating the current query, cancelled by Ctrl-C (``interrupt()``).
    private let running = RunningTask()

    /// Runs `query` over the rows on a task of its own, waiting for it here: Ctrl-C cancels the
    /// task, and the evaluation stops at its next check, a few thousand steps later (well under
    /// a millisecond), even inside one expensive row.
    private func evaluate(_ query: PredicateQuery) throws -> [Int] {
        let records = self.records
        let done = DispatchSemaphore(value: 0)
        let outcome = ResultBox()
        let task = Task.detached {
            outcome.set(Result { () throws(PredicateEvaluationError) -> [Int] in
                try query.indices(in: records, reader: PredicateValue.predicateReader)
            })
            done.signal()
        }
        running.set(task)
        // A Ctrl-C that came before the task was registered.
        if InterruptFlag.isRaised { task.cancel() }
        done.wait()
        running.set(nil)
        return try outcome.get()
    }

    private func matches(_ r: QueryRequest) throws -> [Int] {
        try checkKeys(r)
        var query = PredicateQuery(r.predicate, variables: r.variables, limits: r.limits)
        query.sourceMap = r.sourceMap
        return try evaluate(query)
    }

    func count(_ r: QueryRequest) throws -> Int { try matches(r).count }

    func groups(_ query: GroupQuery) throws -> [[String: PredicateValue]] {
        try query.rows(in: records, reader: PredicateValue.predicateReader)
    }

    func distinct(_ keyPaths: [String], _ r: QueryRequest) throws -> [[PredicateValue]] {
        let found = try matches(r.unpaged)
        let paths = keyPaths.map { $0.split(separator: ".").map(String.init) }
        var seen = Set<[PredicateValue]>()
        var tuples: [PredicateValue] = []
        for i in found {
            let t = paths.map { Self.value(at: $0[...], in: records[i]) }
            guard seen.insert(t).inserted else { continue }
            // Keys of their own, so that a dotted key path sorts as one value.
            tuples.append(.dictionary(Dictionary(uniqueKeysWithValues: t.enumerated().map { ("k\($0.offset)", $0.element) })))
        }
        let order = PredicateQuery(sort: keyPaths.indices.map { SortRule("k\($0)") }, offset: r.offset, limit: r.limit, limits: r.limits)
        return try order.run(on: tuples).map { t in
            guard case .dictionary(let d) = t else { return [] }
            return keyPaths.indices.map { d["k\($0)"] ?? .null }
        }
    }

    /// The matching records themselves, sorted and paged (`pql query` on a file).
    func records(_ r: QueryRequest) throws -> [PredicateValue] {
        try checkKeys(r)
        var query = PredicateQuery(r.predicate, sort: r.sort, offset: r.offset, limit: r.limit,
                                   variables: r.variables, limits: r.limits)
        query.sourceMap = r.sourceMap
        return try evaluate(query).map { records[$0] }
    }

    func rows(_ r: QueryRequest, columns: [String]) throws -> [[PredicateValue]] {
        try checkKeys(r)
        var query = PredicateQuery(r.predicate, sort: r.sort, offset: r.offset, limit: r.limit,
                                   variables: r.variables, limits: r.limits)
        query.sourceMap = r.sourceMap
        return try evaluate(query).map { row(records[$0], columns: columns) }
    }

    /// A key path's value on a row: dictionaries by key, collections element by element.
    static func value(at path: ArraySlice<String>, in v: PredicateValue) -> PredicateValue {
        guard let key = path.first else { return v }
        switch v {
        case .dictionary(let d): return value(at: path.dropFirst(), in: d[key] ?? .null)
        case .array(let a): return .array(a.map { value(at: path, in: $0) })
        default: return .null
        }
    }

    func sql(_ r: QueryRequest) throws -> (sql: String, bindings: [String])? { nil }
    func plan(_ r: QueryRequest) throws -> [String]? { nil }
    var protectedFiles: [String] { file.map { [$0] } ?? [] }
    func interrupt() { running.cancel() }
}

/// The task of the running query, for the thread that watches for Ctrl-C.
private final class RunningTask: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    func set(_ t: Task<Void, Never>?) { lock.withLock { task = t } }
    func cancel() { lock.withLock { task?.cancel() } }
}

/// The result a query's task hands back to the waiting thread (the semaphore orders the write
/// before the read).
private final class ResultBox: @unchecked Sendable {
    private var result: Result<[Int], PredicateEvaluationError> = .success([])
    func set(_ r: Result<[Int], PredicateEvaluationError>) { result = r }
    func get() throws(PredicateEvaluationError) -> [Int] { try result.get() }
}

/// The first key of every key path a predicate reads from the evaluated object.
enum KeyPathCollector {
    static func firstKeys(of p: PredicateNode) -> [String] {
        var out: [String] = []
        visit(p, &out)
        return out
    }

    private static func visit(_ p: PredicateNode, _ out: inout [String]) {
        switch p {
        case .constant: break
        case .comparison(let c):
            visit(c.lhs, &out)
            visit(c.rhs, &out)
        case .and(let ps), .or(let ps): for q in ps { visit(q, &out) }
        case .not(let q): visit(q, &out)
        }
    }

    private static func visit(_ e: ExpressionNode, _ out: inout [String]) {
        switch e {
        case .keyPath(let path): if let k = path.first { out.append(k) }
        case .keyPathOn(let base, _): visit(base, &out)
        case .aggregate(let es), .function(_, let es): for x in es { visit(x, &out) }
        case .index(let x, _): visit(x, &out)
        case .customFunction(let t, _, let args): visit(t, &out); for x in args { visit(x, &out) }
        case .cast(let x, let t): visit(x, &out); visit(t, &out)
        case .ternary(let c, let a, let b): visit(c, &out); visit(a, &out); visit(b, &out)
        case .subquery(let collection, _, let predicate): visit(collection, &out); visit(predicate, &out)
        case .assignment(_, let v): visit(v, &out)
        case .setOperation(_, let a, let b): visit(a, &out); visit(b, &out)
        default: break
        }
    }
}

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

    /// `data`: the contents when they were read already (a pipe, which cannot be read twice).
    init(url: URL, data: Data? = nil) throws {
        let file = url.lastPathComponent
        var stem = url.deletingPathExtension().lastPathComponent
        if stem.hasSuffix(".csv") { stem = String(stem.dropLast(4)) }
        let cleaned = String(stem.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "_" ? Character($0) : "_" })
        name = cleaned.isEmpty || cleaned.first!.isNumber ? "Row" + cleaned : cleaned
        records = try Self.read(url, data: data)
        var seen: [String: Int] = [:]
        var keys: [(name: String, type: String)] = []
        for r in records {
            guard case .dictionary(let d) = r else { continue }
            for (k, v) in d.sorted(by: { $0.key < $1.key }) {
                if let i = seen[k] {
                    if keys[i].type == "nil" { keys[i].type = Self.kind(v) }
                } else {
                    seen[k] = keys.count
                    keys.append((k, Self.kind(v)))
                }
            }
        }
        // Keys in order of first appearance, each row's keys taken alphabetically.
        self.keys = keys
        title = "\(file): \(records.count.formatted()) rows in memory"
    }

    private static func read(_ url: URL, data given: Data?) throws -> [PredicateValue] {
        let file = url.lastPathComponent.lowercased()
        let data: Data
        if let given { data = given } else {
            do { data = try InputFile.read(url.path) } catch { throw ReplError(error.message, hint: error.hint) }
        }
        if file.hasSuffix(".plist") {
            let object: Any
            do { object = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
                throw ReplError("\(url.lastPathComponent) is not a property list: \(error.localizedDescription)")
            }
            guard let value = PredicateValue(any: object) else {
                throw ReplError("\(url.lastPathComponent) holds values PQL cannot read")
            }
            if case .array(let rows) = value { return rows }
            return [value]
        }
        if file.hasSuffix(".csv") || file.hasSuffix(".zip") {
            let table = try ImportTable.read(contentsOf: url)
            return table.rows.map { row in
                var d: [String: PredicateValue] = [:]
                for (i, c) in table.columns.enumerated() where i < row.count && !row[i].isNull { d[c] = row[i] }
                return .dictionary(d)
            }
        }
        do {
            return try JSONDocument(bytes: [UInt8](data)).values
        } catch {
            throw ReplError("\(url.lastPathComponent) is not a JSON array or JSON Lines: \(error)",
                            hint: "pql opens SQLite databases, .json, .jsonl, .csv, .csv.zip and .plist files")
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
        return EntityInfo(name: name, attributes: keys.map { .init(name: $0.name, type: $0.type) },
                          relationships: [], rowCount: records.count)
    }

    /// Key paths that name no key of any row are mistakes, as they would be in a store.
    private func checkKeys(_ r: QueryRequest) throws {
        guard !keys.isEmpty else { return }
        let known = Set(keys.map(\.name))
        for path in KeyPathCollector.firstKeys(of: r.predicate) + r.sort.compactMap(\.keyPath.first) where !known.contains(path) && !path.hasPrefix("@") {
            let near = SharedSemantics.nearestNames(to: path, in: keys.map(\.name))
            var message = "keypath '\(path)' not found in \(name)"
            if let at = r.text.range(of: path) {
                let column = r.text.distance(from: r.text.startIndex, to: at.lowerBound)
                message += "\n  \(r.text)\n  " + String(repeating: " ", count: column) + String(repeating: "^", count: path.count)
            }
            throw ReplError(message, hint: near.isEmpty ? "`.schema` lists the keys" : "did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?")
        }
    }

    private func matches(_ r: QueryRequest) throws -> [PredicateValue] {
        try checkKeys(r)
        let compiled = try CompiledPredicate<PredicateValue>(r.predicate, reader: PredicateValue.predicateReader)
        // In slices, so that a Ctrl-C stops a long filter between two of them.
        var out: [PredicateValue] = []
        var start = 0
        while start < records.count {
            if InterruptFlag.isRaised { throw ReplError("interrupted") }
            let end = min(start + 4096, records.count)
            for v in records[start..<end] where try compiled.evaluate(v, variables: r.variables) { out.append(v) }
            start = end
        }
        return out
    }

    func count(_ r: QueryRequest) throws -> Int { try matches(r).count }

    func rows(_ r: QueryRequest, columns: [String]) throws -> [[PredicateValue]] {
        let page = try PredicateQuery(sort: r.sort, offset: r.offset, limit: r.limit).run(on: matches(r))
        let paths = columns.map { $0.split(separator: ".").map(String.init) }
        return page.map { v in paths.map { Self.value(at: $0[...], in: v) } }
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
    func interrupt() {}
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

import Foundation
import PQL
import PQLStore

/// `pql query` on a data file, as duckdb queries a CSV file: JSON, JSON Lines, CSV (zipped too)
/// and property lists are read into memory (the REPL's `MemorySource`) and evaluated there, with
/// the same flags as on a store.
extension QueryCommand {
    /// The data file `path` names (by its extension), read into memory; nil for `:demo:`, an
    /// SQLite database, a directory or a missing file (the store reports those). A FIFO named
    /// `*.json`, `*.jsonl` or `*.ndjson`, or process substitution (`<(gunzip -c people.json.gz)`,
    /// `/dev/fd/N`), is read to its end as JSON, as the REPL reads one; another FIFO stays the
    /// store's to refuse (reading one nothing writes to would wait for ever). A device
    /// (`/dev/zero` never ends) or a socket named like a data file is refused.
    static func memorySource(_ path: String) throws -> MemorySource? {
        guard path != StoreLocation.demo else { return nil }
        let expanded = (path as NSString).expandingTildeInPath
        let lower = expanded.lowercased()
        if let special = InputFile.special(expanded) {
            let json = [".json", ".jsonl", ".ndjson"].contains { lower.hasSuffix($0) }
            let substituted = ["/dev/fd/", "/proc/self/fd/", "/dev/stdin"].contains { expanded.hasPrefix($0) }
            if special.isPipe && (json || substituted) {
                do { return try SourceOpener.openStream(path, expanded) as? MemorySource } catch { throw Self.userFacing(error) }
            }
            guard json || [".csv", ".zip", ".plist"].contains(where: { lower.hasSuffix($0) }) else { return nil }
            if special.isPipe {
                throw UserFacingError(text: "error: '\(path)' is a pipe, and pql query reads only JSON arrays and JSON Lines from a pipe\nhint: save CSV, ZIP and property-list data to a file and query that")
            }
            throw UserFacingError(text: "error: '\(path)' is \(special.kind), not a data file or a database\nhint: give a file, or pipe JSON in: pql query <(command)")
        }
        // Other files (an empty one, any other extension) stay the store's to open or refuse, as before.
        guard SourceOpener.isRegularFile(expanded), !SourceOpener.isSQLite(expanded),
              [".json", ".jsonl", ".ndjson", ".csv", ".zip", ".plist"].contains(where: { lower.hasSuffix($0) }) else { return nil }
        do {
            guard let source = try SourceOpener.open(path) as? MemorySource else { return nil }
            return source
        } catch {
            throw Self.userFacing(error)
        }
    }

    /// The entity to query: `--entity`, or the only one there is; with several, the error names them.
    static func entity(_ given: String?, among names: [String], in place: String) throws -> String {
        if let given { return given }
        if names.count == 1 { return names[0] }
        if names.isEmpty { throw UserFacingError(text: "error: \(place) has no entities to query") }
        throw UserFacingError(text: "error: \(place) has \(names.count) entities: \(names.joined(separator: ", "))\nhint: choose one with --entity, e.g. --entity \(names[0])")
    }

    /// The fetch on a file in memory: the matching records in `--format` (JSON Lines by default,
    /// keys in the file's order), their number (`--count`) or the groups (`--group-by`).
    func run(onFile source: MemorySource, _ query: EntityQuery) throws {
        if sql {
            throw UserFacingError(text: "error: \(store) is evaluated in memory: there is no SQL\nhint: --sql shows the SQL of an SQLite store (pql import loads this file into one)")
        }
        if let entity, entity.lowercased() != source.name.lowercased() {
            throw UserFacingError(text: "error: no entity '\(entity)' in \(store): its one entity is \(source.name)\nhint: leave --entity out, or write --entity \(source.name)")
        }
        var r = QueryRequest(entity: source.name, text: query.predicateText ?? query.predicate.description, predicate: query.predicate,
                             sort: query.sort, offset: query.offset, limit: query.limit, variables: query.variables, limits: query.limits)
        r.sourceMap = query.sourceMap
        do {
            let renderer = (format ?? .jsonl).plainRenderer
            if !groupBy.isEmpty {
                let (group, order) = try groupQuery(query)
                let writer = RecordWriter(renderer, columns: order)
                for row in try source.groups(group) { writer.write(order.map { row[$0] ?? .null }) }
                writer.finish()
            } else if count {
                // As on a store, the count is of the page --offset and --limit select.
                let n = max(0, try source.count(r.unpaged) - query.offset)
                Output.line(min(n, query.limit ?? n))
            } else {
                let order = source.columnNames
                let writer = RecordWriter(renderer, columns: order)
                let json = renderer.format == .json || renderer.format == .jsonl
                for record in try source.records(r) {
                    if json, case .dictionary(let d) = record {
                        // JSON keeps a record's shape: a key it does not have stays absent.
                        let own = order.filter { d[$0] != nil }
                        writer.write(own.map { d[$0]! }, columns: own)
                    } else if json {
                        // An element that is not an object (1, "x", null, [1, 2]) is itself.
                        writer.write(element: record)
                    } else {
                        writer.write(source.row(record, columns: order))
                    }
                }
                writer.finish()
            }
        } catch {
            throw Self.userFacing(error)
        }
    }

    static func userFacing(_ error: Error) -> Error {
        switch error {
        case let e as ReplError: return UserFacingError(text: e.rendered)
        case let e as PredicateEvaluationError: return UserFacingError(text: e.userText(at: e.elementIndex.map { "record \($0 + 1)" }))
        case let e as StoreError: return e.userFacing
        default: return error
        }
    }
}

extension PredicateStore {
    /// The entities a command may name (abstract ones have no records of their own).
    var entityNames: [String] { model.entities.filter { !$0.isAbstract }.map(\.name) }
}

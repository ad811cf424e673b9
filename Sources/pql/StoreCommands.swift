import ArgumentParser
import Foundation
import PQL
import PQLDemo
import PQLStore

/// How `pql` names stores: a path, or `:demo:` for the shipped nycflights13 demo.
enum StoreLocation {
    static let demo = ":demo:"

    /// The store at `path`; `readOnly` for the commands that only read, which change nothing
    /// on disk (see `PredicateStore(path:readOnly:)`).
    static func open(_ path: String, readOnly: Bool) throws -> PredicateStore {
        // The commands that take a URL open it as a ServerStore; the others say so.
        if ServerStore.isURL(path) {
            throw ServerStore.notYet("this command", hint: "pql query, pql import, pql update, pql delete, pql demo and the REPL take a PostgreSQL URL")
        }
        do {
            if path == demo { return try DemoDatabase.open(readOnly: readOnly) }
            return try PredicateStore(path: path, readOnly: readOnly)
        } catch {
            throw error.userFacing
        }
    }
}

extension StoreError {
    /// What `pql` prints for this error.
    var userFacing: UserFacingError { UserFacingError(text: rendered.hasPrefix("error:") ? rendered : "error: " + rendered) }
}

/// `pql import`: load a data file into an entity of a store.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load a JSON array, JSON Lines or CSV file into an entity of an SQLite store or a PostgreSQL database.",
        discussion: """
        Creates STORE if it does not exist, and the entity if the store's model lacks it, with attribute types inferred from the data (integers, doubles, booleans, ISO-8601 dates, strings; no number is rounded). Into an existing entity, a column or key it lacks becomes a new optional attribute of the inferred type (the store migrates, as when it is opened with a model that gained an attribute). In CSV, NA and empty fields are NULL. The file is read as a stream, twice (types, then rows), in bounded memory whatever its size, so it must be a regular file, not a pipe. The rows, the new entity and the store's model are written in one transaction: on any error, none are. A new store is built beside STORE and put in place when complete: a failed import leaves the path as it was, and of two imports creating one store, the second goes into the store the first made.

        STORE may be a PostgreSQL URL, postgres://user:password@host:port/database (or postgresql://): the rows go through COPY, into a new table (its model saved in the database) or an existing one, in one transaction.

        Examples (with the demo's airlines and airports, saved by pql query):
          pql query :demo: --entity Airline > airlines.jsonl
          pql import travel.sqlite airlines.jsonl --entity Airline
          pql query :demo: --entity Airport --where "alt > 5000" > airports.jsonl
          pql import travel.sqlite airports.jsonl --entity Airport
          pql import postgres://me@localhost/flights airlines.jsonl --entity Carrier

        --link COLUMN=ENTITY.KEY turns a column into a to-one relationship named like the column: each value finds the one ENTITY object whose KEY attribute holds it (import ENTITY first). A value that finds no object, or several, fails the import naming the line and the value, and nothing is written; an empty value is no link. The inverse, a to-many on ENTITY, is named after the imported entity (Flight: flights; flights_COLUMN when ENTITY has a flights already), or as given after a colon: --link carrier=Airline.carrier:departures.
          pql query :demo: --entity Flight --where "dest == 'HNL'" > hnl.jsonl
          pql import travel.sqlite hnl.jsonl --entity Trip \\
            --link carrier=Airline.carrier
          pql query travel.sqlite --entity Trip --count \\
            --where "carrier.name BEGINSWITH 'United'"
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store (created if missing), or a PostgreSQL URL.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("A .json (array), .jsonl/.ndjson (JSON Lines), .csv or .csv.zip file.", valueName: "file"))
    var file: String

    @Option(help: "The entity the rows become.")
    var entity: String

    @Option(name: .customLong("link"), help: ArgumentHelp("A column that names objects of another entity by one of their attributes, made a to-one relationship (repeatable).",
                                                      valueName: "column=Entity.key[:inverse]"))
    var linkTexts: [String] = []

    /// The --link options, read.
    func links() throws -> [ImportLink] {
        do { return try linkTexts.map { (text) throws(StoreError) in try ImportLink(parsing: text) } } catch {
            throw error.reworded("--link: \(error.message)").userFacing
        }
    }

    func run() throws {
        guard FileManager.default.fileExists(atPath: file) else {
            throw UserFacingError(text: "error: cannot read \(file): no such file")
        }
        let links = try links()
        if ServerStore.isURL(store) { return try run(onServer: store) }
        do {
            let start = Date()
            let source = try ImportSource(contentsOf: URL(fileURLWithPath: file))
            // The first pass checks the whole file before a store is created for it.
            let columns = try source.inferColumns()
            let n = try Self.load(source, columns, into: store, entity: entity, links: links)
            let seconds = Date().timeIntervalSince(start)
            // A rate says something only about a load that took a while.
            let rate = seconds >= 0.5 ? ", \(Int(Double(n) / seconds)) rows/s" : ""
            Output.error("imported \(n) rows into \(entity) (\(Self.shape(columns, links))) in \(String(format: "%.2f", seconds)) s\(rate)")
        } catch let error as StoreError {
            throw error.userFacing
        }
    }

    /// Imports into the store at `path`. A new store (no file there, or an empty one: `touch
    /// s.sqlite` first) is built aside and put in place complete (``NewStoreFile``), so that a
    /// failed import leaves the path as it was and never removes what another import put there.
    /// "19 attributes", or "18 attributes, 1 link".
    static func shape(_ columns: ImportColumns, _ links: [ImportLink]) -> String {
        let n = columns.names.count - links.count
        return "\(n) attribute\(n == 1 ? "" : "s")" + (links.isEmpty ? "" : ", \(links.count) link\(links.count == 1 ? "" : "s")")
    }

    private static func load(_ source: ImportSource, _ columns: ImportColumns, into path: String, entity: String, links: [ImportLink]) throws -> Int {
        var info = stat()
        let exists = stat(path, &info) == 0
        let wasEmpty = exists && info.st_mode & S_IFMT == S_IFREG && info.st_size == 0
        if !exists || wasEmpty {
            let temporary = try NewStoreFile.create(beside: path)
            let n: Int
            do { n = try importInto(temporary, source, columns, entity: entity, links: links, creating: true) } catch {
                NewStoreFile.remove(temporary)
                // The user knows the store by its own name.
                throw error.reworded(error.message.replacingOccurrences(of: temporary, with: path))
            }
            if try NewStoreFile.publish(temporary, at: path, replacingEmpty: wasEmpty) { return n }
            // Another import created the store first: this one goes into that store.
        }
        return try importInto(path, source, columns, entity: entity, links: links, creating: false)
    }

    /// Opens (or creates) the store and imports; the store is closed on return, so that a new
    /// store's file is complete (its write-ahead log folded in) for ``NewStoreFile/publish``.
    private static func importInto(_ path: String, _ source: ImportSource, _ columns: ImportColumns, entity: String, links: [ImportLink], creating: Bool) throws(StoreError) -> Int {
        let s = creating ? try PredicateStore(path: path, model: try StoreModel([])) : try PredicateStore(path: path)
        return try s.importFile(source, into: entity, columns: columns, links: links)
    }
}

/// `pql query`: run a fetch request on a store.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch the records of an entity that match a predicate, from an SQLite store, a PostgreSQL database or a data file.",
        discussion: """
        Prints the matching records as JSON Lines (dates as {"$date": "<ISO-8601>"}) or in another --format (table, box, csv, tsv, json, jsonl, markdown), or with --count their number, or with --sql the SQL and its bound parameters. STORE is a file (any SQLite database: PQL infers a model from its tables and foreign keys), :demo: for the nycflights13 demo (entities Airline, Airport, Plane, Flight), a PostgreSQL URL (postgres://user:password@host:port/database, or postgresql://: the fetch runs on the server, --sql shows PostgreSQL's SQL; pql demo URL loads the demo there), or a data file — JSON array, JSON Lines, CSV (zipped too) or property list — read into memory and queried there, as duckdb queries a CSV file. --entity may be left out when there is only one entity (always, in a data file).

        Examples:
          pql query :demo: --entity Flight --sort dep_delay:desc --limit 5 \\
            --where "airline.name BEGINSWITH 'United' AND dep_delay > 300"
          pql query :demo: --entity Airport --count \\
            --where "departures.@count > 100000"
          pql query :demo: --entity Plane --sql \\
            --where "ANY flights.dest == %@" --arg '"HNL"'
          pql query :demo: --entity Airline --format csv > airlines.csv
          pql query :demo: --entity Airline > airlines.jsonl
          pql query airlines.jsonl --where "name BEGINSWITH[c] 'united'"
          pql query postgres://me@localhost/flights --entity Airline --format table

        With --group-by, one JSON line per group instead: the group keys and each --select aggregate (count:, sum:, average:, min:, max: of a key path or expression, evaluated for each record of the group; name it with NAME=, else the expression is its name), kept by --having (over the keys and names), sorted by --sort on a key or a name. sum:, average:, min: and max: leave nil values out (as SQL's grouped aggregates do); a group with no value gives null.
          pql query :demo: --entity Flight --where "dep_delay != nil" \\
            --group-by airline.name --select avg='average:(dep_delay)' \\
            --select n='count:(dep_delay)' --having "n > 1000" --sort avg:desc
          pql query postgres://me@localhost/flights --entity Flight \\
            --group-by origin --select n='count:(origin)' --sort n:desc
        """
    )

    @Argument(help: ArgumentHelp("The SQLite store, :demo:, a PostgreSQL URL, or a .json, .jsonl, .ndjson, .csv, .csv.zip or .plist file.", valueName: "store"))
    var store: String

    @Option(help: "The entity to fetch (may be left out when there is only one).")
    var entity: String?

    @OptionGroup var selection: RecordSelection

    @Option(name: .customLong("sort"), help: ArgumentHelp("Sort by a key path; add :desc for descending, :ci for case-insensitive.", valueName: "key[:desc]"))
    var sortKeys: [String] = []

    @Option(help: "Return at most this many records.")
    var limit: Int?

    @Option(help: "Skip this many records first.")
    var offset: Int = 0

    @Option(help: ArgumentHelp("How to print the records (default: jsonl, JSON Lines).", valueName: "format"))
    var format: OutputFormat?

    @Flag(help: "Print the number of matching records only.")
    var count = false

    @Flag(help: "Print the SQL and its bindings instead of running it.")
    var sql = false

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Group the records by a key path (repeat for several keys); prints one row per group.", valueName: "keypath"))
    var groupBy: [String] = []

    @Option(name: .customLong("select"), parsing: .unconditionalSingleValue, help: ArgumentHelp("With --group-by: an aggregate per group, [NAME=]count:|sum:|average:|min:|max:(expression).", valueName: "aggregate"))
    var aggregates: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("With --group-by: keep the groups this predicate over the keys and aggregate names matches.", valueName: "predicate"))
    var having: String?

    func validate() throws {
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if groupBy.isEmpty && (!aggregates.isEmpty || having != nil) {
            throw ValidationError("--select and --having need --group-by, as in --group-by airline.name --select 'average:(dep_delay)'")
        }
        if format != nil && (count || sql) { throw ValidationError("--format applies to records, not to --count or --sql") }
        if !groupBy.isEmpty && count { throw ValidationError("--count does not apply to --group-by: each group has its count:(…) aggregate") }
        if !groupBy.isEmpty && aggregates.isEmpty {
            throw ValidationError("--group-by needs at least one --select aggregate, as in --select n='count:(id)'")
        }
    }

    /// `--group-by`: the grouping fetch, and the order of its columns, keys then aggregates.
    func groupQuery(_ query: EntityQuery) throws -> (GroupQuery, [String]) {
        var select: [GroupAggregate] = []
        for spec in aggregates {
            // NAME=expression, unless the `=` is the expression's own (`count:(x) == 1` is not an aggregate anyway).
            var name = spec, text = spec
            if let eq = spec.firstIndex(of: "="), spec[..<eq].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !spec[..<eq].isEmpty {
                name = String(spec[..<eq])
                text = String(spec[spec.index(after: eq)...])
            }
            do { select.append(GroupAggregate(name, try ExpressionNode(format: text))) } catch {
                throw UserFacingError(text: "error: in --select: " + error.rendered)
            }
        }
        var havingTree: PredicateNode = .constant(true)
        if let having {
            do { havingTree = try PredicateNode(format: having) } catch {
                throw UserFacingError(text: "error: in --having: " + error.rendered)
            }
        }
        let group = GroupQuery(query.entity, predicate: query.predicate, groupBy: groupBy, select: select, having: havingTree,
                               sort: query.sort, limit: limit, offset: offset, variables: query.variables, limits: query.limits)
        return (group, groupBy + select.map(\.name))
    }

    /// `--group-by` on a store, printed as JSON Lines, keys then aggregates.
    private func runGroup(_ query: EntityQuery, on s: PredicateStore) throws {
        let (group, order) = try groupQuery(query)
        do {
            if sql {
                let c = try s.sql(for: group)
                var out = c.sql + "\n"
                for (i, b) in c.bindings.enumerated() { out += "?\(i + 1) = \(b)\n" }
                // Names from a foreign file and bound strings may hold ESC or BEL: shown as symbols.
                Output.write(TerminalText.visible(out))
                return
            }
            let writer = RecordWriter((format ?? .jsonl).plainRenderer, columns: order)
            for row in try s.fetch(group) { writer.write(order.map { row[$0] ?? .null }) }
            writer.finish()
        } catch {
            throw error.userFacing
        }
    }

    func run() throws {
        if ServerStore.isURL(store) { return try run(onServer: store) }
        let file = try Self.memorySource(store)
        let s = file == nil ? try StoreLocation.open(store, readOnly: true) : nil
        let names = file.map { [$0.name] } ?? s!.entityNames
        if let entity, let reason = s?.skippedTables[entity] {
            throw UserFacingError(text: "error: the table '\(entity)' is left out of \(store)'s model: \(reason)\nhint: its other tables are entities: \(names.joined(separator: ", "))")
        }
        var query = try selection.query(try Self.entity(entity, among: names, in: store))
        query.sort = try sortKeys.map(FilterCommand.sortRule)
        query.limit = limit
        query.offset = offset
        guard let s else { return try run(onFile: file!, query) }
        if !groupBy.isEmpty { return try runGroup(query, on: s) }
        do {
            if sql {
                let c = count ? try s.countSQL(for: query) : try s.sql(for: query)
                var out = c.sql + "\n"
                for (i, b) in c.bindings.enumerated() { out += "?\(i + 1) = \(b)\n" }
                // Names from a foreign file and bound strings may hold ESC or BEL: shown as symbols.
                Output.write(TerminalText.visible(out))
                return
            }
            if count {
                Output.line(try s.count(query))
                return
            }
            // Columns from the first record (the model's attributes when none matches).
            var writer: RecordWriter?
            try s.forEach(query) { (r) throws(StoreError) in
                if writer == nil { writer = RecordWriter((format ?? .jsonl).plainRenderer, columns: r.keys) }
                writer?.write(r.keys.map { r.values[$0] ?? .null }, columns: r.keys)
            }
            (writer ?? RecordWriter((format ?? .jsonl).plainRenderer, columns: Self.attributeNames(s, query.entity))).finish()
        } catch {
            throw error.userFacing
        }
    }
}

import Foundation
import PQL
import PQLStore

/// The demo store: nycflights13's airlines, airports, planes and 336,776 flights of 2013 (CC0),
/// with each flight linked to its airline, plane, origin and destination airport, and those
/// linked back. Built from the data files shipped with PQL on first use (a few seconds) and
/// kept in the user's cache directory.
///
/// ```swift
/// let store = try DemoDatabase.open()
/// let n = try store.count(EntityQuery("Flight", where: "airline.name BEGINSWITH 'United' AND dep_delay > 60"))
/// ```
public enum DemoDatabase {
    /// Bumped whenever the demo's model or contents change, so old caches are rebuilt.
    static let version = 2

    /// The demo store, built into `path` (default: the cache directory) if it is not there yet;
    /// `readOnly` opens it as ``PredicateStore/init(path:readOnly:)`` does.
    public static func open(at path: String? = nil, readOnly: Bool = false) throws(StoreError) -> PredicateStore {
        let file = path ?? defaultPath
        if !FileManager.default.fileExists(atPath: file) {
            try build(at: file)
        }
        return try PredicateStore(path: file, readOnly: readOnly)
    }

    /// Where `open()` keeps the demo: `$XDG_CACHE_HOME/pql` or `~/.cache/pql`, falling back to the temporary directory.
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? env["HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent(".cache") }
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("pql").appendingPathComponent("demo-v\(version).sqlite").path
    }

    /// The demo's model: the four entities with their relationships.
    public static func model(airlines: ImportTable, airports: ImportTable, planes: ImportTable, flights: ImportTable) throws(StoreError) -> StoreModel {
        try model(airlines: airlines.importColumns, airports: airports.importColumns, planes: planes.importColumns, flights: flights.importColumns)
    }

    /// The demo's model from the files' columns.
    package static func model(airlines: ImportColumns, airports: ImportColumns, planes: ImportColumns, flights: ImportColumns) throws(StoreError) -> StoreModel {
        func attributes(_ t: ImportColumns, key: String?, indexed: Set<String> = []) -> [ModelAttribute] {
            t.names.enumerated().map { i, c in
                ModelAttribute(c, t.types[i], isOptional: c != key, isIndexed: indexed.contains(c), isUnique: c == key)
            }
        }
        return try StoreModel([
            ModelEntity("Airline", attributes: attributes(airlines, key: "carrier"),
                        relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "airline")]),
            ModelEntity("Airport", attributes: attributes(airports, key: "faa"),
                        relationships: [ModelRelationship("departures", toMany: "Flight", inverse: "originAirport"),
                                        ModelRelationship("arrivals", toMany: "Flight", inverse: "destAirport")]),
            ModelEntity("Plane", attributes: attributes(planes, key: "tailnum"),
                        relationships: [ModelRelationship("flights", toMany: "Flight", inverse: "plane")]),
            ModelEntity("Flight", attributes: attributes(flights, key: nil, indexed: ["month", "dep_delay", "arr_delay"]), relationships: [
                ModelRelationship("airline", to: "Airline", inverse: "flights", foreignKeyColumn: "carrier", referencedColumn: "carrier"),
                ModelRelationship("plane", to: "Plane", inverse: "flights", foreignKeyColumn: "tailnum", referencedColumn: "tailnum"),
                ModelRelationship("originAirport", to: "Airport", inverse: "departures", foreignKeyColumn: "origin", referencedColumn: "faa"),
                ModelRelationship("destAirport", to: "Airport", inverse: "arrivals", foreignKeyColumn: "dest", referencedColumn: "faa"),
            ]),
        ], templates: [
            FetchTemplate(name: "DelayedFrom", entity: "Flight", predicate: "origin == $airport AND dep_delay >= $minutes",
                          sort: [SortRule("dep_delay", ascending: false)]),
        ])
    }

    /// The flights' links the import checks, each code finding its object: every carrier is an
    /// airline and every origin an airport. The plane and destination links are declared by the
    /// model but not checked: nycflights13's planes.csv lacks 722 of the flights' tail numbers,
    /// and its airports.csv four destinations (BQN, PSE, SJU, STT), so those stay dangling.
    ///
    /// ```swift
    /// try await postgresStore.importFile(flights, into: "Flight", links: DemoDatabase.flightLinks)
    /// ```
    public static let flightLinks = [
        ImportLink("carrier", to: "Airline", by: "carrier", relationship: "airline", inverse: "flights"),
        ImportLink("origin", to: "Airport", by: "faa", relationship: "originAirport", inverse: "departures"),
    ]

    /// Builds the demo store at `path` (replacing what is there), atomically: it is written
    /// beside the target and moved into place when complete. The files are streamed (the
    /// flights unzipped as they are read), so the build never holds their rows.
    public static func build(at path: String) throws(StoreError) {
        let dir = DemoData.directory
        let sources = try ["airlines.csv", "airports.csv", "planes.csv", "flights.csv.zip"].map { (file) throws(StoreError) in
            try ImportSource(contentsOf: dir.appendingPathComponent(file))
        }
        let columns = try sources.map { (s) throws(StoreError) in try s.inferColumns() }
        let model = try model(airlines: columns[0], airports: columns[1], planes: columns[2], flights: columns[3])
        let target = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw StoreError(.fileAccess, "cannot create \(target.deletingLastPathComponent().path) for the demo: \(InputFile.reason(error))",
                             hint: "set XDG_CACHE_HOME to a directory PQL may write")
        }
        let partial = path + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        do {
            let store = try PredicateStore(path: partial, model: model)
            for (i, entity) in ["Airline", "Airport", "Plane", "Flight"].enumerated() {
                try store.importFile(sources[i], into: entity, columns: columns[i], links: entity == "Flight" ? flightLinks : [])
            }
            try store.checkpoint()
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        try? FileManager.default.removeItem(atPath: path)
        do { try FileManager.default.moveItem(atPath: partial, toPath: path) } catch {
            throw StoreError(.fileAccess, "cannot move the demo store into \(path): \(InputFile.reason(error))")
        }
    }
}

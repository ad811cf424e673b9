import ArgumentParser
import Foundation
import PQL
import PQLDemo
import PQLPostgres
import PQLStore

/// `pql demo URL`: the nycflights13 demo (what `:demo:` opens in SQLite) loaded into a
/// PostgreSQL database, to query there with `pql URL` or `pql query URL`.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Load the nycflights13 demo (airlines, airports, planes, 336,776 flights) into a PostgreSQL database.",
        discussion: """
        Creates the tables Airline, Airport, Plane and Flight in the database the URL names (postgres://user:password@host:port/database, or postgresql://; a unix-socket directory as the host, percent-encoded), with the demo's indexes, saves its model there (relationships included: airline.name, ANY flights.dest…) and loads the rows with COPY; installs PQL's SQL functions for [c], [d] and [cd] in the schema pql. Then pql URL opens the REPL on it, and pql query URL queries it, as :demo: does in SQLite.

        Run again on a database that holds the demo, it does nothing and says so. A database with other tables of those names is refused, and nothing is written.

        Examples:
          createdb flights
          pql demo postgres://me@localhost/flights
          pql postgres://me@localhost/flights
          pql query postgres://me@localhost/flights --entity Flight --count \\
            --where "airline.name BEGINSWITH 'United' AND dep_delay > 300"
        """
    )

    @Argument(help: ArgumentHelp("The PostgreSQL database: postgres://user:password@host:port/database.", valueName: "url"))
    var url: String

    func validate() throws {
        guard ServerStore.isURL(url) else {
            throw ValidationError("pql demo loads the demo into a PostgreSQL database: give its URL, postgres://user:password@host:port/database (the demo in SQLite needs no loading: pql :demo:)")
        }
    }

    /// The demo's tables, in the order they load.
    static let entities = ["Airline", "Airport", "Plane", "Flight"]

    func run() throws {
        ServerStore.cancelOnInterrupt()
        let start = Date()
        let dir = DemoData.directory
        let sources: [ImportSource], columns: [ImportColumns], model: StoreModel
        do {
            sources = try ["airlines.csv", "airports.csv", "planes.csv", "flights.csv.zip"].map { (file) throws(StoreError) in
                try ImportSource(contentsOf: dir.appendingPathComponent(file))
            }
            columns = try sources.map { (s) throws(StoreError) in try s.inferColumns() }
            model = try DemoDatabase.model(airlines: columns[0], airports: columns[1], planes: columns[2], flights: columns[3])
        } catch {
            throw error.userFacing
        }
        guard let existing = try Self.existingModel(url, demo: model, columns: columns) else { return }
        // The database's other entities stay in the model PQL saves there.
        let merged: StoreModel
        do { merged = try StoreModel(existing.entities + model.entities, templates: existing.templates + model.templates, names: .postgreSQL) } catch {
            throw error.userFacing
        }
        let s = try ServerStore.open(url, model: merged, writing: true)
        _ = try s.run { (store) async throws(StoreError) in try await store.createTables() }
        for (i, entity) in Self.entities.enumerated() {
            let (source, c) = (sources[i], columns[i])
            let n = try s.run { (store) async throws(StoreError) in try await store.importFile(source, into: entity, columns: c, links: entity == "Flight" ? DemoDatabase.flightLinks : []) }
            Output.error("\(entity): \(n.formatted()) rows")
        }
        Output.error("loaded the nycflights13 demo into \(s.shownURL) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; query it with: pql \(s.shownURLArgument)\(s.passwordNote)")
    }

    /// The database's model before the load, or nil when it holds the whole demo already (then
    /// it says so); throws when it has tables of the demo's names that are something else, or a
    /// load that did not finish.
    static func existingModel(_ url: String, demo model: StoreModel, columns: [ImportColumns]) throws -> StoreModel? {
        let s = try ServerStore.open(url, writing: true)
        let names = Set(s.model.entities.map(\.name))
        let present = entities.filter(names.contains)
        if present.isEmpty { return s.model }
        var counts: [Int] = []
        for entity in present { counts.append(try s.run { (store) async throws(StoreError) in try await store.count(entity) }) }
        let whole = present.count == entities.count && counts == columns.map(\.rowCount)
            && entities.allSatisfy { name in (try? s.model.entity(named: name)) == (try? model.entity(named: name)) }
        if whole {
            Output.error("\(s.shownURL) holds the nycflights13 demo already (\(counts[3].formatted()) flights); query it with: pql \(s.shownURLArgument)\(s.passwordNote)")
            return nil
        }
        let tables = present.map { "\"\($0)\"" }.joined(separator: ", ")
        throw UserFacingError(text: """
            error: \(s.shownURL) has tables named as the demo's (\(present.joined(separator: ", "))) that do not hold the whole demo; nothing was written
            hint: load the demo into an empty database (createdb flights, then pql demo postgres://…/flights), or drop them first: DROP TABLE \(tables) CASCADE
            """)
    }
}

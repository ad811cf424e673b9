import Foundation
import PostgresNIO
import PQL
import PQLPostgres
import PQLStore

// Runs against the server in PQL_POSTGRES_URL (scripts/postgres run sets it), in a schema of
// its own that it drops afterwards: a table with a column the public model leaves out.
guard let base = ProcessInfo.processInfo.environment["PQL_POSTGRES_URL"] else {
    fatalError("set PQL_POSTGRES_URL (scripts/postgres run -- …)")
}
let schema = "pql_example_\(UInt32.random(in: 0...UInt32.max))"
let fullModel = try StoreModel([
    ModelEntity("Flight", attributes: [
        ModelAttribute("origin", .string), ModelAttribute("dest", .string), ModelAttribute("carrier", .string),
        ModelAttribute("dep_delay", .integer64), ModelAttribute("distance", .integer64),
        ModelAttribute("pilot_salary", .integer64)]),
])
let setup = try await PostgresPredicateStore(url: base, model: fullModel, schema: schema)
try await setup.createTables()
for (origin, dest, carrier, delay, distance) in [("JFK", "LAX", "AA", 95, 2475), ("JFK", "SFO", "UA", 12, 2586),
                                                 ("EWR", "ORD", "UA", 160, 719), ("LGA", "ATL", "DL", -4, 762)] {
    _ = try await setup.insert("Flight", ["origin": .string(origin), "dest": .string(dest), "carrier": .string(carrier),
                                          "dep_delay": .int(Int64(delay)), "distance": .int(Int64(distance)),
                                          "pilot_salary": 250_000])
}
let url = base + (base.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D2s"
func finish(_ store: PostgresPredicateStore) async throws {
    await store.close()
    try await setup.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
    await setup.close()
}
// --- shown from here ---
/// What a filter may see: only these attributes exist for it, so `pilot_salary` (in the table,
/// not here) is an unknown key, not a column it can read.
let publicModel = try StoreModel([
    ModelEntity("Flight", attributes: [
        ModelAttribute("origin", .string), ModelAttribute("dest", .string), ModelAttribute("carrier", .string),
        ModelAttribute("dep_delay", .integer64), ModelAttribute("distance", .integer64)]),
])
// `options=-c statement_timeout=2s` in the URL caps every statement the server runs for us.
let store = try await PostgresPredicateStore(url: url, model: publicModel, schema: schema)

struct Flight: Codable { var origin, dest, carrier: String; var dep_delay, distance: Int }

/// `GET /flights?filter=…&limit=…`. A Hummingbird 2 route calls it as
/// `router.get("flights") { request, _ in await search(request.uri.queryParameters["filter"].map(String.init), …) }`,
/// a Vapor 4 route as `app.get("flights") { req in await search(req.query["filter"], req.query["limit"]) }`.
func search(_ filter: String?, _ limit: String?) async -> (status: Int, body: String) {
    let filter = filter ?? "TRUEPREDICATE"
    guard filter.utf8.count <= 2_000 else { return (413, "the filter is longer than 2,000 bytes") }
    let count = min(max(Int(limit ?? "") ?? 20, 0), 100)
    do {
        // The user's text is the whole format: a %@ or %K in it is a syntax error, never an
        // argument, and every value in it reaches PostgreSQL as a bound parameter.
        let query = try EntityQuery("Flight", where: filter, sort: [SortRule("dep_delay", ascending: false)], limit: count)
        let flights = try await store.fetch(query).map { try $0.decode(Flight.self) }
        let json = JSONEncoder()
        json.outputFormatting = .sortedKeys
        return (200, String(decoding: try json.encode(flights), as: UTF8.self))
    } catch let error as StoreError {
        // 400 for the filter's own mistakes (message, caret under the culprit, hint), 503 past
        // statement_timeout, 500 for the service's own faults: StoreError.httpStatus.
        return (error.httpStatus, error.httpStatus == 400 ? error.rendered : error.message)
    } catch {
        return (500, "\(error)")
    }
}

for (filter, limit) in [("origin == 'JFK' AND dep_delay > 60", "10"), ("carrier IN {'UA', 'DL'}", "500"),
                        ("pilot_salary > 0", nil), ("dest == 'X'; DROP TABLE Flight; --'", nil),
                        ("origin == %@", nil), ("dep_delay >", nil)] {
    let (status, body) = await search(filter, limit)
    print(status, body.prefix { $0 != "\n" })   // the first line
}
// 200 [{"carrier":"AA","dep_delay":95,"dest":"LAX","distance":2475,"origin":"JFK"}]
// 200 [{"carrier":"UA","dep_delay":160,…},{"carrier":"UA","dep_delay":12,…},{"carrier":"DL",…}]
// 400 error: keypath 'pilot_salary' not found in entity Flight
// 400 error: unexpected character ';'
// 400 error: %@ has no argument: the format string needs more than the 0 given
// 400 error: expected an expression, found end of input
try await finish(store)

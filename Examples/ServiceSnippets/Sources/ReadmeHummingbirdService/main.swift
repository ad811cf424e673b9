import Foundation
import Hummingbird
import Logging
import PostgresNIO
import PQLPostgres
import ServiceLifecycle

// Run by scripts/snippets --run: against the server in PQL_POSTGRES_URL, in a schema of its own
// that it drops when the service stops (SIGTERM), on the port in PORT.
guard let url = ProcessInfo.processInfo.environment["PQL_POSTGRES_URL"],
      let port = ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) else {
    fatalError("set PQL_POSTGRES_URL and PORT (scripts/postgres run -- scripts/snippets --run)")
}
let schema = "pql_service_\(UInt32.random(in: 0...UInt32.max))"
let setup = try await PostgresPredicateStore(url: url, model: try StoreModel([
    ModelEntity("Flight", attributes: [
        ModelAttribute("origin", .string), ModelAttribute("dest", .string), ModelAttribute("carrier", .string),
        ModelAttribute("dep_delay", .integer64), ModelAttribute("pilot_salary", .integer64)]),
]), schema: schema)
try await setup.createTables()
_ = try await setup.insertRows("Flight", columns: ["origin", "dest", "carrier", "dep_delay", "pilot_salary"], rows: [
    ["JFK", "LAX", "AA", 95, 250_000], ["JFK", "SFO", "UA", 12, 250_000], ["EWR", "ORD", "UA", 160, 250_000],
])
/// Drops the example's schema after the service stopped.
func finish() async throws {
    try await setup.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \"\(schema)\" CASCADE"))
    await setup.close()
}
// --- shown from here ---
/// What a filter may see: `pilot_salary`, in the table but not here, is an unknown key.
let publicModel = try StoreModel([
    ModelEntity("Flight", attributes: [ModelAttribute("origin", .string), ModelAttribute("dest", .string),
                                       ModelAttribute("carrier", .string), ModelAttribute("dep_delay", .integer64)]),
])
var configuration = try PostgresConnectionURL(url).configuration()
configuration.options.additionalStartupParameters.append(("statement_timeout", "2s"))
let client = PostgresClient(configuration: configuration)
// No I/O: the store can be made before the service group runs the client.
let store = try PostgresPredicateStore(client: client, model: publicModel, schema: schema)

struct Flight: Codable { var origin, dest, carrier: String; var dep_delay: Int }

extension Response {
    /// A response with `text` as its body.
    static func reply(_ status: Int, _ text: String, json: Bool = false) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: json ? "application/json" : "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

let router = Router()
// GET /flights?filter=dep_delay > 60&limit=10
router.get("flights") { request, _ -> Response in
    let filter = request.uri.queryParameters["filter"].map(String.init) ?? "TRUEPREDICATE"
    guard filter.utf8.count <= 2_000 else { return .reply(413, "the filter is longer than 2,000 bytes") }
    let limit = min(max(request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 20, 0), 100)
    do {
        // The user's text is the whole format string; its values reach PostgreSQL as bound parameters.
        let query = try EntityQuery("Flight", where: filter, sort: [SortRule("dep_delay", ascending: false)], limit: limit)
        let flights = try await store.fetch(query).map { try $0.decode(Flight.self) }
        let json = JSONEncoder()
        json.outputFormatting = .sortedKeys
        return .reply(200, String(decoding: try json.encode(flights), as: UTF8.self), json: true)
    } catch let error as StoreError {
        // 400 for the filter's mistakes (message, caret, hint), 503 past statement_timeout.
        return .reply(error.httpStatus, error.httpStatus == 400 ? error.rendered : error.message)
    }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
let group = ServiceGroup(configuration: .init(services: [client, app], gracefulShutdownSignals: [.sigterm, .sigint],
                                              logger: Logger(label: "flights")))
try await group.run()   // until SIGTERM or SIGINT: the app stops, then the client
try await finish()

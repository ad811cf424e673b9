import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore
import Testing

/// Every input the SQL fuzzer found (`Fuzz/Regressions/sql`): it compiles and runs or fails
/// with a `StoreError`, and where the in-memory objects can answer it the rows are memory's.
@Suite("Fuzz regressions: SQL")
struct FuzzRegressionStoreTests {
    static func inputs() -> [String] { FuzzRegressionInputs.paths("sql") }

    static func fixture() throws -> PeopleModel.Fixture {
        try PeopleModel.make(
            people: [["name": "José", "age": 40, "score": 55.5], ["name": "Jose\u{301}", "age": 17, "score": 0.0],
                     ["name": "Zoë", "age": .null, "score": -2.5], ["name": .null, "score": .null]],
            companies: [PeopleModel.company("Acme", founded: 100, size: 10)],
            employer: [0, 0, nil, nil],
            tags: [[["name": "vip", "weight": 3]], [], [["name": "new"]], []])
    }

    @Test func thereAreRegressionInputs() { #expect(Self.inputs().count >= 3) }

    @Test(arguments: FuzzRegressionStoreTests.inputs())
    func sqlInput(_ path: String) throws {
        let f = try Self.fixture()
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        guard let tree = try? PredicateNode(format: text) else { return }
        let query = EntityQuery("Person", predicate: tree)
        let got: [Int64]
        do {
            got = try f.store.fetchIDs(query).sorted()
            let n = try f.store.count(query)
            if !tree.description.contains("random") { #expect(n == got.count) }
        } catch {
            #expect(!error.message.isEmpty)
            return
        }
        let printed = tree.description
        guard !printed.contains("random"), !printed.contains("SELF"), !printed.contains("employees"),
              !printed.contains("person") else { return }
        let want = try f.people.indices.filter { try tree.evaluate(on: f.people[$0]) }.map { f.ids[$0] }
        #expect(got == want, "\(printed)")
    }

    /// SQLite keeps a REAL -0.0 as 0.0 (it stores integral reals as integers), so the store
    /// cannot hold negative zero: `1 / score` is +inf on what it reads back, as in memory on 0.0.
    @Test func negativeZeroIsStoredAsZero() throws {
        let f = try PeopleModel.make(people: [["name": "z", "score": -0.0]], companies: [], employer: [nil], tags: [[]])
        let record = try #require(try f.store.fetch(EntityQuery("Person", where: "name == 'z'")).first)
        guard case .double(let d) = record.values["score"] ?? .null else { Issue.record("score is not a double"); return }
        #expect(d == 0 && d.sign == .plus)
        #expect(try f.store.count(EntityQuery("Person", where: "1 / score > 0")) == 1)
    }
}

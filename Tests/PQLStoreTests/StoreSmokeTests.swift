import Foundation
import PQL
@testable import PQLStore
import Testing

@Suite struct StoreSmokeTests {
    @Test func insertFetchAndCompare() throws {
        let f = try PeopleModel.make(
            people: [["name": "José", "age": 40, "city": "Paris", "email": "jose@x.org", "score": 55.5],
                     ["name": "ángel", "age": 17, "city": "Lima"],
                     ["name": "Zoë", "age": .null, "city": "Paris", "active": true]],
            companies: [PeopleModel.company("Acme", founded: 100, size: 10)],
            employer: [0, nil, 0],
            tags: [[["name": "vip", "weight": 3]], [], [["name": "new"], ["name": "vip", "weight": 1]]])
        for format in ["age > 30", "age != 40", "name BEGINSWITH 'J'", "name CONTAINS[cd] 'ANG'", "ANY tags.name == 'vip'",
                       "tags.@count == 0", "employer.name == 'Acme'", "employer == nil", "NOT (age > 30)", "ALL tags.weight > 0",
                       "SUBQUERY(tags, $t, $t.name == 'vip').@count > 0", "city IN {'Paris', 'Rome'}", "age BETWEEN {18, 65}"] {
            let q = try EntityQuery("Person", where: format)
            let got = try f.store.fetch(q).map(\.id)
            let node = try PredicateNode(format: format)
            let want = try f.people.indices.filter { try node.evaluate(on: f.people[$0]) }.map { f.ids[$0] }
            let sql = try f.store.sql(for: q)
            #expect(got == want, "\(format): \(sql)")
        }
    }
}

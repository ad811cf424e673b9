import Foundation
import PQL
import PQLTestSupport
@testable import PQLStore

/// A small model with every kind of key path the compiler handles: attributes of each type,
/// a to-one (employer) with its to-many inverse (employees), and a to-many (tags).
enum PeopleModel {
    static var model: StoreModel { PeopleSchema.model }

    /// A store and, for each person, the same object as the evaluator sees it: attributes,
    /// `employer` as a nested dictionary and `tags` as an array of dictionaries.
    struct Fixture {
        let store: PredicateStore
        let people: [PredicateValue]
        let ids: [Int64]
    }

    static func company(_ name: String, founded: Double?, size: Int64?) -> [String: PredicateValue] {
        ["name": .string(name), "founded": founded.map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null,
         "size": size.map { .int($0) } ?? .null]
    }

    static func make(people: [[String: PredicateValue]], companies: [[String: PredicateValue]],
                     employer: [Int?], tags: [[[String: PredicateValue]]]) throws -> Fixture {
        let store = try PredicateStore.inMemory(model)
        let companyIDs = try store.insert("Company", companies)
        var ids: [Int64] = []
        var objects: [PredicateValue] = []
        for (i, p) in people.enumerated() {
            var row = p
            row["employer"] = employer[i].map { .int(companyIDs[$0]) } ?? .null
            let id = try store.insert("Person", row)
            ids.append(id)
            var object = p
            for a in model.entities[1].attributes where object[a.name] == nil { object[a.name] = .null }
            if let c = employer[i] {
                var company = companies[c]
                for a in model.entities[0].attributes where company[a.name] == nil { company[a.name] = .null }
                object["employer"] = .dictionary(company)
            } else {
                object["employer"] = .null
            }
            var tagObjects: [PredicateValue] = []
            for t in tags[i] {
                var tag = t
                tag["person"] = .int(id)
                try store.insert("Tag", tag)
                var o = t
                for a in model.entities[2].attributes where o[a.name] == nil { o[a.name] = .null }
                tagObjects.append(.dictionary(o))
            }
            object["tags"] = .array(tagObjects)
            objects.append(.dictionary(object))
        }
        return Fixture(store: store, people: objects, ids: ids)
    }
}

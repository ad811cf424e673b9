import PQL
import PQLStore

/// The model of the store tests' people (`PeopleModel` in PQLStoreTests, the differential data
/// sets): every kind of key path the compiler handles, for the SQLite and PostgreSQL suites alike.
package enum PeopleSchema {
    package static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Company", attributes: [
                    ModelAttribute("name", .string, isOptional: false, isIndexed: true),
                    ModelAttribute("founded", .date),
                    ModelAttribute("size", .integer32),
                ], relationships: [ModelRelationship("employees", toMany: "Person", inverse: "employer", deleteRule: .nullify)]),
                ModelEntity("Person", attributes: [
                    ModelAttribute("name", .string, isIndexed: true),
                    ModelAttribute("age", .integer64, isIndexed: true),
                    ModelAttribute("score", .double),
                    ModelAttribute("city", .string, isIndexed: true),
                    ModelAttribute("email", .string),
                    ModelAttribute("active", .boolean),
                    ModelAttribute("born", .date),
                    ModelAttribute("balance", .decimal),
                    ModelAttribute("photo", .binary),
                ], relationships: [
                    ModelRelationship("employer", to: "Company", inverse: "employees"),
                    ModelRelationship("tags", toMany: "Tag", inverse: "person", deleteRule: .cascade),
                ]),
                ModelEntity("Tag", attributes: [ModelAttribute("name", .string, isIndexed: true), ModelAttribute("weight", .integer64)],
                            relationships: [ModelRelationship("person", to: "Person", inverse: "tags")]),
            ], templates: [FetchTemplate(name: "OlderThan", entity: "Person", predicate: "age > $minimum", sort: [SortRule("age")])])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()
}

import Foundation
import PQL
import PQLStore

// Version 1 of the app's store, as an earlier release left it.
let v1 = try StoreModel([
    ModelEntity("Company", attributes: [ModelAttribute("name", .string)]),
    ModelEntity("Person", attributes: [
        ModelAttribute("name", .string, isOptional: false),
        ModelAttribute("nick", .string),
        ModelAttribute("age", .string),
    ]),
])
do {
    let old = try PredicateStore(path: "app.sqlite", model: v1)
    try old.insert("Person", ["name": "Bo", "nick": "bobo", "age": "31"])
}
// --- shown from here ---
struct Person: Codable, Equatable {
    var name: String
    var nickname: String?
    var age: Int
    var employer: Int64?          // a to-one: the key of the linked Company
}

// Version 1 had Person(name, nick: String?, age: String?) and Company(name).
let v2 = try StoreModel([
    ModelEntity("Company", attributes: [ModelAttribute("name", .string)],
                relationships: [ModelRelationship("staff", toMany: "Person", inverse: "employer")]),
    ModelEntity("Person", attributes: [
        ModelAttribute("name", .string, isOptional: false),
        ModelAttribute("nickname", .string, renamingIdentifier: "nick"),                  // renamed: values kept
        ModelAttribute("age", .integer64, isOptional: false, defaultValue: .int(0)),     // was a string
    ], relationships: [ModelRelationship("employer", to: "Company", inverse: "staff")]), // added
])
let store = try PredicateStore(path: "app.sqlite", model: v2) { (migration) throws(StoreError) in
    // Only the type change needs this step; it runs before the rebuilt table takes the new type.
    try migration.execute("UPDATE Person SET age = CAST(age AS INTEGER) WHERE age IS NOT NULL")
}
print(store.modelVersion)                                  // 2
let acme = try store.insert("Company", ["name": "Acme"])
try store.insert("Person", encoding: Person(name: "Ann", nickname: nil, age: 40, employer: acme))
let people = try store.fetch(EntityQuery("Person", where: "employer.name == 'Acme'"), as: Person.self)
print(people.map(\.name))                                 // ["Ann"]

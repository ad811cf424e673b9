import PQL

struct Person: PredicateReadable {
    var name: String
    var age: Int
    var tags: [String]

    // The keys a predicate may read; a predicate naming another key fails when compiled.
    static let predicateKeys: PredicateKeys<Person> = [
        "name": .string(\.name),   // a key path: ==, != and IN read the string where it lies
        "age": .int { $0.age },
        "tags": .strings(\.tags),   // a key path: ANY tags == … searches the array where it lies
    ]
}

let people = [
    Person(name: "Ann", age: 40, tags: ["vip"]),
    Person(name: "bob", age: 17, tags: []),
    Person(name: "Åsa", age: 25, tags: ["new", "vip"]),
]

// Filter with a predicate parsed from text.
let adults = try people.filter(PredicateNode(format: "age >= 18"))          // Ann, Åsa

// Compile once and reuse; a CompiledPredicate is Sendable.
let vip = try PredicateNode(format: "ANY tags == 'vip'").compiled(for: Person.self)
let vips = try people.filter(vip)                                            // Ann, Åsa

// $variables get their values when evaluating.
let older = try PredicateNode(format: "age > $MIN")
let overThirty = try people.filter(older, variables: ["MIN": 30])            // Ann

// Sort and page with a PredicateQuery.
let query = PredicateQuery(try PredicateNode(format: "name LIKE[cd] 'a*'"),
                           sort: [SortRule("name", comparison: .caseInsensitive)], limit: 10)
let page = try query.run(on: people)                                         // Ann, Åsa
print(adults.map(\.name), vips.map(\.name), overThirty.map(\.name), page.map(\.name))

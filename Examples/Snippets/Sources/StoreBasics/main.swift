import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Author", attributes: [ModelAttribute("name", .string, isOptional: false)],
                relationships: [ModelRelationship("books", toMany: "Book", inverse: "author", deleteRule: .cascade)]),
    ModelEntity("Book", attributes: [ModelAttribute("title", .string), ModelAttribute("year", .integer64, isIndexed: true)],
                relationships: [ModelRelationship("author", to: "Author", inverse: "books")]),
])
let store = try PredicateStore(path: "library.sqlite", model: model)   // or ":memory:"

let leGuin = try store.insert("Author", ["name": "Ursula K. Le Guin"])
try store.insert("Book", [["title": "A Wizard of Earthsea", "year": 1968, "author": .int(leGuin)],
                          ["title": "The Dispossessed", "year": 1974, "author": .int(leGuin)]])

// The same language as in memory, run as SQL with bound parameters.
let query = try EntityQuery("Book", where: "author.name BEGINSWITH[c] %@ AND year > $after", ["ursula"],
                            sort: [SortRule("year")], variables: ["after": 1970])
for book in try store.fetch(query) {
    print(book["title"])                                                // "The Dispossessed"
}
let authors = try store.count(EntityQuery("Author", where: "books.@count >= 2"))   // 1
print(authors, try store.sql(for: query))

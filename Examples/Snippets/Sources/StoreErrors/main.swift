import PQL
import PQLStore

let model = try StoreModel([
    ModelEntity("Book", attributes: [ModelAttribute("title", .string), ModelAttribute("year", .integer64)]),
])
let store = try PredicateStore(path: ":memory:", model: model)

// A key the model lacks is a StoreError when the fetch compiles, with a suggestion.
do {
    _ = try store.fetch(EntityQuery("Book", where: "titel BEGINSWITH 'A'"))
} catch {
    print(error.kind)               // unknownKey
    print(error.message)            // names the key and the entity
    print(error.hint ?? "")         // did you mean 'title'?
}

import PQL

// Parse, with arguments bound like NSPredicate(format:).
let p = try PredicateNode(format: "%K BEGINSWITH[cd] %@ AND age >= %@", "name", "a", 18)
print(p)                                   // name BEGINSWITH[cd] "a" AND age >= 18

// Evaluate on JSON, dictionaries, Swift values.
let people = try JSONReader.value(from: #"[{"name": "Ángel", "age": 30}, {"name": "Bo", "age": 12}]"#)
let adults = try people.collectionElements!.filter(p)   // [{"name": "Ángel", "age": 30}]

// Typed values: declare the keys once; unknown keys are errors when compiling.
struct Person: PredicateReadable {
    var name: String; var age: Int; var tags: [String]
    static let predicateKeys: PredicateKeys<Person> = [
        "name": .string(\.name), "age": .int { $0.age }, "tags": .strings(\.tags),
    ]
}
let vip = try PredicateNode(format: "ANY tags == 'vip'").compiled(for: Person.self)  // reusable, Sendable
let page = try PredicateQuery(p, sort: [SortRule("name", comparison: .caseInsensitive)], offset: 0, limit: 20)
    .run(on: [Person(name: "Ann", age: 40, tags: ["vip"])])

// Errors carry a position, a caret rendering and a hint.
do { _ = try PredicateNode(format: "name NOT IN {'a'}") } catch { print(error.rendered) }
// error: NOT cannot negate an operator; negate the whole comparison
//  --> line 1, column 6
//   |
// 1 | name NOT IN {'a'}
//   |      ^~~~~~
//   = hint: write NOT (name IN {'a'})

// Parsed with its source map, a predicate's evaluation errors point at the sub-expression
// that failed, when compiling (an unknown key of a typed value) and when running.
let (tree, map) = try PredicateNode.parse(format: "age >= 18 AND name + 1 > 2")
let compiled = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
do { _ = try compiled.evaluate(["age": 30, "name": "Bo"]) }
catch { print(error.rendered) }   // error is a PredicateEvaluationError (typed throws)
// error: arithmetic needs numbers, not a string
//  --> line 1, column 15
//   |
// 1 | age >= 18 AND name + 1 > 2
//   |               ^~~~~~~~
//   = in name + 1 > 2
//   = hint: use CAST to convert strings to numbers

import Foundation
import FuzzSupport
import PQL
import PQLStore

/// The fixed model: every kind of key path the compiler handles (attributes of each type, a
/// to-one with its to-many inverse, a to-many).
let model: StoreModel = {
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
                ModelAttribute("city", .string),
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
        ])
    } catch {
        fatalError("the fuzz model is invalid: \(error)")
    }
}()

/// The store and, for each person, the object the evaluator sees (employer as a nested
/// dictionary, tags as an array of dictionaries), so that every compiled predicate can be
/// checked against memory (decision D3).
struct World {
    let store: PredicateStore
    let people: [PredicateValue]
    let ids: [Int64]

    static func date(_ seconds: Double) -> PredicateValue { .date(Date(timeIntervalSinceReferenceDate: seconds)) }

    init() throws {
        store = try PredicateStore.inMemory(model)
        let companies: [[String: PredicateValue]] = [
            ["name": "Acme", "founded": Self.date(100), "size": 10],
            ["name": "straße ＡＢ", "founded": .null, "size": .null],
        ]
        let companyIDs = try store.insert("Company", companies)
        let people: [([String: PredicateValue], Int?, [[String: PredicateValue]])] = [
            (["name": "José", "age": 40, "score": 55.5, "city": "Paris", "active": true, "born": Self.date(-1e6),
              "balance": .decimal(Decimal(string: "12.50")!), "photo": .data(Data([0, 1, 2]))], 0,
             [["name": "vip", "weight": 3], ["name": "new", "weight": .null]]),
            (["name": "Jose\u{301}", "age": 17, "score": 0.0, "city": "lima", "active": false], 1, []),
            (["name": "Zoë İı \u{212A}", "age": .null, "score": 1e300, "city": .null], nil, [["name": "VIP", "weight": -1]]),
            (["name": "a\u{0}%_\\", "age": .int(Int64.max), "score": -2.5, "city": "", "born": Self.date(0)], 0, [["name": .null, "weight": 0]]),
            (["name": .null, "age": .int(Int64.min), "score": .null, "city": "Ｐaris 🎉"], 1, [["name": "ǆ", "weight": 7], ["name": "ς", "weight": 7]]),
        ]
        var ids: [Int64] = []
        var objects: [PredicateValue] = []
        for (attributes, employer, tags) in people {
            var row = attributes
            row["employer"] = employer.map { .int(companyIDs[$0]) } ?? .null
            let id = try store.insert("Person", row)
            ids.append(id)
            var object = attributes
            for a in model.entities[1].attributes where object[a.name] == nil { object[a.name] = .null }
            if let c = employer {
                var company = companies[c]
                for a in model.entities[0].attributes where company[a.name] == nil { company[a.name] = .null }
                object["employer"] = .dictionary(company)
            } else {
                object["employer"] = .null
            }
            var tagObjects: [PredicateValue] = []
            for t in tags {
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
        self.people = objects
        self.ids = ids
    }
}

let world: World = {
    do { return try World() } catch { fatalError("the fuzz store cannot be built: \(error)") }
}()

/// SQL fuzz target: the input is a predicate format string on `Person`. Every tree the parser
/// accepts is compiled to SQL against the fixed model and run on a small store; when both the
/// store and the evaluator give an answer, the rows must be the same (decision D3). Errors must
/// be typed `StoreError`s with a message; never a crash, a hang, a leak or an SQLite misuse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    guard let tree = try? PredicateNode(format: text) else { return 0 }
    let query = EntityQuery("Person", predicate: tree, limits: fuzzLimits)
    let got: [Int64]
    do {
        _ = try world.store.sql(for: query)
        got = try world.store.fetchIDs(query).sorted()
        let n = try world.store.count(query)
        if n != got.count, !isNondeterministic(tree) { fuzzFailure("count \(n) but fetch returned \(got.count) rows", input: text) }
    } catch {
        if error.message.isEmpty { fuzzFailure("a store error without a message", input: text) }
        return 0
    }
    guard isComparable(tree) else { return 0 }
    var want: [Int64] = []
    do {
        let compiled = try tree.compiled(for: PredicateValue.self)
        for (i, person) in world.people.enumerated() where try compiled.evaluate(person, limits: fuzzLimits) { want.append(world.ids[i]) }
    } catch {
        return 0
    }
    if got != want {
        let sql = (try? world.store.sql(for: query).description) ?? "(no SQL)"
        fuzzFailure("the store returned rows \(got), memory \(want)\n  predicate: \(tree)\n  sql: \(sql)", input: text)
    }
    return 0
}

/// Whether the in-memory objects can answer the predicate as the store does. They cannot when
/// it draws random numbers, compares the object itself (`SELF` is the row's identity in the
/// store, a dictionary in memory), or follows an inverse relationship (`employer.employees`,
/// `tags.person`), which the dictionaries do not hold; nor when it compares a related object
/// itself (`employer == 5`, `tags CONTAINS 5`, `SUBQUERY(tags, $t, $t == 5)`): in the store an
/// object is its key, and the dictionaries here carry none.
func isComparable(_ tree: PredicateNode) -> Bool {
    if isNondeterministic(tree) { return false }
    let text = tree.description
    if text.contains("SELF") || text.contains("employees") || text.contains("person") { return false }
    let range = NSRange(text.startIndex..., in: text)
    return relatedObject.firstMatch(in: text, range: range) == nil
}

/// A relationship (or a SUBQUERY's variable) not followed by a key: the object itself. A
/// SUBQUERY's collection (`SUBQUERY(tags, …`) and its variable's declaration (`$t,`) are not.
let relatedObject = try! NSRegularExpression(
    pattern: #"(?<!SUBQUERY\()\b(employer|tags)\b(?!\s*\.)|\$\w+\b(?!\s*[.,])"#)

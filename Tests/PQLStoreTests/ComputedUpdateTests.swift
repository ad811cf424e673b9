import Foundation
@testable import PQL
@testable import PQLStore
import PQLTestSupport
import Testing

/// `batchUpdate(_:computing:)`: values computed per object by expressions of the predicate
/// language, with the evaluator's meaning and the attribute checks of every write.
@Suite("batch update with expressions")
struct ComputedUpdateTests {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Item", attributes: [
                    ModelAttribute("code", .string, isOptional: false),
                    ModelAttribute("price", .double),
                    ModelAttribute("stock", .integer64),
                    ModelAttribute("small", .integer16),
                    ModelAttribute("note", .string),
                    ModelAttribute("total", .integer64, isOptional: false, defaultValue: 0),
                ]),
            ])
        } catch {
            fatalError("the test model is invalid: \(error)")
        }
    }()

    static func expression(_ format: String) throws -> ExpressionNode { try ExpressionNode(format: format) }

    static func makeStore() throws -> PredicateStore {
        let store = try PredicateStore.inMemory(model)
        try store.insert("Item", [
            ["code": "ab", "price": 10.0, "stock": 3, "small": 1],
            ["code": "cd", "price": 2.5, "stock": 0, "small": 30000],
            ["code": "ef", "price": nil, "stock": nil],
        ])
        return store
    }

    static func values(_ store: PredicateStore, _ key: String) throws -> [PredicateValue] {
        try store.fetch(EntityQuery("Item", sort: [SortRule("code")])).map { $0.values[key] ?? .null }
    }

    @Test func computesFromEachObject() throws {
        let store = try Self.makeStore()
        let n = try store.batchUpdate(EntityQuery("Item", where: "stock > 0"),
                                      computing: ["stock": try Self.expression("stock - 1"), "price": try Self.expression("price * 2"),
                                                  "code": try Self.expression("uppercase:(code)")])
        #expect(n == 1)
        #expect(try Self.values(store, "code") == ["AB", "cd", "ef"])
        #expect(try Self.values(store, "stock") == [2, 0, nil])
        #expect(try Self.values(store, "price") == [20.0, 2.5, nil])
        // Every expression reads the object as it was: swapping two attributes works.
        try store.batchUpdate(EntityQuery("Item", where: "code == 'cd'"),
                              computing: ["note": try Self.expression("code"), "code": try Self.expression("lowercase:('XY')")])
        #expect(try Self.values(store, "note") == [nil, nil, "cd"])
        // Constants and variables are expressions too.
        var q = try EntityQuery("Item", where: "code == 'ef'")
        q.variables = ["P": 7.5]
        #expect(try store.batchUpdate(q, computing: ["price": .variable("P"), "stock": .constant(4)]) == 1)
        #expect(try store.count(EntityQuery("Item", where: "code == 'ef' AND price == 7.5 AND stock == 4")) == 1)
        #expect(try store.batchUpdate(EntityQuery("Item", where: "code == 'none'"), computing: ["stock": try Self.expression("stock + 1")]) == 0)
    }

    /// The store's coercion rule: a double with no fraction fits an integer attribute, 3.5
    /// does not, and the error names the attribute; nothing changes.
    @Test func resultsAreCheckedAgainstTheAttribute() throws {
        let store = try Self.makeStore()
        try store.batchUpdate(EntityQuery("Item", where: "code == 'ab'"), computing: ["stock": try Self.expression("stock * 2.0")])
        #expect(try Self.values(store, "stock") == [6, 0, nil])
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["stock": try Self.expression("price + 0.5")]) } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.kind == .invalidValue && e.message.contains("Item.stock is an integer64 attribute") && e.message.contains("price + 0.5")
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["small": try Self.expression("small * 2")]) } throws: { error in
            (error as? StoreError)?.message.contains("out of its range") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["total": try Self.expression("stock")]) } throws: { error in
            (error as? StoreError)?.message.contains("Item.total is not optional") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["note": try Self.expression("stock")]) } throws: { error in
            (error as? StoreError)?.message.contains("Item.note is a string attribute") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["price": try Self.expression("price / 0.0 - price / 0.0")]) } throws: { error in
            (error as? StoreError)?.message.contains("NaN") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["stok": try Self.expression("1")]) } throws: { error in
            (error as? StoreError)?.kind == .unknownKey && (error as? StoreError)?.hint?.contains("stock") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: ["stock": try Self.expression("nosuch + 1")]) } throws: { error in
            (error as? StoreError)?.kind == .unknownKey
        }
        #expect { try store.batchUpdate(EntityQuery("Item"), computing: [:]) } throws: { error in error is StoreError }
        #expect(try Self.values(store, "stock") == [6, 0, nil])
        #expect(try Self.values(store, "note") == [nil, nil, nil])
    }

    @Test func integerOverflowIsAnErrorAsInMemory() throws {
        let store = try Self.makeStore()
        #expect(throws: StoreError.self) {
            try store.batchUpdate(EntityQuery("Item", where: "stock > 0"), computing: ["stock": try Self.expression("stock * 9223372036854775807")])
        }
        #expect(try Self.values(store, "stock") == [3, 0, nil])
    }

    /// To-one key paths read through the link; computed links and key attributes keep every
    /// link pointing at an object, as `batchUpdate(_:set:)` does.
    @Test func readsThroughLinksAndKeepsThemIntact() throws {
        let store = try PredicateStore.inMemory(UpsertTests.model)
        try store.insert("Airline", [["carrier": "UA", "fleet": 800], ["carrier": "HA", "fleet": 60]])
        try store.insert("Flight", [["code": "UA1", "carrier": "UA", "seats": 150], ["code": "HA1", "carrier": "HA", "seats": 200]])
        #expect(try store.batchUpdate(EntityQuery("Flight"), computing: ["seats": try Self.expression("seats + airline.fleet")]) == 2)
        #expect(try store.count(EntityQuery("Flight", where: "(code == 'UA1' AND seats == 950) OR (code == 'HA1' AND seats == 260)")) == 2)
        #expect { try store.batchUpdate(EntityQuery("Flight"), computing: ["carrier": try Self.expression("lowercase:(carrier)")]) } throws: { error in
            (error as? StoreError)?.kind == .constraint && (error as? StoreError)?.message.contains("would link to no Airline") == true
        }
        #expect { try store.batchUpdate(EntityQuery("Airline"), computing: ["carrier": try Self.expression("lowercase:(carrier)")]) } throws: { error in
            (error as? StoreError)?.message.contains("changing Airline.carrier would leave Flight objects linking to no Airline") == true
        }
        #expect(try store.count(EntityQuery("Flight", where: "airline != nil")) == 2)
        #expect(try store.batchUpdate(EntityQuery("Flight", where: "code == 'UA1'"), computing: ["airline": try Self.expression("'HA'")]) == 1)
        #expect(try store.count(EntityQuery("Flight", where: "airline.carrier == 'HA'")) == 2)
    }

    /// The same expression update applied in memory (the evaluator on each matching record,
    /// then the attribute's conversion) and in the store, on varied data, agrees: the same
    /// values, or an error on both sides and no change.
    @Test(arguments: [
        ("score", "score * 1.1"), ("score", "score + age"), ("score", "age / 3"), ("score", "abs:(score - 10)"),
        ("score", "sqrt:(age)"), ("score", "modulus:by:(age, 7)"), ("score", "score * score - age"),
        ("age", "age - 1"), ("age", "age * 2"), ("age", "age * 1.5"), ("age", "age / 2"), ("age", "abs:(age - 40)"),
        ("age", "age + 9223372036854775800"), ("age", "TERNARY(age > 30, age, -age)"), ("age", "length:(name)"),
        ("name", "uppercase:(name)"), ("name", "lowercase:(city)"), ("name", "city"), ("city", "name"),
        ("active", "TERNARY(age > 30, YES, NO)"), ("email", "uppercase:(email)"), ("balance", "balance * 3"), ("balance", "age + 0.25"),
    ])
    func memoryAndStoreAgree(key: String, format: String) throws {
        var rng = SeededSplitMix64(seed: 0x5EED ^ UInt64(format.utf8.count))
        var people: [[String: PredicateValue]] = []
        for i in 0..<80 {
            let maybe = { (v: PredicateValue, rng: inout SeededSplitMix64) -> PredicateValue in Int.random(in: 0..<6, using: &rng) == 0 ? .null : v }
            people.append([
                "name": maybe(.string(["ann", "Bo", "ÉVA", "dee", ""][Int.random(in: 0..<5, using: &rng)] + "\(i)"), &rng),
                "age": maybe(.int(Int64.random(in: -5...90, using: &rng)), &rng),
                "score": maybe(.double(Double(Int.random(in: -400...400, using: &rng)) / 8), &rng),
                "city": maybe(.string(["Paris", "Lima", "oslo"][Int.random(in: 0..<3, using: &rng)]), &rng),
                "email": .string("p\(i)@x.org"),
                "active": maybe(.bool(Bool.random(using: &rng)), &rng),
                "balance": maybe(.decimal(Decimal(Int.random(in: -100...100, using: &rng)) / 4), &rng),
            ])
        }
        // Without nils in the keys the expressions read (most arithmetic on nil is an error,
        // which would hide the values), then on every kind of row.
        let outcomes = [
            try Self.agree(people, key: key, format: format, where: "age > 10 AND score != nil AND balance != nil AND name != nil AND city != nil"),
            try Self.agree(people, key: key, format: format, where: "age == nil OR age > 10"),
        ]
        // Without nils only a fraction into an integer and an overflow fail.
        #expect(outcomes[0] == ["age * 1.5", "age + 9223372036854775800"].contains(format), "\(key) = \(format) on rows without nils")
    }

    /// Applies `key = format` to the rows `predicate` selects, in memory and in a store of
    /// `people`, and checks that both agree; returns whether they failed.
    static func agree(_ people: [[String: PredicateValue]], key: String, format: String, where predicate: String) throws -> Bool {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        try store.insert("Person", people)
        let query = try EntityQuery("Person", where: predicate)
        let before = try store.fetch(EntityQuery("Person"))
        let matching = Set(try store.fetchIDs(query))
        let tree = try ExpressionNode(format: format)
        let attribute = try #require(PeopleModel.model.allAttributes(try PeopleModel.model.entity(named: "Person")).first { $0.name == key })

        // In memory: the evaluator on each matching record, then the attribute's conversion.
        let f = try EvaluatorCompiler(reader: PredicateValue.predicateReader, functions: .none).compile(tree)
        var expected: [Int64: SQLValue] = [:]
        var memoryFailed = false
        for r in before where matching.contains(r.id) {
            var state = EvaluationState(variables: [:])
            do {
                let v = try EvaluationBudget.run(.default) { () throws(EvalError) -> PredicateValue in try f(.dictionary(r.values), &state) }
                if case .double(let d) = v, d.isNaN { memoryFailed = true; break }
                if v.isNull && !attribute.isOptional { memoryFailed = true; break }
                expected[r.id] = try RecordCodec.sqlValue(v, for: attribute, entity: "Person")
            } catch {
                memoryFailed = true
                break
            }
        }

        // In the store.
        var storeFailed = false
        do { try store.batchUpdate(query, computing: [key: tree]) } catch { storeFailed = true }
        #expect(storeFailed == memoryFailed, "\(key) = \(format)")
        let after = Dictionary(uniqueKeysWithValues: try store.fetch(EntityQuery("Person")).map { ($0.id, $0) })
        for old in before {
            let new = try #require(after[old.id])
            let stored = try RecordCodec.sqlValue(new.values[key] ?? .null, for: attribute, entity: "Person")
            if !memoryFailed, let want = expected[old.id] {
                #expect(stored == want, "\(key) = \(format) on \(old.values)")
            } else {
                #expect(new.values == old.values, "\(key) = \(format) changed an object it should not have")
            }
        }
        if !memoryFailed { #expect(!expected.isEmpty) }
        return memoryFailed
    }
}

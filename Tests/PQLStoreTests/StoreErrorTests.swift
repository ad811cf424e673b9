import Foundation
import PQL
@testable import PQLStore
import Testing

/// The errors of the store and its compiler: the kind, a message that names the problem, a
/// hint where there is a fix, and the place in the predicate text (decision D5).
@Suite struct StoreErrorTests {
    static func store() throws -> PredicateStore { try PredicateStore.inMemory(PeopleModel.model) }

    /// The error `body` throws (recording an issue when it throws none or another type).
    static func error(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
        do {
            try body()
            Issue.record("no error was thrown", sourceLocation: sourceLocation)
        } catch let e as StoreError {
            return e
        } catch {
            Issue.record("not a StoreError: \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    static func fetchError(_ format: String, _ entity: String = "Person", variables: [String: PredicateValue] = [:],
                           sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
        error({ _ = try store().fetch(try EntityQuery(entity, where: format, variables: variables)) }, sourceLocation: sourceLocation)
    }

    /// The text the error's range covers.
    static func located(_ e: StoreError) -> String? {
        guard let source = e.source, let r = e.range else { return nil }
        let bytes = Array(source.utf8)
        guard r.offset >= 0, r.offset + r.length <= bytes.count else { return nil }
        return String(decoding: bytes[r.offset..<(r.offset + r.length)], as: UTF8.self)
    }

    // MARK: unknown keys (D5)

    @Test func unknownKeyNamesTheNearestKeys() throws {
        let e = try #require(Self.fetchError("agee > 5"))
        #expect(e.kind == .unknownKey)
        #expect(e.message.contains("'agee'"))
        #expect(e.message.contains("Person"))
        #expect(e.hint == "did you mean 'age'?")
        #expect(e.source == "agee > 5")
        #expect(e.range?.offset == 0)
        #expect(e.range?.length == 4)
        #expect(e.range?.column == 1)
        #expect(Self.located(e) == "agee")
    }

    /// A control character in a key (a NUL through %K) is shown escaped, not as a blank.
    @Test func unknownKeyShowsControlCharactersEscaped() {
        let e = StoreError.unknownKey("name\u{0}", entity: "Person", candidates: ["name", "age"])
        #expect(e.message == "keypath 'name\\u{0}' not found in entity Person", "\(e.message)")
        #expect(e.hint == "did you mean 'name'?")
    }

    @Test func unknownKeyRangePointsIntoTheText() throws {
        let e = try #require(Self.fetchError("age > 5 AND employer.nme == 'x'"))
        #expect(e.kind == .unknownKey)
        #expect(e.message.contains("entity Company"))
        #expect(e.hint?.contains("'name'") == true)
        // The caret covers the key path node the parser recorded, the sub-expression that failed.
        #expect(e.range?.offset == 12)
        #expect(e.range?.column == 13)
        #expect(Self.located(e) == "employer.nme")
        #expect(e.rendered.contains("\n  |             ^" + String(repeating: "~", count: 11) + "\n"), "\(e.rendered)")
        #expect(e.description.contains("nme"))
    }

    @Test func unknownKeyIsLocatedAsAWholeWordNotInsideAnotherKey() throws {
        // 'nam' occurs first inside 'name': the range must point at the key itself.
        let e = try #require(Self.fetchError("name == 'x' AND nam == 'y'"))
        #expect(e.kind == .unknownKey)
        #expect(e.range?.offset == 16, "\(String(describing: e.range))")
        #expect(Self.located(e) == "nam")
        // …and inside a string constant neither.
        let f = try #require(Self.fetchError("name == 'citi' OR citi == 'y'"))
        #expect(f.range?.offset == 18, "\(String(describing: f.range))")
    }

    @Test func unknownKeyOnAMultiLinePredicate() throws {
        let e = try #require(Self.fetchError("age > 5\n  AND cty == 'Paris'"))
        #expect(e.range?.line == 2)
        #expect(e.range?.column == 7)
        #expect(e.hint == "did you mean 'city'?")
    }

    @Test func unknownKeyWithoutANearNameListsTheKeys() throws {
        let e = try #require(Self.fetchError("qqqqqqqqqq == 1"))
        #expect(e.kind == .unknownKey)
        #expect(e.hint?.hasPrefix("the entity's keys are:") == true, "\(e.hint ?? "")")
        #expect(e.hint?.contains("age") == true)
    }

    @Test func unknownKeyInSubqueryAndAnyElements() throws {
        let a = try #require(Self.fetchError("ANY tags.nme == 'x'"))
        #expect(a.kind == .unknownKey)
        #expect(a.message.contains("Tag"))
        #expect(a.hint?.contains("'name'") == true)
        let s = try #require(Self.fetchError("SUBQUERY(tags, $t, $t.wieght > 1).@count > 0"))
        #expect(s.kind == .unknownKey)
        #expect(s.hint?.contains("'weight'") == true)
        #expect(Self.located(s) == "$t.wieght")
    }

    @Test(arguments: [("tags.nam == 'x'", "nam", "Tag", "'name'", "tags.nam"), ("tags.wieght > 1", "wieght", "Tag", "'weight'", "tags.wieght"),
                      ("employer.employees.nme == 'x'", "nme", "Person", "'name'", "employer.employees.nme"),
                      ("ANY tags.person.agee > 3", "agee", "Person", "'age'", "tags.person.agee"),
                      ("tags.prson.name == 'x'", "prson", "Tag", "'person'", "tags.prson.name")])
    func unknownKeyAfterAToManyIsReportedAsUnknown(_ format: String, _ key: String, _ entity: String, _ near: String,
                                                   _ keyPath: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(e.kind == .unknownKey, "\(e)")
        #expect(e.message == "keypath '\(key)' not found in entity \(entity)")
        #expect(e.hint?.contains(near) == true, "\(e.hint ?? "")")
        #expect(e.entity == entity && e.property == key)
        #expect(Self.located(e) == keyPath)
    }

    @Test func unknownKeyInSortAndProperties() throws {
        let store = try Self.store()
        let sort = try #require(Self.error { _ = try store.fetch(EntityQuery("Person", sort: [SortRule("agge")])) })
        #expect(sort.kind == .unknownKey)
        #expect(sort.hint?.contains("'age'") == true)
        let props = try #require(Self.error { _ = try store.fetchProperties(["nmae"], EntityQuery("Person")) })
        #expect(props.kind == .unknownKey)
        #expect(props.hint?.contains("'name'") == true)
    }

    // MARK: entities

    @Test func unknownEntity() throws {
        let e = try #require(Self.fetchError("age > 5", "Persn"))
        #expect(e.kind == .unknownEntity)
        #expect(e.message == "no entity named 'Persn'")
        #expect(e.hint == "did you mean 'Person'?")
        let f = try #require(Self.error { try Self.store().insert("Zebra", ["name": "x"]) })
        #expect(f.kind == .unknownEntity)
        #expect(f.hint?.contains("Company") == true)
    }

    // MARK: constructs without SQL form

    @Test(arguments: [("tags.name == 'x'", "tags.name"), ("tags == nil", "tags"), ("tags.weight > 1", "tags.weight")])
    func toManyWithoutQuantifier(_ format: String, _ operand: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("to-many"))
        #expect(e.hint?.contains("ANY") == true)
        #expect(Self.located(e) == operand)
    }

    @Test func toManyAsAScalarValue() throws {
        let e = try #require(Self.fetchError("uppercase(tags.name) == 'X'"))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("to-many key 'tags' not allowed here"))
        #expect(e.hint != nil)
    }

    @Test(arguments: ["ANY age > 5", "ANY name == 'x'", "ALL score < 1", "NONE employer.name == 'x'"])
    func quantifierOnAScalar(_ format: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("needs a to-many key path"))
        #expect(e.hint != nil)
        #expect(e.range != nil)
    }

    @Test func functionIsUnsupported() throws {
        let e = try #require(Self.fetchError("FUNCTION(name, 'foo') == 1"))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("FUNCTION"))
        #expect(e.message.contains("'foo'"))
        #expect(e.hint?.contains("in memory") == true)
        #expect(e.range?.offset == 0)
    }

    /// Issue 29's Apple-platform forms parse; the store refuses them with a typed error, at the
    /// form, and never crashes.
    @Test(arguments: [
        ("SELF isKindOfClass: 'NSString'", "SELF isKindOfClass: 'NSString'"),
        ("name isSubclassOfClass: $c", "name isSubclassOfClass: $c"),
        ("ALL tokenize(name, 'cdl') IN {'a'}", "tokenize(name, 'cdl')"),
        ("distanceToLocation:fromLocation:(name, 'x') < 5", "distanceToLocation:fromLocation:(name, 'x')"),
    ])
    func appleFormsAreUnsupported(_ format: String, _ failing: String) throws {
        let e = try #require(Self.fetchError(format, variables: ["c": "NSString"]))
        #expect(e.kind == .unsupported, "\(e.rendered)")
        #expect(e.rendered.contains("^"), "\(e.rendered)")
    }

    @Test func anyKeyIsUnsupported() throws {
        let e = try #require(Self.fetchError("ANYKEY == 1"))
        #expect(e.kind == .unsupported)
        #expect(e.message == "ANYKEY has no SQL form")
        #expect(Self.located(e) == "ANYKEY")
    }

    @Test func assignmentIsUnsupported() throws {
        let e = try #require(Self.fetchError("$x := 5 == 5"))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("assignment"))
        #expect(e.hint == "bind variables before the fetch")
        #expect(Self.located(e) == "$x := 5")
    }

    @Test(arguments: ["tags.@median.weight > 1", "tags.@sum > 1", "tags.@count.name > 5", "stddev(tags.weight) > 1", "sum(tags) > 1",
                      "ANY tags.person.tags.name == 'x'", "age.name == 1", "tags[FIRST].name == 'x'"])
    func otherUnsupportedShapes(_ format: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(e.kind == .unsupported, "\(format): \(e)")
        #expect(!e.message.isEmpty)
        #expect(e.range != nil, "\(format): \(e)")
    }

    /// Objects compare with nil, objects and keys (ObjectPredicateTests); a value that can
    /// never be a key, and an ordering, are type errors with a hint.
    @Test(arguments: ["employer == 'x'", "name IN tags", "ANY tags == 'x'", "employer > 2", "employer == SELF"])
    func objectsCompareOnlyWithKeysObjectsAndNil(_ format: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(e.kind == .typeMismatch, "\(format): \(e)")
        #expect(e.message.contains("object"), "\(format): \(e)")
        #expect(e.hint != nil && e.range != nil, "\(format): \(e)")
        _ = try Self.store().fetch(try EntityQuery("Person", where: "employer == 5"))
        _ = try Self.store().fetch(try EntityQuery("Person", where: "ANY tags == nil"))
    }

    @Test func betweenNeedsTwoBounds() throws {
        // Literal bounds that are not a pair are a syntax error at the bounds.
        let a = try #require(Self.fetchError("age BETWEEN {1, 2, 3}"))
        #expect(a.kind == .syntax)
        #expect(a.message == "BETWEEN needs an array of exactly two bounds, not {1, 2, 3}")
        #expect(a.hint == "write x BETWEEN {low, high}")
        #expect(Self.located(a) == "{1, 2, 3}")
        // A tree built in code: the evaluator's error, when compiling, as in memory.
        let tree = PredicateNode.comparison(ComparisonNode(.keyPath(["age"]), .between,
                                                           .aggregate([.keyPath(["age"]), .constant(1), .constant(2)])))
        let b = try #require(Self.error({ _ = try Self.store().fetch(EntityQuery("Person", predicate: tree)) }))
        #expect(b.kind == .evaluation)
        #expect(b.evaluationError?.kind == .badBetweenBounds)
        #expect(b.message == "BETWEEN needs an array of exactly two bounds, not {age, 1, 2}")
        #expect(throws: PredicateEvaluationError(kind: .badBetweenBounds, message: b.message, context: "age BETWEEN {age, 1, 2}",
                                                 hint: "write x BETWEEN {low, high}")) {
            _ = try tree.compiled(for: PredicateValue.self)
        }
    }

    // MARK: variables

    @Test func unboundVariable() throws {
        let e = try #require(Self.fetchError("age > $minimum"))
        #expect(e.kind == .unboundVariable)
        #expect(e.message == "no value for the variable $minimum")
        #expect(e.hint?.contains("variables") == true)
        #expect(Self.located(e) == "$minimum")
    }

    @Test func boundVariableCompiles() throws {
        let store = try Self.store()
        try store.insert("Person", ["name": "A", "age": 40])
        #expect(try store.count(EntityQuery("Person", where: "age > $minimum", variables: ["minimum": 30])) == 1)
        #expect(try store.count(EntityQuery("Person", where: "age > $minimum", variables: ["minimum": 50])) == 0)
    }

    @Test func templateWithMissingVariable() throws {
        let store = try Self.store()
        let e = try #require(Self.error { _ = try store.fetch(template: "OlderThan") })
        #expect(e.kind == .unboundVariable)
        #expect(e.message == "fetch template 'OlderThan' needs a value for $minimum")
        #expect(e.hint?.contains("minimum") == true)
        #expect(Self.located(e) == "$minimum")
        let u = try #require(Self.error { _ = try store.fetch(template: "OlderThn", variables: ["minimum": 1]) })
        #expect(u.kind == .unknownEntity)
        #expect(u.hint == "did you mean 'OlderThan'?")
    }

    // MARK: options and patterns

    @Test func wordOptionIsUnsupported() throws {
        let e = try #require(Self.fetchError("name CONTAINS[w] 'x'"))
        #expect(e.kind == .unsupported)
        #expect(e.message.contains("[w]"))
        #expect(e.hint?.contains("MATCHES") == true)
        #expect(Self.located(e) == "name CONTAINS[w] 'x'")
    }

    @Test func invalidConstantRegexFailsWhenCompilingAsInMemory() throws {
        let store = try Self.store()
        // The evaluator compiles a constant pattern when compiling the predicate; so does the
        // store: the same error even on an empty table (reference §8.2, decision D3).
        let memory = try #require(throws: PredicateEvaluationError.self) {
            _ = try PredicateNode(format: "name MATCHES '('").compiled(for: PredicateValue.self)
        }
        let e = try #require(Self.error { _ = try store.sql(for: EntityQuery("Person", where: "name MATCHES '('")) })
        #expect(e.kind == .evaluation)
        #expect(e.evaluationError?.kind == .invalidRegex)
        #expect(e.message == memory.message)
        #expect(e.hint == memory.hint)
        #expect(e.message.lowercased().contains("parenthes"), "\(e.message)")
        #expect(!e.message.hasPrefix(SQLiteFunctions.errorPrefix))
    }

    @Test func invalidRegexFromAColumnFailsAtFetchTimeAsEvaluationError() throws {
        let store = try Self.store()
        // A pattern read from each row is compiled by the row: an empty table never runs it.
        #expect(try store.fetch(EntityQuery("Person", where: "name MATCHES email")).isEmpty)
        try store.insert("Person", ["name": "Ann", "email": "("])
        let e = try #require(Self.error { _ = try store.fetch(EntityQuery("Person", where: "name MATCHES email")) })
        #expect(e.kind == .evaluation)
        #expect(e.evaluationError?.kind == .invalidRegex)
        #expect(e.message.lowercased().contains("parenthes"), "\(e.message)")
        #expect(!e.message.hasPrefix(SQLiteFunctions.errorPrefix))
        // the store still works afterwards
        #expect(try store.count(EntityQuery("Person", where: "name MATCHES 'A.*'")) == 1)
    }

    @Test func syntaxErrorKeepsTheParserPosition() throws {
        let e = try #require(Self.error { _ = try EntityQuery("Person", where: "age > > 5") })
        #expect(e.kind == .syntax)
        #expect(e.source == "age > > 5")
        #expect(e.range != nil)
        let d6 = try #require(Self.error { _ = try EntityQuery("Person", where: "age NOT IN {1, 2}") })
        #expect(d6.kind == .syntax)
        #expect(d6.hint?.contains("NOT (") == true || d6.message.contains("NOT ("), "\(d6)")
    }

    // MARK: writes

    @Test func wrongValueTypeOnInsert() throws {
        let store = try Self.store()
        let e = try #require(Self.error { try store.insert("Person", ["age": "forty"]) })
        #expect(e.kind == .invalidValue)
        #expect(e.message.contains("Person.age is an integer64 attribute"))
        #expect(e.message.contains("does not fit"))
        #expect(e.hint == "give a whole number")
        for (key, value, hint) in [("active", PredicateValue.string("yes"), "give true or false"),
                                   ("born", .string("yesterday"), "give a date"),
                                   ("photo", .int(3), "give data"),
                                   ("score", .string("high"), "give a number"),
                                   ("name", .int(5), "give a string")] {
            let f = try #require(Self.error { try store.insert("Person", [key: value]) })
            #expect(f.kind == .invalidValue, "\(key)")
            #expect(f.hint?.hasPrefix(hint) == true, "\(key): \(f.hint ?? "")")
        }
        #expect(try store.count(EntityQuery("Person")) == 0)
    }

    @Test func aWholeNumberPast64BitsIsOutOfRangeNotAFraction() throws {
        let store = try Self.store()
        for value: PredicateValue in [.double(0x1p63), .double(-0x1p64), .double(1e30), .decimal(Decimal(string: "9223372036854775808")!),
                                      .decimal(Decimal(string: "-9223372036854775809")!)] {
            let e = try #require(Self.error { try store.insert("Person", ["age": value]) })
            #expect(e.kind == .invalidValue)
            #expect(e.message.contains("Person.age is an integer64 attribute; ") &&
                    e.message.hasSuffix(" is outside the 64-bit integer range (-9223372036854775808…9223372036854775807)"), "\(e.message)")
            #expect(e.hint == "give a value within that range, or make age a decimal or double attribute to hold it", "\(e.hint ?? "")")
        }
        // The number as given: a decimal's digits, a double without an exponent.
        #expect(Self.error { try store.insert("Person", ["age": .decimal(Decimal(string: "9223372036854775809")!)]) }?.message.contains("; 9223372036854775809 is outside") == true)
        #expect(Self.error { try store.insert("Person", ["age": .double(0x1p63)]) }?.message.contains("; 9223372036854775808 is outside") == true)
        // A fraction is still not a whole number; the edges of the range fit.
        #expect(Self.error { try store.insert("Person", ["age": .double(1.5)]) }?.hint == "give a whole number")
        for (value, stored) in [(PredicateValue.double(-0x1p63), Int64.min), (.decimal(Decimal(string: "9223372036854775807")!), .max),
                                (.decimal(Decimal(string: "-9223372036854775808")!), .min)] {
            let id = try store.insert("Person", ["age": value])
            #expect(try store.fetchIDs(EntityQuery("Person", where: "age == %@", [stored])).contains(id), "\(value)")
        }
    }

    @Test func nullIntoNonOptional() throws {
        let store = try Self.store()
        for values: [String: PredicateValue] in [[:], ["name": nil], ["size": 3]] {
            let e = try #require(Self.error { try store.insert("Company", values) })
            #expect(e.kind == .invalidValue)
            #expect(e.message == "Company.name is not optional and has no value")
            #expect(e.hint?.contains("default") == true)
        }
        let id = try store.insert("Company", ["name": "Acme"])
        let u = try #require(Self.error { try store.update("Company", id: id, ["name": nil]) })
        #expect(u.kind == .invalidValue)
        #expect(try store.fetch(EntityQuery("Company"))[0]["name"] == "Acme")
    }

    @Test func unknownInsertKey() throws {
        let store = try Self.store()
        let e = try #require(Self.error { try store.insert("Person", ["nmae": "x"]) })
        #expect(e.kind == .unknownKey)
        #expect(e.message == "keypath 'nmae' not found in entity Person")
        #expect(e.hint == "did you mean 'name'?")
        // a to-many cannot be set from this side
        let t = try #require(Self.error { try store.insert("Person", ["tags": 1]) })
        #expect(t.kind == .unknownKey)
        let u = try #require(Self.error { try store.update("Person", id: 1, ["agee": 3]) })
        #expect(u.kind == .unknownKey)
        #expect(u.hint == "did you mean 'age'?")
    }

    @Test func abstractEntityInsert() throws {
        let store = try PredicateStore.inMemory(ZooModel.model)
        let e = try #require(Self.error { try store.insert("Animal", ["name": "x"]) })
        #expect(e.kind == .invalidValue)
        #expect(e.message == "Animal is abstract and has no objects of its own")
        #expect(e.hint == "insert one of its sub-entities")
        #expect(try store.count(EntityQuery("Animal")) == 0)
    }

    @Test func linkMustBeAKey() throws {
        let store = try Self.store()
        let e = try #require(Self.error { try store.insert("Person", ["employer": "Acme"]) })
        #expect(e.kind == .invalidValue)
        #expect(e.hint?.contains("key") == true)
    }

    @Test func updateAndDeleteOfAMissingObject() throws {
        let store = try Self.store()
        let u = try #require(Self.error { try store.update("Person", id: 99, ["age": 1]) })
        #expect(u.kind == .invalidValue)
        #expect(u.message == "there is no Person with key 99")
        let d = try #require(Self.error { try store.delete("Person", id: 99) })
        #expect(d.message == "there is no Person with key 99")
    }

    @Test func batchUpdateNeedsValues() throws {
        let e = try #require(Self.error { _ = try Self.store().batchUpdate(EntityQuery("Person"), set: [:]) })
        #expect(e.kind == .invalidValue)
        #expect(e.message.contains("at least one value"))
    }

    @Test func renderedShowsCaretAndHint() throws {
        let e = try #require(Self.fetchError("city == 'x' AND agge > 3"))
        #expect(e.rendered == """
            error: keypath 'agge' not found in entity Person
             --> line 1, column 17
              |
            1 | city == 'x' AND agge > 3
              |                 ^~~~
              = hint: did you mean 'age'?
            """)
        #expect(e.description == "line 1, column 17: keypath 'agge' not found in entity Person (did you mean 'age'?)")
    }
}

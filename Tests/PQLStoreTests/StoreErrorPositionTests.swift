import Foundation
import PQL
@testable import PQLStore
import Testing

/// Store errors point where the parser saw the sub-expression at fault, render through PQL's
/// one caret renderer, name their model subjects as fields, and read well as
/// `localizedDescription`.
@Suite struct StoreErrorPositionTests {
    static func fetchError(_ format: String) -> StoreError? {
        StoreErrorTests.fetchError(format)
    }

    static func caretLine(_ rendered: String) -> String? {
        rendered.split(separator: "\n").map(String.init).first { $0.contains("^") }
    }

    @Test("the caret goes under the sub-expression that failed", arguments: [
        ("age == 1 AND nosuch.key > 2", "nosuch.key"),
        ("age == 1 AND (name == 'x' OR employer.nme == 'y')", "employer.nme"),
        ("age > 1 AND ANYKEY == 1", "ANYKEY"),
        ("age > 1 AND FUNCTION(SELF, 'f:') == 1", "FUNCTION(SELF, 'f:')"),
        ("name == 'nosuch' AND nosuch == 1", "nosuch"),
        ("age > 1 AND tags.weight > 1", "tags.weight"),
        ("age > 1 AND uppercase(tags.name) == 'X'", "tags.name"),
        ("age > 1 AND SUBQUERY(tags, $t, $t.wieght > 1).@count > 0", "$t.wieght"),
    ])
    func subExpression(_ format: String, _ failing: String) throws {
        let e = try #require(Self.fetchError(format))
        #expect(StoreErrorTests.located(e) == failing, "\(e.rendered)")
    }

    /// People whose values make PQL's SQL functions raise: integers at the ends of 64 bits,
    /// a string where numbers are compared, an invalid pattern, a name that backtracks.
    static func raisingPeople() throws -> PeopleModel.Fixture {
        try PeopleModel.make(
            people: [["name": .string(String(repeating: "a", count: 60) + "!"), "age": .int(.max), "email": "("],
                     ["name": "ann", "age": 1, "email": "("]],
            companies: [], employer: [nil, nil],
            tags: [[["name": "x", "weight": .int(.max)], ["name": "y", "weight": 1]], [["name": "z", "weight": .int(.max)], ["name": "w", "weight": 2]]])
    }

    /// The error in-memory evaluation raises on the fixture's people, placed by its source map.
    static func memoryError(_ format: String, _ f: PeopleModel.Fixture, limits: EvaluationLimits) throws -> PredicateEvaluationError? {
        let (tree, map) = try PredicateNode.parse(format: format)
        do throws(PredicateEvaluationError) {
            let compiled = try CompiledPredicate(tree, reader: PredicateValue.predicateReader, sourceMap: map)
            for p in f.people { _ = try compiled.evaluate(p, limits: limits) }
            return nil
        } catch {
            return error
        }
    }

    static let runTimeErrors: [(format: String, failing: String)] = [
        // arithmetic (pql_fn), on either side of a comparison
        ("name != nil AND age * 2 > 0", "age * 2"),
        ("name != nil AND 0 < (age + 1)", "(age + 1)"),
        // a comparison (pql_compare, pql_between) of kinds that have no order
        ("name != nil AND age > name", "age > name"),
        ("name != nil AND age BETWEEN {name, 5}", "age BETWEEN {name, 5}"),
        // aggregates over a to-many (pql_sum, pql_sum_function) and over values (pql_values)
        ("name != nil AND tags.@sum.weight > 0", "tags.@sum.weight"),
        ("name != nil AND sum:(tags.weight) > 0", "sum:(tags.weight)"),
        ("name != nil AND {age, 1}.@sum > 0", "{age, 1}.@sum"),
        // a function's argument of the wrong kind
        ("name != nil AND uppercase(age) == 'X'", "uppercase(age)"),
        // MATCHES (pql_search): a pattern that does not compile, one that backtracks past PCRE2's limit
        ("name != nil AND name MATCHES email", "name MATCHES email"),
        ("age > 0 AND name MATCHES '(a|aa)+$'", "name MATCHES '(a|aa)+$'"),
    ]

    @Test("an error raised inside SQLite points where memory's does", arguments: runTimeErrors)
    func runTimeErrorsPointWhereMemoryDoes(_ format: String, _ failing: String) throws {
        try Self.expectSamePlace(format, failing, limits: .default)
    }

    @Test("the regex budget, spent inside SQLite, points at the MATCHES as in memory")
    func regexBudget() throws {
        let e = try Self.expectSamePlace("age > 0 AND name MATCHES '(a|aa)+$'", "name MATCHES '(a|aa)+$'",
                                         limits: EvaluationLimits(maxSteps: nil, maxRegexSteps: 10_000))
        #expect(e.message.contains("10,000 regex backtracking steps"), "\(e.message)")
    }

    @discardableResult
    static func expectSamePlace(_ format: String, _ failing: String, limits: EvaluationLimits,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> StoreError {
        let f = try Self.raisingPeople()
        let memory = try #require(try Self.memoryError(format, f, limits: limits), "memory raised nothing", sourceLocation: sourceLocation)
        var stored: StoreError? = nil
        do { _ = try f.store.fetchIDs(try EntityQuery("Person", where: format, limits: limits)) } catch { stored = error }
        let e = try #require(stored, "the store raised nothing", sourceLocation: sourceLocation)
        #expect(e.kind == .evaluation && e.evaluationError?.kind == memory.kind && e.message == memory.message, "\(e) / \(memory)",
                sourceLocation: sourceLocation)
        #expect(e.range != nil && e.range == memory.range, "store \(String(describing: e.range)), memory \(String(describing: memory.range))",
                sourceLocation: sourceLocation)
        #expect(StoreErrorTests.located(e) == failing, "\(e.rendered)", sourceLocation: sourceLocation)
        #expect(e.rendered == CaretRenderer.render(message: e.message, source: format, range: try #require(e.range), hint: e.hint),
                sourceLocation: sourceLocation)
        // Counting and batch changes run the same WHERE: their errors point there too.
        var counted: StoreError? = nil
        do { _ = try f.store.count(try EntityQuery("Person", where: format, limits: limits)) } catch { counted = error }
        #expect(counted?.range == memory.range, sourceLocation: sourceLocation)
        var deleted: StoreError? = nil
        do { _ = try f.store.batchDelete(try EntityQuery("Person", where: format, limits: limits)) } catch { deleted = error }
        #expect(deleted?.range == memory.range, sourceLocation: sourceLocation)
        return e
    }

    @Test("a predicate built in code has no source map: its run-time error has no place, and no wrong one")
    func runTimeErrorWithoutMap() throws {
        let f = try Self.raisingPeople()
        let tree = try PredicateNode(format: "name != nil AND age * 2 > 0")
        var stored: StoreError? = nil
        do { _ = try f.store.fetchIDs(EntityQuery("Person", predicate: tree)) } catch { stored = error }
        let e = try #require(stored)
        #expect(e.evaluationError?.kind == .integerOverflow)
        #expect(e.range == nil && e.source == nil)
    }

    @Test("a predicate replaced by another of the same shape drops the old text's map: no caret, never a wrong one")
    func replacedPredicateHasNoPlace() throws {
        let f = try Self.raisingPeople()
        var query = try EntityQuery("Person", where: "name == nil OR age * 2 > 0")
        query.predicate = try PredicateNode(format: "age * 2 > 0 OR name == nil")
        #expect(query.sourceMap == nil && query.predicateText == nil)
        var stored: StoreError? = nil
        do { _ = try f.store.fetchIDs(query) } catch { stored = error }
        let e = try #require(stored)
        #expect(e.evaluationError?.kind == .integerOverflow)
        #expect(e.range == nil && e.source == nil, "\(e.rendered)")
        // Setting the same tree keeps the map.
        var same = try EntityQuery("Person", where: "name != nil AND age * 2 > 0")
        same.predicate = try PredicateNode(format: "name != nil AND age * 2 > 0")
        #expect(same.sourceMap != nil)
    }

    @Test("CRLF and wide characters: the one renderer keeps the caret under the key")
    func crlfAndWideCharacters() throws {
        let format = "age == 1 AND\r\n  名前 == 'x' AND nosuch.key > 2"
        let e = try #require(Self.fetchError(format))
        // 名前 is the first unknown key: two wide characters, four cells.
        #expect(e.range?.line == 2 && e.range?.column == 3)
        #expect(e.rendered == CaretRenderer.render(message: e.message, source: format, range: try #require(e.range), hint: e.hint))
        #expect(e.rendered.contains("\n2 |   名前 == 'x' AND nosuch.key > 2\n"), "\(e.rendered)")
        #expect(Self.caretLine(e.rendered) == "  |   ^~~~", "\(e.rendered)")
        let later = try #require(Self.fetchError("name == '名前' AND\r\nnosuch.key > 2"))
        #expect(Self.caretLine(later.rendered) == "  | ^~~~~~~~~~", "\(later.rendered)")
        #expect(!later.rendered.contains("\r"))
        let wide = try #require(Self.fetchError("name == '名前名前' AND nosuch > 2"))
        #expect(Self.caretLine(wide.rendered) == "  | " + String(repeating: " ", count: 23) + "^~~~~~", "\(wide.rendered)")
    }

    @Test("a fetch template's unbound variable is placed at the variable")
    func templateVariable() throws {
        let t = FetchTemplate(name: "T", entity: "Person", predicate: "age > 1 AND city == $CITY")
        do {
            _ = try t.query()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .unboundVariable)
            #expect(StoreErrorTests.located(error) == "$CITY")
        }
    }

    @Test("localizedDescription is the message")
    func localizedDescription() throws {
        let e = try #require(Self.fetchError("agee > 1"))
        #expect((e as any Error).localizedDescription == "keypath 'agee' not found in entity Person")
        #expect((e as any Error as? LocalizedError)?.recoverySuggestion == "did you mean 'age'?")
        #expect(e.description.contains("line 1, column 1"))
    }

    @Test("an unknown key names its entity and key as fields")
    func unknownKeySubject() throws {
        let e = try #require(Self.fetchError("employer.nme == 'x'"))
        #expect(e.entity == "Company")
        #expect(e.property == "nme")
    }

    @Test("model errors name their subject structurally", arguments: [
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "float128"}]}]}"#, "A", "x", nil),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "Nope"}]}]}"#, "A", "r", nil),
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "string"}, {"name": "x", "type": "string"}]}]}"#, "A", "x", nil),
        (#"{"entities": [{"name": "A", "parent": "Nope"}]}"#, "A", nil, nil),
        (#"{"entities": [{"name": "A"}, {"name": "A"}]}"#, "A", nil, nil),
        (#"{"entities": [{"name": "A", "indexes": [["nope"]]}]}"#, "A", "nope", nil),
        (#"{"entities": [{"name": "A"}], "templates": [{"name": "T", "entity": "Nope"}]}"#, nil, nil, "T"),
        (#"{"entities": [{"name": "A"}], "templates": [{"name": "T", "entity": "A", "limit": -1}]}"#, nil, nil, "T"),
    ] as [(String, String?, String?, String?)])
    func modelSubjects(_ json: String, _ entity: String?, _ property: String?, _ template: String?) throws {
        let e = try #require(ModelLoaderTests.json(json))
        #expect(e.entity == entity, "\(e)")
        #expect(e.property == property, "\(e)")
        #expect(e.template == template, "\(e)")
    }

    @Test("the model-file place comes from the subject, not from the message's words")
    func modelPlaceFromSubject() throws {
        // An entity named like words of the message would have confused a search of the text.
        let e = try #require(ModelLoaderTests.json(#"{"entities": [{"name": "entity"}, {"name": "B", "relationships": [{"name": "entity", "destination": "Nope"}]}]}"#))
        #expect(e.entity == "B" && e.property == "entity")
        #expect(e.message.hasSuffix("(entities[1].relationships[0])"), "\(e.message)")
    }

    @Test("a model file read from disk keeps the subject when its name is put before the message")
    func modelFileSubject() throws {
        let dir = try ModelLoaderTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("model.json")
        try Data(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "float128"}]}]}"#.utf8).write(to: file)
        do {
            _ = try StoreModel(contentsOf: file)
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix(file.path) || error.message.contains("model.json"), "\(error.message)")
            #expect(error.entity == "A" && error.property == "x", "\(error)")
        }
    }

    @Test("Xcode model errors name their entity and property too")
    func xcodeSubjects() throws {
        let bad = ModelLoaderTests.document("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Quaternion\"/>\n</entity>")
        guard case .failure(let e) = try ModelLoaderTests.xcode(bad) else { Issue.record("accepted"); return }
        #expect(e.entity == "A" && e.property == "x", "\(e)")
        let dangling = ModelLoaderTests.document("<entity name=\"A\">\n<relationship name=\"r\" destinationEntity=\"Nope\" maxCount=\"1\"/>\n</entity>")
        guard case .failure(let f) = try ModelLoaderTests.xcode(dangling) else { Issue.record("accepted"); return }
        #expect(f.entity == "A" && f.property == "r", "\(f)")
        #expect(f.message.contains("line 4"), "\(f.message)")
    }
}

import Foundation
import PQL
@testable import PQLStore
import Testing

/// Issue 13, items 14–18: memory and the store agree, row for row and error for error, on
/// string options in membership, nil in the aggregates, 64-bit overflow, BETWEEN's bounds and
/// the errors the store's static shortcuts used to hide.
@Suite struct SemanticsAgreementTests {
    typealias Fixture = PeopleModel.Fixture

    /// People whose names and tags differ only by case, diacritics or width, with nil weights.
    static func people() throws -> Fixture {
        try PeopleModel.make(
            people: [["name": "José", "age": 30, "city": "Paris", "score": 1.5],
                     ["name": "ana", "city": "paris"],
                     ["age": 7],
                     ["name": "STRASSE", "age": -4, "city": "Ｐａｒｉｓ"],
                     ["name": "Zoë", "age": 5, "email": "zoe@x.org"],
                     ["name": "zoe", "age": 0, "city": "Lima"]],
            companies: [PeopleModel.company("Acme", founded: 0, size: 10)],
            employer: [0, nil, 0, nil, 0, nil],
            tags: [[["name": "VIP", "weight": 1], ["name": "new"], ["name": "x", "weight": 2]],
                   [["name": "vip"]],
                   [],
                   [["name": "ß", "weight": 4], ["weight": 0]],
                   [["name": "Ｖｉｐ", "weight": 3]],
                   [["name": "zoë", "weight": -2], ["name": "ZOE", "weight": 2]]])
    }

    /// People whose integers reach the ends of 64 bits.
    static func extremes() throws -> Fixture {
        try PeopleModel.make(
            people: [["name": "max", "age": .int(.max)], ["name": "min", "age": .int(.min)], ["name": "root", "age": 3037000500],
                     ["name": "small", "age": 2], ["name": "none"]],
            companies: [], employer: [nil, nil, nil, nil, nil],
            tags: [[["weight": .int(.max)], ["weight": 1]], [["weight": .int(.min)], ["weight": -1]],
                   [["weight": .int(.max)], ["weight": 1], ["weight": -1]], [["weight": 1]], []])
    }

    /// What a backend answered: the ids, or the evaluator's error (kind and message).
    enum Answer: Equatable, CustomStringConvertible {
        case rows([Int64])
        case error(PredicateEvaluationError.Kind, String)

        var description: String {
            switch self {
            case .rows(let ids): return "rows \(ids)"
            case .error(let k, let m): return "error .\(k.rawValue): \(m)"
            }
        }
    }

    static func memory(_ node: PredicateNode, _ f: Fixture) -> Answer {
        do throws(PredicateEvaluationError) {
            let compiled = try node.compiled(for: PredicateValue.self)
            var ids: [Int64] = []
            for (i, p) in f.people.enumerated() where try compiled.evaluate(p) { ids.append(f.ids[i]) }
            return .rows(ids)
        } catch {
            return .error(error.kind, error.message)
        }
    }

    static func store(_ node: PredicateNode, _ f: Fixture) -> Answer {
        do throws(StoreError) {
            return .rows(try f.store.fetch(EntityQuery("Person", predicate: node)).map(\.id).sorted())
        } catch {
            guard let original = error.evaluationError else { return .error(.unsupported, "not an evaluation error: \(error)") }
            #expect(error.kind == .evaluation && error.message == original.message && error.hint == original.hint, "\(error)")
            return .error(original.kind, original.message)
        }
    }

    /// Both backends' answers for `format`, and the memory answer.
    @discardableResult
    static func expectAgreement(_ format: String, _ arguments: [Any?] = [], in f: Fixture,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> Answer {
        let node = try PredicateNode(format: format, argumentArray: arguments)
        let m = memory(node, f), s = store(node, f)
        #expect(m == s, "\(format): memory \(m), store \(s)", sourceLocation: sourceLocation)
        return m
    }

    // MARK: item 14: IN and CONTAINS apply their options to each element

    static let membership: [(String, [Int])] = [
        ("name IN[c] {'JOSÉ', 'ANA'}", [0, 1]),
        ("name IN[cd] {'JOSE', 'ANA', 5}", [0, 1]),
        ("name IN[d] {'Jose', 'zoe'}", [0, 5]),
        ("name IN[c] {'strasse'}", [3]),
        ("name IN[n] {'ana', 'JOSÉ'}", [1]),
        ("name IN {'ana', 'JOSÉ'}", [1]),
        ("city IN[c] {'PARIS'}", [0, 1, 3]),
        ("NOT (city IN[c] {'PARIS'})", [2, 4, 5]),
        ("{'zoe', 'ANA'} CONTAINS[cd] name", [1, 4, 5]),
        ("'VIP' IN[c] tags.name", [0, 1, 4]),
        ("'VIP' IN tags.name", [0]),
        ("tags.name CONTAINS[cd] 'zoe'", [5]),
        ("tags.name CONTAINS[c] 'SS'", [3]),
        ("ANY tags.name IN[c] {'vip', 'NEW'}", [0, 1, 4]),
        ("ALL tags.name IN[cd] {'zoe'}", [2, 5]),
        ("NONE tags.name IN[c] {'vip'}", [2, 3, 5]),
        ("name IN[c] tags.name", [5]),
        ("age IN[c] {30, 'x'}", [0]),
        ("name IN[c] %@", [0, 1]),
    ]

    @Test(arguments: membership.indices)
    func membershipAppliesOptions(_ i: Int) throws {
        let (format, rows) = Self.membership[i]
        let f = try Self.people()
        let args: [Any?] = format.contains("%@") ? [["josé", "ANA", 7]] : []
        let answer = try Self.expectAgreement(format, args, in: f)
        #expect(answer == .rows(rows.map { f.ids[$0] }), "\(format)")
    }

    /// `IN[c]` on an indexed column searches index ranges, then folds only the candidates.
    @Test func caseInsensitiveMembershipUsesTheIndex() throws {
        let f = try Self.people()
        let plan = try f.store.queryPlan(for: EntityQuery("Person", where: "name IN[c] {'jose', 'ana'}"))
        #expect(plan.contains { $0.contains("INDEX") }, "\(plan)")
        let sql = try f.store.sql(for: EntityQuery("Person", where: "name IN[c] {'jose', 'ana'}")).sql
        #expect(sql.contains("pql_fold("), "\(sql)")
        // A long list binds one folded value per member, as a literal IN does.
        let many = (0..<20_000).map { "Name\($0)" } + ["JOSÉ"]
        let c = try f.store.sql(for: EntityQuery("Person", where: "name IN[c] %@", [many]))
        #expect(c.bindings.count < 20_010)
        #expect(try f.store.fetch(EntityQuery("Person", where: "name IN[c] %@", [many])).map(\.id) == [f.ids[0]])
    }

    // MARK: NaN as a constant (SQLite binds it as NULL), and IN beyond 2^53

    /// NaN equals nothing but NaN, is ordered against nothing, and is not nil: `score != NaN`
    /// holds for every row, nil scores included (adversarial run, F8: the nil rows were lost).
    static var nanConstants: [(String, [Any?], [Int])] { [
        ("score != CAST('nan', 'NSNumber')", [], [0, 1, 2, 3, 4, 5]),
        ("CAST('nan', 'NSNumber') != score", [], [0, 1, 2, 3, 4, 5]),
        ("score != %@", [Double.nan], [0, 1, 2, 3, 4, 5]),
        ("score == CAST('nan', 'NSNumber')", [], []),
        ("NOT (score == CAST('nan', 'NSNumber'))", [], [0, 1, 2, 3, 4, 5]),
        ("NOT (score != CAST('nan', 'NSNumber'))", [], []),
        ("score < CAST('nan', 'NSNumber') OR score > CAST('nan', 'NSNumber')", [], []),
        ("score <= CAST('nan', 'NSNumber') OR score >= CAST('nan', 'NSNumber')", [], []),
        ("NOT (score <= CAST('nan', 'NSNumber'))", [], [0, 1, 2, 3, 4, 5]),
        ("score IN {CAST('nan', 'NSNumber'), 1.5}", [], [0]),
        ("NOT (score IN {CAST('nan', 'NSNumber')})", [], [0, 1, 2, 3, 4, 5]),
        ("age != %@ AND score != %@", [Double.nan, Double.nan], [0, 1, 2, 3, 4, 5]),
        ("score BETWEEN {0, CAST('nan', 'NSNumber')}", [], []),
    ] }

    @Test(arguments: nanConstants.indices)
    func nanConstantsAreNotNil(_ i: Int) throws {
        let (format, args, rows) = Self.nanConstants[i]
        let f = try Self.people()
        let answer = try Self.expectAgreement(format, args, in: f)
        #expect(answer == .rows(rows.map { f.ids[$0] }), "\(format)")
    }

    /// IN compares integers with doubles beyond 2^53 exactly, as `==` does (F4).
    @Test func membershipBeyondTwoToThe53IsExact() throws {
        let f = try PeopleModel.make(people: [["age": .int(1 << 53)], ["age": .int(1 << 53 + 1)], ["age": .int(.max)], ["name": "none"]],
                                     companies: [], employer: [nil, nil, nil, nil], tags: [[], [], [], []])
        for (format, rows) in [("age IN {9007199254740992.0}", [0]), ("age IN {9007199254740993.0, 1.5}", [0]),
                               ("age IN {9223372036854775807.0}", []), ("NOT (age IN {9007199254740992.0})", [1, 2, 3]),
                               ("age IN {9007199254740993, 9007199254740992.0}", [0, 1])] {
            let answer = try Self.expectAgreement(format, in: f)
            #expect(answer == .rows(rows.map { f.ids[$0] }), "\(format)")
        }
    }

    // MARK: item 15: @avg and @sum count nil as 0, @min and @max skip it; the function forms

    static let aggregates: [(String, [Int])] = [
        ("tags.@avg.weight == 1", [0]),            // (1 + 0 + 2) / 3
        ("tags.@avg.weight == 0", [1, 5]),         // a single nil counts as 0; -2 and 2
        ("tags.@avg.weight == nil", [2]),          // no tags
        ("tags.@avg.weight == 2", [3]),
        ("tags.@sum.weight == 3", [0, 4]),
        ("tags.@sum.weight == 0", [1, 2, 5]),
        ("tags.@min.weight == 1", [0]),
        ("tags.@max.weight == nil", [1, 2]),
        ("tags.@min.name == 'VIP'", [0]),
        ("tags.@count == 2", [3, 5]),
        ("SUBQUERY(tags, $t, $t.weight != nil).@count > 0 AND tags.@avg.weight > 0", [0, 3, 4]),
    ]

    @Test(arguments: aggregates.indices)
    func aggregatesCountNilAsApple(_ i: Int) throws {
        let (format, rows) = Self.aggregates[i]
        let f = try Self.people()
        let answer = try Self.expectAgreement(format, in: f)
        #expect(answer == .rows(rows.map { f.ids[$0] }), "\(format)")
    }

    /// `sum:`, `average:`, `min:`, `max:` take numbers: a nil element, and for the last three
    /// an empty collection, are errors in both backends; on values without nil they agree.
    @Test func functionFormsAgree() throws {
        let f = try Self.people()
        for format in ["sum:(tags.weight) > 0", "average:(tags.weight) > 0", "min:(tags.weight) > 0", "max:(tags.weight) > 0"] {
            let answer = try Self.expectAgreement(format, in: f)
            guard case .error(let kind, let message) = answer else { Issue.record("\(format): \(answer)"); continue }
            #expect(kind == .aggregate)
            #expect(message.contains("found nil"), "\(message)")
        }
        let clean = try PeopleModel.make(people: [["name": "a"], ["name": "b"], ["name": "c"]], companies: [], employer: [nil, nil, nil],
                                         tags: [[["weight": 1], ["weight": 4]], [["weight": -3]], []])
        let sums = try Self.expectAgreement("sum:(tags.weight) == 5 OR sum:(tags.weight) == 0", in: clean)
        #expect(sums == .rows([clean.ids[0], clean.ids[2]]))
        #expect(try Self.expectAgreement("tags.@count > 0 AND average:(tags.weight) == 2.5", in: clean) == .rows([clean.ids[0]]))
        #expect(try Self.expectAgreement("tags.@count > 0 AND max:(tags.weight) < 0", in: clean) == .rows([clean.ids[1]]))
        let empty = try Self.expectAgreement("min:(tags.weight) < 0", in: clean)
        #expect(empty == .error(.aggregate, "min: of an empty collection"))
    }

    // MARK: item 17: 64-bit integers never wrap

    static let overflowing: [String] = [
        "age + 1 > 0", "age - 1 < 0", "age * age > 0", "-age > 0", "abs:(age) > 0", "age / -1 > 0", "divide:by:(age, -1) > 0",
        "age * 4611686018427387904 > 0", "tags.@sum.weight > 0", "sum:(tags.weight) > 0", "1 << age > 0", "age >> 64 > 0",
        "age != nil AND age + 9223372036854775807 > 0",
    ]

    @Test(arguments: overflowing)
    func integerOverflowIsTheSameError(_ format: String) throws {
        let f = try Self.extremes()
        let answer = try Self.expectAgreement(format, in: f)
        guard case .error(let kind, let message) = answer else {
            Issue.record("\(format): \(answer)")
            return
        }
        #expect(kind == .integerOverflow, "\(format): \(message)")
        #expect(message.hasPrefix("integer overflow: "), "\(message)")
    }

    static let notOverflowing: [(String, [Int])] = [
        ("age != nil AND age * 1.0 + 1 > 9.2e18", [0]),
        ("age != nil AND modulus:by:(age, -1) == 0", [0, 1, 2, 3]),
        ("tags.@avg.weight > 3e18", [0, 2]),
        ("tags.@count == 3 AND tags.@sum.weight == 9223372036854775807", [2]),   // exact, though max + 1 is not
        ("tags.@count == 1 AND tags.@sum.weight == 1", [3]),
        ("age != nil AND age >> 63 == -1", [1]),
        ("age != nil AND 1 << 62 > age", [1, 2, 3]),
    ]

    @Test(arguments: notOverflowing.indices)
    func exactIntegerResultsAgree(_ i: Int) throws {
        let (format, rows) = Self.notOverflowing[i]
        let f = try Self.extremes()
        let answer = try Self.expectAgreement(format, in: f)
        #expect(answer == .rows(rows.map { f.ids[$0] }), "\(format)")
    }

    // MARK: item 16 and 18: errors that depend on no row, raised when compiling, in both

    static let compileTimeErrors: [(PredicateNode, PredicateEvaluationError.Kind)] = {
        func p(_ s: String) -> PredicateNode { try! PredicateNode(format: s) }
        let age = ExpressionNode.keyPath(["age"])
        return [
            (p("age > 9223372036854775807 + 1"), .integerOverflow),
            (p("age > 0 OR abs:(-9223372036854775808) > 0"), .integerOverflow),
            (p("{9223372036854775807, 1}.@sum == age"), .integerOverflow),
            (p("name MATCHES '('"), .invalidRegex),
            (p("ANY tags.name MATCHES '[a-'"), .invalidRegex),
            (p("5 < 'a'"), .incomparable),
            (p("age == 1 + 'a'"), .arithmetic),
            (.comparison(ComparisonNode(age, .between, .constant(18))), .badBetweenBounds),
            (.comparison(ComparisonNode(age, .between, .constant(.set([1, 2])))), .badBetweenBounds),
            (.comparison(ComparisonNode(age, .between, .aggregate([age]))), .badBetweenBounds),
            (.comparison(ComparisonNode(age, .between, .function(.add, [.constant([1, 2]), .constant(1)]))), .arithmetic),
        ]
    }()

    @Test(arguments: compileTimeErrors.indices)
    func rowIndependentErrorsRaiseWhenCompiling(_ i: Int) throws {
        let (node, kind) = Self.compileTimeErrors[i]
        let memory = try #require(throws: PredicateEvaluationError.self, "\(node)") { _ = try node.compiled(for: PredicateValue.self) }
        #expect(memory.kind == kind, "\(node): \(memory)")
        // The store: the same error from the SQL compiler, even with no rows at all.
        let empty = try PredicateStore.inMemory(PeopleModel.model)
        let e = try #require(throws: StoreError.self, "\(node)") { _ = try empty.sql(for: EntityQuery("Person", predicate: node)) }
        #expect(e.kind == .evaluation)
        #expect(e.evaluationError?.kind == kind, "\(node): \(e)")
        #expect(e.message == memory.message, "\(node)")
        #expect(e.hint == memory.hint, "\(node)")
        #expect(throws: StoreError.self) { _ = try empty.count(EntityQuery("Person", predicate: node)) }
    }

    /// Shortcuts the SQL compiler took (WHERE 0, a kind it knew) where the evaluator raises for
    /// some rows: each must raise the evaluator's error, from the rows that cause it.
    static let hiddenErrors: [(String, PredicateEvaluationError.Kind)] = [
        ("age BETWEEN {'x', nil}", .incomparable),
        ("photo BETWEEN {photo, nil}", .incomparable),
        ("age BETWEEN score", .badBetweenBounds),
        ("age BEGINSWITH ''", .typeMismatch),
        ("born ENDSWITH ''", .typeMismatch),
        ("'' IN age", .notACollection),
        ("nil == age + 1", .arithmetic),
        ("name == age * 2", .arithmetic),
        ("age + 1 < nil", .arithmetic),
        ("uppercase:(age) BEGINSWITH nil", .typeMismatch),
        ("nil IN {age + 1, 2}", .arithmetic),
        ("age - 1 IN {'a'}", .arithmetic),
        ("nil BETWEEN {age + 1, 2}", .arithmetic),
        ("tags.@sum.name == 0", .aggregate),
        ("tags.@avg.name > 1", .aggregate),
        ("tags.@sum.person == 0", .unsupported),
        ("born BEGINSWITH 'a'", .typeMismatch),
        ("active CONTAINS 'a'", .notACollection),
    ]

    @Test(arguments: hiddenErrors.indices)
    func errorsTheStoreUsedToHide(_ i: Int) throws {
        let (format, kind) = Self.hiddenErrors[i]
        let f = try PeopleModel.make(people: [["name": "a", "age": 3, "score": 1.5, "photo": .data(Data([1])), "born": .date(Date(timeIntervalSinceReferenceDate: 0)),
                                               "active": true],
                                              ["name": "b"]],
                                     companies: [], employer: [nil, nil], tags: [[["name": "x", "weight": 1]], []])
        let node = try PredicateNode(format: format)
        let m = Self.memory(node, f)
        if kind == .unsupported {
            // Related objects have no SQL form: the store refuses when compiling.
            #expect(throws: StoreError.self) { _ = try f.store.fetch(EntityQuery("Person", predicate: node)) }
            return
        }
        guard case .error(let k, _) = m else {
            Issue.record("memory did not raise for \(format): \(m)")
            return
        }
        #expect(k == kind, "\(format): \(m)")
        #expect(Self.store(node, f) == m, "\(format)")
    }

    /// A row-dependent error is raised by the rows that cause it: with none, no error, in both.
    @Test func rowDependentErrorsNeedARow() throws {
        let formats = ["age + 1 > 0", "age BETWEEN {'x', nil}", "age BEGINSWITH ''", "tags.@sum.name == 0", "name MATCHES email",
                       "sum:(tags.weight) > 0"]
        let empty = try PeopleModel.make(people: [], companies: [], employer: [], tags: [])
        for format in formats {
            #expect(try Self.expectAgreement(format, in: empty) == .rows([]), "\(format)")
        }
        // A row with no age, no email and no tags causes none of them but the first.
        let f = try PeopleModel.make(people: [["name": "a"]], companies: [], employer: [nil], tags: [[]])
        for format in formats.dropFirst() {
            let answer = try Self.expectAgreement(format, in: f)
            if case .error = answer { Issue.record("\(format) raised on a row that cannot cause it: \(answer)") }
        }
    }
}

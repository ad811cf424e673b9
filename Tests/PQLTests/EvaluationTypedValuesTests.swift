import Foundation
import Testing
@testable import PQL

// Typed values: one data set in four forms — a PredicateReadable struct (typed accessors and
// fast paths), its dictionary form as PredicateValue, [String: Any] (NSNull and missing keys),
// and a Codable twin read through EncodableValues — must give the same answers (D5, §6.9).

struct EvalAddress: PredicateReadable, Sendable {
    var city: String
    var zip: String?
    static let predicateKeys: PredicateKeys<EvalAddress> = ["city": .string { $0.city }, "zip": .string { $0.zip }]
}

struct EvalPerson: PredicateReadable, Sendable {
    var name: String
    var age: Int
    var score: Double
    var email: String?
    var tags: [String]
    var active: Bool
    var born: Date
    var address: EvalAddress

    static let predicateKeys: PredicateKeys<EvalPerson> = [
        "name": .string { $0.name }, "age": .int { $0.age }, "score": .double { $0.score },
        "email": .string { $0.email }, "tags": .strings { $0.tags }, "active": .bool { $0.active },
        "born": .date { $0.born }, "address": .object { $0.address },
    ]
}

struct EvalAddressRecord: Codable, Sendable {
    var city: String
    var zip: String?
}

struct EvalPersonRecord: Codable, Sendable {
    var name: String
    var age: Int
    var score: Double
    var email: String?
    var tags: [String]
    var active: Bool
    var born: Date
    var address: EvalAddressRecord
}

@Suite("Evaluation: typed values, dictionaries, Codable (§6.9, D5)")
struct EvaluationTypedValuesTests {
    static func date(_ s: String) -> Date { ISO8601.date(from: s)! }

    static let people: [EvalPerson] = [
        EvalPerson(name: "Ann", age: 30, score: 3.0, email: "ann@x.org", tags: ["vip", "new"], active: true,
                   born: date("1994-05-01T00:00:00Z"), address: EvalAddress(city: "Paris", zip: "75001")),
        EvalPerson(name: "Bob", age: 17, score: 2.5, email: nil, tags: [], active: false,
                   born: date("2007-01-01T00:00:00Z"), address: EvalAddress(city: "Lyon", zip: nil)),
        EvalPerson(name: "Éve", age: 45, score: 4.75, email: "eve@y.com", tags: ["vip"], active: true,
                   born: date("1979-03-03T00:00:00Z"), address: EvalAddress(city: "paris", zip: "75002")),
        EvalPerson(name: "Zoe\u{308}", age: 30, score: 1.0, email: "z@z.org", tags: ["new", "Vip"], active: false,
                   born: date("1994-05-01T12:00:00Z"), address: EvalAddress(city: "Oslo", zip: nil)),
        EvalPerson(name: "cy", age: 0, score: 0.0, email: nil, tags: ["v1", "v2"], active: true,
                   born: date("2000-01-01T00:00:00Z"), address: EvalAddress(city: "", zip: "0150")),
    ]

    /// The dictionary form, written out by hand (not through `predicateValue`).
    static var values: [PredicateValue] {
        people.map { p in
            .dictionary([
                "name": .string(p.name), "age": .int(Int64(p.age)), "score": .double(p.score),
                "email": p.email.map(PredicateValue.string) ?? .null, "tags": .array(p.tags.map(PredicateValue.string)),
                "active": .bool(p.active), "born": .date(p.born),
                "address": .dictionary(["city": .string(p.address.city), "zip": p.address.zip.map(PredicateValue.string) ?? .null]),
            ])
        }
    }

    /// `[String: Any]`, with NSNull for some nils and absent keys for others.
    static var anyDictionaries: [[String: Any]] {
        people.enumerated().map { i, p in
            var d: [String: Any] = ["name": p.name, "age": p.age, "score": p.score, "tags": p.tags,
                                    "active": p.active, "born": p.born]
            if let e = p.email { d["email"] = e } else if i % 2 == 1 { d["email"] = NSNull() }
            var a: [String: Any] = ["city": p.address.city]
            if let z = p.address.zip { a["zip"] = z } else if i == 1 { a["zip"] = NSNull() }
            d["address"] = a
            return d
        }
    }

    static var records: [EvalPersonRecord] {
        people.map {
            EvalPersonRecord(name: $0.name, age: $0.age, score: $0.score, email: $0.email, tags: $0.tags, active: $0.active,
                             born: $0.born, address: EvalAddressRecord(city: $0.address.city, zip: $0.address.zip))
        }
    }

    static let sharedArguments: [String: [PredicateValue]] = [
        "born < %@": [.date(date("1994-05-01T06:00:00Z"))],
        "born == %@": [.date(date("1994-05-01T00:00:00Z"))],
    ]
    static let variables: [String: PredicateValue] = ["A": .date(date("1990-01-01T00:00:00Z")), "B": .date(date("2000-01-01T00:00:00Z"))]

    /// (predicate, matching indices in `people`).
    static let table: [(String, [Int])] = [
        ("age > 30", [2]),
        ("age >= 30 AND age <= 40", [0, 3]),
        ("age BETWEEN {20, 40}", [0, 3]),
        ("age BETWEEN {40, 20}", [0, 3]),
        ("age BETWEEN {17, 30.5}", [0, 1, 3]),
        ("age == 30.0", [0, 3]),
        ("age IN {17, 45}", [1, 2]),
        ("age != 30", [1, 2, 4]),
        ("age == NO", [4]),
        ("age < 1", [4]),
        ("age == nil", []),
        ("score > 2.5", [0, 2]),
        ("score <= 3", [0, 1, 3, 4]),
        ("score == 3", [0]),
        ("score BETWEEN {1, 3}", [0, 1, 3]),
        ("score * 10 > age", [1, 2]),
        ("name == 'Ann'", [0]),
        ("name ==[c] 'ANN'", [0]),
        ("name BEGINSWITH 'A'", [0]),
        ("name BEGINSWITH[cd] 'e'", [2]),
        ("name ENDSWITH 'e'", [2]),
        ("name ENDSWITH[d] 'e'", [2, 3]),
        ("name CONTAINS[c] 'O'", [1, 3]),
        ("name LIKE '?o*'", [1, 3]),
        ("name MATCHES '[A-Z].*'", [0, 1, 3]),
        ("name IN {'Ann', 'Éve'}", [0, 2]),
        ("name IN {'Zo\u{EB}'}", []),
        ("name ==[c] 'zo\u{EB}'", [3]),
        ("name IN[c] {'ann'}", [0]),
        ("name < 'C'", [0, 1]),
        ("name != 'Ann'", [1, 2, 3, 4]),
        ("name ==[cd] 'EVE'", [2]),
        ("name.length == 3", [0, 1, 2]),
        ("lowercase(name) == 'ann'", [0]),
        ("email == nil", [1, 4]),
        ("email != nil", [0, 2, 3]),
        ("email ENDSWITH '.org'", [0, 3]),
        ("email != 'z@z.org'", [0, 1, 2, 4]),
        ("email CONTAINS ''", []),
        ("email LIKE '*@*'", [0, 2, 3]),
        ("email MATCHES '.*@.*\\\\.org'", [0, 3]),
        ("email BEGINSWITH[c] 'ANN'", [0]),
        ("ANY tags == 'vip'", [0, 2]),
        ("ANY tags ==[c] 'VIP'", [0, 2, 3]),
        ("ALL tags BEGINSWITH 'v'", [1, 2, 4]),
        ("NONE tags == 'vip'", [1, 3, 4]),
        ("tags CONTAINS 'new'", [0, 3]),
        ("'vip' IN tags", [0, 2]),
        ("ANY tags IN {'new', 'v2'}", [0, 3, 4]),
        ("tags.@count == 0", [1]),
        ("tags.@count > 1", [0, 3, 4]),
        ("SUBQUERY(tags, $t, $t BEGINSWITH 'v').@count > 0", [0, 2, 4]),
        ("active == YES", [0, 2, 4]),
        ("active == 1", [0, 2, 4]),
        ("active != NO", [0, 2, 4]),
        ("active == nil", []),
        ("active == TRUE AND age > 20", [0, 2]),
        ("score > 2 AND NOT active == YES", [1]),
        ("born < %@", [0, 2]),
        ("born == %@", [0]),
        ("born > CAST(0, 'NSDate')", [1]),
        ("born BETWEEN {$A, $B}", [0, 3, 4]),
        ("address.city == 'Paris'", [0]),
        ("address.city ==[c] 'paris'", [0, 2]),
        ("address.city IN {'Oslo', 'Lyon'}", [1, 3]),
        ("address.city == ''", [4]),
        ("address.zip == nil", [1, 3]),
        ("address.zip BEGINSWITH '750'", [0, 2]),
        ("TERNARY(age > 20, name, email) != nil", [0, 2, 3]),
        ("age + 1 > 30", [0, 2, 3]),
        ("age * score > 50", [0, 2]),
        ("SELF.age > 20", [0, 2, 3]),
        ("age > 18 OR email == nil", [0, 1, 2, 3, 4]),
        ("NOT (age > 18 OR email == nil)", []),
    ]

    static func node(_ format: String) throws -> PredicateNode {
        try PredicateNode(format: format, argumentArray: (sharedArguments[format] ?? []).map { $0 as Any? })
    }

    @Test("the struct, its dictionary form, [String: Any] and Codable agree", arguments: table.indices)
    func fourFormsAgree(_ i: Int) throws {
        let (format, expected) = Self.table[i]
        let p = try Self.node(format)
        let typed = try Self.people.indices(matching: p.compiled(for: EvalPerson.self), variables: Self.variables)
        let values = try Self.values.indices(matching: p.compiled(for: PredicateValue.self), variables: Self.variables)
        let dicts = try Self.anyDictionaries.indices(matching: p.compiled(for: [String: Any].self), variables: Self.variables)
        let coded = try Self.records.indices(matching: CompiledPredicate(p, reader: EncodableValues.reader(for: EvalPersonRecord.self)),
                                             variables: Self.variables)
        // and the struct's own predicateValue, read as JSON-shaped data
        let own = try Self.people.map(\.predicateValue).indices(matching: p.compiled(for: PredicateValue.self), variables: Self.variables)
        #expect(typed == expected, "struct: \(format)")
        #expect(values == expected, "PredicateValue: \(format)")
        #expect(dicts == expected, "[String: Any]: \(format)")
        #expect(coded == expected, "Codable: \(format)")
        #expect(own == expected, "predicateValue: \(format)")
    }

    @Test("filter(_:) on the struct keeps the matching elements in order")
    func filterStructs() throws {
        let adults = try Self.people.filter(PredicateNode(format: "age >= 18 AND ANY tags ==[c] 'vip'"))
        #expect(adults.map(\.name) == ["Ann", "Éve", "Zoe\u{308}"])
        let none = try Self.people.filter(PredicateNode(format: "FALSEPREDICATE"))
        #expect(none.isEmpty)
    }

    @Test("an unknown key on a typed value is an error at compile time, with the nearest keys")
    func unknownKeyTyped() throws {
        let e = evaluationError { try PredicateNode(format: "nmae == 'x'").compiled(for: EvalPerson.self) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.message.contains("nmae") == true)
        #expect(e?.message.contains("EvalPerson") == true)
        #expect(e?.hint?.contains("name") == true)
        #expect(e?.context == "nmae == \"x\"")

        let f = evaluationError { try PredicateNode(format: "age > 1 AND agee < 3").compiled(for: EvalPerson.self) }
        #expect(f?.kind == .unknownKey)
        #expect(f?.hint?.contains("age") == true)

        // no near name: the hint lists the keys
        let g = evaluationError { try PredicateNode(format: "qqqqqqqqqqqq == 1").compiled(for: EvalPerson.self) }
        #expect(g?.kind == .unknownKey)
        #expect(g?.hint?.contains("address") == true)

        // inside a SUBQUERY, TERNARY or function argument too, and for an empty collection
        for f in ["SUBQUERY(tags, $t, $t == nmae).@count > 0", "TERNARY(agee > 1, 1, 2) == 1", "abs(scor) > 1"] {
            let e = evaluationError { try [EvalPerson]().filter(PredicateNode(format: f)) }
            #expect(e?.kind == .unknownKey, "\(f)")
        }
    }

    @Test("a Codable value equals its own sub-second dates")
    func codableDatePrecision() throws {
        struct Stamp: Codable { var at: Date; var dates: [Date] }
        let reader = EncodableValues.reader(for: Stamp.self)
        for t in [767_750_400.123456789, 1000.9999996, -0.25, 1e-7, 1_700_000_000.000_000_1] {
            let d = Date(timeIntervalSince1970: t)
            let stamp = Stamp(at: d, dates: [d, d.addingTimeInterval(1e-6)])
            let same = try CompiledPredicate(PredicateNode(format: "at == %@ AND ANY dates == %@", d, d), reader: reader)
            #expect(try same.evaluate(stamp), "\(t)")
            let later = try CompiledPredicate(PredicateNode(format: "at < %@ AND dates[1] > at", d.addingTimeInterval(1e-6)), reader: reader)
            #expect(try later.evaluate(stamp), "\(t)")
        }
    }

    @Test("an unknown key through EncodableValues is an error naming the nearest key")
    func unknownKeyCodable() throws {
        let p = try CompiledPredicate(PredicateNode(format: "nmae == 'x'"), reader: EncodableValues.reader(for: EvalPersonRecord.self))
        let e = evaluationError { try p.evaluate(Self.records[0]) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.hint?.contains("name") == true)
        // an optional property that is nil is not unknown
        let q = try CompiledPredicate(PredicateNode(format: "email == nil"), reader: EncodableValues.reader(for: EvalPersonRecord.self))
        #expect(try q.evaluate(Self.records[1]))
    }

    @Test("a missing key on a dictionary is nil, not an error (D5)")
    func missingKeyDictionaries() throws {
        let p = try PredicateNode(format: "nmae == nil AND nmae != 'x'")
        #expect(try p.evaluate(on: Self.values[0]))
        #expect(try p.evaluate(on: Self.anyDictionaries[0]))
    }

    @Test("a nested typed value reports an unknown key too (D5)")
    func unknownNestedKey() throws {
        // Nested PredicateReadable keys are checked when compiling, like top-level ones.
        let e = evaluationError { try PredicateNode(format: "address.cty == 'Paris'").compiled(for: EvalPerson.self).evaluate(Self.people[0]) }
        #expect(e?.kind == .unknownKey)
        #expect(e?.message.contains("EvalAddress has no key 'cty'") == true)
        #expect(e?.hint?.contains("city") == true)
        #expect(try PredicateNode(format: "address.city == 'Paris'").compiled(for: EvalPerson.self).evaluate(Self.people[0]))
        // Codable types have no key table: a nested key the encoder did not write reads as nil.
        withKnownIssue("nested Codable keys are not checked") {
            let p = try CompiledPredicate(PredicateNode(format: "address.cty == 'Paris'"), reader: EncodableValues.reader(for: EvalPersonRecord.self))
            let e = evaluationError { try p.evaluate(Self.records[0]) }
            #expect(e?.kind == .unknownKey)
        }
    }

    @Test("a typed fast path and the general path agree on NaN")
    func nanFastPath() throws {
        // NaN is unordered on both paths: every ordering with it is false.
        var p = Self.people[0]
        p.score = .nan
        let typed = evalOutcome(try PredicateNode(format: "score < 2"), on: p)
        var d = Self.values[0]
        if case .dictionary(var m) = d { m["score"] = .double(.nan); d = .dictionary(m) }
        let general = evalOutcome(try PredicateNode(format: "score < 2"), on: d)
        #expect(typed.outcome == general.outcome)
        #expect(typed.outcome == .value(false))
    }

    @Test("[String: Any] with a value that has no predicate value is a type mismatch")
    func unconvertible() throws {
        final class Opaque {}
        let d: [String: Any] = ["x": Opaque(), "y": 1]
        let e = evaluationError { try PredicateNode(format: "x == 1").evaluate(on: d) }
        #expect(e?.kind == .typeMismatch)
        // keys that are not read are never converted
        #expect(try PredicateNode(format: "y == 1").evaluate(on: d))
    }

    @Test("scalars evaluate as themselves")
    func scalarRoots() throws {
        #expect(try [1, 5, 7, -2].filter(PredicateNode(format: "SELF > 3")) == [5, 7])
        #expect(try ["apple", "Avocado", "banana"].filter(PredicateNode(format: "SELF BEGINSWITH[c] 'a'")) == ["apple", "Avocado"])
        #expect(try [0.5, 1.5, 2.5].filter(PredicateNode(format: "SELF BETWEEN {1, 2}")) == [1.5])
        #expect(try [true, false, true].indices(matching: PredicateNode(format: "SELF == YES").compiled(for: Bool.self)) == [0, 2])
        let decimals = [Decimal(string: "2.5")!, Decimal(1)]
        #expect(try decimals.filter(PredicateNode(format: "SELF == 2.5")) == [decimals[0]])
        let dates = [Self.date("2000-01-01T00:00:00Z"), Self.date("2002-01-01T00:00:00Z")]
        #expect(try dates.filter(PredicateNode(format: "SELF > CAST(0, 'NSDate')")) == [dates[1]])
        #expect(try PredicateNode(format: "SELF.length == 5").evaluate(on: "héllo"))
    }
}

import CSQLite
import Foundation
import PQL
@testable import PQLStore
import PQLTestSupport
import Testing

/// The structural property behind "no injection" (reference §5.1, §8.1): whatever text, argument,
/// variable or key path a caller passes, the SQL *text* the store compiles is the text it
/// compiles for a benign value in the same place. Values reach SQLite only as bound
/// parameters; identifiers come only from the model. The one spelling a value can choose is
/// the store's own: `+` before a column whose range it counted as too broad for its index
/// (README, "Indexes and plans"), which the comparison sets aside (`withoutIndexChoice`). (HostileInputTests checks that the rows
/// and the data come out right; this suite checks the statement itself.)
///
/// It also opens hostile SQLite files (a saved model that is garbage or names hostile tables,
/// tables whose own names are hostile, damaged pages) and reads hostile JSON: each works
/// safely or fails with a typed error.
@Suite("Injection cannot change SQL structure")
struct InjectionStructureTests {
    // MARK: - Payloads

    /// A hostile value, with a printable label for the test list.
    struct Payload: Sendable, CustomTestStringConvertible {
        let text: String
        var testDescription: String {
            let shown = text.unicodeScalars.prefix(28).map { u -> String in
                u.value >= 0x20 && u.value < 0x7F ? String(u) : "\\u{\(String(u.value, radix: 16, uppercase: true))}"
            }.joined()
            return text.unicodeScalars.count > 28 ? "\(shown)… (\(text.unicodeScalars.count) scalars)" : shown
        }
    }

    static let hostileTexts: [String] = [
        // quote breaking and statement stacking
        "'", "\"", "`", "''", "\"\"", "\\'", "\\\"", #"'); DROP TABLE "Person"; --"#, "' OR 1=1 --", "\" OR 1=1 --",
        "' OR '1'='1", "x' UNION SELECT name, sql FROM sqlite_schema --", "; DELETE FROM \"Tag\"; --", ";", "--", "/*", "*/",
        "/* x */ OR 1=1", "') OR ('1'='1",
        // NUL and control characters
        "\u{0}", "a\u{0}b", "x\u{0}' OR 1=1 --", "\u{0}\"; DROP TABLE \"Tag\"; --", "a\nb\r\n\t\u{7}\u{1B}[2J",
        // format specifiers, variables and escaped words of the predicate language itself
        "%@ %K %%", "%d %s %i %f %@ %@", "$x", "$minimum", "$v", "#AND", "#SELECT", "#\"x\"", "SELF", "TRUEPREDICATE",
        "ANY name == 1", "SUBQUERY(tags, $t, TRUEPREDICATE)",
        // SQL keywords, parameters and names
        "SELECT", "DROP TABLE Person", "NULL", "?", "?1", "?999", ":name", "@x", "$1", "\"Z_PK\"", "Z_PK", "rowid",
        "sqlite_schema", "t0.\"name\"", "]", "[", "[c]", "pql_search(1, 0, 'a', 'b')",
        // escapes that mean something elsewhere
        "\\", "\\\\", "\\u0027", "\\x27", "\\0", "\\n", "%27", "&#39;", "\\uD800", "\\uDC00",
        // Unicode look-alikes of quotes, semicolons and slashes, and other tricky scalars
        "\u{FF07}", "\u{FF02}", "\u{2018}x\u{2019}", "\u{201C}x\u{201D}", "\u{02BC}", "\u{FE68}", "\u{037E}", "\u{FF1B}",
        "\u{2215}", "\u{2044}", "\u{FF0D}\u{FF0D}", "e\u{301}\u{301}\u{301}", "\u{202E}'; DROP TABLE Person; --",
        "a\u{200D}b", "\u{200B}", "\u{FEFF}", "\u{FEFF}'", "\u{FFFD}", "\u{D7FF}\u{E000}", "\u{1F600}\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
        "\u{10FFFF}", "x\u{10FFFF}", "\u{E0027}", "İ", "ß", "ﬃ",
        // length
        String(repeating: "'", count: 10_000), String(repeating: "A", count: 100_000) + "'); DROP TABLE \"Person\"; --",
    ]

    static let payloads = hostileTexts.map { Payload(text: $0) }

    /// A benign value that must compile to the same SQL text as `p` in every position. Only a
    /// prefix ending in U+10FFFF (the last scalar, which has no successor) takes another
    /// (equally bound) form of BEGINSWITH, so its benign twin ends the same way.
    static func benign(for p: String) -> String { p.unicodeScalars.last == "\u{10FFFF}" ? "x\u{10FFFF}" : "x" }

    // MARK: - Predicate shapes and how a payload enters them

    /// A predicate with `@@` where the payload goes (possibly several times).
    struct Shape: CustomStringConvertible {
        let template: String
        /// Whether the SQL text must be byte-identical for every payload. BEGINSWITH[c] with a
        /// constant compiles to one index range per scalar a match can start with, so its
        /// number of bound ranges depends on the prefix; it gets the token check only.
        var exact = true
        /// The payload enters as an element of a collection (`IN`).
        var inList = false
        var description: String { template }
        var occurrences: Int { template.components(separatedBy: "@@").count - 1 }
    }

    static let shapes: [Shape] = [
        Shape(template: "name == @@"), Shape(template: "name != @@"), Shape(template: "name ==[cd] @@"),
        Shape(template: "name CONTAINS @@"), Shape(template: "name CONTAINS[c] @@"), Shape(template: "name BEGINSWITH @@"),
        Shape(template: "name BEGINSWITH[c] @@", exact: false), Shape(template: "name ENDSWITH[cd] @@"),
        Shape(template: "name LIKE @@"), Shape(template: "name LIKE[c] @@"), Shape(template: "name MATCHES @@"),
        Shape(template: "city < @@"), Shape(template: "name IN @@", inList: true), Shape(template: "ANY tags.name == @@"),
        Shape(template: "employer.name BEGINSWITH @@"), Shape(template: "SUBQUERY(tags, $t, $t.name LIKE[c] @@).@count > 0"),
        Shape(template: "uppercase(name) == @@"), Shape(template: "(name == @@ OR email ENDSWITH @@) AND NOT (city BEGINSWITH @@)"),
    ]

    enum Route: String, CaseIterable {
        /// A string constant written in the predicate text (printed as the canonical printer quotes it).
        case text
        /// A `%@` argument (an array argument for `IN`).
        case argument
        /// A `$v` variable given to the query.
        case variable
        /// A `$v` variable of a fetch template, through `FetchTemplate.query(variables:)`.
        case template
    }

    /// The query with `value` in every `@@` of `shape`, entering by `route`; also the
    /// predicate the evaluator runs for the same meaning.
    static func query(_ shape: Shape, _ value: String, _ route: Route) throws -> (EntityQuery, PredicateNode) {
        let list: [Any?] = [value, "nobody"]
        let listValue = PredicateValue.array([.string(value), "nobody"])
        switch route {
        case .text:
            let literal = PredicateValue.string(value).description
            let format = shape.template.replacingOccurrences(of: "@@", with: shape.inList ? "{\(literal), \"nobody\"}" : literal)
            return (try EntityQuery("Person", where: format), try PredicateNode(format: format))
        case .argument:
            let format = shape.template.replacingOccurrences(of: "@@", with: "%@")
            let args: [Any?] = Array(repeating: shape.inList ? list : value, count: shape.occurrences)
            return (try EntityQuery("Person", where: format, args), try PredicateNode(format: format, argumentArray: args))
        case .variable, .template:
            let format = shape.template.replacingOccurrences(of: "@@", with: "$v")
            // A variable named like the payload is never referenced: its name and value must not matter.
            var variables: [String: PredicateValue] = [value: .string(value)]
            variables["v"] = shape.inList ? listValue : .string(value)
            let node = try PredicateNode(format: format).substituting(variables)
            if route == .variable { return (try EntityQuery("Person", where: format, variables: variables), node) }
            return (try FetchTemplate(name: "T", entity: "Person", predicate: format).query(variables: variables), node)
        }
    }

    // MARK: - The structural check

    /// Whether two strings have the same UTF-8 bytes (Swift's `==` is canonical equivalence:
    /// `"é" == "e\u{301}"`, which must not hide a difference in SQL text).
    static func sameBytes(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// `sql` without the `+` the store writes before a column (`+t0."age"`) to keep SQLite
    /// from searching the column's index for a range that matches too many rows: how many a
    /// value matches decides it, so a hostile value and its benign twin may differ there.
    static func withoutIndexChoice(_ sql: String) -> String {
        let b = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        for i in b.indices {
            if b[i] == UInt8(ascii: "+"), i + 2 < b.count, b[i + 1] == UInt8(ascii: "t"), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i + 2]),
               i > 0, b[i - 1] == UInt8(ascii: " ") || b[i - 1] == UInt8(ascii: "(") {
                continue
            }
            out.append(b[i])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytesContain(_ haystack: String, _ needle: String) -> Bool {
        let h = Array(haystack.utf8), n = Array(needle.utf8)
        guard !n.isEmpty, n.count <= h.count else { return n.isEmpty }
        for i in 0...(h.count - n.count) where h[i] == n[0] && h[i..<(i + n.count)].elementsEqual(n) { return true }
        return false
    }

    static func isBound(_ value: String, in bindings: [SQLValue]) -> Bool {
        bindings.contains { if case .text(let s) = $0 { return sameBytes(s, value) } else { return false } }
    }

    /// The SQL words the compiler emits; anything else (DROP, UNION, ATTACH, PRAGMA, …) would
    /// be text that came from elsewhere.
    static let sqlWords: Set<String> = [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "IS", "NULL", "LEFT", "JOIN", "ON", "AS", "ORDER", "BY",
        "ASC", "DESC", "LIMIT", "OFFSET", "CASE", "WHEN", "THEN", "ELSE", "END", "EXISTS", "DISTINCT", "BETWEEN",
        "COLLATE", "coalesce", "count", "COUNT", "substr", "total", "sum", "min", "max", "avg",
    ]

    /// Every identifier the model can contribute to SQL.
    static func identifiers(of model: StoreModel) -> Set<[UInt8]> {
        var names: Set<String> = [StoreSchema.entityColumn, "rowid"]
        for e in model.entities {
            names.insert(e.table)
            names.insert(e.primaryKey)
            for a in e.attributes { names.insert(a.column) }
            for r in e.relationships {
                names.insert(r.foreignKeyColumn)
                if let c = r.referencedColumn { names.insert(c) }
            }
        }
        return Set(names.map { Array($0.utf8) })
    }

    /// Reads SQL text as tokens and lists what no compiled statement may contain: a string
    /// literal, a statement separator, a comment, a word the compiler does not write, an
    /// identifier the model lacks, or a parameter with no binding.
    static func structuralProblems(in sql: String, bindings: Int, identifiers: Set<[UInt8]>) -> [String] {
        let b = Array(sql.utf8)
        var problems: [String] = []
        var i = 0
        func isWordByte(_ c: UInt8) -> Bool { c == 0x5F || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x20, 0x0A, 0x09, 0x0D:
                i += 1
            case UInt8(ascii: "\""):
                var name: [UInt8] = []
                var j = i + 1
                var closed = false
                while j < b.count {
                    if b[j] == UInt8(ascii: "\"") {
                        if j + 1 < b.count, b[j + 1] == UInt8(ascii: "\"") { name.append(b[j]); j += 2; continue }
                        closed = true
                        break
                    }
                    name.append(b[j])
                    j += 1
                }
                if !closed { problems.append("an unterminated quoted identifier at byte \(i)") }
                if !identifiers.contains(name) { problems.append("identifier \"\(String(decoding: name, as: UTF8.self))\" is not the model's") }
                i = j + 1
            case UInt8(ascii: "'"):
                problems.append("a string literal at byte \(i)")
                i += 1
            case UInt8(ascii: "?"):
                var j = i + 1
                var n = 0
                while j < b.count, b[j] >= 0x30, b[j] <= 0x39, n < 1_000_000 { n = n * 10 + Int(b[j] - 0x30); j += 1 }
                if n < 1 || n > bindings { problems.append("parameter ?\(n) has no binding (\(bindings) bound)") }
                i = j
            case UInt8(ascii: ";"):
                problems.append("a statement separator at byte \(i)")
                i += 1
            case UInt8(ascii: "-") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "-"):
                problems.append("a -- comment at byte \(i)")
                i += 2
            case UInt8(ascii: "/") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "*"),
                 UInt8(ascii: "*") where i + 1 < b.count && b[i + 1] == UInt8(ascii: "/"):
                problems.append("a block comment at byte \(i)")
                i += 2
            case _ where c >= 0x30 && c <= 0x39:
                while i < b.count, isWordByte(b[i]) || b[i] == UInt8(ascii: ".") { i += 1 }
            case _ where isWordByte(c):
                var j = i
                while j < b.count, isWordByte(b[j]) { j += 1 }
                let word = String(decoding: b[i..<j], as: UTF8.self)
                let isAlias = word.first == "t" && word.count > 1 && word.dropFirst().allSatisfy(\.isNumber)
                if !(sqlWords.contains(word) || isAlias || word.lowercased().hasPrefix("pql_")) {
                    problems.append("the word \(word) is not one the compiler writes")
                }
                i = j
            case _ where Array("(),.=<>!*+-|%/&~".utf8).contains(c):
                i += 1
            default:
                problems.append("byte 0x\(String(c, radix: 16)) at \(i) outside identifiers")
                i += 1
            }
        }
        return problems
    }

    /// Checks the compiled statement of a hostile payload against its benign twin.
    static func expectSameStructure(_ hostile: CompiledSQL, _ benign: CompiledSQL, payload: String, exact: Bool,
                                    identifiers: Set<[UInt8]>, _ context: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        if exact {
            #expect(sameBytes(withoutIndexChoice(hostile.sql), withoutIndexChoice(benign.sql)), "\(context): the SQL text changed\n\(hostile.sql)\n\(benign.sql)",
                    sourceLocation: sourceLocation)
            #expect(hostile.bindings.count == benign.bindings.count, "\(context)", sourceLocation: sourceLocation)
        }
        let problems = structuralProblems(in: hostile.sql, bindings: hostile.bindings.count, identifiers: identifiers)
        #expect(problems.isEmpty, "\(context): \(problems)\n\(hostile.sql)", sourceLocation: sourceLocation)
        #expect(isBound(payload, in: hostile.bindings), "\(context): the payload is not among the bindings", sourceLocation: sourceLocation)
        if !bytesContain(benign.sql, payload) {
            #expect(!bytesContain(hostile.sql, payload), "\(context): the payload is in the SQL text", sourceLocation: sourceLocation)
        }
    }

    /// The fixture's keys of the people `node` holds for, as the evaluator decides.
    static func evaluated(_ node: PredicateNode, _ f: PeopleModel.Fixture) -> Result<[Int64], any Error> {
        Result { try f.people.indices.filter { try node.evaluate(on: f.people[$0]) }.map { f.ids[$0] } }
    }

    /// Runs the query and compares it with the evaluator: the same rows when the evaluator
    /// answers; when it raises (an invalid regex), the store answers or raises a StoreError.
    static func expectRuns(_ q: EntityQuery, like node: PredicateNode, _ f: PeopleModel.Fixture, _ context: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let want = evaluated(node, f)
        do {
            let got = try f.store.fetch(q).map(\.id).sorted()
            if case .success(let ids) = want {
                #expect(got == ids.sorted(), "\(context): the store and the evaluator disagree", sourceLocation: sourceLocation)
            }
        } catch {
            if case .success = want {
                Issue.record("\(context): the evaluator answers but the store raised \(error)", sourceLocation: sourceLocation)
            }
            #expect(error.kind == .evaluation && !error.message.isEmpty, "\(context): \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - 1 and 3: values through text, arguments, variables, lists and pattern operands

    @Test("a value never changes the SQL text", arguments: payloads)
    func valuesOnlyReachBindings(_ payload: Payload) throws {
        let f = try HostileInputTests.fixture()
        let ids = Self.identifiers(of: f.store.model)
        let p = payload.text, x = Self.benign(for: p)
        for shape in Self.shapes {
            for route in Route.allCases {
                let context = "\(route) \(shape)"
                let hostile: (EntityQuery, PredicateNode), benign: (EntityQuery, PredicateNode)
                do {
                    hostile = try Self.query(shape, p, route)
                    benign = try Self.query(shape, x, route)
                } catch {
                    Issue.record("\(context): does not parse: \(error)")
                    continue
                }
                do {
                    let h = try f.store.sql(for: hostile.0), b = try f.store.sql(for: benign.0)
                    Self.expectSameStructure(h, b, payload: p, exact: shape.exact, identifiers: ids, context)
                    // count() compiles its own statement.
                    let hc = try f.store.countSQL(for: hostile.0), bc = try f.store.countSQL(for: benign.0)
                    if shape.exact { #expect(Self.sameBytes(Self.withoutIndexChoice(hc.sql), Self.withoutIndexChoice(bc.sql)), "\(context): count SQL changed") }
                } catch {
                    // A payload that is no valid MATCHES pattern fails when compiling, in
                    // memory and in the store alike, with the evaluator's error: no SQL exists.
                    let inMemory = Result { try hostile.1.compiled(for: PredicateValue.self) }
                    if case .failure(let m as PredicateEvaluationError) = inMemory, error.evaluationError?.message == m.message {
                        continue
                    }
                    Issue.record("\(context): does not compile: \(error)")
                    continue
                }
                Self.expectRuns(hostile.0, like: hostile.1, f, context)
            }
        }
        try HostileInputTests.expectIntact(f.store)
    }

    @Test("a template variable, the model's own template, and variables named like payloads", arguments: payloads)
    func modelTemplateVariables(_ payload: Payload) throws {
        let f = try HostileInputTests.fixture()
        let ids = Self.identifiers(of: f.store.model)
        let p = payload.text
        // `age > $minimum` with a string: the evaluator's own comparison decides, row by row.
        let olderThan = try f.store.model.template(named: "OlderThan")
        let h = try f.store.sql(for: try olderThan.query(variables: ["minimum": .string(p)]))
        let b = try f.store.sql(for: try olderThan.query(variables: ["minimum": .string(Self.benign(for: p))]))
        Self.expectSameStructure(h, b, payload: p, exact: true, identifiers: ids, "OlderThan")
        do {
            _ = try f.store.fetch(template: "OlderThan", variables: ["minimum": .string(p)])
        } catch {
            #expect(error.kind == .evaluation && !error.message.isEmpty, "\(error)")
        }
        // A value that looks like a variable is not substituted again.
        let q = try EntityQuery("Person", where: "name == $v", variables: ["v": .string("$w"), "w": .string(p)])
        #expect(try f.store.sql(for: q).bindings == [.text("$w")])
        try HostileInputTests.expectIntact(f.store)
    }

    @Test("collections as variables: arrays, sets and dictionaries of payloads", arguments: payloads)
    func collectionVariables(_ payload: Payload) throws {
        let f = try HostileInputTests.fixture()
        let ids = Self.identifiers(of: f.store.model)
        let p = payload.text, x = Self.benign(for: p)
        let forms: [(String, (String) -> PredicateValue)] = [
            ("array", { .array([.string($0), .string($0 + "'")]) }),
            ("set", { .set([.string($0)]) }),
            ("dictionary", { .dictionary(["k": .string($0)]) }),
            ("dictionary keyed by the payload", { .dictionary([$0: .string($0)]) }),
            ("nested array", { .array([.array([.string($0)]), .string($0)]) }),
        ]
        for (label, make) in forms {
            // Membership: the elements are bound one by one.
            let hostile = try EntityQuery("Person", where: "name IN $v", variables: ["v": make(p)])
            let benign = try EntityQuery("Person", where: "name IN $v", variables: ["v": make(x)])
            let h = try f.store.sql(for: hostile), b = try f.store.sql(for: benign)
            Self.expectSameStructure(h, b, payload: p, exact: true, identifiers: ids, "IN $v, \(label)")
            Self.expectRuns(hostile, like: try PredicateNode(format: "name IN $v").substituting(["v": make(p)]), f, "IN $v, \(label)")
            // Equality with a collection has no SQL form: the same error for any payload.
            let eq = { (v: String) -> StoreError? in
                do {
                    _ = try f.store.sql(for: try EntityQuery("Person", where: "name == $v", variables: ["v": make(v)]))
                    return nil
                } catch let e as StoreError { return e } catch { return nil }
            }
            let he = eq(p), be = eq(x)
            #expect(he != nil && he?.kind == be?.kind && he?.message == be?.message, "== $v, \(label): \(String(describing: he)) vs \(String(describing: be))")
        }
        try HostileInputTests.expectIntact(f.store)
    }

    // MARK: - The check itself can fail

    @Test func theStructuralCheckSeesDifferences() throws {
        let f = try HostileInputTests.fixture()
        let ids = Self.identifiers(of: f.store.model)
        let sql = { (format: String, args: [Any?]) throws -> CompiledSQL in try f.store.sql(for: EntityQuery("Person", where: format, args)) }
        // Different predicates give different SQL text, so byte equality is a real test.
        #expect(!Self.sameBytes(try sql("name == %@", ["x"]).sql, try sql("city == %@", ["x"]).sql))
        #expect(!Self.sameBytes(try sql("name == %@", ["x"]).sql, try sql("name != %@", ["x"]).sql))
        #expect(!Self.sameBytes(try sql("name == 'x'", []).sql, try sql("name == 'x' OR age > 1", []).sql))
        #expect(!Self.sameBytes(try sql("name IN %@", [["x"]]).sql, try sql("name IN %@", [["x", "y"]]).sql))
        // …while the same predicate with other values gives the same text.
        #expect(Self.sameBytes(try sql("name == %@", ["x"]).sql, try sql("name == %@", ["'"]).sql))
        // Byte comparison, not Swift's canonical equivalence.
        #expect("\u{E9}" == "e\u{301}")
        #expect(!Self.sameBytes("\u{E9}", "e\u{301}"))
        #expect(!Self.isBound("e\u{301}", in: [.text("\u{E9}")]))
        // The token check accepts compiled SQL and catches every kind of foreign text.
        let good = try sql("(name == %@ OR ANY tags.name LIKE[c] %@) AND employer.name BEGINSWITH[c] %@", ["a", "b", "c"])
        #expect(Self.structuralProblems(in: good.sql, bindings: good.bindings.count, identifiers: ids).isEmpty, "\(good.sql)")
        for bad in ["SELECT t0.\"Z_PK\" FROM \"Person\" AS t0; DROP TABLE \"Person\"", "SELECT 'x'", "SELECT \"Evil\" FROM \"Person\"",
                    "SELECT ?3", "SELECT ?0", "SELECT 1 -- c", "SELECT /* c */ 1", "SELECT 1 */", "SELECT \"Person",
                    "SELECT 1 UNION SELECT 2", "ATTACH 'x' AS y", "SELECT \u{FF07}"] {
            #expect(!Self.structuralProblems(in: bad, bindings: 2, identifiers: ids).isEmpty, "\(bad)")
        }
        #expect(Self.bytesContain("a'b", "'") && !Self.bytesContain("ab", "'"))
    }

    // MARK: - 2: key paths

    static let lookAlikeKeys: [String] = [
        "n\u{0430}me", "\u{FF4E}\u{FF41}\u{FF4D}\u{FF45}", "name\u{0}", "\u{0}name", "name\u{200B}", "name\u{200D}", "\u{FEFF}name",
        "nam\u{0065}\u{0301}", "name\u{FE0F}", "\u{0274}ame", "NAME", "Name", "name ", " name", "na\u{AD}me", "\u{202E}eman",
        "name\"", "\"name\"", "t0.name", "name; --", "Z_PK", "Z_ENT", "rowid", "oid", "_rowid_", "employer_id",
    ]

    /// What compiling a query must raise for the key `key`: nil when it compiles.
    static func keyError(_ f: PeopleModel.Fixture, _ q: () throws -> EntityQuery) -> StoreError? {
        do {
            let query = try q()
            let c = try f.store.sql(for: query)
            Issue.record("compiled to SQL: \(c.sql)")
            return nil
        } catch let e as StoreError {
            return e
        } catch {
            Issue.record("not a StoreError: \(error)")
            return nil
        }
    }

    @Test("hostile keys are unknown keys, never identifiers", arguments: payloads + lookAlikeKeys.map { Payload(text: $0) })
    func hostileKeys(_ payload: Payload) throws {
        let f = try HostileInputTests.fixture()
        let p = payload.text
        let components = p.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Control characters are shown escaped in the message (a NUL or an ESC printed raw
        // would hide or rewrite what the user sees).
        func shown(_ key: String) -> String {
            key.unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        }
        let unknownFirst = "keypath '\(shown(components[0]))' not found in entity Person"
        // %K: a key path split at dots.
        let k = Self.keyError(f) { try EntityQuery("Person", where: "%K == 1", [p]) }
        if p.isEmpty || components.contains("") {
            #expect(k?.kind == .syntax)
        } else if components[0].hasPrefix("@") {
            #expect(k?.kind == .unsupported, "\(String(describing: k))")
        } else {
            #expect(k?.kind == .unknownKey && k?.message == unknownFirst, "\(String(describing: k))")
        }
        // #"…": one key, whatever its text.
        let whole = "keypath '\(shown(p))' not found in entity Person"
        let escaped = "#" + PredicateValue.string(p).description + " == 1"
        let e = Self.keyError(f) { try EntityQuery("Person", where: escaped) }
        if p.hasPrefix("@") { #expect(e?.kind == .unsupported) } else {
            #expect(e?.kind == .unknownKey && e?.message == whole, "\(String(describing: e))")
        }
        // An ExpressionNode argument and a tree built in code.
        let node = Self.keyError(f) { try EntityQuery("Person", where: "%@ == 1", [ExpressionNode.keyPath([p])]) }
        let built = Self.keyError(f) {
            EntityQuery("Person", predicate: .comparison(ComparisonNode(.keyPath([p]), .equal, .constant(.string(p)))))
        }
        for err in [node, built] {
            if p.hasPrefix("@") { #expect(err?.kind == .unsupported) } else {
                #expect(err?.kind == .unknownKey && err?.message == whole, "\(String(describing: err))")
            }
        }
        // The key after a relationship: employer.<payload> and ANY tags.<payload>.
        let nested = Self.keyError(f) { try EntityQuery("Person", where: "employer.%K == 1 OR ANY tags.%K == 1", [p, p]) }
        #expect(nested?.kind == .unknownKey || nested?.kind == .unsupported || nested?.kind == .syntax, "\(String(describing: nested))")
        // Sort keys, fetched properties, entity names and written keys.
        let sortError = Self.keyError(f) { EntityQuery("Person", sort: [SortRule(p)]) }
        #expect(sortError?.kind == .unknownKey || sortError?.kind == .unsupported, "\(String(describing: sortError))")
        #expect { _ = try f.store.fetchProperties([p], EntityQuery("Person")) } throws: { e in
            (e as? StoreError).map { $0.kind == .unknownKey || $0.kind == .unsupported } ?? false
        }
        #expect { _ = try f.store.fetch(EntityQuery(p)) } throws: { e in
            (e as? StoreError).map { $0.kind == .unknownEntity && $0.message == "no entity named '\(p)'" } ?? false
        }
        #expect { try f.store.insert("Person", [p: "x"]) } throws: { e in (e as? StoreError)?.kind == .unknownKey }
        #expect { try f.store.insert(p, ["name": "x"]) } throws: { e in (e as? StoreError)?.kind == .unknownEntity }
        #expect { _ = try f.store.batchUpdate(EntityQuery("Person"), set: [p: "x"]) } throws: { e in (e as? StoreError)?.kind == .unknownKey }
        try HostileInputTests.expectIntact(f.store)
        // The control: the real key compiles, through each of the same doors.
        #expect(try f.store.sql(for: EntityQuery("Person", where: "%K == 1", ["age"])).sql.contains("t0.\"age\" = ?1"))
        #expect(try f.store.count(EntityQuery("Person", where: "#\"name\" == 'Ann'")) == 1)
    }

    @Test("reserved words escaped with # are keys the model lacks", arguments: [
        "DROP", "SELECT", "AND", "FROM", "WHERE", "UNION", "NULL", "SELF", "ANY", "SUBQUERY", "Z_PK", "rowid", "sqlite_schema", "t0",
    ])
    func hashEscapedWords(_ word: String) throws {
        let f = try HostileInputTests.fixture()
        let e = Self.keyError(f) { try EntityQuery("Person", where: "#\(word) == 1") }
        #expect(e?.kind == .unknownKey && e?.message == "keypath '\(word)' not found in entity Person", "\(String(describing: e))")
        let v = Self.keyError(f) { try EntityQuery("Person", where: "name == $#\(word)", variables: ["x": "y"]) }
        #expect(v?.kind == .unboundVariable, "\(String(describing: v))")
        // As a value the same word is only a binding.
        let c = try f.store.sql(for: EntityQuery("Person", where: "name == %@", ["#" + word]))
        #expect(c.bindings == [.text("#" + word)] && !c.sql.contains("#"))
        try HostileInputTests.expectIntact(f.store)
    }

    @Test func lookAlikeKeysWrittenBareAreUnknownOrSyntaxErrors() throws {
        let f = try HostileInputTests.fixture()
        // (Keys with spaces or quotes are other valid predicates when written bare.)
        for key in Self.lookAlikeKeys where !key.contains(" ") && !key.contains("\"") {
            let e = Self.keyError(f) { try EntityQuery("Person", where: "\(key) == 'Ann'") }
            #expect(e?.kind == .unknownKey || e?.kind == .syntax, "\(key.unicodeScalars.map { String($0.value, radix: 16) }): \(String(describing: e))")
        }
        // Keys are case-sensitive; the hint offers the real spelling.
        let upper = Self.keyError(f) { try EntityQuery("Person", where: "NAME == 'Ann'") }
        #expect(upper?.kind == .unknownKey && upper?.hint?.contains("'name'") == true, "\(String(describing: upper))")
        try HostileInputTests.expectIntact(f.store)
    }

    /// Keys match the model by Swift string equality, which is canonical equivalence, so a
    /// decomposed spelling finds a precomposed attribute; the SQL then names the model's column,
    /// byte for byte, never the caller's spelling.
    @Test func canonicallyEquivalentKeyNamesTheModelsColumn() throws {
        let model = try StoreModel([ModelEntity("Caf\u{E9}", attributes: [ModelAttribute("caf\u{E9}", .string)])])
        let store = try PredicateStore.inMemory(model)
        try store.insert("Caf\u{E9}", ["caf\u{E9}": "x"])
        let c = try store.sql(for: EntityQuery("Cafe\u{301}", where: "%K == 'x'", ["cafe\u{301}"]))
        #expect(Self.bytesContain(c.sql, "t0.\"caf\u{E9}\"") && !Self.bytesContain(c.sql, "e\u{301}"))
        #expect(Self.structuralProblems(in: c.sql, bindings: c.bindings.count, identifiers: Self.identifiers(of: model)).isEmpty)
        #expect(try store.count(EntityQuery("Cafe\u{301}", where: "%K == 'x'", ["cafe\u{301}"])) == 1)
    }

    // MARK: - 4: hostile SQLite files

    /// A raw SQLite connection, to make files PQL did not write.
    final class RawDatabase {
        let handle: OpaquePointer

        init(_ path: String) throws {
            var db: OpaquePointer?
            guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
                throw StoreError(.sqlite, "raw open failed")
            }
            handle = db
        }

        deinit { sqlite3_close_v2(handle) }

        func execute(_ sql: String, _ values: [SQLValue] = []) throws {
            var stmt: OpaquePointer?
            var rest: UnsafePointer<CChar>? = nil
            // By length: the test SQL may hold identifiers with NUL-free look-alikes, never NUL.
            var text = sql
            try text.withUTF8 { buf in
                try buf.withMemoryRebound(to: CChar.self) { chars in
                    var start = chars.baseAddress
                    let end = chars.baseAddress.map { $0 + chars.count }
                    while let s = start, let end, s < end {
                        guard sqlite3_prepare_v2(handle, s, Int32(end - s), &stmt, &rest) == SQLITE_OK else {
                            throw StoreError(.sqlite, "raw SQL failed: \(String(cString: sqlite3_errmsg(handle)))")
                        }
                        guard let st = stmt else { break }
                        defer { sqlite3_finalize(st) }
                        for (i, v) in values.enumerated() {
                            switch v {
                            case .null: sqlite3_bind_null(st, Int32(i + 1))
                            case .integer(let n): sqlite3_bind_int64(st, Int32(i + 1), n)
                            case .real(let d): sqlite3_bind_double(st, Int32(i + 1), d)
                            case .text(let t): sqlite3_bind_text(st, Int32(i + 1), t, -1, sqliteTransient)
                            case .blob(let d):
                                _ = d.withUnsafeBytes { sqlite3_bind_blob64(st, Int32(i + 1), $0.baseAddress, sqlite3_uint64(d.count), sqliteTransient) }
                            }
                        }
                        var rc = sqlite3_step(st)
                        while rc == SQLITE_ROW { rc = sqlite3_step(st) }
                        guard rc == SQLITE_DONE else { throw StoreError(.sqlite, "raw step failed: \(String(cString: sqlite3_errmsg(handle)))") }
                        start = rest
                    }
                }
            }
        }

        func strings(_ sql: String) throws -> [String] {
            var stmt: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let st = stmt else {
                throw StoreError(.sqlite, "raw prepare failed: \(String(cString: sqlite3_errmsg(handle)))")
            }
            defer { sqlite3_finalize(st) }
            var out: [String] = []
            while sqlite3_step(st) == SQLITE_ROW {
                out.append(sqlite3_column_text(st, 0).map { String(cString: $0) } ?? "NULL")
            }
            return out
        }
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-injection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A PeopleModel store file with one person, written and closed.
    static func peopleFile(in dir: URL, _ name: String, people: Int = 1) throws -> String {
        let path = dir.appendingPathComponent(name).path
        let store = try PredicateStore(path: path, model: PeopleModel.model)
        try store.insert("Person", (0..<people).map { ["name": .string("Person \($0) " + String(repeating: "x", count: 40)), "age": .int(Int64($0))] })
        try store.insert("Tag", ["name": "t"])
        try store.checkpoint()
        return path
    }

    /// The file still holds PeopleModel's tables and rows.
    static func expectPeopleFileIntact(_ path: String, people: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let db = try RawDatabase(path)
        #expect(try db.strings("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                == ["Company", "Person", "Tag", "Z_PQLMETADATA"], sourceLocation: sourceLocation)
        #expect(try db.strings("SELECT count(*) FROM \"Person\"") == ["\(people)"], sourceLocation: sourceLocation)
        #expect(try db.strings("SELECT count(*) FROM \"Tag\"") == ["1"], sourceLocation: sourceLocation)
        #expect(try db.strings("PRAGMA integrity_check") == ["ok"], sourceLocation: sourceLocation)
    }

    /// Everything a caller might do with a store opened from a hostile file: each step works
    /// or raises a StoreError with a message.
    static func exercise(_ store: PredicateStore, sourceLocation: SourceLocation = #_sourceLocation) {
        func attempt(_ what: String, _ body: () throws -> Void) {
            do { try body() } catch let e as StoreError {
                #expect(!e.message.isEmpty, "\(what)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(what): not a StoreError: \(error)", sourceLocation: sourceLocation)
            }
        }
        for e in store.model.entities.prefix(20) {
            attempt("fetch \(e.name)") { _ = try store.fetch(EntityQuery(e.name, limit: 50)) }
            attempt("count \(e.name)") { _ = try store.count(EntityQuery(e.name)) }
            for a in e.attributes.prefix(8) {
                attempt("compare \(e.name).\(a.name)") { _ = try store.count(EntityQuery(e.name, where: "%K == %@ OR %K BEGINSWITH[c] %@", [a.name, "x", a.name, "P"])) }
                attempt("sort \(e.name) by \(a.name)") { _ = try store.fetchIDs(EntityQuery(e.name, sort: [SortRule(a.name)], limit: 5)) }
            }
            for r in e.relationships.prefix(4) {
                attempt("follow \(e.name).\(r.name)") {
                    _ = try store.count(EntityQuery(e.name, where: r.isToMany ? "%K.@count > 0" : "%K != nil", [r.name]))
                }
            }
        }
        attempt("integrity") {
            _ = try store.locked { () throws(StoreError) -> String in
                let s = try store.connection.prepare("PRAGMA integrity_check")
                return try s.step() ? s.text(0) : ""
            }
        }
    }

    /// (a) A file whose saved model is not a model. Files that are not SQLite at all (text,
    /// zeros, random bytes, a bare header) and truncated files are HostileInputTests'
    /// `openingANonSQLiteFileFails` and `openingATruncatedSQLiteFileFails`.
    @Test func garbageSavedModelFailsCleanly() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededSplitMix64(seed: 0x5EC_0001)
        let garbage: [(String, Data)] = [
            ("random bytes", Data((0..<4_096).map { _ in UInt8.random(in: 0...255, using: &rng) })),
            ("empty", Data()),
            ("null", Data("null".utf8)),
            ("array", Data("[]".utf8)),
            ("empty object", Data("{}".utf8)),
            ("wrong types", Data(#"{"entities": 5, "templates": "x"}"#.utf8)),
            ("NUL inside", Data("{\"entities\": [\u{0}]}".utf8)),
            ("invalid UTF-8", Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])),
            ("10 MB of [", Data(repeating: UInt8(ascii: "["), count: 10_000_000)),
            ("5 MB unknown key", Data(("{\"entities\": [], \"x\": \"" + String(repeating: "A", count: 5_000_000) + "\"}").utf8)),
            ("entity with no name", Data(#"{"entities": [{"attributes": [{"name": "x", "type": "string"}]}]}"#.utf8)),
            ("an attribute named @", Data(#"{"entities": [{"name": "A", "attributes": [{"name": "@count", "type": "string"}]}]}"#.utf8)),
            ("a template that does not parse", Data(#"{"entities": [{"name": "A"}], "templates": [{"name": "T", "entity": "A", "predicate": "'); DROP TABLE \"Person\"; --"}]}"#.utf8)),
            ("trailing garbage", Data(#"{"entities": []} ; DROP TABLE "Person""#.utf8)),
        ]
        for (label, bytes) in garbage {
            let path = try Self.peopleFile(in: dir, "\(label).sqlite")
            do {
                let db = try RawDatabase(path)
                try db.execute("UPDATE \"Z_PQLMETADATA\" SET value = ?1 WHERE key = 'model'", [.blob(bytes)])
            }
            do {
                let store = try PredicateStore(path: path)
                // Only a saved model that reads as one may open the file.
                Issue.record("\(label): opened with \(store.model.entities.map(\.name))")
            } catch {
                #expect(error.kind == .modelFile || error.kind == .invalidModel, "\(label): \(error)")
                #expect(!error.message.isEmpty && error.message.count < 2_000, "\(label): \(error.message.prefix(200))")
            }
            try Self.expectPeopleFileIntact(path)
        }
        // A saved model stored as text rather than a blob is not PQL's: the model is inferred.
        let path = try Self.peopleFile(in: dir, "text-model.sqlite")
        do { try RawDatabase(path).execute("UPDATE \"Z_PQLMETADATA\" SET value = 'garbage' WHERE key = 'model'") }
        let store = try PredicateStore(path: path)
        #expect(store.model.entities.map(\.name).sorted() == ["Company", "Person", "Tag"])
        #expect(try store.count(EntityQuery("Person", where: "name BEGINSWITH 'Person'")) == 1)
    }

    /// (a) A saved model that reads well but names hostile tables and columns: identifiers stay
    /// quoted, so the worst is an error naming a table or column the file lacks.
    @Test func hostileSavedModelNamesStayIdentifiers() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func entity(_ table: String, column: String = "name") -> String {
            let t = PredicateValue.string(table).jsonText, c = PredicateValue.string(column).jsonText
            return #"{"name": "Person", "table": \#(t), "attributes": [{"name": "name", "type": "string", "column": \#(c)}, {"name": "age", "type": "integer64"}]}"#
        }
        let models: [(String, String)] = [
            ("table breaks out", #"{"entities": [\#(entity(#"Person"; DROP TABLE "Tag"; --"#))]}"#),
            ("column breaks out", #"{"entities": [\#(entity("Person", column: #"name" FROM "Person"; DROP TABLE "Tag"; --"#))]}"#),
            ("NUL in table", #"{"entities": [\#(entity("Person\u{0}\"; DROP TABLE \"Tag\"; --"))]}"#),
            ("NUL in column", #"{"entities": [\#(entity("Person", column: "name\u{0}\" FROM \"Tag\"; --"))]}"#),
            ("look-alike table", #"{"entities": [\#(entity("Pers\u{043E}n"))]}"#),
            ("primary key breaks out", #"{"entities": [{"name": "Person", "primaryKey": "Z_PK\"; DROP TABLE \"Tag\"; --", "attributes": [{"name": "name", "type": "string"}]}]}"#),
            ("hostile template", #"{"entities": [\#(entity("Person"))], "templates": [{"name": "T", "entity": "Person", "predicate": "name == $v OR name == '\\'; DROP TABLE \"Tag\"; --'"}]}"#),
        ]
        for (label, json) in models {
            let path = try Self.peopleFile(in: dir, "\(label).sqlite")
            do { try RawDatabase(path).execute("UPDATE \"Z_PQLMETADATA\" SET value = ?1 WHERE key = 'model'", [.blob(Data(json.utf8))]) }
            do {
                let store = try PredicateStore(path: path)
                Self.exercise(store)
                for write in [{ _ = try store.insert("Person", ["name": "new", "age": 1]) },
                              { _ = try store.batchUpdate(EntityQuery("Person"), set: ["name": "changed"]) },
                              { _ = try store.batchDelete(EntityQuery("Person", where: "age == 12345")) }] as [() throws -> Void] {
                    do { try write() } catch let e as StoreError { #expect(!e.message.isEmpty) }
                }
                if label == "hostile template" {
                    #expect(try store.fetch(template: "T", variables: ["v": .string(#"x' OR 1=1 --"#)]).isEmpty)
                }
            } catch let e as StoreError {
                #expect(!e.message.isEmpty, "\(label): \(e)")
            } catch {
                Issue.record("\(label): not a StoreError: \(error)")
            }
            // Whatever the writes did, no table was dropped and nothing else was touched.
            let db = try RawDatabase(path)
            #expect(try db.strings("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                    == ["Company", "Person", "Tag", "Z_PQLMETADATA"], "\(label)")
            #expect(try db.strings("SELECT count(*) FROM \"Tag\"") == ["1"], "\(label)")
            #expect(try db.strings("PRAGMA integrity_check") == ["ok"], "\(label)")
        }
    }

    /// (b) Tables and columns named like SQL, read through an inferred model. (HostileInputTests'
    /// `identifiersWithQuotesAreQuoted` builds such names in a model in code; here another
    /// program wrote them, with a foreign key between hostile tables.)
    @Test func hostileTableAndColumnNamesInAForeignFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("foreign.sqlite").path
        let odd = #"Odd"; DROP TABLE "Victim"; --"#
        let q = { (s: String) in "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let columns = ["we\"ird", "sp ace", "select", "a'b", "--c", "/*d*/", "x]y", "n\u{0430}me", "name", "?1", ":p", "$r", "%K", "#AND", "\u{FF07}"]
        do {
            let db = try RawDatabase(path)
            try db.execute("CREATE TABLE \"Victim\" (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO \"Victim\" (v) VALUES ('keep'), ('keep')")
            try db.execute("CREATE TABLE \(q(odd)) (id INTEGER PRIMARY KEY, \(columns.map { "\(q($0)) TEXT" }.joined(separator: ", ")), \"Victim_id\" INTEGER REFERENCES \"Victim\"(id))")
            try db.execute("CREATE INDEX \(q("ix\"; DROP")) ON \(q(odd)) (\(q("we\"ird")))")
            for i in 0..<3 {
                try db.execute("INSERT INTO \(q(odd)) (\(columns.map(q).joined(separator: ", ")), \"Victim_id\") VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")), \(i % 2 + 1))",
                               columns.map { .text("\($0)=\(i)") })
            }
            try db.execute("CREATE TABLE \(q("[br]; DELETE FROM Victim")) (\(q("k\"ey")) TEXT)")
            try db.execute("INSERT INTO \(q("[br]; DELETE FROM Victim")) VALUES ('one')")
        }
        let store = try PredicateStore(path: path)
        #expect(store.model.entities.map(\.name).sorted() == [odd, "Victim", "[br]; DELETE FROM Victim"])
        let entity = try store.model.entity(named: odd)
        #expect(entity.attributes.map(\.name).sorted() == (["id", "Victim_id"] + columns).sorted())
        for c in columns {
            #expect(try store.count(EntityQuery(odd, where: "%K == %@", [c, "\(c)=1"])) == 1, "\(c)")
            #expect(try store.count(EntityQuery(odd, where: "#" + PredicateValue.string(c).description + " BEGINSWITH %@", [c])) == 3, "\(c)")
            let props = try store.fetchProperties([c], EntityQuery(odd, sort: [SortRule(c, ascending: false)]))
            #expect(props.map { $0[c] } == (0..<3).reversed().map { .string("\(c)=\($0)") }, "\(c)")
        }
        // The foreign key became relationships named from hostile names; both directions work.
        let toOne = try #require(entity.relationships.first { !$0.isToMany })
        #expect(try store.count(EntityQuery(odd, where: "%K == 'keep'", [toOne.name + ".v"])) == 3)
        let victim = try store.model.entity(named: "Victim")
        let toMany = try #require(victim.relationships.first { $0.isToMany })
        #expect(try store.count(EntityQuery("Victim", where: "ANY %K == %@", [toMany.name + ".we\"ird", "we\"ird=2"])) == 1)
        #expect(try store.count(EntityQuery("Victim", where: "SUBQUERY(%K, $o, $o.#\"sp ace\" LIKE '*=*').@count == 2", [toMany.name])) == 1)
        // Writes quote the same names.
        #expect(try store.batchUpdate(EntityQuery(odd, where: "%K == %@", ["select", "select=0"]), set: ["we\"ird": "'; DROP TABLE \"Victim\"; --"]) == 1)
        #expect(try store.count(EntityQuery(odd, where: "%K == %@", ["we\"ird", "'; DROP TABLE \"Victim\"; --"])) == 1)
        let id = try store.insert(odd, ["a'b": "new", "Victim_id": .int(2)])
        #expect(try store.batchDelete(EntityQuery(odd, where: "%K == 'new'", ["a'b"])) == 1)
        #expect(try store.fetchIDs(EntityQuery(odd)).contains(id) == false)
        #expect(try store.fetch(EntityQuery("[br]; DELETE FROM Victim")).map { $0["k\"ey"] } == ["one"])
        Self.exercise(store)
        let db = try RawDatabase(path)
        #expect(try db.strings("SELECT v FROM \"Victim\" ORDER BY id") == ["keep", "keep"])
        #expect(try db.strings("SELECT count(*) FROM \(q(odd))") == ["3"])
        #expect(try db.strings("PRAGMA integrity_check") == ["ok"])
    }

    /// (a′) Creating a hostile model's schema in a file that holds other tables: `CREATE`
    /// statements run through sqlite3_exec, which would run a second statement if a name could
    /// end the first, so every name (tables, columns, keys, index names built from them) must
    /// stay one quoted identifier. A NUL in a name cuts the C string inside its quotes, which
    /// SQLite rejects as an unterminated identifier.
    @Test func creatingAHostileModelCreatesOnlyItsOwnTables() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let drop = #""; DROP TABLE "Victim"; --"#
        let quoted = try StoreModel([
            ModelEntity("T" + drop, attributes: [ModelAttribute("c" + drop, .string, isIndexed: true), ModelAttribute("u" + drop, .integer64, isUnique: true)],
                        relationships: [ModelRelationship("r", to: "U", inverse: "back", foreignKeyColumn: "fk" + drop)],
                        table: "T" + drop, primaryKey: "pk" + drop),
            ModelEntity("U", attributes: [ModelAttribute("v", .string)], relationships: [ModelRelationship("back", toMany: "T" + drop, inverse: "r")],
                        table: "U" + drop),
        ])
        // A NUL in a name is rejected by the model itself, before any SQL is written.
        #expect {
            try StoreModel([ModelEntity("N", attributes: [ModelAttribute("c\u{0}" + drop, .string)], table: "N\u{0}" + drop)])
        } throws: { error in
            let e = error as! StoreError
            return e.kind == .invalidModel && e.message.contains("NUL") && e.hint != nil
        }
        for (label, model, opens) in [("quotes", quoted, true)] {
            let path = dir.appendingPathComponent("\(label).sqlite").path
            do {
                let db = try RawDatabase(path)
                try db.execute("CREATE TABLE \"Victim\" (v TEXT); INSERT INTO \"Victim\" VALUES ('keep')")
            }
            do {
                let store = try PredicateStore(path: path, model: model)
                #expect(opens, "\(label) opened")
                let u = try store.insert("U", ["v": "x"])
                try store.insert("T" + drop, ["c" + drop: "y", "u" + drop: 1, "r": .int(u)])
                #expect(try store.count(EntityQuery("T" + drop, where: "%K == 'y' AND r.v == 'x'", ["c" + drop])) == 1)
                #expect(try store.count(EntityQuery("U", where: "ANY back.%K == 1", ["u" + drop])) == 1)
                #expect(try store.batchDelete(EntityQuery("U")) == 1)
            } catch {
                #expect(!opens && !error.message.isEmpty, "\(label): \(error)")
            }
            let db = try RawDatabase(path)
            #expect(try db.strings("SELECT v FROM \"Victim\"") == ["keep"], "\(label)")
            let tables = try db.strings("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            #expect(tables == (opens ? ["T" + drop, "U" + drop, "Victim", "Z_PQLMETADATA"] : ["Victim"]), "\(label): \(tables)")
            #expect(try db.strings("PRAGMA integrity_check") == ["ok"])
        }
    }

    /// (b) Names SQLite keeps apart but Swift strings do not (canonically equivalent spellings),
    /// and a column name the model cannot hold: the file fails to open with a model error, or
    /// each name reads its own rows.
    @Test func namesSQLiteDistinguishesButSwiftDoesNot() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, [String])] = [
            ("two tables", ["CREATE TABLE \"caf\u{E9}\" (v TEXT)", "CREATE TABLE \"cafe\u{301}\" (v TEXT)",
                            "INSERT INTO \"caf\u{E9}\" VALUES ('composed')", "INSERT INTO \"cafe\u{301}\" VALUES ('decomposed')"]),
            ("two columns", ["CREATE TABLE t (\"caf\u{E9}\" TEXT, \"cafe\u{301}\" TEXT)", "INSERT INTO t VALUES ('composed', 'decomposed')"]),
            ("a column named @count", ["CREATE TABLE t (\"@count\" TEXT, v TEXT)", "INSERT INTO t VALUES ('a', 'b')"]),
        ]
        for (label, sql) in cases {
            let path = dir.appendingPathComponent("\(label).sqlite").path
            do {
                let db = try RawDatabase(path)
                for s in sql { try db.execute(s) }
            }
            do {
                let store = try PredicateStore(path: path)
                Self.exercise(store)
                if label == "two tables" {
                    // Each entity must read its own table.
                    #expect(try store.fetch(EntityQuery("caf\u{E9}")).map { $0["v"] } == ["composed"])
                    #expect(try store.fetch(EntityQuery("cafe\u{301}")).map { $0["v"] } == ["decomposed"])
                }
            } catch {
                #expect(error.kind == .invalidModel && !error.message.isEmpty, "\(label): \(error)")
            }
        }
    }

    /// A model (saved in a file, or built in code) whose entities use table names that differ
    /// only in Unicode normalization: SQLite sees two tables, and each entity must use its own.
    @Test func tablesDifferingOnlyInNormalizationStayApart() throws {
        let model = try StoreModel([
            ModelEntity("A", attributes: [ModelAttribute("v", .string)], table: "caf\u{E9}"),
            ModelEntity("B", attributes: [ModelAttribute("v", .string)], table: "cafe\u{301}"),
        ])
        let store = try PredicateStore.inMemory(model)
        try store.insert("A", ["v": "a"])
        try store.insert("B", ["v": "b"])
        let tables = try store.locked { () throws(StoreError) -> Int in
            let s = try store.connection.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name LIKE 'caf%'")
            return try s.step() ? Int(s.int64(0)) : 0
        }
        #expect(tables == 2)
        let a = try store.fetch(EntityQuery("A")).map { $0["v"] }, b = try store.fetch(EntityQuery("B")).map { $0["v"] }
        // The statement cache once keyed SQL by `String`, whose equality is canonical
        // equivalence: B's SELECT reused A's prepared statement.
        #expect(a == ["a"])
        #expect(b == ["b"])
    }

    /// (c) Files HostileInputTests does not try: an empty file, and hostile WAL and journal
    /// files beside a good database.
    @Test func emptyFilesAndHostileSidecars() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.sqlite").path
        try Data().write(to: URL(fileURLWithPath: empty))
        do {
            let store = try PredicateStore(path: empty)
            #expect(store.model.entities.isEmpty)
            #expect(throws: StoreError.self) { _ = try store.fetch(EntityQuery("Person")) }
        } catch {
            #expect(!error.message.isEmpty, "\(error)")
        }
        var rng = SeededSplitMix64(seed: 0x5EC_0003)
        for sidecar in ["-wal", "-journal", "-shm"] {
            for (label, bytes) in [("random", Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &rng) })),
                                   ("zeros", Data(repeating: 0, count: 32_768)),
                                   ("WAL magic then garbage", Data([0x37, 0x7F, 0x06, 0x82, 0x00, 0x2D, 0xE2, 0x18]) + Data(repeating: 0xAB, count: 40_000))] {
                let path = try Self.peopleFile(in: dir, "side\(sidecar)-\(label).sqlite", people: 50)
                try bytes.write(to: URL(fileURLWithPath: path + sidecar))
                do {
                    let store = try PredicateStore(path: path)
                    let n = try store.count(EntityQuery("Person"))
                    #expect(n == 50, "\(sidecar) \(label): \(n) people")
                    Self.exercise(store)
                } catch {
                    #expect(!error.message.isEmpty, "\(sidecar) \(label): \(error)")
                }
            }
        }
    }

    /// (d) A valid SQLite header over damaged pages: opening or reading fails with a StoreError,
    /// or reads what is there; never a crash.
    @Test func damagedPagesBehindAValidHeader() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Self.peopleFile(in: dir, "original.sqlite", people: 2_000)
        let full = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        #expect(Array(full.prefix(16)) == Array("SQLite format 3\u{0}".utf8))
        let sizeField = Int(full[16]) << 8 | Int(full[17])
        let pageSize = sizeField == 1 ? 65_536 : sizeField
        #expect(full.count % pageSize == 0 && full.count / pageSize > 4)
        var rng = SeededSplitMix64(seed: 0x5EC_0004)
        func random(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        var variants: [(String, [UInt8])] = []
        var v = full
        v.replaceSubrange(pageSize..., with: random(full.count - pageSize))
        variants.append(("every page after the first is random", v))
        v = full
        v.replaceSubrange(100..<pageSize, with: random(pageSize - 100))
        variants.append(("the schema page is random", v))
        v = full
        v.replaceSubrange(100..<pageSize, with: [UInt8](repeating: 0, count: pageSize - 100))
        variants.append(("the schema page is zeros", v))
        v = full
        for _ in 0..<200 { v[Int.random(in: 100..<v.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
        variants.append(("200 random bytes changed", v))
        v = full
        for page in stride(from: 1, to: full.count / pageSize, by: 2) {
            v.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: [UInt8](repeating: 0, count: pageSize))
        }
        variants.append(("every other page zeroed", v))
        v = full
        v[16] = 0x03; v[17] = 0x00
        variants.append(("page size 768", v))
        v = full
        v[20] = 0xFF
        variants.append(("255 reserved bytes", v))
        v = full
        v.replaceSubrange(28..<32, with: [0x7F, 0xFF, 0xFF, 0xFF])
        variants.append(("huge page count", v))
        v = full
        v.replaceSubrange(32..<40, with: [0x00, 0x00, 0x00, 0x02, 0x7F, 0xFF, 0xFF, 0xFF])
        variants.append(("free list pointing everywhere", v))
        v = full
        v.replaceSubrange(56..<60, with: [0x00, 0x00, 0x00, 0x09])
        variants.append(("unknown text encoding", v))
        v = Array(full.prefix(pageSize)) + random(pageSize * 3)
        variants.append(("first page then random pages", v))
        v = full
        // The root page numbers in the schema rows are near the end of page 1: make them huge.
        for i in stride(from: pageSize - 1, to: pageSize - 400, by: -1) where v[i] == 0x02 || v[i] == 0x03 || v[i] == 0x04 { v[i] = 0xF0 }
        variants.append(("schema rows with damaged root pages", v))
        for (label, bytes) in variants {
            for readOnly in [false, true] {
                let path = dir.appendingPathComponent("\(label)-\(readOnly).sqlite").path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                do {
                    let store = try PredicateStore(path: path, readOnly: readOnly)
                    Self.exercise(store)
                    _ = try? store.fetch(EntityQuery("Person", where: "name BEGINSWITH[c] 'person 1' AND age > 10", sort: [SortRule("name")]))
                } catch {
                    #expect(!error.message.isEmpty, "\(label): \(error)")
                }
            }
        }
    }

    // MARK: - JSON documents

    /// A JSON error says where: a line and a column inside the input, and a message.
    static func expectLocated(_ e: JSONReadError, in bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!e.message.isEmpty && e.line >= 1 && e.column >= 1 && e.offset >= 0 && e.offset <= bytes.count,
                "\(label): \(e)", sourceLocation: sourceLocation)
        let lines = bytes.prefix(e.offset).filter { $0 == 0x0A }.count + 1
        #expect(e.line == lines, "\(label): line \(e.line), expected \(lines)", sourceLocation: sourceLocation)
        #expect(e.description.hasPrefix("line \(e.line), column \(e.column): "), sourceLocation: sourceLocation)
    }

    /// Parses with both readers; returns JSONReader's value, or its error (checked for a place).
    @discardableResult
    static func readJSON(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Result<PredicateValue, JSONReadError> {
        let result: Result<PredicateValue, JSONReadError>
        do { result = .success(try JSONReader.value(from: bytes)) } catch {
            expectLocated(error, in: bytes, label, sourceLocation: sourceLocation)
            result = .failure(error)
        }
        do {
            let doc = try JSONDocument(bytes: bytes)
            for i in doc.values.indices { _ = doc.text(of: i) }
        } catch {
            expectLocated(error, in: bytes, "\(label) (document)", sourceLocation: sourceLocation)
        }
        return result
    }

    static func jsonError(_ text: String) -> JSONReadError? {
        if case .failure(let e) = readJSON(Array(text.utf8), text) { return e }
        return nil
    }

    static func jsonValue(_ text: String) -> PredicateValue? { try? readJSON(Array(text.utf8), text).get() }

    /// Deep nesting past the limit as one array is CrashSafetyTests' `deepJSON`; these are the
    /// other shapes, the limit's edge, and the document reader.
    @Test func jsonNestingAtAndPastTheLimit() {
        let depth = JSONReader.maxDepth
        #expect(Self.jsonValue(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) != nil)
        #expect(Self.jsonError(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1))?.message.contains("deeper") == true)
        #expect(Self.jsonError(String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)) != nil)
        #expect(Self.jsonError(String(repeating: "[{\"a\":", count: 50_000)) != nil)
        #expect(Self.jsonError(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n[1]") != nil)
        // A document of many shallow lines is fine.
        #expect((try? JSONDocument(bytes: Array(String(repeating: "[[1]]\n", count: 10_000).utf8)))?.values.count == 10_000)
    }

    @Test func jsonNumbersAtTheEdges() {
        #expect(Self.jsonValue("-9223372036854775808") == .int(.min))
        #expect(Self.jsonValue("9223372036854775807") == .int(.max))
        // Beyond 64 bits an integer is an exact decimal (a double would round it), up to 38 digits.
        #expect(Self.jsonValue("9223372036854775808") == .decimal(Decimal(string: "9223372036854775808")!))
        #expect(Self.jsonValue("123456789012345678901234567890") == .decimal(Decimal(string: "123456789012345678901234567890")!))
        // Past the doubles is an error naming the number (no JSON value is infinity: it would
        // print back as null); below them is 0.
        #expect(Self.jsonError("1e999999")?.message.contains("beyond the range of a double") == true)
        #expect(Self.jsonError("-1e999999")?.message.contains("beyond the range of a double") == true)
        #expect(Self.jsonValue("1e-999999") == .double(0))
        #expect(Self.jsonError("1" + String(repeating: "0", count: 100_000))?.message.contains("more digits than can be kept exactly (38)") == true)
        #expect(Self.jsonError("1" + String(repeating: "0", count: 100_000) + ".0")?.message.contains("beyond the range of a double") == true)
        #expect(Self.jsonValue("0." + String(repeating: "0", count: 100_000) + "1") == .double(0))
        for bad in ["-", "--1", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1_000", "1.5.5", "١"] {
            #expect(Self.jsonError(bad) != nil, "\(bad)")
        }
    }

    @Test func jsonStringsThatAreNotText() {
        let bad: [(String, [UInt8])] = [
            ("lone continuation", [0x22, 0x80, 0x22]), ("invalid byte", [0x22, 0xFF, 0x22]), ("overlong slash", [0x22, 0xC0, 0xAF, 0x22]),
            ("UTF-8 surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22]), ("beyond U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
            ("cut sequence", [0x22, 0xE2, 0x82, 0x22]), ("invalid after an escape", [0x22, 0x5C, 0x6E, 0xFF, 0x22]),
            ("raw NUL in a string", [0x22, 0x61, 0x00, 0x62, 0x22]), ("raw newline in a string", [0x22, 0x0A, 0x22]),
            ("NUL before", [0x00, 0x31]), ("NUL after", [0x31, 0x00]), ("bare invalid byte", [0xFF]),
            ("BOM inside", Array("[".utf8) + [0xEF, 0xBB, 0xBF] + Array("1]".utf8)),
            ("bad escape", Array(#""\q""#.utf8)), ("short \\u", Array(#""\u12""#.utf8)), ("\\u with non-hex", Array(#""\u12G4""#.utf8)),
            ("escape at the end", Array(#""\"#.utf8)), ("never closed", Array(#""abc"#.utf8)),
            ("unterminated object", Array(#"{"a":"#.utf8)), ("key not a string", Array("{1: 2}".utf8)),
            ("bad $date", Array(#"{"$date": "yesterday"}"#.utf8)), ("$date not a string", Array(#"{"$date": 1}"#.utf8)),
            ("trailing comma", Array("[1,]".utf8)), ("trailing garbage", Array("{} x".utf8)), ("two values", Array("1 2".utf8)),
            ("empty", []), ("only spaces", Array(" \n\t ".utf8)), ("single quotes", Array("'a'".utf8)),
            ("comment", Array("/* */ 1".utf8)), ("SQL", Array(#"1; DROP TABLE "Person""#.utf8)),
        ]
        for (label, bytes) in bad {
            guard case .failure = Self.readJSON(bytes, label) else {
                Issue.record("\(label) read as a value")
                continue
            }
        }
        // Where the errors are: lines count newlines, columns count characters.
        let trailing = Self.jsonError("[1,\n 2]\n\n  ]")
        #expect(trailing?.line == 4 && trailing?.column == 3, "\(String(describing: trailing))")
        let wide = Self.jsonError("[\"é😀\", x]")
        #expect(wide?.line == 1 && wide?.column == 8, "\(String(describing: wide))")
        // A byte order mark opening the text is skipped (editors on Windows write one), and
        // columns count from after it; bytes count from the start.
        #expect(Self.jsonValue("\u{FEFF}{}") == .dictionary([:]))
        let bom = Self.jsonError("\u{FEFF}{x}")
        #expect(bom?.line == 1 && bom?.column == 2 && bom?.offset == 4, "\(String(describing: bom))")
    }

    @Test func jsonStringsThatAreText() {
        #expect(Self.jsonValue(#""\u0000""#) == .string("\u{0}"))
        #expect(Self.jsonValue(#""a\u0000'; DROP TABLE \"Person\"; --""#) == .string("a\u{0}'; DROP TABLE \"Person\"; --"))
        #expect(Self.jsonValue(#""\ud83d\ude00""#) == .string("\u{1F600}"))
        // A lone surrogate escape is U+FFFD, as Foundation and most readers do.
        #expect(Self.jsonValue(#""\ud800""#) == .string("\u{FFFD}"))
        #expect(Self.jsonValue(#""\udc00x""#) == .string("\u{FFFD}x"))
        #expect(Self.jsonValue(#""x\ud800""#) == .string("x\u{FFFD}"))
        #expect(Self.jsonValue(#""\u202e\ufeff\u200d""#) == .string("\u{202E}\u{FEFF}\u{200D}"))
        // A lone high surrogate is U+FFFD and the escape after it is read on its own (the
        // reader once swallowed it).
        #expect(Self.jsonValue(#""\ud800\u0041""#) == .string("\u{FFFD}A"))
        #expect(Self.jsonValue(#""\ud800\ud83d\ude00""#) == .string("\u{FFFD}\u{1F600}"))
        // Duplicate keys are refused, naming the key (the last value silently won).
        #expect(Self.jsonError(#"{"a": 1, "a": "'; DROP", "a": 3}"#)?.message == "the key 'a' appears twice in one object")
        #expect(Self.jsonError(#"{"$date": "x", "$date": "2024-01-01"}"#)?.message == "the key '$date' appears twice in one object")
        // Ten megabytes in one string, with and without escapes.
        let big = String(repeating: "a'\"", count: 1_000_000)
        let text = "\"" + big.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        #expect(Self.jsonValue(text) == .string(big))
        #expect(Self.jsonValue("\"" + String(repeating: "x", count: 10_000_000) + "\"").map { if case .string(let s) = $0 { s.utf8.count } else { 0 } } == 10_000_000)
        let doc = try? JSONDocument(bytes: Array(("[" + text + ", 1]").utf8))
        #expect(doc?.values.count == 2 && doc?.text(of: 1) == "1")
    }

    @Test func jsonDocumentsOfHostileShape() throws {
        // JSON Lines of arrays, not one array; one value per line.
        let lines = try JSONDocument(bytes: Array("[1]\n[2, \"'\"]\n".utf8))
        #expect(lines.layout == .lines && lines.values.count == 2 && lines.text(of: 1) == "[2, \"'\"]")
        for bad in ["[1] [2]", "{\"a\": 1} {\"a\": 2}", "1 2", "[1]]", "[[1]", "{}\n}", "\u{0}", "[1]\u{0}"] {
            #expect(throws: JSONReadError.self, "\(bad.debugDescription)") { _ = try JSONDocument(bytes: Array(bad.utf8)) }
        }
        #expect(try JSONDocument(bytes: []).values.isEmpty)
        // Arbitrary short inputs from JSON's alphabet: each reads or fails with a place.
        var rng = SeededSplitMix64(seed: SeededSplitMix64.seed(fromEnvironment: "PQL_SEED", default: 0x5EC_0005))
        let alphabet = Array("[]{}\":,\\u0123456789abcdefEe.-+ \n\ttrufalsn\u{0}".utf8) + [0xC3, 0xA9, 0xED, 0xA0, 0xFF, 0xEF, 0xBB, 0xBF]
        for i in 0..<3_000 {
            let bytes = (0..<rng.int(in: 0...24)).map { _ in rng.pick(alphabet) }
            Self.readJSON(bytes, "random input \(i): \(bytes)")
        }
    }
}

private extension PredicateValue {
    /// A string as a JSON string literal (for building model files in tests).
    var jsonText: String {
        guard case .string(let s) = self else { return description }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

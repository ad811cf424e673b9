import Foundation
import PostgresNIO
import PQL
@testable import PQLPostgres
import PQLStore
import Testing

/// Arithmetic, `abs:`, `length:`, `uppercase:`, `lowercase:` and MATCHES in PostgreSQL's own
/// SQL: the rows memory finds on the same objects, or the error memory raises (same kind),
/// over the edges of 64-bit integers and doubles, nil operands and Unicode text.
@Suite struct PostgresNativeFunctionTests {
    static let model = try! StoreModel([
        ModelEntity("Row", attributes: [
            ModelAttribute("n", .integer64), ModelAttribute("m", .integer32), ModelAttribute("x", .double),
            ModelAttribute("flag", .boolean), ModelAttribute("when", .date), ModelAttribute("s", .string),
            ModelAttribute("amount", .decimal),
        ]),
    ])

    /// Rows without nil in `n`, `x`, `flag`, `when`, `s` (the ones the unguarded cases use), then rows with.
    static let complete: [[String: PredicateValue]] = [
        ["n": .int(.max), "m": 7, "x": .double(1e308), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 0)), "s": "Straße"],
        ["n": .int(.min), "m": -7, "x": .double(-1e308), "flag": false, "when": .date(Date(timeIntervalSinceReferenceDate: -1e9)), "s": "ǅemal"],
        ["n": 0, "m": 0, "x": .double(-0.0), "flag": false, "when": .date(Date(timeIntervalSinceReferenceDate: 7e8 + 0.25)), "s": ""],
        ["n": -1, "m": 2_147_483_647, "x": .double(0.0), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 86400.5)), "s": "😀 ok"],
        ["n": .int(1 << 53 + 1), "m": 3, "x": .double(Double(Int64(1) << 53).nextUp), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 1e9)), "s": "İstanbul"],
        ["n": 3_037_000_500, "m": -2_147_483_648, "x": .double(.nan), "flag": false, "when": .date(Date(timeIntervalSinceReferenceDate: 3600)), "s": "ﬁle Ǆ ß"],
        ["n": 7, "m": 1, "x": .double(.infinity), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 1)), "s": "e\u{301}t\u{E9} 𝔘"],
        ["n": -7, "m": 1, "x": .double(.leastNonzeroMagnitude), "flag": false, "when": .date(Date(timeIntervalSinceReferenceDate: -1)), "s": "ΣΑΣ σας"],
        ["n": 42, "m": 1, "x": .double(-2.5), "flag": true, "when": .date(Date(timeIntervalSinceReferenceDate: 2)), "s": "a.b*c[d]\\e"],
    ]
    static let withNil: [[String: PredicateValue]] = [
        ["n": .null, "x": .null, "s": .null, "amount": .decimal(Decimal(string: "1.5")!)],
        ["n": 5, "m": .null, "x": .double(2), "flag": .null, "when": .null, "s": "x\ny"],
    ]

    static func withRows(_ rows: [[String: PredicateValue]], _ body: (PostgresPredicateStore, [Int64], [PredicateValue]) async throws -> Void) async throws {
        try await TestServer.withStore(model: model) { store, _ in
            _ = try await store.createTables()
            try await store.installFunctions()
            var ids: [Int64] = [], objects: [PredicateValue] = []
            for row in rows {
                ids.append(try await store.insert("Row", row))
                var object = row
                for a in ["n", "m", "x", "flag", "when", "s", "amount"] where object[a] == nil { object[a] = .null }
                objects.append(.dictionary(object))
            }
            try await body(store, ids, objects)
        }
    }

    /// Memory's rows or error kind against PostgreSQL's, for each case.
    static func expectSameOutcomes(_ cases: [(String, [Any?])], store: PostgresPredicateStore, ids: [Int64], objects: [PredicateValue],
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for (format, args) in cases {
            let query = try EntityQuery("Row", where: format, args)
            let want: Result<[Int64], PredicateEvaluationError>
            do {
                let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader)
                want = .success(try zip(ids, objects).filter { try compiled.evaluate($0.1) }.map(\.0))
            } catch let error as PredicateEvaluationError {
                want = .failure(error)
            }
            let sql = (try? store.sql(for: query).description) ?? "(no SQL)"
            do {
                let got = try await store.fetchIDs(query)
                switch want {
                case .success(let rows): #expect(got == rows, "\(format): memory \(rows), PostgreSQL \(got)\n\(sql)", sourceLocation: sourceLocation)
                case .failure(let e): Issue.record("\(format): memory raised \(e.kind), PostgreSQL returned \(got)\n\(sql)", sourceLocation: sourceLocation)
                }
            } catch {
                switch want {
                case .success(let rows): Issue.record("\(format): memory returned \(rows), PostgreSQL raised \(error)\n\(sql)", sourceLocation: sourceLocation)
                case .failure(let e):
                    #expect(error.kind == .evaluation && error.evaluationError?.kind == e.kind,
                            "\(format): memory raised \(e.kind), PostgreSQL \(error)\n\(sql)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    static var arithmetic: [(String, [Any?])] { [
        // Integers: 64 bits, overflow an error, division and remainder by 0 are 0, by -1 exact.
        ("n + 1 > 0", []), ("n - 1 < 0", []), ("n * 2 > 0", []), ("n * n > 0", []), ("-n > 0", []), ("abs:(n) > 0", []),
        ("n != %@ AND n + 1 > 0", [Int64.max]), ("n > %@ AND n - 1 < 0", [Int64.min]), ("n > 0 AND n < 3037000500 AND n * n > 1000", []),
        ("n / 0 == 0", []), ("modulus:by:(n, 0) == 0", []), ("modulus:by:(n, -1) == 0", []), ("n / -1 > 0", []), ("n != %@ AND n / -1 > 0", [Int64.min]),
        ("n / 2 == 3", []), ("n / -2 == -3", []), ("modulus:by:(n, 3) == 1", []), ("modulus:by:(n, -3) == -1", []), ("modulus:by:(n, 5) == 2", []),
        ("add:to:(n, 1) == 8", []), ("from:subtract:(n, 1) == 6", []), ("multiply:by:(n, 2) == 14", []), ("divide:by:(n, 7) == -1", []),
        ("modulus:by:(n, 4) == 3", []), ("abs:(m) == 7", []), ("m + m > 4294967290", []), ("m * m > 4611686014132420609", []),
        ("n != %@ AND abs:(n) > 9223372036854775806", [Int64.min]), ("m - n < 0", []),
        // Booleans count as 0 and 1.
        ("flag + 1 == 2", []), ("flag * n == 0", []), ("flag - 1 < 0", []),
        // Doubles: IEEE, infinities and NaN rather than errors; integers promoted.
        ("x + 1 > 2", []), ("x * 10 > 1e308", []), ("x * 10 == %@", [Double.infinity]), ("x * -10 == %@", [-Double.infinity]),
        ("x * 1e-300 == 0", []), ("x / 0 > 0", []), ("x / 0 < 0", []), ("x / 0.0 == %@", [Double.infinity]), ("x / -0.0 == %@", [-Double.infinity]),
        ("x + x > 1e308", []), ("x - x == 0", []), ("x / 1e-10 > 1", []), ("x / 1e300 == 0", []), ("abs:(x) >= 1", []), ("-x < 0", []),
        ("n + x > 0", []), ("n * 1.0 > 9.2e18", []), ("n * 1.0 == %@", [9_007_199_254_740_992.0]), ("n + 0.5 > 0", []),
        ("n / 2.0 > 1", []), ("n * x > 0", []), ("x * 0.5 > 0", []), ("x / 3 > 0.1", []),
        // Dates move by seconds and differ by seconds.
        ("when + 86400 > %@", [Date(timeIntervalSinceReferenceDate: 86400)]), ("when - 3600 < %@", [Date(timeIntervalSinceReferenceDate: 0)]),
        ("when - when == 0", []), ("when + 0.25 == %@", [Date(timeIntervalSinceReferenceDate: 7e8 + 0.5)]), ("3600 + when > %@", [Date(timeIntervalSinceReferenceDate: 7200)]),
        // Integers and doubles compare exactly beyond 2^53 (a double converted loses digits).
        ("n == %@", [9_007_199_254_740_992.0]), ("n > %@", [9_007_199_254_740_992.0]), ("n == %@", [9.223372036854775807e18]),
        ("n < %@", [9.223372036854775807e18]), ("%@ >= n", [9.223372036854775807e18]), ("n == x", []), ("n < x", []), ("x >= n", []),
        ("n != x", []), ("n * 1 == %@", [-9.223372036854775808e18]), ("n <= %@", [-Double.infinity]),
        // Compared with nil: the arithmetic still runs (and may raise), the answer is decided.
        ("n + 1 == nil", []), ("n * 0 != nil", []), ("n - 0 == nil OR n > 40", []),
    ] }

    /// IN compares an integer with a double beyond 2^53 exactly, as `==` does: PostgreSQL's
    /// own IN made the integer a double, and 2^53 + 1 matched 2^53 (adversarial run, F4).
    @Test func membershipComparesIntegersAndDoublesExactly() async throws {
        let cases: [(String, [Any?])] = [
            ("n IN {9007199254740992.0}", []), ("n IN {9007199254740993, 9007199254740992.0}", []),
            ("n IN %@", [[9_007_199_254_740_992.0, 1.0, 42]]), ("n IN {9223372036854775807.0, 42}", []),
            ("NOT (n IN {9007199254740992.0})", []), ("NOT (n IN {9007199254740992.0, 5})", []),
            ("{9007199254740992.0, -7} CONTAINS n", []), ("x IN {9007199254740992}", []), ("x IN %@", [[Int64(1 << 53) + 1, 0]]),
            ("n IN {-9223372036854775808.0}", []), ("ANY {n} IN {9007199254740992.0}", []),
        ]
        try await Self.withRows(Self.complete + Self.withNil) { store, ids, objects in
            try await Self.expectSameOutcomes(cases, store: store, ids: ids, objects: objects)
        }
    }

    @Test func arithmeticGivesMemorysRowsAndErrors() async throws {
        try await Self.withRows(Self.complete) { store, ids, objects in
            try await Self.expectSameOutcomes(Self.arithmetic, store: store, ids: ids, objects: objects)
        }
    }

    /// The installed double arithmetic gives Swift's IEEE results bit for bit on both of its
    /// paths: the inlined operator (operands of moderate magnitude) and the function that
    /// catches PostgreSQL's range errors, around each edge of the test between them.
    @Test func doubleArithmeticIsSwiftsOnBothPaths() async throws {
        let edges: [Double] = [0, -0.0, 1, -1, 0.5, -7.25, 3, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 2.2250738585072014e-308,
                               1e-200, 1e-154, 1e-154.nextDown, 1e-154.nextUp, -1e-154, 1e-100, 1e100, 1e154, 1e154.nextDown, 1e154.nextUp,
                               -1e154, 1e200, 1e307, 1e307.nextDown, 1e307.nextUp, -1e307, 1.7e308, .greatestFiniteMagnitude,
                               -.greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        var xs: [Double] = [], ys: [Double] = []
        for x in edges { for y in edges { xs.append(x); ys.append(y) } }
        let operations: [(String, (Double, Double) -> Double)] = [("float_add", { $0 + $1 }), ("float_subtract", { $0 - $1 }),
                                                                  ("float_multiply", { $0 * $1 }), ("float_divide", { $0 / $1 })]
        try await TestServer.withStore { store, schema in
            try await store.installFunctions()
            for (name, swift) in operations {
                var binds = PostgresBindings()
                binds.append(xs)
                binds.append(ys)
                let got: [Double] = try await store.withConnection("arithmetic") { connection in
                    var out: [Double] = []
                    let sql = "SELECT \(quote(schema)).\(name)(x, y) FROM unnest($1::float8[], $2::float8[]) WITH ORDINALITY AS t(x, y, i) ORDER BY i"
                    for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: store.logger) {
                        out.append(try row.decode(Double.self))
                    }
                    return out
                }
                #expect(got.count == xs.count)
                var differences: [String] = []
                for (i, value) in got.enumerated() {
                    let want = swift(xs[i], ys[i])
                    if !(value.bitPattern == want.bitPattern || (value.isNaN && want.isNaN)) {
                        differences.append("\(name)(\(xs[i]), \(ys[i])) = \(value), Swift \(want)")
                    }
                }
                #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(6))")
            }
        }
    }

    @Test func arithmeticOnNilRaisesMemorysErrorUnlessGuarded() async throws {
        try await Self.withRows(Self.withNil) { store, ids, objects in
            try await Self.expectSameOutcomes([
                ("n + 1 > 0", []), ("n != nil AND n + 1 > 0", []), ("n == nil OR n * 2 == 10", []), ("-n < 0", []), ("abs:(n) > 0", []),
                ("x / 2 > 0", []), ("x != nil AND x / 2 > 0", []), ("when + 1 > %@", [Date()]), ("flag + 1 > 0", []),
                ("m != nil AND m + 1 > 0", []), ("length:(s) > 0", []), ("s != nil AND length:(s) == 3", []),
                ("uppercase:(s) == 'X'", []), ("s != nil AND lowercase:(s) == 'x\ny'", []), ("NOT (n + 1 > 0)", []),
                ("NOT (n != nil AND n + 1 > 0)", []), ("flag == YES AND n + 1 > 0", []), ("NOT (flag == YES AND -n < 0)", []),
            ], store: store, ids: ids, objects: objects)
            let format = "n != 7 AND n + 1 > 0"
            let error = await #expect(throws: StoreError.self) { _ = try await store.fetch(EntityQuery("Row", where: format)) }
            #expect(error?.evaluationError?.kind == .arithmetic && error?.message == "arithmetic on nil (+)" && error?.hint != nil)
            // Placed at the arithmetic, as memory places it.
            let query = try EntityQuery("Row", where: format)
            let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader, sourceMap: query.sourceMap)
            let memory = #expect(throws: PredicateEvaluationError.self) { _ = try objects.filter { try compiled.evaluate($0) } }
            #expect(error?.range != nil && error?.range == memory?.range && error?.range.map { r in String(decoding: format.utf8.dropFirst(r.offset).prefix(r.length), as: UTF8.self) } == "n + 1",
                    "\(String(describing: error?.range)) / \(String(describing: memory?.range))")
            // A predicate built in code has no source map: no place, and no wrong one.
            let built = await #expect(throws: StoreError.self) { _ = try await store.fetch(EntityQuery("Row", predicate: try PredicateNode(format: "n + 1 > 0"))) }
            #expect(built?.evaluationError?.kind == .arithmetic && built?.range == nil && built?.source == nil)
        }
    }

    /// Memory's kind and message, which names the operation and its operands (each case
    /// overflows on one row only, or first on the first row, so both raise on the same row).
    @Test func anOverflowIsMemorysError() async throws {
        try await Self.withRows(Self.complete) { store, _, objects in
            for format in ["n + 1 > 0", "n * 2 > 0", "-n > 0", "abs:(n) > 0", "n - 2 < 0", "n / -1 > 0", "multiply:by:(n, n) > 0",
                           "from:subtract:(n, 1) < 0", "m * n < 0", "flag + n > 0", "n > 0 AND n < 3037000501 AND n * n > 0"] {
                let query = try EntityQuery("Row", where: format)
                let compiled = try CompiledPredicate(query.predicate, reader: PredicateValue.predicateReader, sourceMap: query.sourceMap)
                let memory = #expect(throws: PredicateEvaluationError.self, "\(format)") { _ = try objects.filter { try compiled.evaluate($0) } }
                let error = await #expect(throws: StoreError.self, "\(format)") { _ = try await store.fetch(query) }
                #expect(error?.evaluationError?.kind == .integerOverflow, "\(format): \(String(describing: error))")
                #expect(error?.evaluationError?.message == memory?.message && memory?.message != nil,
                        "\(format): memory \(String(describing: memory?.message)), PostgreSQL \(String(describing: error?.evaluationError?.message))")
                #expect(error?.evaluationError?.hint == memory?.hint, "\(format)")
                // The caret where memory's is: the installed function names the node that raised.
                #expect(error?.range != nil && error?.range == memory?.range && error?.source == format,
                        "\(format): memory \(String(describing: memory?.range)), PostgreSQL \(String(describing: error?.range))")
                // Every call that runs the predicate places it so.
                let counted = await #expect(throws: StoreError.self, "\(format)") { _ = try await store.count(query) }
                let keyed = await #expect(throws: StoreError.self, "\(format)") { _ = try await store.fetchIDs(query) }
                let deleted = await #expect(throws: StoreError.self, "\(format)") { _ = try await store.batchDelete(query) }
                let streamed = await #expect(throws: StoreError.self, "\(format)") { for try await _ in store.records(matching: query) {} }
                for other in [counted, keyed, deleted, streamed] {
                    #expect(other?.range == memory?.range, "\(format): \(String(describing: other))")
                }
            }
        }
    }

    @Test func textFunctionsAreSwifts() async throws {
        try await Self.withRows(Self.complete) { store, ids, objects in
            var cases: [(String, [Any?])] = [("length:(s) == 0", []), ("length:(s) == 5", []), ("length:(s) > 6", []), ("length:(s) == 3", [])]
            for (_, object) in zip(ids, objects) {
                guard case .dictionary(let d) = object, case .string(let s)? = d["s"] else { continue }
                cases += [("uppercase:(s) == %@", [s.uppercased()]), ("lowercase:(s) == %@", [s.lowercased()]),
                          ("length:(s) == %@", [s.utf16.count]), ("uppercase:(s) BEGINSWITH %@", [String(s.uppercased().prefix(2))])]
            }
            try await Self.expectSameOutcomes(cases, store: store, ids: ids, objects: objects)
            // Swift's full case mapping, not PostgreSQL's locale: ß → SS, ǅ → Ǆ/ǆ, ﬁ → FI, İ → i̇.
            let upper = try await store.rows("SELECT \(quote(store.functionSchema)).uppercase('straße ǅ ﬁ'), \(quote(store.functionSchema)).lowercase('İ ΣΑΣ')")
            #expect(upper == [["STRASSE Ǆ FI", "i\u{307} σασ"]])
            #expect("straße ǅ ﬁ".uppercased() == "STRASSE Ǆ FI" && "İ ΣΑΣ".lowercased() == "i\u{307} σασ")
        }
    }

    @Test func matchesUsesPostgreSQLsRegexWhereTheMeaningIsTheSame() async throws {
        try await Self.withRows(Self.complete + Self.withNil) { store, ids, objects in
            let patterns = [".*", "S.*", "[A-Z].*", "[^a-z]*", ".*\\\\Q*b\\\\E.*", "\\\\QStraße\\\\E", "(St|ǅ)[a-zß]+e.*", "S.{4}e",
                            ".{2,5}", ".{0}", "😀.*", ".*\\\\.b\\\\*c\\\\[d\\\\]\\\\\\\\e", "x\\\\ny", "x.y", "^ΣΑΣ.*$", "(?s).*ok",
                            "e\u{301}.*", "[\\\\x{1D518}-\\\\x{1D520} ]+", ".*[😀-😂].*", "a?b??.*", "İ.*", "(?:a|ab)(?:c|bcd)?.*", "[]a]*", "[a\\\\]]+"]
            try await Self.expectSameOutcomes(patterns.map { ("s MATCHES '\($0)'", []) } + patterns.map { ("NOT (s MATCHES '\($0)')", []) },
                                              store: store, ids: ids, objects: objects)
            let refused = ["\\\\d+", "\\\\w+", "\\\\s", "\\\\p{Lu}.*", "[[:alpha:]]+", "(?i)s.*", "(?<=a)b", "(?=a).*", "a*+", "(?>a)",
                           "(a)\\\\1", "a^b", "a$b", "\\\\bx", "(?<n>a)", "a{1,300}", "(?x)a"]
            for pattern in refused {
                let query = try EntityQuery("Row", where: "s MATCHES '\(pattern)'")
                let error = await #expect(throws: StoreError.self, "\(pattern)") { _ = try await store.fetch(query) }
                #expect(error?.kind == .unsupported && error?.message.contains("MATCHES with") == true && error?.hint != nil,
                        "\(pattern): \(String(describing: error))")
            }
            for pattern in ["s.*", ".*"] {
                let query = try EntityQuery("Row", where: "s MATCHES[c] '\(pattern)'")
                let error = await #expect(throws: StoreError.self) { _ = try await store.fetch(query) }
                #expect(error?.kind == .unsupported)
            }
        }
    }

    @Test func whatStaysRefusedIsRefusedBeforeRunning() async throws {
        try await Self.withRows(Self.withNil) { store, _, _ in
            for format in ["amount + 1 > 2", "modulus:by:(x, 3) == 1", "modulus:by:(x, 2) == 1", "s + 1 > 0", "when * 2 > 0", "length:(n) > 1", "n + nil > 0"] {
                let error = await #expect(throws: StoreError.self, "\(format)") { _ = try await store.fetch(EntityQuery("Row", where: format)) }
                #expect(error?.kind == .unsupported && error?.hint != nil, "\(format): \(String(describing: error))")
            }
        }
    }
}

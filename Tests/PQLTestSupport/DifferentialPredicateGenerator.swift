import Foundation
import PQL

// MARK: - Data

/// The value pools of the differential suite: Unicode look-alikes (precomposed and decomposed
/// é, ß/SS/ẞ, dotted İ, Ł, Å as one scalar and as A + ring, emoji, fullwidth, Greek with final
/// sigma), the empty string, wildcard and regex characters that must stay literal, negative
/// and zero numbers, fractions, dates before and after 2001, booleans, decimals and data.
package enum DifferentialPools {
    package static let names: [String] = [
        "José", "Jose\u{301}", "jose", "JOSE", "José Luis", "Straße", "STRASSE", "strasse", "ß", "ss", "ẞ",
        "İstanbul", "istanbul", "ISTANBUL", "ı", "Łukasz", "lukasz", "Ångström", "angstrom", "A\u{30A}ngstro\u{308}m",
        "😀", "smile 😀", "👍🏽 ok", "Ｆｕｌｌ", "full", "ＡＢＣ", "Ελλάδα", "ελλάδα", "ΕΛΛΆΔΑ", "Σοφία", "σοφιας",
        "", " ", "a", "A", "ab", "Ab", "abc", "ABC", "Zoë", "zoe", "Zoe", "Ærø", "naïve", "naive", "Ǆemal", "ǅemal",
        "ﬁle", "file", "a*b", "a?c", "50%", "x_y", "[br]", "back\\slash", "line\nbreak", "Tōkyō", "Tokyo", "北京",
        "\u{E000}private", "𝔘nicode", "nul\u{0}byte", "Ünal", "unal", "ÜNAL", "Ümit", "Ōtani", "O\u{304}tani",
        // For case-insensitive prefixes: a + mark (composes to á), ẚ (folds to aʾ), fullwidth,
        // Kelvin sign and long s (fold to k and s), LIKE's wildcards and escape as first letter.
        "a\u{301}bc", "ẚx", "Ａnna", "\u{212A}elvin", "kelvin", "s\u{17F}x", "%pct", "_under", "\\back", "a\u{334}z",
    ]
    package static let cities: [String] = [
        "Paris", "paris", "PARIS", "Lima", "São Paulo", "Sao Paulo", "Zürich", "Zurich", "ZÜRICH", "İzmir", "izmir",
        "Łódź", "Lodz", "Tōkyō", "北京", "Αθήνα", "ΑΘΗΝΑ", "", "Köln", "Ko\u{308}ln", "Koln", "a*b", "Ｐａｒｉｓ",
    ]
    package static let emails: [String] = [
        "jose@x.org", "JOSE@X.ORG", "ana@example.com", "zoë@exämple.de", "", "a.b+c@d.e", "50%@off.com", "x_y@z",
    ]
    package static let tagNames: [String] = [
        "vip", "VIP", "Vip", "new", "néw", "ne\u{301}w", "NEW", "ß", "SS", "ss", "😀", "", "a*b", "x?y", "old", "Ｖｉｐ",
        "İ", "i", "Ł", "l", "Ω", "ω", "[br]",
    ]
    package static let companyNames: [String] = ["Acme", "acme", "ACME", "Ａｃｍｅ", "Café", "Cafe\u{301}", "Straße", "İş", "", "Ørsted", "Paris"]
    package static let ages: [Int64] = [-5, -1, 0, 0, 1, 17, 18, 21, 30, 30, 42, 65, 99, 120]
    // No -0.0: SQLite stores it as 0 (see DifferentialTests.negativeZeroLosesItsSign).
    package static let scores: [Double] = [-2.5, 0.0, 0.0, 0.1, 0.5, 1.0, 2.25, 3.0, 3.0, 42.0, 99.9, 1e6, 0.30000000000000004]
    package static let balances: [String] = ["0", "0.01", "-12.5", "100", "12.34", "99999.99", "1000", "-0.5", "7"]
    package static let seconds: [Double] = [-1e9, -86400, 0, 0.25, 86400.5, 7e8, 7e8 + 0.25, 7.2e8, 1e9]
    package static let data: [Data] = [Data(), Data([0]), Data([1, 2, 3]), Data([0xFF]), Data([1, 2])]
    package static let weights: [Int64] = [-3, -1, 0, 1, 1, 2, 3, 5, 8, 10]

    package static func decimal(_ s: String) -> Decimal { Decimal(string: s, locale: Locale(identifier: "en_US_POSIX"))! }
    package static func date(_ s: Double) -> Date { Date(timeIntervalSinceReferenceDate: s) }
}

/// One seeded data set: ~150 people, 8 companies, 0–4 tags each (many with none), NULLs in
/// every optional attribute, some people without an employer.
package struct DifferentialDataSet {
    package var companies: [[String: PredicateValue]] = []
    package var people: [[String: PredicateValue]] = []
    package var employer: [Int?] = []
    package var tags: [[[String: PredicateValue]]] = []

    package init(seed: UInt64, people count: Int = 150, companies companyCount: Int = 8) {
        var rng = SeededSplitMix64(seed: seed)
        typealias P = DifferentialPools
        for i in 0..<companyCount {
            var c: [String: PredicateValue] = ["name": .string(i < P.companyNames.count && rng.chance(0.5) ? P.companyNames[i] : rng.pick(P.companyNames))]
            if rng.chance(0.8) { c["founded"] = .date(P.date(rng.pick(P.seconds))) }
            if rng.chance(0.8) { c["size"] = .int(rng.pick([0, 1, 5, 18, 30, 42, 100, -2])) }
            companies.append(c)
        }
        for _ in 0..<count {
            var p: [String: PredicateValue] = [:]
            // Each optional attribute is nil for some people (absent or an explicit null).
            func maybe(_ probability: Double, _ make: (inout SeededSplitMix64) -> PredicateValue) -> PredicateValue? {
                if rng.chance(probability) { return make(&rng) }
                return rng.chance(0.5) ? .null : nil
            }
            p["name"] = maybe(0.88) { .string($0.pick(P.names)) }
            p["age"] = maybe(0.85) { .int($0.pick(P.ages)) }
            p["score"] = maybe(0.8) { .double($0.pick(P.scores)) }
            p["city"] = maybe(0.8) { .string($0.pick(P.cities)) }
            p["email"] = maybe(0.6) { .string($0.pick(P.emails)) }
            p["active"] = maybe(0.75) { .bool($0.chance(0.5)) }
            p["born"] = maybe(0.7) { .date(P.date($0.pick(P.seconds) + Double($0.int(in: 0...3)) * 0.5)) }
            p["balance"] = maybe(0.6) { .decimal(P.decimal($0.pick(P.balances))) }
            p["photo"] = maybe(0.3) { .data($0.pick(P.data)) }
            for (k, v) in p where v == .null && rng.chance(0.5) { p[k] = nil }
            people.append(p.compactMapValues { $0 })
            employer.append(rng.chance(0.8) ? rng.int(in: 0...(companyCount - 1)) : nil)
            var list: [[String: PredicateValue]] = []
            let n = rng.chance(0.4) ? 0 : rng.int(in: 1...4)
            for _ in 0..<n {
                var t: [String: PredicateValue] = [:]
                if rng.chance(0.85) { t["name"] = .string(rng.pick(P.tagNames)) }
                if rng.chance(0.8) { t["weight"] = .int(rng.pick(P.weights)) }
                list.append(t)
            }
            tags.append(list)
        }
    }
}

// MARK: - Predicates

/// Random predicate trees over `PeopleModel`'s Person, built so that the in-memory evaluator
/// does not raise (kinds agree wherever an operator would otherwise raise, arithmetic and
/// functions only run on non-optional operands or behind `x != nil AND …` guards, MATCHES
/// patterns are valid).
package struct DifferentialPredicateGenerator {
    package enum Domain: CaseIterable { case string, number, date, data }

    /// An operand: its expression, its kind, whether it can be nil, and the nullable
    /// sub-expressions that must be tested with `!= nil` before it can be evaluated.
    package struct Term {
        package var expr: ExpressionNode
        package var domain: Domain
        package var nullable: Bool
        package var guards: [ExpressionNode] = []

        /// The guards needed to use this term as an argument of arithmetic or a function.
        package var argumentGuards: [ExpressionNode] { nullable ? guards + [expr] : guards }
    }

    package var rng: SeededSplitMix64
    /// The variable of the SUBQUERY being generated, if any.
    private var subqueryVariable: String? = nil

    package init(seed: UInt64) { rng = SeededSplitMix64(seed: seed) }

    package typealias P = DifferentialPools

    // MARK: terms

    package static func key(_ path: String) -> ExpressionNode { .keyPath(path.split(separator: ".").map(String.init)) }

    package static let personTerms: [Term] = [
        Term(expr: key("name"), domain: .string, nullable: true),
        Term(expr: key("city"), domain: .string, nullable: true),
        Term(expr: key("email"), domain: .string, nullable: true),
        Term(expr: key("employer.name"), domain: .string, nullable: true),
        Term(expr: key("age"), domain: .number, nullable: true),
        Term(expr: key("score"), domain: .number, nullable: true),
        Term(expr: key("balance"), domain: .number, nullable: true),
        Term(expr: key("active"), domain: .number, nullable: true),
        Term(expr: key("employer.size"), domain: .number, nullable: true),
        Term(expr: key("born"), domain: .date, nullable: true),
        Term(expr: key("employer.founded"), domain: .date, nullable: true),
        Term(expr: key("photo"), domain: .data, nullable: true),
    ]

    package static let aggregateTerms: [Term] = [
        Term(expr: key("tags.@count"), domain: .number, nullable: false),
        Term(expr: key("tags.@sum.weight"), domain: .number, nullable: false),
        Term(expr: key("tags.@avg.weight"), domain: .number, nullable: true),
        Term(expr: key("tags.@min.weight"), domain: .number, nullable: true),
        Term(expr: key("tags.@max.weight"), domain: .number, nullable: true),
        Term(expr: key("tags.@min.name"), domain: .string, nullable: true),
        Term(expr: key("tags.@max.name"), domain: .string, nullable: true),
    ]

    /// The terms a comparison may use here: the person's (and, inside a SUBQUERY, the tag's).
    private mutating func scalarTerm(_ domain: Domain? = nil, aggregates: Bool = true) -> Term {
        var pool = Self.personTerms
        if aggregates && subqueryVariable == nil { pool += Self.aggregateTerms }
        if let v = subqueryVariable {
            let tagTerms = [Term(expr: .keyPathOn(.variable(v), ["name"]), domain: .string, nullable: true),
                            Term(expr: .keyPathOn(.variable(v), ["weight"]), domain: .number, nullable: true)]
            // Mostly the tag; sometimes the outer person (SELF inside a SUBQUERY is still the person).
            pool = rng.chance(0.7) ? tagTerms : pool
        }
        if let domain {
            let matching = pool.filter { $0.domain == domain }
            if !matching.isEmpty { pool = matching } else { pool = Self.personTerms.filter { $0.domain == domain } }
        }
        return rng.pick(pool)
    }

    // MARK: constants

    /// A string related to the pools: whole, a prefix / suffix / middle, case-changed, folded.
    package mutating func stringConstant() -> String {
        let base = rng.pick(rng.chance(0.5) ? P.names : rng.chance(0.5) ? P.cities : rng.chance(0.5) ? P.tagNames : P.companyNames + P.emails)
        let chars = Array(base)
        switch rng.int(in: 0...9) {
        case 0, 1, 2: return base
        case 3 where !chars.isEmpty: return String(chars.prefix(rng.int(in: 1...chars.count)))
        case 4 where !chars.isEmpty: return String(chars.suffix(rng.int(in: 1...chars.count)))
        case 5 where chars.count > 2:
            let a = rng.int(in: 0...(chars.count - 2)), b = rng.int(in: (a + 1)...chars.count)
            return String(chars[a..<b])
        case 6: return base.uppercased()
        case 7: return base.lowercased()
        case 8: return base.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        default:
            // Unicode scalars cut in the middle of a character (e + combining accent).
            let scalars = Array(base.unicodeScalars)
            guard !scalars.isEmpty else { return base }
            var s = ""
            s.unicodeScalars.append(contentsOf: scalars.prefix(rng.int(in: 1...scalars.count)))
            return s
        }
    }

    /// A LIKE pattern: a pool string with `*` and `?` wildcards, escaped characters, or none.
    package mutating func likePattern() -> String {
        let chars = Array(stringConstant())
        if rng.chance(0.1) { return rng.pick(["*", "?", "", "*?*", "\\*", "a\\?c", "a\\*b", "*\\\\*", "[br]", "50%"]) }
        var out = ""
        var i = 0
        if rng.chance(0.3) { out += "*" }
        while i < chars.count {
            switch rng.int(in: 0...9) {
            case 0: out += "?"
            case 1:
                out += "*"
                i += rng.int(in: 0...2)
            default:
                let c = chars[i]
                if c == "*" || c == "?" || c == "\\" { out += "\\" }
                out.append(c)
            }
            i += 1
        }
        if rng.chance(0.3) { out += "*" }
        return out
    }

    /// A valid regular expression (MATCHES), mostly derived from the pools.
    package mutating func regexPattern() -> String {
        if rng.chance(0.5) {
            return rng.pick([".*", "J.*", ".*[éè].*", "(?i)jos.*", "\\p{Lu}.*", "[a-z]+", ".*\\d.*", "straße|strasse",
                             "a|ab", ".*😀.*", "\\QA*b\\E", "İ.*", "[^a-z]*", "..", "(?s).*\\n.*", "ß", "SS", "Ω|ω",
                             "^.*e$", "[[:alpha:]]+", "\\w+", "Zo.", ".{3,5}", "(ab)+", "e\u{301}", "n.+w", ""])
        }
        let s = stringConstant()
        let quoted = "\\Q" + s.replacingOccurrences(of: "\\E", with: "") + "\\E"
        switch rng.int(in: 0...3) {
        case 0: return quoted
        case 1: return ".*" + quoted + ".*"
        case 2: return quoted + ".*"
        default: return "(?:" + quoted + ")?.*"
        }
    }

    package mutating func numberConstant() -> PredicateValue {
        switch rng.int(in: 0...9) {
        case 0, 1, 2, 3: return .int(rng.pick(P.ages + P.weights + [2, 4, 6, 100]))
        case 4, 5: return .double(rng.pick(P.scores + [17.5, -0.5, 1e-9, 30.000001]))
        case 6: return .decimal(P.decimal(rng.pick(P.balances + ["12.3400", "0.010"])))
        case 7: return .bool(rng.chance(0.5))
        case 8: return .double(Double(rng.pick(P.ages)))
        default: return .int(Int64(rng.int(in: -10...130)))
        }
    }

    package mutating func dateConstant() -> PredicateValue {
        .date(P.date(rng.pick(P.seconds) + (rng.chance(0.5) ? 0 : rng.pick([0.5, -0.25, 1, -86400]))))
    }

    package mutating func constant(_ domain: Domain) -> PredicateValue {
        switch domain {
        case .string: return .string(stringConstant())
        case .number: return numberConstant()
        case .date: return dateConstant()
        case .data: return .data(rng.pick(P.data))
        }
    }

    /// A constant of another kind (compared with == / != / IN only: they never raise).
    package mutating func mismatchedConstant(_ domain: Domain) -> PredicateValue {
        let others = Domain.allCases.filter { $0 != domain }
        return constant(rng.pick(others))
    }

    package mutating func options(forString: Bool) -> ComparisonOptions {
        if !forString { return rng.chance(0.1) ? rng.pick([.caseInsensitive, [.caseInsensitive, .diacriticInsensitive]]) : [] }
        return rng.pick([[], [], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
                         .normalized, [.caseInsensitive, .diacriticInsensitive, .normalized], [.caseInsensitive, .normalized]])
    }

    // MARK: predicates

    /// A predicate with compound nesting up to `maxDepth` levels.
    package mutating func predicate(maxDepth: Int = 4) -> PredicateNode {
        if maxDepth <= 0 || rng.chance(0.45) { return leaf() }
        switch rng.int(in: 0...5) {
        case 0, 1: return .and((0..<rng.int(in: 2...3)).map { _ in predicate(maxDepth: maxDepth - 1) })
        case 2, 3: return .or((0..<rng.int(in: 2...3)).map { _ in predicate(maxDepth: maxDepth - 1) })
        default: return .not(predicate(maxDepth: maxDepth - 1))
        }
    }

    package mutating func leaf() -> PredicateNode {
        if subqueryVariable != nil {
            switch rng.weightedIndex([2, 60, 8, 8, 6]) {
            case 0: return .constant(rng.chance(0.5))
            case 1: return direct()
            case 2: return keyPathPair()
            case 3: return arithmetic()
            default: return function()
            }
        }
        switch rng.weightedIndex([3, 28, 8, 6, 13, 6, 10, 8, 8, 6, 4, 4, 4]) {
        case 0: return .constant(rng.chance(0.5))
        case 1: return direct()
        case 2: return keyPathPair()
        case 3: return nilComparison()
        case 4: return quantified()
        case 5: return membership()
        case 6: return aggregateComparison()
        case 7: return subqueryCount()
        case 8: return arithmetic()
        case 9: return function()
        case 10: return mismatched()
        case 11: return optionsMembership()
        default: return aggregateFunction()
        }
    }

    /// `guard != nil AND … AND comparison`, so nothing evaluates arithmetic or a function on nil.
    package func guarded(_ guards: [ExpressionNode], _ p: PredicateNode) -> PredicateNode {
        var seen = Set<ExpressionNode>()
        let tests = guards.filter { seen.insert($0).inserted }
            .map { PredicateNode.comparison(ComparisonNode($0, .notEqual, .constant(.null))) }
        return tests.isEmpty ? p : .and(tests + [p])
    }

    package func comparison(_ l: Term, _ op: ComparisonOperator, _ r: Term, _ options: ComparisonOptions = [],
                    _ quantifier: Quantifier = .direct) -> PredicateNode {
        guarded(l.guards + r.guards, .comparison(ComparisonNode(l.expr, op, r.expr, quantifier: quantifier, options: options)))
    }

    package func constantTerm(_ v: PredicateValue, _ domain: Domain) -> Term { Term(expr: .constant(v), domain: domain, nullable: v.isNull) }

    /// The operators that never raise for two operands of `domain`.
    package mutating func operatorFor(_ domain: Domain) -> ComparisonOperator {
        switch domain {
        case .string:
            return rng.pick([.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between,
                             .in, .contains, .beginsWith, .endsWith, .like, .like, .matches, .matches, .beginsWith])
        case .number, .date:
            return rng.pick([.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between, .in])
        case .data:
            return rng.pick([.equal, .notEqual, .in])
        }
    }

    /// The right side for `l op …` when `l` has `domain`.
    package mutating func rightSide(_ op: ComparisonOperator, _ domain: Domain, allowTerm: Bool = true) -> Term {
        switch op {
        case .like where !rng.chance(0.15): return constantTerm(.string(likePattern()), .string)
        case .matches: return constantTerm(.string(regexPattern()), .string)
        case .between:
            if allowTerm && rng.chance(0.25) {
                let t = scalarTerm(domain, aggregates: rng.chance(0.3))
                let c = constantTerm(constant(domain), domain)
                return Term(expr: .aggregate(rng.chance(0.5) ? [t.expr, c.expr] : [c.expr, t.expr]), domain: domain,
                            nullable: false, guards: t.guards)
            }
            var a = constant(domain), b = constant(domain)
            if rng.chance(0.05) { a = .null }
            if rng.chance(0.05) { b = .null }
            return constantTerm(.array([a, b]), domain)
        case .in:
            if domain == .string && rng.chance(0.3) {
                // Substring: 'os' IN name (the left side must then be a string too).
                return rng.chance(0.5) && allowTerm ? scalarTerm(.string) : constantTerm(.string(stringConstant()), .string)
            }
            var items: [PredicateValue] = []
            for _ in 0..<rng.int(in: 0...4) {
                items.append(rng.chance(0.75) ? constant(domain) : rng.chance(0.5) ? .null : mismatchedConstant(domain))
            }
            if rng.chance(0.1) {
                var d: [String: PredicateValue] = [:]
                for (i, v) in items.enumerated() { d["k\(i)"] = v }
                return constantTerm(.dictionary(d), domain)
            }
            return constantTerm(rng.chance(0.15) ? .set(items) : .array(items), domain)
        default:
            let r = rng.int(in: 0...99)
            if r < 8 { return constantTerm(.null, domain) }
            if r < 25 && allowTerm { return scalarTerm(domain) }
            return constantTerm(constant(domain), domain)
        }
    }

    /// `attribute op value` with matching kinds (or nil), any option.
    package mutating func direct() -> PredicateNode {
        let l = scalarTerm(rng.chance(0.45) ? .string : nil, aggregates: rng.chance(0.2))
        var op = operatorFor(l.domain)
        var r = rightSide(op, l.domain)
        let options: ComparisonOptions = op == .between ? [] : options(forString: l.domain == .string)
        if op == .in, case .constant(let v) = r.expr, case .string = v {
            // `'os' IN name`: the constant is the needle, the attribute the haystack.
            return comparison(r, .in, l, options)
        }
        if op == .in, r.domain == .string, case .keyPath = r.expr, l.domain == .string {
            return comparison(l, .in, r, options)
        }
        // Sometimes the constant on the left (5 < age, 'x' BEGINSWITH name).
        if rng.chance(0.15), case .constant(let v) = r.expr, op != .between, op != .in, op != .like, op != .matches,
           v.collectionElements == nil {
            if op == .contains || op == .beginsWith || op == .endsWith { op = rng.pick([.contains, .beginsWith, .endsWith]) }
            r = constantTerm(v, l.domain)
            return comparison(r, op, l, options)
        }
        return comparison(l, op, r, options)
    }

    /// `age < employer.size`, `name ==[c] city`, `name LIKE city`, `score > age`, `name == age`.
    package mutating func keyPathPair() -> PredicateNode {
        let l = scalarTerm()
        if rng.chance(0.15) {
            // Different kinds: only equality, which never raises (nil == nil holds).
            let r = scalarTerm(rng.pick(Domain.allCases.filter { $0 != l.domain }))
            return comparison(l, rng.chance(0.5) ? .equal : .notEqual, r, options(forString: false))
        }
        let r = scalarTerm(l.domain)
        var op = operatorFor(l.domain)
        if op == .between {
            let r2 = scalarTerm(l.domain)
            return guarded(r.guards + r2.guards + l.guards,
                           .comparison(ComparisonNode(l.expr, .between, .aggregate([r.expr, r2.expr]))))
        }
        // MATCHES with a key path as the pattern half the time: the pools hold only valid regular expressions.
        if op == .matches && rng.chance(0.5) { op = .like }
        if op == .in && l.domain != .string { op = .equal }
        return comparison(l, op, r, op == .between ? [] : options(forString: l.domain == .string))
    }

    /// nil on either side of every operator, `employer == nil`.
    package mutating func nilComparison() -> PredicateNode {
        if rng.chance(0.3) {
            let e = Self.key("employer"), n = ExpressionNode.constant(.null)
            let eq: ComparisonOperator = rng.chance(0.5) ? .equal : .notEqual
            return .comparison(rng.chance(0.7) ? ComparisonNode(e, eq, n) : ComparisonNode(n, eq, e))
        }
        let t = scalarTerm()
        let ops: [ComparisonOperator] = t.domain == .string
            ? [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .beginsWith, .endsWith, .contains, .like, .matches, .in]
            : [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        let op = rng.pick(ops)
        let nilTerm = constantTerm(.null, t.domain)
        if op == .in {
            // nil IN name / name IN {nil}
            return rng.chance(0.5) ? comparison(nilTerm, .in, t) : comparison(t, .in, constantTerm(.array([.null]), t.domain))
        }
        if rng.chance(0.1) { return comparison(nilTerm, op, nilTerm) }
        return rng.chance(0.5) ? comparison(t, op, nilTerm, options(forString: t.domain == .string))
            : comparison(nilTerm, op, t, options(forString: t.domain == .string))
    }

    /// ANY / ALL / NONE over tags.name or tags.weight (or a literal {a, b} of key paths).
    package mutating func quantified() -> PredicateNode {
        let lhs: Term
        switch rng.int(in: 0...9) {
        case 0...4: lhs = Term(expr: Self.key("tags.name"), domain: .string, nullable: true)
        case 5...8: lhs = Term(expr: Self.key("tags.weight"), domain: .number, nullable: true)
        default:
            let d: Domain = rng.chance(0.5) ? .string : .number
            let a = scalarTerm(d, aggregates: false), b = scalarTerm(d, aggregates: false)
            lhs = Term(expr: .aggregate([a.expr, b.expr]), domain: d, nullable: false)
        }
        let op = operatorFor(lhs.domain)
        var r: Term
        if op == .in && rng.chance(0.15), case .keyPath = lhs.expr {
            r = Term(expr: Self.key(lhs.domain == .string ? "tags.name" : "tags.weight"), domain: lhs.domain, nullable: false)
        } else {
            r = rightSide(op, lhs.domain)
        }
        if op == .in, case .keyPath = r.expr, lhs.domain != .string { r = constantTerm(.array([constant(lhs.domain)]), lhs.domain) }
        let options: ComparisonOptions = op == .between ? [] : options(forString: lhs.domain == .string)
        switch rng.int(in: 0...2) {
        case 0: return comparison(lhs, op, r, options, .any)
        case 1: return comparison(lhs, op, r, options, .all)
        default: return .not(comparison(lhs, op, r, options, .any))
        }
    }

    /// `x IN tags.name`, `tags.weight CONTAINS 5`, `name IN tags.name` (options are ignored).
    package mutating func membership() -> PredicateNode {
        let string = rng.chance(0.6)
        let coll = Term(expr: Self.key(string ? "tags.name" : "tags.weight"), domain: string ? .string : .number, nullable: false)
        let x: Term
        switch rng.int(in: 0...9) {
        case 0...4: x = constantTerm(constant(coll.domain), coll.domain)
        case 5: x = constantTerm(.null, coll.domain)
        case 6: x = constantTerm(mismatchedConstant(coll.domain), coll.domain)
        default: x = scalarTerm(rng.chance(0.8) ? coll.domain : nil, aggregates: rng.chance(0.3))
        }
        let options = options(forString: string)
        return rng.chance(0.6) ? comparison(x, .in, coll, options) : comparison(coll, .contains, x, options)
    }

    /// tags.@count / @sum / @avg / @min / @max against a value or another term.
    package mutating func aggregateComparison() -> PredicateNode {
        let l = rng.pick(Self.aggregateTerms)
        var op = operatorFor(l.domain)
        if op == .in && l.domain == .string && rng.chance(0.5) { op = .beginsWith }
        let r = rightSide(op, l.domain)
        let options: ComparisonOptions = op == .between ? [] : options(forString: l.domain == .string)
        if op == .in, case .constant(let v) = r.expr, case .string = v { return comparison(r, .in, l, options) }
        if op == .in, r.domain == .string, case .keyPath = r.expr { return comparison(l, .in, r, options) }
        return comparison(l, op, r, options)
    }

    /// `SUBQUERY(tags, $t, …).@count op n`: the condition mixes the tag ($t.name, $t.weight)
    /// and the person it belongs to (plain key paths still mean the person).
    package mutating func subqueryCount() -> PredicateNode {
        let v = rng.pick(["t", "x", "tag"])
        subqueryVariable = v
        let inner = predicate(maxDepth: 2)
        subqueryVariable = nil
        let count = Term(expr: .keyPathOn(.subquery(collection: Self.key("tags"), variable: v, predicate: inner), ["@count"]),
                         domain: .number, nullable: false)
        let op: ComparisonOperator = rng.pick([.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between])
        if op == .between { return comparison(count, .between, constantTerm(.array([.int(Int64(rng.int(in: 0...2))), .int(Int64(rng.int(in: 0...4)))]), .number)) }
        let r = rng.chance(0.8) ? constantTerm(.int(Int64(rng.int(in: 0...3))), .number) : scalarTerm(.number)
        return comparison(count, op, r)
    }

    /// Arithmetic on non-optional operands, or on optional ones behind `x != nil` guards.
    package mutating func arithmeticTerm(depth: Int = 2) -> Term {
        if depth == 0 || rng.chance(0.35) {
            if rng.chance(0.25) {
                let c = rng.pick([PredicateValue.int(2), .int(3), .int(-1), .int(0), .int(7), .double(0.5), .double(2.5), .decimal(P.decimal("1.5"))])
                return constantTerm(c, .number)
            }
            var leaf = scalarTerm(.number, aggregates: rng.chance(0.5))
            if rng.chance(0.15) && subqueryVariable == nil {
                leaf = Term(expr: .keyPathOn(.subquery(collection: Self.key("tags"), variable: "s",
                                                       predicate: .comparison(ComparisonNode(.keyPathOn(.variable("s"), ["weight"]), .greaterThan, .constant(.int(0))))), ["@count"]),
                            domain: .number, nullable: false)
            }
            return Term(expr: leaf.expr, domain: .number, nullable: false, guards: leaf.argumentGuards)
        }
        if rng.chance(0.1) {
            let a = arithmeticTerm(depth: depth - 1)
            return Term(expr: .function(.negate, [a.expr]), domain: .number, nullable: false, guards: a.guards)
        }
        let a = arithmeticTerm(depth: depth - 1), b = arithmeticTerm(depth: depth - 1)
        let f: BuiltinFunction = rng.pick([.add, .subtract, .multiply, .divide, .add, .subtract, .modulus])
        return Term(expr: .function(f, [a.expr, b.expr]), domain: .number, nullable: false, guards: a.guards + b.guards)
    }

    package mutating func arithmetic() -> PredicateNode {
        if rng.chance(0.15) && subqueryVariable == nil {
            // Dates: born + seconds against a date; born - employer.founded in seconds.
            let born = Self.key("born"), founded = Self.key("employer.founded")
            if rng.chance(0.5) {
                let shifted = Term(expr: .function(rng.chance(0.5) ? .add : .subtract, [born, .constant(.int(Int64(rng.pick([86400, 3600, 0, -1]))))]),
                                   domain: .date, nullable: false, guards: [born])
                let op: ComparisonOperator = rng.pick([.lessThan, .greaterThanOrEqual, .equal, .notEqual, .between])
                return comparison(shifted, op, rightSide(op, .date, allowTerm: false))
            }
            let diff = Term(expr: .function(.subtract, [born, founded]), domain: .number, nullable: false, guards: [born, founded])
            return comparison(diff, rng.pick([.lessThan, .greaterThan, .equal]), constantTerm(.double(rng.pick([0, 86400, -1e9, 7e8])), .number))
        }
        let l = arithmeticTerm()
        let op: ComparisonOperator = rng.pick([.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between, .in])
        let r: Term
        if rng.chance(0.3) {
            r = arithmeticTerm(depth: 1)
            if op == .between || op == .in { return comparison(l, .lessThan, r) }
        } else {
            r = rightSide(op, .number, allowTerm: false)
        }
        return comparison(l, op, r)
    }

    /// uppercase: / lowercase: / length: / abs: on guarded operands.
    package mutating func function() -> PredicateNode {
        switch rng.int(in: 0...3) {
        case 0, 1:
            let s = scalarTerm(.string, aggregates: rng.chance(0.3))
            let f: BuiltinFunction = rng.chance(0.5) ? .uppercase : .lowercase
            let t = Term(expr: .function(f, [s.expr]), domain: .string, nullable: false, guards: s.argumentGuards)
            let op = operatorFor(.string)
            var r = rightSide(op, .string)
            if op == .in, case .constant(let v) = r.expr, case .string = v { return comparison(r, .in, t, options(forString: true)) }
            if op == .in, case .keyPath = r.expr { r = constantTerm(.array([.string(stringConstant())]), .string) }
            return comparison(t, op, r, op == .between ? [] : options(forString: true))
        case 2:
            let s = scalarTerm(.string, aggregates: false)
            let t = Term(expr: .function(.length, [s.expr]), domain: .number, nullable: false, guards: s.argumentGuards)
            let op = operatorFor(.number)
            return comparison(t, op, rightSide(op, .number, allowTerm: false))
        default:
            let a = arithmeticTerm(depth: 1)
            let t = Term(expr: .function(.abs, [a.expr]), domain: .number, nullable: false, guards: a.guards)
            let op = operatorFor(.number)
            return comparison(t, op, rightSide(op, .number))
        }
    }

    /// `x IN[cd] {…}`, `{…} CONTAINS[c] x`, `x IN[c] tags.name`: the options apply to each
    /// element (decision D20), over look-alike strings folding may or may not equate.
    package mutating func optionsMembership() -> PredicateNode {
        let x = scalarTerm(.string, aggregates: rng.chance(0.2))
        var options = options(forString: true)
        if options.isEmpty { options = rng.pick([.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]) }
        if rng.chance(0.25) {
            let coll = Term(expr: Self.key("tags.name"), domain: .string, nullable: false)
            return rng.chance(0.5) ? comparison(x, .in, coll, options) : comparison(coll, .contains, x, options)
        }
        var items: [PredicateValue] = (0..<rng.int(in: 1...5)).map { _ in .string(stringConstant()) }
        if rng.chance(0.2) { items.append(rng.chance(0.5) ? .null : numberConstant()) }
        let collection: PredicateValue
        switch rng.int(in: 0...5) {
        case 0: collection = .set(items)
        case 1: collection = .dictionary(Dictionary(uniqueKeysWithValues: items.enumerated().map { ("k\($0.offset)", $0.element) }))
        default: collection = .array(items)
        }
        let c = constantTerm(collection, .string)
        if rng.chance(0.2) { return comparison(Term(expr: Self.key("tags.name"), domain: .string, nullable: false), .in, c, options, .any) }
        return rng.chance(0.7) ? comparison(x, .in, c, options) : comparison(c, .contains, x, options)
    }

    /// `sum:`, `average:`, `min:`, `max:` of tags.weight, which raise on a nil weight (and the
    /// last three on no tags): guarded, as a program must guard them.
    package mutating func aggregateFunction() -> PredicateNode {
        let f: BuiltinFunction = rng.pick([.sum, .average, .min, .max])
        let call = ExpressionNode.function(f, [Self.key("tags.weight")])
        let noNil = PredicateNode.not(.comparison(ComparisonNode(Self.key("tags.weight"), .equal, .constant(.null), quantifier: .any)))
        let op = rng.pick([ComparisonOperator.equal, .notEqual, .lessThan, .greaterThanOrEqual, .between])
        let r = op == .between ? constantTerm(.array([numberConstant(), numberConstant()]), .number)
                               : rng.chance(0.2) ? scalarTerm(.number, aggregates: true) : constantTerm(numberConstant(), .number)
        let test = comparison(Term(expr: call, domain: .number, nullable: false), op, r)
        var guards = [noNil]
        if f != .sum { guards.insert(.comparison(ComparisonNode(Self.key("tags.@count"), .greaterThan, .constant(0))), at: 0) }
        return .and(guards + [test])
    }

    /// Arithmetic whose integer results may leave 64 bits (large constants, the extremes):
    /// memory and the store must raise the same overflow error, or agree on the rows.
    package mutating func overflowingArithmetic() -> PredicateNode {
        let big: [Int64] = [.max, .min, .max - 1, .min + 1, 4_611_686_018_427_387_904, 3_037_000_500, -3_037_000_500, 1 << 40]
        func operand(_ g: inout DifferentialPredicateGenerator) -> Term {
            if g.rng.chance(0.45) { return g.constantTerm(.int(g.rng.pick(big)), .number) }
            let t = g.scalarTerm(.number, aggregates: g.rng.chance(0.4))
            return Term(expr: t.expr, domain: .number, nullable: false, guards: t.argumentGuards)
        }
        let a = operand(&self), b = operand(&self)
        let f: BuiltinFunction = rng.pick([.add, .subtract, .multiply, .divide, .modulus, .abs, .negate, .leftShift, .sum])
        let e: ExpressionNode, guards: [ExpressionNode]
        switch f {
        case .abs, .negate: (e, guards) = (.function(f, [a.expr]), a.guards)
        case .sum:
            e = rng.chance(0.5) ? .keyPathOn(.aggregate([a.expr, b.expr, .constant(.int(rng.pick(big)))]), ["@sum"])
                                : .function(.sum, [.aggregate([a.expr, b.expr])])
            guards = a.guards + b.guards
        default: (e, guards) = (.function(f, [a.expr, b.expr]), a.guards + b.guards)
        }
        let op = rng.pick([ComparisonOperator.greaterThan, .lessThan, .equal, .notEqual])
        return comparison(Term(expr: e, domain: .number, nullable: false, guards: guards), op, constantTerm(numberConstant(), .number))
    }

    /// Kinds that do not match: `name == 5`, `age != 'x'`, `born IN {1, 'a'}` (never raise).
    package mutating func mismatched() -> PredicateNode {
        let t = scalarTerm()
        let c = constantTerm(mismatchedConstant(t.domain), t.domain)
        switch rng.int(in: 0...2) {
        case 0: return comparison(t, .equal, c, options(forString: false))
        case 1: return comparison(c, .notEqual, t, options(forString: false))
        default: return comparison(t, .in, constantTerm(.array([mismatchedConstant(t.domain), mismatchedConstant(t.domain)]), t.domain))
        }
    }

    /// A comparison somewhere in `p` (the leaves are checked alone too: inside AND/OR memory
    /// short-circuits past many of them).
    package mutating func someLeaf(of p: PredicateNode) -> PredicateNode {
        switch p {
        case .and(let ps), .or(let ps):
            // A guarded comparison (`x != nil AND f(x) > 1`) stays whole.
            if case .and = p, ps.dropLast().allSatisfy(Self.isNilGuard) { return p }
            return ps.isEmpty ? p : someLeaf(of: rng.pick(ps))
        case .not(let q): return rng.chance(0.5) ? p : someLeaf(of: q)
        default: return p
        }
    }

    package static func isNilGuard(_ p: PredicateNode) -> Bool {
        if case .comparison(let c) = p, c.quantifier == .direct, c.op == .notEqual, c.rhs == .constant(.null) { return true }
        return false
    }

    // MARK: sorting

    package static let sortKeys = ["name", "age", "score", "city", "employer.name", "born", "balance", "active", "email", "employer.size"]

    package mutating func sortRules() -> [SortRule] {
        (0..<rng.int(in: 1...3)).map { _ in
            SortRule(rng.pick(Self.sortKeys), ascending: rng.chance(0.5),
                     comparison: rng.chance(0.5) ? .literal : .caseInsensitive)
        }
    }
}

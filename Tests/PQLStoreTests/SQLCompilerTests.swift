import Foundation
import PQL
@testable import PQLStore
import Testing

/// One predicate on `PeopleModel`'s Person and the exact SQL after `FROM "Person" t0`
/// (joins and WHERE), with the parameter values in slot order.
struct SQLCase: Sendable, CustomTestStringConvertible {
    let format: String
    let arguments: [String]
    let tail: String
    let bindings: [SQLValue]

    init(_ format: String, _ tail: String, _ bindings: [SQLValue], arguments: [String] = []) {
        self.format = format
        self.tail = tail
        self.bindings = bindings
        self.arguments = arguments
    }

    var testDescription: String { format }
}

/// The exact SQL the compiler generates: every operator and option, the nil rules (D3),
/// negation, ranges, membership, to-one joins, to-many subqueries, aggregates, functions,
/// constant folding, ordering, paging and the sub-entity filter.
@Suite struct SQLCompilerTests {
    static let personSelect = #"SELECT t0."Z_PK", t0."name", t0."age", t0."score", t0."city", t0."email", t0."active", t0."born", t0."balance", t0."photo" FROM "Person" t0"#

    static func compiled(_ format: String, _ arguments: [Any?] = [], sort: [SortRule] = [], offset: Int = 0, limit: Int? = nil,
                         variables: [String: PredicateValue] = [:]) throws -> CompiledSQL {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        return try store.sql(for: try EntityQuery("Person", where: format, arguments, sort: sort, offset: offset, limit: limit, variables: variables))
    }

    /// The text after the Person SELECT prefix (which every case must start with).
    static func tail(_ c: CompiledSQL) -> String? {
        c.sql.hasPrefix(personSelect) ? String(c.sql.dropFirst(personSelect.count)) : nil
    }

    /// No value is ever spliced into the text: no string literal, and every `?N` has a slot.
    static func expectOnlyPlaceholders(_ c: CompiledSQL, _ context: String) {
        #expect(!c.sql.contains("'"), "a quote in the SQL of \(context): \(c.sql)")
        var highest = 0
        var digits = ""
        var inPlaceholder = false
        for ch in c.sql + " " {
            if inPlaceholder, ch.isASCII, ch.isNumber { digits.append(ch); continue }
            if inPlaceholder { highest = max(highest, Int(digits) ?? 0); digits = ""; inPlaceholder = false }
            if ch == "?" { inPlaceholder = true }
        }
        #expect(highest <= c.bindings.count, "placeholder ?\(highest) without a binding in \(context)")
    }

    // MARK: comparisons and the nil rules

    static let comparisons: [SQLCase] = [
        SQLCase("age == 5", #" WHERE t0."age" = ?1"#, [.integer(5)]),
        SQLCase("age = 5", #" WHERE t0."age" = ?1"#, [.integer(5)]),
        SQLCase("age != 5", #" WHERE t0."age" IS NOT ?1"#, [.integer(5)]),
        SQLCase("age <> 5", #" WHERE t0."age" IS NOT ?1"#, [.integer(5)]),
        SQLCase("age < 5", #" WHERE t0."age" < ?1"#, [.integer(5)]),
        SQLCase("age <= 5", #" WHERE t0."age" <= ?1"#, [.integer(5)]),
        SQLCase("age =< 5", #" WHERE t0."age" <= ?1"#, [.integer(5)]),
        SQLCase("age > 5", #" WHERE t0."age" > ?1"#, [.integer(5)]),
        SQLCase("age >= 5", #" WHERE t0."age" >= ?1"#, [.integer(5)]),
        SQLCase("age => 5", #" WHERE t0."age" >= ?1"#, [.integer(5)]),
        SQLCase("5 < age", #" WHERE ?1 < t0."age""#, [.integer(5)]),
        SQLCase("score > 1.5", #" WHERE t0."score" > ?1"#, [.real(1.5)]),
        SQLCase("balance > 1.5", #" WHERE t0."balance" > ?1"#, [.real(1.5)]),
        SQLCase("active == YES", #" WHERE t0."active" = ?1"#, [.integer(1)]),
        SQLCase("active == FALSE", #" WHERE t0."active" = ?1"#, [.integer(0)]),
        SQLCase("born < CAST(100, 'NSDate')", #" WHERE t0."born" < ?1"#, [.real(100)]),
        SQLCase("name == 'x'", #" WHERE t0."name" = ?1"#, [.text("x")]),
        SQLCase("name != 'x'", #" WHERE t0."name" IS NOT ?1"#, [.text("x")]),
        SQLCase("name == %@", #" WHERE t0."name" = ?1"#, [.text("Zoë")], arguments: ["Zoë"]),
        SQLCase("%K == 'x'", #" WHERE t0."city" = ?1"#, [.text("x")], arguments: ["city"]),
        // nil on either side
        SQLCase("age == nil", #" WHERE t0."age" IS NULL"#, [.null]),
        SQLCase("nil == age", #" WHERE t0."age" IS NULL"#, [.null]),
        SQLCase("age != nil", #" WHERE t0."age" IS NOT NULL"#, [.null]),
        SQLCase("nil != age", #" WHERE t0."age" IS NOT NULL"#, [.null]),
        SQLCase("photo == NULL", #" WHERE t0."photo" IS NULL"#, [.null]),
        SQLCase("age < nil", " WHERE 0", [.null]),
        SQLCase("age > nil", " WHERE 0", [.null]),
        SQLCase("age <= nil", #" WHERE t0."age" IS NULL"#, [.null]),
        SQLCase("nil >= age", #" WHERE t0."age" IS NULL"#, [.null]),
        // Comparisons of constants are decided when compiling, as the evaluator decides them.
        SQLCase("nil == nil", "", []),
        SQLCase("nil != nil", " WHERE 0", []),
        SQLCase("1 + 2 == 3", "", []),
        // two columns: nil == nil holds, so IS / IS NOT
        SQLCase("name == city", #" WHERE t0."name" IS t0."city""#, []),
        SQLCase("name != city", #" WHERE t0."name" IS NOT t0."city""#, []),
        SQLCase("age == score", #" WHERE t0."age" IS t0."score""#, []),
        SQLCase("age < score", #" WHERE t0."age" < t0."score""#, []),
        SQLCase("age <= score", #" WHERE (t0."age" <= t0."score" OR (t0."age" IS NULL AND t0."score" IS NULL))"#, []),
        // kinds SQLite cannot order the evaluator's way go through pql_compare
        SQLCase("age > 'x'", #" WHERE pql_compare(?2, ?3, t0."age", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(2), .integer(0), .integer(0), .integer(0)]),
        SQLCase("born > 5", #" WHERE pql_compare(?2, ?3, t0."born", ?4, ?1, ?5, 2)"#, [.integer(5), .integer(2), .integer(0), .integer(2), .integer(0)]),
        // different kinds are never equal
        SQLCase("name == 5", " WHERE 0", [.integer(5)]),
        SQLCase("name != 5", "", [.integer(5)]),
    ]

    @Test(arguments: comparisons) func comparison(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: string operators and options

    static let strings: [SQLCase] = [
        SQLCase("name ==[c] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(4), .integer(1), .integer(0), .integer(0)]),
        SQLCase("name ==[d] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(4), .integer(2), .integer(0), .integer(0)]),
        SQLCase("name !=[cd] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(5), .integer(3), .integer(0), .integer(0)]),
        SQLCase("name ==[CD] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(4), .integer(3), .integer(0), .integer(0)]),
        SQLCase("name <[c] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(0), .integer(1), .integer(0), .integer(0)]),
        SQLCase("name >=[c] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(3), .integer(1), .integer(0), .integer(0)]),
        SQLCase("name ==[l] 'x'", #" WHERE pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2)"#, [.text("x"), .integer(4), .integer(8), .integer(0), .integer(0)]),
        SQLCase("name ==[n] 'x'", #" WHERE t0."name" = ?1"#, [.text("x")]),
        // case-sensitive BEGINSWITH is an index-friendly range
        SQLCase("name BEGINSWITH 'ab'", #" WHERE (t0."name" >= ?2 AND t0."name" < ?3)"#, [.text("ab"), .text("ab"), .text("ac")]),
        SQLCase("name BEGINSWITH[n] 'ab'", #" WHERE (t0."name" >= ?2 AND t0."name" < ?3)"#, [.text("ab"), .text("ab"), .text("ac")]),
        SQLCase("name BEGINSWITH 'Zo\u{EB}'", #" WHERE (t0."name" >= ?2 AND t0."name" < ?3)"#, [.text("Zo\u{EB}"), .text("Zo\u{EB}"), .text("Zo\u{EC}")]),
        SQLCase("name BEGINSWITH 'a\u{D7FF}'", #" WHERE (t0."name" >= ?2 AND t0."name" < ?3)"#, [.text("a\u{D7FF}"), .text("a\u{D7FF}"), .text("a\u{E000}")]),
        SQLCase("name BEGINSWITH 'a\u{10FFFF}'", #" WHERE (t0."name" >= ?2 AND substr(t0."name", 1, ?3) = ?2)"#, [.text("a\u{10FFFF}"), .text("a\u{10FFFF}"), .integer(2)]),
        SQLCase("name BEGINSWITH ''", " WHERE 0", [.text("")]),
        SQLCase("name ENDSWITH 'ab'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("ab"), .integer(9), .integer(0)]),
        SQLCase("name ENDSWITH[d] 'ab'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("ab"), .integer(9), .integer(2)]),
        SQLCase("name CONTAINS 'ab'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("ab"), .integer(99), .integer(0)]),
        SQLCase("name CONTAINS[cd] 'ab'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("ab"), .integer(99), .integer(3)]),
        SQLCase("'ab' IN name", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("ab"), .integer(99), .integer(0)]),
        SQLCase("name LIKE 'a*b?'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("a*b?"), .integer(7), .integer(0)]),
        SQLCase("name LIKE[c] 'a*'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("a*"), .integer(7), .integer(1)]),
        SQLCase("name LIKE[cd] '%_'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("%_"), .integer(7), .integer(3)]),
        SQLCase("name MATCHES '[a-z]+'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("[a-z]+"), .integer(6), .integer(0)]),
        SQLCase("name MATCHES[c] 'x.*'", #" WHERE pql_search(?2, ?3, t0."name", ?1, 2)"#, [.text("x.*"), .integer(6), .integer(1)]),
        SQLCase("name CONTAINS nil", " WHERE 0", [.null]),
        SQLCase("name CONTAINS ''", " WHERE 0", [.text("")]),
        SQLCase("name CONTAINS city", #" WHERE pql_search(?1, ?2, t0."name", t0."city", 2)"#, [.integer(99), .integer(0)]),
    ]

    @Test(arguments: strings) func stringOperator(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: NOT, AND, OR, constants

    static let logic: [SQLCase] = [
        SQLCase("NOT (age > 5)", #" WHERE NOT coalesce(t0."age" > ?1, 0)"#, [.integer(5)]),
        SQLCase("NOT age > 5", #" WHERE NOT coalesce(t0."age" > ?1, 0)"#, [.integer(5)]),
        SQLCase("!(age == 5)", #" WHERE NOT coalesce(t0."age" = ?1, 0)"#, [.integer(5)]),
        SQLCase("NOT (age == nil)", #" WHERE NOT (t0."age" IS NULL)"#, [.null]),
        SQLCase("NOT (age != 5)", #" WHERE NOT (t0."age" IS NOT ?1)"#, [.integer(5)]),
        SQLCase("NOT (name CONTAINS 'x')", #" WHERE NOT (pql_search(?2, ?3, t0."name", ?1, 2))"#, [.text("x"), .integer(99), .integer(0)]),
        SQLCase("NOT (name BEGINSWITH 'x')", #" WHERE NOT coalesce((t0."name" >= ?2 AND t0."name" < ?3), 0)"#, [.text("x"), .text("x"), .text("y")]),
        SQLCase("NOT (age > 5 OR name == 'x')", #" WHERE NOT coalesce((t0."age" > ?1 OR t0."name" = ?2), 0)"#, [.integer(5), .text("x")]),
        SQLCase("NOT NOT (age > 5)", #" WHERE NOT (NOT coalesce(t0."age" > ?1, 0))"#, [.integer(5)]),
        SQLCase("age > 5 OR name == 'x'", #" WHERE (t0."age" > ?1 OR t0."name" = ?2)"#, [.integer(5), .text("x")]),
        SQLCase("age > 5 || name == 'x'", #" WHERE (t0."age" > ?1 OR t0."name" = ?2)"#, [.integer(5), .text("x")]),
        SQLCase("age > 5 AND name == 'x'", #" WHERE (t0."age" > ?1 AND t0."name" = ?2)"#, [.integer(5), .text("x")]),
        SQLCase("age > 5 && name == 'x'", #" WHERE (t0."age" > ?1 AND t0."name" = ?2)"#, [.integer(5), .text("x")]),
        SQLCase("age > 5 AND (name == 'x' OR city == 'y')", #" WHERE (t0."age" > ?1 AND (t0."name" = ?2 OR t0."city" = ?3))"#, [.integer(5), .text("x"), .text("y")]),
        SQLCase("age > 5 OR name == 'x' AND city == 'y'", #" WHERE (t0."age" > ?1 OR (t0."name" = ?2 AND t0."city" = ?3))"#, [.integer(5), .text("x"), .text("y")]),
        SQLCase("age > 1 and age < 9", #" WHERE (t0."age" > ?1 AND t0."age" < ?2)"#, [.integer(1), .integer(9)]),
        SQLCase("TRUEPREDICATE", "", []),
        SQLCase("FALSEPREDICATE", " WHERE 0", []),
        SQLCase("NOT TRUEPREDICATE", " WHERE NOT (1)", []),
    ]

    @Test(arguments: logic) func negationAndCompounds(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: BETWEEN and IN

    static let ranges: [SQLCase] = [
        SQLCase("age BETWEEN {1, 5}", #" WHERE t0."age" BETWEEN ?1 AND ?2"#, [.integer(1), .integer(5)]),
        // bounds in reverse order are swapped, as the evaluator does
        SQLCase("age BETWEEN {5, 1}", #" WHERE t0."age" BETWEEN ?2 AND ?1"#, [.integer(5), .integer(1)]),
        SQLCase("score BETWEEN {1.5, 2}", #" WHERE t0."score" BETWEEN ?1 AND ?2"#, [.real(1.5), .integer(2)]),
        SQLCase("age BETWEEN {1, nil}", " WHERE 0", [.integer(1), .null]),
        SQLCase("age BETWEEN {1, 'x'}", #" WHERE pql_between(?3, t0."age", ?4, ?1, ?5, ?2, ?6, 2)"#,
                [.integer(1), .text("x"), .integer(0), .integer(0), .integer(0), .integer(0)]),
        SQLCase("name BETWEEN {'a', 'm'}", #" WHERE t0."name" BETWEEN ?1 AND ?2"#, [.text("a"), .text("m")]),
        SQLCase("born BETWEEN {CAST(1, 'NSDate'), CAST(2, 'NSDate')}", #" WHERE t0."born" BETWEEN ?1 AND ?2"#, [.real(1), .real(2)]),
        SQLCase("age IN {1, 2, 3}", #" WHERE t0."age" IN (?1, ?2, ?3)"#, [.integer(1), .integer(2), .integer(3)]),
        // members of another kind (and nil) can never be equal: they are dropped
        SQLCase("age IN {1, 'two', 3, nil}", #" WHERE t0."age" IN (?1, ?3)"#, [.integer(1), .text("two"), .integer(3), .null]),
        SQLCase("name IN {'a', 'b'}", #" WHERE t0."name" IN (?1, ?2)"#, [.text("a"), .text("b")]),
        SQLCase("name IN {1, 2}", " WHERE 0", [.integer(1), .integer(2)]),
        SQLCase("age IN {}", " WHERE 0", []),
        // [c] applies to each member: folded once, the column folded by pql_fold; the ranges of
        // strings that can fold to "a" come first, for an index (decision D20).
        SQLCase("name IN[c] {'a'}", #" WHERE (((t0."name" >= ?2 AND t0."name" < ?3) OR (t0."name" >= ?4 AND t0."name" < ?5) OR (t0."name" >= ?6 AND t0."name" < ?7) OR (t0."name" >= ?8 AND t0."name" < ?9) OR (t0."name" >= ?10 AND t0."name" < ?11)) AND pql_fold(?12, t0."name") IN (?1))"#,
                [.text("a"), .text("A"), .text("B"), .text("a"), .text("b"), .text("ẚ"), .text("ẛ"), .text("Ａ"), .text("Ｂ"), .text("ａ"), .text("ｂ"), .integer(1)]),
        SQLCase("name IN[cd] {'É', 5}", #" WHERE pql_fold(?3, t0."name") IN (?1)"#, [.text("e"), .integer(5), .integer(3)]),
        SQLCase("name IN[n] {'a'}", #" WHERE t0."name" IN (?1)"#, [.text("a")]),
        SQLCase("age IN[c] {1, 2}", #" WHERE t0."age" IN (?1, ?2)"#, [.integer(1), .integer(2)]),
        SQLCase("{1, 2} CONTAINS age", #" WHERE t0."age" IN (?1, ?2)"#, [.integer(1), .integer(2)]),
        SQLCase("NOT (age IN {1, 2})", #" WHERE NOT coalesce(t0."age" IN (?1, ?2), 0)"#, [.integer(1), .integer(2)]),
        SQLCase("age IN %@", #" WHERE t0."age" IN (?1, ?2)"#, [.integer(7), .integer(8)], arguments: ["[7, 8]"]),
        SQLCase("age IN {1, score}", #" WHERE (t0."age" IS NOT NULL AND (t0."age" = ?1 OR t0."age" IS t0."score"))"#, [.integer(1)]),
    ]

    @Test(arguments: ranges) func betweenAndIn(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: relationships

    static let relationships: [SQLCase] = [
        SQLCase("employer.name == 'Acme'", #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."name" = ?1"#, [.text("Acme")]),
        // one join per relationship, however often the path is used
        SQLCase("employer.#size > 10 AND employer.name == 'x'",
                #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE (t1."size" > ?1 AND t1."name" = ?2)"#, [.integer(10), .text("x")]),
        // a joined column can be NULL even if the attribute is not optional (no related row)
        SQLCase("employer.name != 'x'", #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."name" IS NOT ?1"#, [.text("x")]),
        SQLCase("employer == nil", #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."Z_PK" IS NULL"#, [.null]),
        SQLCase("employer != nil", #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."Z_PK" IS NOT NULL"#, [.null]),
        SQLCase("ANY tags.name == 'x'", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" = ?1)"#, [.text("x")]),
        SQLCase("SOME tags.name == 'x'", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" = ?1)"#, [.text("x")]),
        SQLCase("ANY tags.weight BETWEEN {1, 3}", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."weight" BETWEEN ?1 AND ?2)"#, [.integer(1), .integer(3)]),
        SQLCase("ANY tags.name IN {'a', 'b'}", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" IN (?1, ?2))"#, [.text("a"), .text("b")]),
        SQLCase("ANY tags.name CONTAINS[c] 'v'", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE pql_search(?2, ?3, t1."name", ?1, 2))"#,
                [.text("v"), .integer(99), .integer(1)]),
        SQLCase("ALL tags.weight > 0", #" WHERE (t0."Z_PK" NOT IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."person" IS NOT NULL AND NOT coalesce(t1."weight" > ?1, 0)))"#, [.integer(0)]),
        SQLCase("NONE tags.name == 'x'", #" WHERE NOT coalesce(t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" = ?1), 0)"#, [.text("x")]),
        SQLCase("'x' IN tags.name", #" WHERE (t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" = ?1))"#, [.text("x")]),
        SQLCase("tags.name CONTAINS 'x'", #" WHERE (t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."name" = ?1))"#, [.text("x")]),
        // The element list reads the outer row: correlated on the foreign key, so each row
        // reads its own tags (uncorrelated, each row read every tag).
        SQLCase("name IN tags.name", #" WHERE (t0."name" IS NOT NULL AND t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND t1."name" IS t0."name"))"#, []),
        SQLCase("ANY tags.name < name", #" WHERE t0."Z_PK" IN (SELECT t1."person" FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND t1."name" < t0."name")"#, []),
        // a to-many reached through a to-one: the subquery is keyed by the joined row
        SQLCase("ANY employer.employees.name == 'x'",
                #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."Z_PK" IN (SELECT t2."employer" FROM "Person" t2 WHERE t2."name" = ?1)"#, [.text("x")]),
        SQLCase("ALL employer.employees.age > 1",
                #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE (t1."Z_PK" IS NULL OR t1."Z_PK" NOT IN (SELECT t2."employer" FROM "Person" t2 WHERE t2."employer" IS NOT NULL AND NOT coalesce(t2."age" > ?1, 0)))"#, [.integer(1)]),
    ]

    @Test(arguments: relationships) func relationship(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: aggregates and SUBQUERY

    static let aggregates: [SQLCase] = [
        SQLCase("tags.@count > 2", #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") > ?1"#, [.integer(2)]),
        SQLCase("tags.@count == 0", #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") = ?1"#, [.integer(0)]),
        SQLCase("tags[SIZE] == 1", #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") = ?1"#, [.integer(1)]),
        SQLCase("count(tags) == 1", #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") = ?1"#, [.integer(1)]),
        // @sum and @avg run the evaluator's aggregate: nil counts as 0, integer sums are exact or an error.
        SQLCase("tags.@sum.weight > 5", #" WHERE (SELECT pql_sum(t1."weight", ?1, 0, 0) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") > ?2"#, [.integer(0), .integer(5)]),
        SQLCase("tags.@avg.weight > 5", #" WHERE (SELECT pql_avg(t1."weight", ?1, 0, 0) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") > ?2"#, [.integer(0), .integer(5)]),
        SQLCase("sum:(tags.weight) > 5", #" WHERE (SELECT pql_sum_function(t1."weight", ?1, 0, 1) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") > ?2"#, [.integer(0), .integer(5)]),
        SQLCase("max:(tags.name) == 'z'", #" WHERE (SELECT pql_max_function(t1."name", ?1, 0, 1) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") = ?2"#, [.integer(0), .text("z")]),
        SQLCase("tags.@min.weight < 1", #" WHERE (SELECT min(t1."weight") FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") < ?1"#, [.integer(1)]),
        SQLCase("tags.@max.weight >= 9", #" WHERE (SELECT max(t1."weight") FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") >= ?1"#, [.integer(9)]),
        SQLCase("tags.@max.name == 'z'", #" WHERE (SELECT max(t1."name") FROM "Tag" t1 WHERE t1."person" = t0."Z_PK") = ?1"#, [.text("z")]),
        SQLCase("employer.employees.@count > 1",
                #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE (SELECT COUNT(*) FROM "Person" t2 WHERE t2."employer" = t1."Z_PK") > ?1"#, [.integer(1)]),
        SQLCase("SUBQUERY(tags, $t, $t.name == 'vip').@count > 0",
                #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND t1."name" = ?1) > ?2"#, [.text("vip"), .integer(0)]),
        SQLCase("SUBQUERY(tags, $t, $t.weight > 1 AND $t.name BEGINSWITH 'v').@count == 1",
                #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND (t1."weight" > ?1 AND (t1."name" >= ?3 AND t1."name" < ?4))) = ?5"#,
                [.integer(1), .text("v"), .text("v"), .text("w"), .integer(1)]),
        // the subquery's condition may reach back to the outer row
        SQLCase("SUBQUERY(tags, $t, $t.name == name).@count > 0",
                #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND t1."name" IS t0."name") > ?1"#, [.integer(0)]),
        SQLCase("SUBQUERY(tags, $t, $t.weight > 2).@count < tags.@count",
                #" WHERE (SELECT COUNT(*) FROM "Tag" t1 WHERE t1."person" = t0."Z_PK" AND t1."weight" > ?1) < (SELECT COUNT(*) FROM "Tag" t2 WHERE t2."person" = t0."Z_PK")"#, [.integer(2)]),
    ]

    @Test(arguments: aggregates) func aggregateAndSubquery(_ c: SQLCase) throws {
        try check(c)
    }

    // MARK: arithmetic, functions, constant folding

    static let functions: [SQLCase] = [
        SQLCase("age + 1 > 5", #" WHERE pql_fn(?1, t0."age", ?2, ?3, ?4, 2) > ?5"#, [.text("add:to:"), .integer(0), .integer(1), .integer(0), .integer(5)]),
        SQLCase("age - 1 > 5", #" WHERE pql_fn(?1, t0."age", ?2, ?3, ?4, 2) > ?5"#, [.text("from:subtract:"), .integer(0), .integer(1), .integer(0), .integer(5)]),
        // `=`, not `IS`: a pql_fn result is never nil (its NULL is NaN), so it never equals a nil score.
        SQLCase("age * 2 == score", #" WHERE pql_fn(?1, t0."age", ?2, ?3, ?4, 2) = t0."score""#, [.text("multiply:by:"), .integer(0), .integer(2), .integer(0)]),
        SQLCase("age / 2 == 3", #" WHERE pql_fn(?1, t0."age", ?2, ?3, ?4, 2) = ?5"#, [.text("divide:by:"), .integer(0), .integer(2), .integer(0), .integer(3)]),
        SQLCase("uppercase(name) == 'X'", #" WHERE pql_fn(?1, t0."name", ?2, 1) = ?3"#, [.text("uppercase:"), .integer(0), .text("X")]),
        SQLCase("length(name) > 3", #" WHERE pql_fn(?1, t0."name", ?2, 1) > ?3"#, [.text("length:"), .integer(0), .integer(3)]),
        SQLCase("abs(score) > 3", #" WHERE pql_fn(?1, t0."score", ?2, 1) > ?3"#, [.text("abs:"), .integer(0), .integer(3)]),
        SQLCase("noindex(age) == 5", #" WHERE (+t0."age") = ?1"#, [.integer(5)]),
        // constant subexpressions are evaluated once and bound
        SQLCase("1 + 2 == age", #" WHERE ?1 = t0."age""#, [.integer(3)]),
        SQLCase("age == 2 * 3 + 1", #" WHERE t0."age" = ?1"#, [.integer(7)]),
        SQLCase("age == CAST('5', 'NSNumber')", #" WHERE t0."age" = ?1"#, [.integer(5)]),
        SQLCase("born > CAST(0, 'NSDate')", #" WHERE t0."born" > ?1"#, [.real(0)]),
        SQLCase("name == uppercase('abc')", #" WHERE t0."name" = ?1"#, [.text("ABC")]),
        SQLCase("CAST(age, 'NSString') == '5'", #" WHERE pql_cast(t0."age", ?1, ?2, 2) = ?3"#, [.integer(0), .text("NSString"), .text("5")]),
        SQLCase("TERNARY(age > 5, 1, 0) == 1", #" WHERE (CASE WHEN coalesce(t0."age" > ?1, 0) THEN ?2 ELSE ?3 END) = ?4"#,
                [.integer(5), .integer(1), .integer(0), .integer(1)]),
        SQLCase("age == $limit", #" WHERE t0."age" = ?1"#, [.integer(40)]),
    ]

    @Test(arguments: functions) func arithmeticAndFunctions(_ c: SQLCase) throws {
        try check(c, variables: ["limit": 40])
    }

    func check(_ c: SQLCase, variables: [String: PredicateValue] = [:]) throws {
        let arguments: [Any?] = c.arguments.map { a in
            if a.hasPrefix("["), let d = a.data(using: .utf8), let array = try? JSONSerialization.jsonObject(with: d) { return array }
            return a
        }
        let got = try Self.compiled(c.format, arguments, variables: variables)
        #expect(Self.tail(got) == c.tail, "\(c.format)\n  got: \(got.sql)")
        #expect(got.bindings == c.bindings, "\(c.format)")
        Self.expectOnlyPlaceholders(got, c.format)
    }

    /// `BEGINSWITH[c]` on an indexed column: one range per scalar a match can start with (so
    /// SQLite unions index searches), the ASCII spellings of the prefix certain inside them,
    /// and the shared search deciding the rest; the rare non-ASCII starts behind one comparison.
    @Test func caseInsensitivePrefixOnAnIndexIsRangesAnIndexServes() throws {
        let c = try Self.compiled("name BEGINSWITH[c] 'ab'")
        let tail = try #require(Self.tail(c))
        #expect(!tail.contains("LIKE"), "\(tail)")
        #expect(tail.contains(#"t0."name" >= ?4 AND t0."name" < ?5 AND ((t0."name" >= ?6 AND t0."name" < ?7) OR (t0."name" >= ?8 AND t0."name" < ?9) OR pql_search(?2, ?3, t0."name", ?1, 2))"#), "\(tail)")
        #expect(c.bindings.first == .text("ab"))
        #expect(Array(c.bindings[1...2]) == [.integer(8), .integer(1)])
        #expect(Array(c.bindings[3...8]) == [.text("A"), .text("B"), .text("AB"), .text("AB\u{300}"), .text("Ab"), .text("Ab\u{300}")])
        for text in ["a", "b", "ab", "ab\u{300}", "ẚ", "ẛ", "Ａ", "ａ"] {
            #expect(c.bindings.contains(.text(text)), "\(text) in \(c.bindings)")
        }
        Self.expectOnlyPlaceholders(c, "BEGINSWITH[c]")
    }

    /// On a column no index serves, one call per row of `pql_prefix_ci` with the needle's ASCII
    /// fold (ranges would cost several comparisons per row); a fold that is not ASCII keeps
    /// the range form.
    @Test func caseInsensitivePrefixOnAScanIsOneCall() throws {
        let c = try Self.compiled("email BEGINSWITH[c] 'Straße'")
        #expect(Self.tail(c) == #" WHERE pql_prefix_ci(t0."email", ?2, ?3, 2)"#, "\(c.sql)")
        #expect(Array(c.bindings[1...2]) == [.text("strasse"), .text("Straße")])
        Self.expectOnlyPlaceholders(c, "BEGINSWITH[c] on a scan")
        let greek = try Self.compiled("email BEGINSWITH[c] 'σ'")
        #expect(!greek.sql.contains("pql_prefix_ci") && greek.sql.contains("pql_search"), "\(greek.sql)")
    }

    @Test func nowIsEvaluatedOnceAndBound() throws {
        let before = Date().timeIntervalSinceReferenceDate
        let c = try Self.compiled("born > now()")
        #expect(Self.tail(c) == #" WHERE t0."born" > ?1"#)
        guard case .real(let t)? = c.bindings.first else { Issue.record("\(c.bindings)"); return }
        #expect(t >= before - 1 && t <= Date().timeIntervalSinceReferenceDate + 1)
    }

    @Test func longChainsAreGroupedBelowSQLitesDepthLimit() throws {
        let c = try Self.compiled((0..<200).map { "age == \($0)" }.joined(separator: " OR "))
        let tail = try #require(Self.tail(c))
        // four groups of at most 64 terms, one level up
        #expect(tail.hasPrefix(#" WHERE ((t0."age" = ?1 OR t0."age" = ?2 OR"#), "\(tail.prefix(80))")
        #expect(tail.contains(#"t0."age" = ?64) OR (t0."age" = ?65 OR"#))
        #expect(tail.hasSuffix(#"t0."age" = ?192) OR (t0."age" = ?193 OR t0."age" = ?194 OR t0."age" = ?195 OR t0."age" = ?196 OR t0."age" = ?197 OR t0."age" = ?198 OR t0."age" = ?199 OR t0."age" = ?200))"#))
        #expect(c.bindings.count == 200)
        let sqlite = SQLiteDialect()
        func chain(_ terms: [Int64], _ op: SQLBinaryOperator) -> String {
            sqlite.render(PredicateSQLCompiler.chain(terms.map { SQLNode.integer($0) }, op))
        }
        #expect(chain([1], .or) == "1")
        #expect(chain([1, 2], .or) == "(1 OR 2)")
        #expect(chain(Array(0..<65), .and) == "((" + (0..<64).map(String.init).joined(separator: " AND ") + ") AND 64)")
    }

    // MARK: order, limit, offset

    @Test func sortAddsTheKeyAsTieBreaker() throws {
        let c = try Self.compiled("age > 1", sort: [SortRule("age")])
        #expect(Self.tail(c) == #" WHERE t0."age" > ?1 ORDER BY t0."age" ASC, t0."Z_PK""#)
    }

    @Test func sortDescendingAndCaseInsensitive() throws {
        let c = try Self.compiled("TRUEPREDICATE", sort: [SortRule("name", ascending: false, comparison: .caseInsensitive), SortRule("score")])
        #expect(Self.tail(c) == #" ORDER BY t0."name" COLLATE PQL_NOCASE DESC, t0."score" ASC, t0."Z_PK""#)
    }

    @Test func sortLocalized() throws {
        let c = try Self.compiled("TRUEPREDICATE", sort: [SortRule("city", comparison: .localized)])
        #expect(Self.tail(c) == #" ORDER BY t0."city" COLLATE PQL_LOCALIZED ASC, t0."Z_PK""#)
    }

    @Test func sortByToOneKeyPathJoins() throws {
        let c = try Self.compiled("employer.name == 'x'", sort: [SortRule("employer.name")])
        #expect(Self.tail(c) == #" LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer" WHERE t1."name" = ?1 ORDER BY t1."name" ASC, t0."Z_PK""#)
    }

    @Test func sortByRelationshipIsAnError() throws {
        #expect(throws: StoreError.self) { try Self.compiled("TRUEPREDICATE", sort: [SortRule("tags")]) }
        #expect(throws: StoreError.self) { try Self.compiled("TRUEPREDICATE", sort: [SortRule("employer")]) }
        #expect(throws: StoreError.self) { try Self.compiled("TRUEPREDICATE", sort: [SortRule("nonsense")]) }
    }

    @Test func limitAndOffsetAreParameters() throws {
        let c = try Self.compiled("age > 1", sort: [SortRule("age")], offset: 20, limit: 10)
        #expect(Self.tail(c) == #" WHERE t0."age" > ?1 ORDER BY t0."age" ASC, t0."Z_PK" LIMIT ?2 OFFSET ?3"#)
        #expect(c.bindings == [.integer(1), .integer(10), .integer(20)])
    }

    @Test func offsetWithoutLimitUsesMinusOne() throws {
        let c = try Self.compiled("TRUEPREDICATE", offset: 5)
        #expect(Self.tail(c) == " LIMIT ?1 OFFSET ?2")
        #expect(c.bindings == [.integer(-1), .integer(5)])
    }

    @Test func negativeLimitAndOffsetAreClamped() throws {
        let q = try EntityQuery("Person", where: "TRUEPREDICATE", offset: -7, limit: -3)
        #expect(q.limit == 0)
        #expect(q.offset == 0)
        let c = try PredicateStore.inMemory(PeopleModel.model).sql(for: q)
        #expect(c.bindings == [.integer(0), .integer(0)])
    }

    @Test func countSQLWithAndWithoutPaging() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let plain = try store.countSQL(for: try EntityQuery("Person", where: "age > 3"))
        #expect(plain.sql == #"SELECT count(*) FROM "Person" t0 WHERE t0."age" > ?1"#)
        let paged = try store.countSQL(for: try EntityQuery("Person", where: "age > 3", limit: 2))
        #expect(paged.sql == #"SELECT count(*) FROM (SELECT 1 FROM "Person" t0 WHERE t0."age" > ?1 LIMIT ?2 OFFSET ?3)"#)
        #expect(paged.bindings == [.integer(3), .integer(2), .integer(0)])
    }

    @Test func otherEntitiesSelectTheirOwnColumns() throws {
        let store = try PredicateStore.inMemory(PeopleModel.model)
        let c = try store.sql(for: try EntityQuery("Company", where: "ANY employees.age > 30"))
        #expect(c.sql == #"SELECT t0."Z_PK", t0."name", t0."founded", t0."size" FROM "Company" t0 WHERE t0."Z_PK" IN (SELECT t1."employer" FROM "Person" t1 WHERE t1."age" > ?1)"#)
        // the non-optional name: `!=` needs no IS NOT
        let n = try store.sql(for: try EntityQuery("Company", where: "name != 'x'"))
        #expect(n.sql.hasSuffix(#"WHERE t0."name" <> ?1"#) || n.sql.hasSuffix(#"WHERE t0."name" IS NOT ?1"#), "\(n.sql)")
        let t = try store.sql(for: try EntityQuery("Tag", where: "person.name == 'x'"))
        #expect(t.sql == #"SELECT t0."Z_PK", t0."name", t0."weight" FROM "Tag" t0 LEFT JOIN "Person" t1 ON t1."Z_PK" = t0."person" WHERE t1."name" = ?1"#)
    }

    // MARK: inheritance

    @Test func subEntityFilterOnEntityColumn() throws {
        let store = try PredicateStore.inMemory(ZooModel.model)
        let dogs = try store.sql(for: try EntityQuery("Dog", where: "barks == YES"))
        #expect(dogs.sql == #"SELECT t0."Z_PK", t0."Z_ENT", t0."name", t0."legs", t0."barks", t0."age" FROM "Animal" t0 WHERE t0."Z_ENT" IN (?1, ?2) AND t0."barks" = ?3"#)
        #expect(dogs.bindings == [.integer(3), .integer(5), .integer(1)])
        let cats = try store.sql(for: try EntityQuery("Cat", where: "legs > 3"))
        #expect(cats.sql == #"SELECT t0."Z_PK", t0."Z_ENT", t0."name", t0."legs", t0."indoor" FROM "Animal" t0 WHERE t0."Z_ENT" IN (?1) AND t0."legs" > ?2"#)
        #expect(cats.bindings == [.integer(4), .integer(3)])
        // the root's table holds exactly its tree: no filter
        let all = try store.sql(for: try EntityQuery("Animal", where: "legs > 3"))
        #expect(all.sql == #"SELECT t0."Z_PK", t0."Z_ENT", t0."name", t0."legs", t0."barks", t0."indoor", t0."age" FROM "Animal" t0 WHERE t0."legs" > ?1"#)
        let none = try store.sql(for: EntityQuery("Cat"))
        #expect(none.sql.hasSuffix(#"FROM "Animal" t0 WHERE t0."Z_ENT" IN (?1)"#))
    }

    @Test func toManyIntoSubEntityFiltersTheSubquery() throws {
        let store = try PredicateStore.inMemory(ZooModel.model)
        let c = try store.sql(for: try EntityQuery("Keeper", where: "ANY dogs.name == 'Rex'"))
        #expect(c.sql == #"SELECT t0."Z_PK", t0."name" FROM "Keeper" t0 WHERE t0."Z_PK" IN (SELECT t1."dogKeeper" FROM "Animal" t1 WHERE t1."Z_ENT" IN (?1, ?2) AND t1."name" = ?3)"#)
        #expect(c.bindings == [.integer(3), .integer(5), .text("Rex")])
    }

    // MARK: values never appear in the SQL

    static let hostileValues: [String] = [
        "x'; DROP TABLE \"Person\"; --", "Robert'); DELETE FROM Tag; --", "\"nam\"", "?17", "' OR 1=1 --", "\\'", "Zoë", "日本語", "a\u{0}b",
    ]

    @Test(arguments: hostileValues) func valuesAreNeverSplicedIntoSQL(_ v: String) throws {
        for format in ["name == %@", "name != %@", "name BEGINSWITH %@", "name CONTAINS[cd] %@", "name LIKE %@", "name IN {%@, 'y'}",
                       "ANY tags.name == %@", "SUBQUERY(tags, $t, $t.name ==[c] %@).@count > 0", "employer.name ENDSWITH %@",
                       "name MATCHES %@", "uppercase(name) == %@", "age BETWEEN {%@, %@}"] {
            let args: [Any?] = format.contains("BETWEEN") ? [v, v] : [v]
            let c: CompiledSQL
            do { c = try Self.compiled(format, args) } catch let e as StoreError where e.evaluationError?.kind == .invalidRegex {
                // Not a valid pattern: an error when compiling, as in memory; no SQL at all.
                #expect(format.contains("MATCHES"))
                continue
            }
            #expect(!c.sql.contains(v), "\(format): \(c.sql)")
            Self.expectOnlyPlaceholders(c, format)
            #expect(c.bindings.contains(.text(v)), "\(format): \(c.bindings)")
        }
    }

    @Test func everyCaseUsesOnlyPlaceholders() throws {
        for c in Self.comparisons + Self.strings + Self.logic + Self.ranges + Self.relationships + Self.aggregates + Self.functions {
            let arguments: [Any?] = c.arguments.map { $0 }
            guard let got = try? Self.compiled(c.format, arguments, variables: ["limit": 40]) else { continue }
            Self.expectOnlyPlaceholders(got, c.format)
        }
    }

    @Test func theDescriptionListsBindings() throws {
        let c = try Self.compiled("name == 'it''s' AND age > 3".replacingOccurrences(of: "''", with: "\\'"))
        #expect(c.description.contains("-- bindings: ?1 = 'it''s', ?2 = 3"), "\(c.description)")
    }
}

/// An inheritance tree sharing one table: abstract Animal, Dog (with Puppy below it) and Cat;
/// Keeper links to dogs through a to-many whose destination is the sub-entity Dog.
enum ZooModel {
    static let model: StoreModel = {
        do {
            return try StoreModel([
                ModelEntity("Keeper", attributes: [ModelAttribute("name", .string)],
                            relationships: [ModelRelationship("dogs", toMany: "Dog", inverse: "dogKeeper")]),
                ModelEntity("Animal", attributes: [ModelAttribute("name", .string, isOptional: false, isIndexed: true),
                                                   ModelAttribute("legs", .integer16, defaultValue: 4)],
                            isAbstract: true),
                ModelEntity("Dog", attributes: [ModelAttribute("barks", .boolean, defaultValue: true)],
                            relationships: [ModelRelationship("dogKeeper", to: "Keeper", inverse: "dogs")], parent: "Animal"),
                ModelEntity("Cat", attributes: [ModelAttribute("indoor", .boolean)], parent: "Animal"),
                ModelEntity("Puppy", attributes: [ModelAttribute("age", .integer32)], parent: "Dog"),
            ])
        } catch {
            fatalError("the zoo model is invalid: \(error)")
        }
    }()
}

import Foundation
import PQL
@testable import PQLStore
import Testing

/// The SQL structure the compiler builds: its properties come from what it is, not from its
/// text, and the SQLite dialect spells it.
@Suite struct SQLStructureTests {
    let sqlite = SQLiteDialect()

    @Test func whetherANodeCanRaiseIsReadFromItsFunctions() {
        // A column whose name looks like one of PQL's functions raises nothing.
        let column = SQLNode.column(alias: "t0", name: "pql_fn")
        #expect(!column.canRaise)
        #expect(sqlite.render(column) == #"t0."pql_fn""#)
        #expect(SQLNode.call(.builtin, [column, .parameter(0), .integer(2)]).canRaise)
        // Folding and a decided answer raise nothing themselves; their operands may.
        #expect(!SQLNode.call(.fold, [.parameter(0), column]).canRaise)
        #expect(!SQLNode.call(.decided, [.boolean(false), column]).canRaise)
        #expect(SQLNode.call(.decided, [.boolean(false), .call(.cast, [column, .parameter(0), .parameter(1), .integer(-1)])]).canRaise)
        // Inside a subquery too.
        let scope = SQLScope(entity: ModelEntity("Tag"), storage: ModelEntity("Tag"), alias: "t1")
        let sum = SQLNode.subquery(SQLSelect(columns: [.call(.aggregate(.sumOperator), [column, .parameter(0), .integer(0), .integer(3)])],
                                             from: scope, conditions: []))
        #expect(sum.canRaise)
        #expect(!SQLNode.subquery(SQLSelect(columns: [.countAll], from: scope, conditions: [])).canRaise)
    }

    @Test func aCompoundNeedsShortCircuitingOnlyWhenAPartCanRaise() {
        let age = SQLNode.column(alias: "t0", name: "age")
        let folded = SQLCondition(node: .parenthesized(.chain([.isNull(age, negated: true), .call(.fold, [.parameter(0), age])], .and)),
                                  nullable: true, compound: true)
        #expect(sqlite.render(folded.negated) == #"NOT coalesce((t0."age" IS NOT NULL AND pql_fold(?1, t0."age")), 0)"#)
        let raising = SQLCondition(node: .parenthesized(.chain([.isNull(age, negated: true), .call(.compare, [age])], .and)),
                                   nullable: true, compound: true)
        #expect(sqlite.render(raising.negated) == #"(CASE WHEN (t0."age" IS NOT NULL AND pql_compare(t0."age")) THEN 0 ELSE 1 END)"#)
        #expect(sqlite.render(raising.definite) == #"(CASE WHEN (t0."age" IS NOT NULL AND pql_compare(t0."age")) THEN 1 ELSE 0 END)"#)
    }

    @Test func theSQLiteDialectSpellsIdentifiersParametersAndFunctions() {
        #expect(sqlite.quote(#"a"b"#) == #""a""b""#)
        #expect(sqlite.render(.parameter(0)) == "?1")
        #expect(sqlite.render(.boolean(true)) == "1" && sqlite.render(.boolean(false)) == "0")
        for operation in SharedSemantics.Aggregate.Operation.allCases {
            #expect(sqlite.name(of: .aggregate(operation)) == SQLiteFunctions.aggregateName(operation))
        }
        #expect(sqlite.page(limit: .parameter(2), offset: .parameter(3)) == " LIMIT ?3 OFFSET ?4")
        #expect(sqlite.collation(.caseInsensitive) == " COLLATE PQL_NOCASE" && sqlite.collation(.literal).isEmpty)
        let x = SQLNode.column(alias: "t0", name: "x")
        #expect(sqlite.render(.inList(x, [.parameter(0), .parameter(1)])) == #"t0."x" IN (?1, ?2)"#)
        #expect(sqlite.render(.between(x, .parameter(0), .parameter(1))) == #"t0."x" BETWEEN ?1 AND ?2"#)
        #expect(sqlite.render(.parenthesized(.unaryPlus(x))) == #"(+t0."x")"#)
    }

    /// A second spelling of the same structure, as another database's dialect would give:
    /// `$n` parameters, schema-qualified functions, TRUE and FALSE.
    struct DollarDialect: SQLDialect {
        func quote(_ name: String) -> String { SQLiteDialect().quote(name) }
        func parameter(_ slot: Int) -> String { "$\(slot + 1)" }
        func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
        func name(of function: SQLFunction) -> String { "pql." + SQLiteDialect().name(of: function) }
        func page(limit: SQLNode, offset: SQLNode) -> String { " LIMIT \(render(limit)) OFFSET \(render(offset))" }
        func collation(_ comparison: SortRule.Comparison) -> String { comparison == .literal ? "" : #" COLLATE "C""# }
    }

    @Test func anotherDialectSpellsTheSameCompiledStatement() throws {
        let query = try EntityQuery("Person", where: "name ==[c] 'x' AND (age > 1 OR NOT TRUEPREDICATE)",
                                    sort: [SortRule("name", comparison: .caseInsensitive)], limit: 5)
        var sqlite = try SelectBuilder(model: PeopleModel.model, query: query)
        var dollar = try SelectBuilder(model: PeopleModel.model, query: query, dialect: DollarDialect())
        let a = try sqlite.keys(), b = try dollar.keys()
        #expect(a.bindings == b.bindings)
        #expect(a.sql == #"SELECT t0."Z_PK" FROM "Person" t0 WHERE (pql_compare(?2, ?3, t0."name", ?4, ?1, ?5, 2) AND (t0."age" > ?6 OR NOT (1))) ORDER BY t0."name" COLLATE PQL_NOCASE ASC, t0."Z_PK" LIMIT ?7 OFFSET ?8"#,
                "\(a.sql)")
        #expect(b.sql == #"SELECT t0."Z_PK" FROM "Person" t0 WHERE (pql.pql_compare($2, $3, t0."name", $4, $1, $5, 2) AND (t0."age" > $6 OR NOT (TRUE))) ORDER BY t0."name" COLLATE "C" ASC, t0."Z_PK" LIMIT $7 OFFSET $8"#,
                "\(b.sql)")
    }

    @Test func aJoinIsStructureTheDialectSpells() throws {
        let model = PeopleModel.model
        var compiler = PredicateSQLCompiler(model: model)
        let person = try model.entity(named: "Person")
        let scope = compiler.makeScope(person, alias: "t0")
        let c = try compiler.compile(try PredicateNode(format: "employer.name == 'Acme'"), in: scope)
        #expect(sqlite.render(c.node) == #"t1."name" = ?1"#)
        #expect(sqlite.from(scope) == #""Person" t0 LEFT JOIN "Company" t1 ON t1."Z_PK" = t0."employer""#)
    }
}

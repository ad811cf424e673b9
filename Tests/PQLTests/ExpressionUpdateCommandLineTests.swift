import Foundation
import Testing

/// `pql update --set-expr`: values computed from each record; `--set` stays a literal.
@Suite("pql update --set-expr")
struct ExpressionUpdateCommandLineTests {
    @Test func computesValuesFromEachRecord() throws {
        let store = try BatchCommandLineTests.store()
        let r = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age != nil",
                                    "--set-expr", "age=age * 2 + 1", "--set-expr", "city=uppercase:(city)", "--set", "vip=true"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "2\n")
        #expect(try BatchCommandLineTests.rows(store, "age != nil") == """
            {"name":"José","age":81,"city":"PARIS","joined":{"$date":"2020-01-02T03:04:05Z"},"vip":true}
            {"name":"Ángel","age":35,"city":"LIMA","joined":null,"vip":true}

            """)
        // --set is a literal even when it reads like an expression.
        let literal = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age == 81", "--set", "city=age * 2"])
        #expect(literal.status == 0, "\(literal.stderr)")
        #expect(try BatchCommandLineTests.rows(store, "city == 'age * 2'").contains("José"))
        // For a number attribute, --set text that is not JSON can only be an expression.
        let numeric = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age == 81", "--set", "age=age - 1"])
        #expect(numeric.status == 0, "\(numeric.stderr)")
        #expect(try BatchCommandLineTests.rows(store, "age == 80").contains("José"))
        // A string constant in an expression; the record's old value on the right.
        let swapped = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age == 35",
                                          "--set-expr", "city='Cusco'", "--set-expr", "name=city"])
        #expect(swapped.status == 0, "\(swapped.stderr)")
        #expect(try BatchCommandLineTests.rows(store, "city == 'Cusco'").contains(#""name":"LIMA""#))
    }

    @Test func reportsErrorsAndChangesNothing() throws {
        let store = try BatchCommandLineTests.store()
        let before = try BatchCommandLineTests.rows(store)
        // A result that does not fit its attribute names the attribute.
        let fraction = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age != nil", "--set-expr", "age=age * 1.5"])
        #expect(fraction.status == 1)
        #expect(fraction.stderr.contains("Person.age is an integer64 attribute"), "\(fraction.stderr)")
        // Overflow is an error, as in memory.
        let overflow = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age != nil",
                                           "--set-expr", "age=age + 9223372036854775800"])
        #expect(overflow.status == 1, "\(overflow.stdout)")
        // An expression that does not parse is shown with a caret.
        let syntax = try PQLProcess.run(["update", store, "--entity", "Person", "--set-expr", "age=age * "])
        #expect(syntax.status != 0)
        #expect(syntax.stderr.contains("^"), "\(syntax.stderr)")
        let unknown = try PQLProcess.run(["update", store, "--entity", "Person", "--set-expr", "age=agee + 1"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("did you mean 'age'?"), "\(unknown.stderr)")
        // Text for a number attribute that is neither a number nor a working expression: the
        // error names the --set it came from and points at its value.
        let word = try PQLProcess.run(["update", store, "--entity", "Person", "--set", "age=agee"])
        #expect(word.status == 1)
        #expect(word.stderr.contains("--set age=agee: Person.age is a number attribute, and 'agee' is not a number"), "\(word.stderr)")
        #expect(word.stderr.contains("1 | age=agee\n  |     ^~~~"), "\(word.stderr)")
        #expect(word.stderr.contains("did you mean 'age'? Or give a number"), "\(word.stderr)")
        let twice = try PQLProcess.run(["update", store, "--entity", "Person", "--set", "age=1", "--set-expr", "age=2"])
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("more than once"))
        let nothing = try PQLProcess.run(["update", store, "--entity", "Person"])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("--set-expr"))
        #expect(try BatchCommandLineTests.rows(store) == before)
    }
}

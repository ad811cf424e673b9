import Foundation
import Testing

/// `pql update` and `pql delete`, through the built binary.
@Suite("pql update and delete")
struct BatchCommandLineTests {
    /// A store with the three people of `StoreCommandLineTests.workspace()`.
    static func store() throws -> String {
        let dir = try StoreCommandLineTests.workspace()
        let store = dir.appendingPathComponent("s.sqlite").path
        let r = try PQLProcess.run(["import", store, dir.appendingPathComponent("people.csv").path, "--entity", "Person"])
        #expect(r.status == 0, "\(r.stderr)")
        return store
    }

    static func rows(_ store: String, _ predicate: String = "TRUEPREDICATE") throws -> String {
        try PQLProcess.run(["query", store, "--entity", "Person", "--where", predicate, "--sort", "name"]).stdout
    }

    @Test func updatesThenDeletes() throws {
        let store = try Self.store()
        // --set values are JSON when they are JSON, plain strings otherwise.
        let moved = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "city == %@", "--arg", #""Paris""#,
                                        "--set", "city=Lyon", "--set", "vip=true", "--set", "age=null"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "2\n")
        #expect(try Self.rows(store, "city == 'Lyon'") == """
            {"name":"José","age":null,"city":"Lyon","joined":{"$date":"2020-01-02T03:04:05Z"},"vip":true}
            {"name":"Zoë, Jr.","age":null,"city":"Lyon","joined":{"$date":"2021-06-01T00:00:00Z"},"vip":true}

            """)
        let quoted = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age > $A", "--var", "A=16",
                                         "--set", #"city="Cusco""#, "--set", "age=18", "--set", #"joined={"$date": "2024-05-01T12:00:00Z"}"#])
        #expect(quoted.stdout == "1\n", "\(quoted.stderr)")
        #expect(try Self.rows(store, "city == 'Cusco'") == """
            {"name":"Ángel","age":18,"city":"Cusco","joined":{"$date":"2024-05-01T12:00:00Z"},"vip":false}

            """)
        let none = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "age > 100", "--set", "vip=false"])
        #expect(none.status == 0)
        #expect(none.stdout == "0\n")

        let deleted = try PQLProcess.run(["delete", store, "--entity", "Person", "--where", "name BEGINSWITH[cd] %@", "--arg", #""jose""#])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "1\n")
        #expect(try PQLProcess.run(["query", store, "--entity", "Person", "--count"]).stdout == "2\n")
        let rest = try PQLProcess.run(["delete", store, "--entity", "Person"])
        #expect(rest.stdout == "2\n")
        #expect(try PQLProcess.run(["query", store, "--entity", "Person", "--count"]).stdout == "0\n")
    }

    @Test("an integer past 64 bits is out of range, not 'give a whole number'; the edges fit")
    func integersPast64Bits() throws {
        let store = try Self.store()
        let before = try Self.rows(store)
        for value in ["9223372036854775808", "-9223372036854775809", "9223372036854775809", "123456789012345678901234567890"] {
            let r = try PQLProcess.run(["update", store, "--entity", "Person", "--set", "age=\(value)"])
            #expect(r.status == 1, "\(value): \(r.stderr)")
            #expect(r.stderr.contains("Person.age is an integer64 attribute; \(value) is outside the 64-bit integer range (-9223372036854775808…9223372036854775807)"), "\(r.stderr)")
            #expect(r.stderr.contains("give a value within that range, or make age a decimal or double attribute"), "\(r.stderr)")
            #expect(!r.stderr.contains("whole number"), "\(r.stderr)")
        }
        #expect(try Self.rows(store) == before)
        for value in ["9223372036854775807", "-9223372036854775808"] {
            let r = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "name == 'José'", "--set", "age=\(value)"])
            #expect(r.status == 0 && r.stdout == "1\n", "\(value): \(r.stderr)")
            #expect(try PQLProcess.run(["query", store, "--entity", "Person", "--count", "--where", "age == \(value)"]).stdout == "1\n")
        }
    }

    @Test func reportsErrorsWithCaretsAndStatus() throws {
        let store = try Self.store()
        let before = try Self.rows(store)
        let unknownKey = try PQLProcess.run(["update", store, "--entity", "Person", "--where", "citty == 'Paris'", "--set", "vip=true"])
        #expect(unknownKey.status == 1)
        #expect(unknownKey.stderr.contains("keypath 'citty' not found in entity Person"))
        #expect(unknownKey.stderr.contains("did you mean 'city'?"))
        #expect(unknownKey.stderr.contains("1 | citty == 'Paris'\n  | ^~~~~\n"), "\(unknownKey.stderr)")
        let deleteKey = try PQLProcess.run(["delete", store, "--entity", "Person", "--where", "citty == 'Paris'"])
        #expect(deleteKey.status == 1)
        #expect(deleteKey.stderr.contains("  | ^~~~~\n"), "\(deleteKey.stderr)")
        let setKey = try PQLProcess.run(["update", store, "--entity", "Person", "--set", "cty=Lima"])
        #expect(setKey.status == 1)
        #expect(setKey.stderr.contains("did you mean 'city'?"), "\(setKey.stderr)")
        let entity = try PQLProcess.run(["delete", store, "--entity", "Persn"])
        #expect(entity.status == 1)
        #expect(entity.stderr.contains("did you mean 'Person'?"))
        let syntax = try PQLProcess.run(["delete", store, "--entity", "Person", "--where", "age >"])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.contains("^"))
        // A value that does not fit the attribute: an error, and nothing changes.
        let misfit = try PQLProcess.run(["update", store, "--entity", "Person", "--set", "age=old"])
        #expect(misfit.status == 1)
        #expect(misfit.stderr.hasPrefix("error:"), "\(misfit.stderr)")
        #expect(try Self.rows(store) == before)

        for usage in [["update", store, "--entity", "Person"],
                      ["update", store, "--entity", "Person", "--set", "vip"],
                      ["update", store, "--entity", "Person", "--set", "=1"],
                      ["update", store, "--entity", "Person", "--set", "age=1", "--set", "age=2"],
                      ["update", ":demo:", "--entity", "Flight", "--set", "dep_delay=0"],
                      ["delete", ":demo:", "--entity", "Flight"],
                      ["delete", store, "--entity", "Person", "--arg", "{"]] {
            let r = try PQLProcess.run(usage)
            #expect(r.status == 2, "\(usage): \(r.stderr)")
        }
        let missing = try PQLProcess.run(["delete", store + ".nope", "--entity", "Person"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no database at"))
        #expect(try Self.rows(store) == before)
    }
}

import Foundation
import PQL
import Testing

/// Offsets and limits come from users (`--limit`, `.limit`, a server's `?limit=`): any `Int`
/// pages without trapping. `--offset 1 --limit 9223372036854775807` overflowed `offset + limit`
/// and killed `pql` with SIGILL, in `pql query` and `pql filter` on a file and in the REPL.
@Suite struct PagingOverflowTests {
    let people: [PredicateValue] = [["n": 1], ["n": 2], ["n": 3], ["n": 4]]

    @Test func predicateQueryPagesWithTheLargestLimit() throws {
        let q = PredicateQuery(sort: [SortRule("n")], offset: 1, limit: .max)
        #expect(try q.run(on: people) == Array(people.dropFirst()))
        #expect(try PredicateQuery(offset: .max, limit: .max).run(on: people).isEmpty)
    }

    @Test func offsetsAndLimitsSetAfterInitCountAsZeroWhenNegative() throws {
        var q = PredicateQuery()
        q.offset = -3
        q.limit = -1
        #expect(try q.run(on: people).isEmpty)
        q.limit = nil
        #expect(try q.run(on: people) == people)
    }

    @Test func groupQueryPagesWithTheLargestLimit() throws {
        var q = try GroupQuery(groupBy: ["n"], select: ["c": "count:(n)"], limit: .max, offset: 1)
        #expect(try q.run(on: people).count == 3)
        q.offset = -1
        q.limit = .min
        #expect(try q.run(on: people).isEmpty)
    }

    @Test func theCommandLineAndTheREPLPageWithTheLargestLimit() throws {
        let dir = try scratchDirectory("pql-paging")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("people.json")
        try #"[{"n":1},{"n":2},{"n":3}]"#.write(to: file, atomically: true, encoding: .utf8)
        let max = String(Int.max)
        let query = try PQLProcess.run(["query", file.path, "--offset", "1", "--limit", max])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == "{\"n\":2}\n{\"n\":3}\n")
        let filter = try PQLProcess.run(["filter", "--offset", "1", "--limit", max, "TRUEPREDICATE", file.path])
        #expect(filter.status == 0, "\(filter.stderr)")
        #expect(filter.stdout.contains("{\"n\":3}"))
        let repl = try PQLProcess.run([file.path, "-c", ".offset 1", "-c", ".limit \(max)", "-c", ".format jsonl",
                                       "-c", "n > 0", "-c", ".distinct n", "-c", ".group n c=count:(n)"])
        #expect(repl.status == 0, "\(repl.stderr)")
        // Rows 2 and 3, the values 2 and 3, and the three groups (.group pages by .limit only).
        #expect(repl.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("{\"n\":") }.count == 2 + 2 + 3, "\(repl.stdout)")
    }
}

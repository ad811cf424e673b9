import Foundation
import PQL
import Testing

/// A step-limit error's hint names what in the predicate multiplies the work. It blamed
/// nested SUBQUERYs for every predicate, a chain of 2,000 ANDs with none among them.
@Suite struct WorkLimitHintTests {
    static let chain = (0..<2000).map { "a != \($0)" }.joined(separator: " AND ")

    @Test func theHintFollowsThePredicatesShape() throws {
        func hint(_ text: String) throws -> String { WorkLimitHint.text(for: try PredicateNode(format: text), setting: "--max-steps") }
        #expect(try hint(Self.chain).hasPrefix("the predicate makes 2000 comparisons on every row"))
        #expect(try hint("SUBQUERY(kids, $k, SUBQUERY($k.kids, $g, $g.age > 1).@count > 0).@count > 0").hasPrefix("a SUBQUERY inside a SUBQUERY"))
        #expect(try hint("ANY kids.age > 5").hasPrefix("each SUBQUERY, ANY/ALL"))
        #expect(try hint("a == 1").hasPrefix("the predicate is tested on every row"))
        #expect(try !hint(Self.chain).contains("SUBQUERY"))
        #expect(try hint("a == 1").hasSuffix("or raise the limit (--max-steps)"))
    }

    @Test func memoryAndStoreErrorsCarryIt() throws {
        let dir = try scratchDirectory("pql-work-hint")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("rows.sqlite").path
        try ReadingCommandTests.sqlite(store, """
            CREATE TABLE T (id INTEGER PRIMARY KEY, a INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) INSERT INTO T SELECT x, x FROM c;
            """)
        let file = dir.appendingPathComponent("rows.json")
        try "[{\"a\": 1}, {\"a\": 2}]".write(to: file, atomically: true, encoding: .utf8)
        for (source, steps) in [(store, "100000"), (file.path, "1000")] {
            let r = try PQLProcess.run(["query", source, "--where", Self.chain, "--count", "--max-steps", steps])
            #expect(r.status == 1)
            #expect(r.stderr.contains("the predicate makes 2000 comparisons on every row"), "\(r.stderr)")
            #expect(!r.stderr.contains("SUBQUERY inside"), "\(r.stderr)")
        }
    }
}

import Foundation
import PQL

/// The deepest inputs PQL accepts, and a thread as small as the smallest a caller may have,
/// for the tests that check deep trees never overflow a caller's stack.
public enum DeepTrees {
    /// 512 KiB: Apple's secondary threads, and the workers of Swift's cooperative pool (on
    /// Linux too: a crash there under the thread sanitizer showed the frames 512 KiB deep).
    public static let smallStack = 512 * 1024

    /// Runs `body` on a thread with a 512 KiB stack, waits for it, and returns what it found
    /// wrong. The thread is outside the test's task, where `#expect` could not tell which test
    /// failed; the caller records the problems: `#expect(problems.isEmpty, …)`.
    public static func onSmallStack(_ body: @escaping @Sendable (Problems) -> Void) -> [String] {
        let problems = Problems()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body(problems)
            done.signal()
        }
        thread.stackSize = smallStack
        thread.start()
        done.wait()
        return problems.list
    }

    /// What went wrong on the small stack, collected for the test's own thread.
    public final class Problems: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        public var list: [String] { lock.withLock { items } }
        public func record(_ problem: String) { lock.withLock { items.append(problem) } }
        /// Records `problem` unless `condition` holds.
        public func check(_ condition: Bool, _ problem: @autoclosure () -> String) {
            if !condition { record(problem()) }
        }
        /// Records a problem about `what` unless `body` throws an `E` that `matches`.
        public func expectError<E: Error>(_ what: String, as type: E.Type, _ body: () throws -> Void,
                                          where matches: (E) -> Bool) {
            do {
                try body()
                record("\(what): no error")
            } catch {
                check((error as? E).map(matches) == true, "\(what): \(error)")
            }
        }
    }

    /// One predicate of each recursive shape, `depth` levels deep (the parser's limit minus
    /// two is the deepest it accepts for most; SUBQUERY has a limit of its own), over the keys
    /// `a`, `b`, `x`, `y` and the to-many `items`.
    public static func parsedShapes(depth d: Int, subqueries: Int) -> [(name: String, text: String)] {
        [
            ("NOT chain", String(repeating: "NOT ", count: d) + "a == 1"),
            ("parenthesised AND", String(repeating: "(a == 1 AND ", count: d) + "b == 1" + String(repeating: ")", count: d)),
            ("nested calls", "a == " + String(repeating: "abs(", count: d) + "1" + String(repeating: ")", count: d)),
            ("sum", "x == " + Array(repeating: "y", count: d + 1).joined(separator: " + ")),
            ("unary minus", "x == " + String(repeating: "-", count: d) + "y"),
            ("TERNARY", "a == " + String(repeating: "TERNARY(b == 1, ", count: d - 1) + "1" + String(repeating: ", 2)", count: d - 1)),
            ("index", "a == x" + String(repeating: "[0]", count: d)),
            ("braces", "a IN " + String(repeating: "{", count: d) + "1" + String(repeating: "}", count: d)),
            ("SUBQUERY", String(repeating: "SUBQUERY(items, $x, ", count: subqueries) + "$x.a == 1"
                + String(repeating: ").@count == 1", count: subqueries)),
        ]
    }

    /// Trees built in code that nest exactly `depth` levels (``PredicateNode/nestsDeeper(than:)``
    /// counts predicates and expressions alike): no parser limited them.
    public static func builtInCode(depth: Int) -> [(name: String, predicate: PredicateNode)] {
        let leaf = PredicateNode.comparison(ComparisonNode(.keyPath(["a"]), .equal, .constant(1)))
        var nots = leaf
        for _ in 0..<(depth - 2) { nots = .not(nots) }
        var andOr = leaf
        for i in 0..<(depth - 2) { andOr = i % 2 == 0 ? .and([andOr, .constant(true)]) : .or([andOr, .constant(false)]) }
        var sum = ExpressionNode.keyPath(["y"])
        for _ in 0..<(depth - 2) { sum = .function(.add, [sum, .keyPath(["y"])]) }
        return [
            ("NOT chain", nots),
            ("AND/OR chain", andOr),
            ("sum", .comparison(ComparisonNode(.keyPath(["x"]), .greaterThanOrEqual, sum))),
        ]
    }
}

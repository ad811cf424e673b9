import Foundation
import PQL

/// `pql-bench count-parse FILE N [--large-bytes B]`: the process `parse --instructions` runs
/// under callgrind. It parses each predicate of FILE N times inside
/// ``countedParses()``, and the large generated predicate once, and prints one JSON line per
/// predicate. No clock is read: callgrind counts the instructions of ``countedParses()``
/// calls only (``Callgrind``), one profile dump per call, in the order of these lines.
enum CountedParses {
    static let usage = """
        usage: pql-bench count-parse FILE N [--large-bytes B]

          count-parse       what `parse --instructions` runs under callgrind: parses each
                            predicate of FILE N times, then a B-byte predicate once, each inside
                            the function \(functionName) (one call per predicate that parses), and
                            prints a JSON line per predicate, in call order
        """

    /// The symbol callgrind toggles collection on (see ``countedParses()``).
    static let functionName = "pql_bench_counted_parses"

    // The counted function takes no arguments, so that nothing but the parse loop runs inside
    // it; its input and outputs are these globals. One thread touches them.
    nonisolated(unsafe) static var predicate = ""
    nonisolated(unsafe) static var times = 0
    nonisolated(unsafe) static var sink = 0
    nonisolated(unsafe) static var lastError: PredicateFormatError? = nil

    /// Runs the sub-command; returns its exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var rest = arguments[...]
        var positional: [String] = []
        var largeBytes = 1_000_000
        while let arg = rest.popFirst() {
            switch arg {
            case "--large-bytes":
                guard let v = rest.popFirst().flatMap(Int.init), v > 0 else { fail("--large-bytes needs a positive integer") }
                largeBytes = v
            case "-h", "--help": print(usage); return 0
            default: positional.append(arg)
            }
        }
        guard positional.count == 2, let n = Int(positional[1]), n > 0 else { fail(usage) }
        let file: PredicateFile
        do { file = try PredicateFile(path: positional[0]) } catch { fail("\(error)") }

        for text in file.predicates {
            // One uncounted parse: it checks that the text parses, and runs one-time
            // initialisation (tables built on first use) outside the count.
            do {
                sink &+= ParseBenchmark.digest(try PredicateNode(format: text, argumentArray: []))
            } catch {
                printLine(["predicate": text, "parse_error": error.message])
                continue
            }
            predicate = text
            times = n
            countedParses()
            printLine(["predicate": text, "n": n])
        }

        // Counted without a checking parse first, which would double the (slow) time under
        // callgrind; a failure inside is recorded and reported instead.
        let (large, clauses) = ParseBenchmark.largePredicate(bytes: largeBytes)
        predicate = large
        times = 1
        lastError = nil
        countedParses()
        if let lastError {
            printLine(["large": large.utf8.count, "parse_error": lastError.message])
        } else {
            printLine(["large": large.utf8.count, "clauses": clauses, "n": 1])
        }
        if sink == Int.min { print("") }
        return 0
    }

    private static func printLine(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// Parses ``CountedParses/predicate`` ``CountedParses/times`` times: exactly the loop
/// `ParseBenchmark` times (each parse builds the tree, digests it and frees it), under a fixed
/// symbol name for callgrind's `--toggle-collect`.
@_silgen_name("pql_bench_counted_parses")
@inline(never)
func countedParses() {
    let text = CountedParses.predicate
    var total = 0
    for _ in 0..<CountedParses.times {
        do {
            total &+= ParseBenchmark.digest(try PredicateNode(format: text, argumentArray: []))
        } catch {
            CountedParses.lastError = error
        }
    }
    CountedParses.sink &+= total
}

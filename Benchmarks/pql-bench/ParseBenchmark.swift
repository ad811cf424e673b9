import PQL

/// Times `PredicateNode(format:argumentArray:)` on each predicate of a file, and on one large input.
struct ParseBenchmark {
    /// Parses per timed run.
    var iterations: Int
    /// Timed runs per predicate; the reported figure is their median.
    var runs = 5

    /// One predicate's outcome: nanoseconds per parse, or the parse error.
    struct Result {
        var predicate: String
        var nsPerParse: Double?
        var error: String?
    }

    /// Times each predicate: one checking parse, a warm-up of `iterations / 10` parses (at
    /// least 100), then `runs` runs of `iterations` parses; reports the median run.
    mutating func run(_ predicates: [String]) -> [Result] {
        var results: [Result] = []
        results.reserveCapacity(predicates.count)
        for predicate in predicates {
            do {
                sink &+= Self.digest(try PredicateNode(format: predicate, argumentArray: []))
            } catch {
                results.append(Result(predicate: predicate, nsPerParse: nil, error: error.message))
                continue
            }
            sink &+= Self.parse(predicate, times: Swift.max(100, iterations / 10))
            var perParse: [Double] = []
            for _ in 0..<runs {
                let ns = Timing.nanoseconds { sink &+= Self.parse(predicate, times: iterations) }
                perParse.append(ns / Double(iterations))
            }
            results.append(Result(predicate: predicate, nsPerParse: Statistics.median(perParse), error: nil))
        }
        return results
    }

    /// Throughput on one large input.
    struct Throughput {
        var bytes: Int
        var clauses: Int
        /// Nanoseconds for one parse (median of the timed parses).
        var nanoseconds: Double
        /// This thread's CPU time for one parse (median): the figure load disturbs least.
        var cpuNanoseconds: Double
        var megabytesPerSecond: Double { Double(bytes) / 1_000_000 / (nanoseconds / 1e9) }
        var cpuMegabytesPerSecond: Double { Double(bytes) / 1_000_000 / (cpuNanoseconds / 1e9) }
    }

    /// `clause` repeated and joined with `OR` until the predicate is at least `bytes` long.
    static func largePredicate(bytes: Int, clause: String = "(age > 30 AND name BEGINSWITH[c] 'a')") -> (String, Int) {
        var text = clause
        var clauses = 1
        let next = " OR " + clause
        text.reserveCapacity(bytes + next.utf8.count)
        while text.utf8.count < bytes {
            text += next
            clauses += 1
        }
        return (text, clauses)
    }

    /// One untimed parse (it also checks that the input parses), then `timedParses` single
    /// parses, each timed on its own, on the wall clock and in CPU time; reports the medians.
    mutating func throughput(of text: String, clauses: Int, timedParses: Int = 5) throws(PredicateFormatError) -> Throughput {
        sink &+= Self.digest(try PredicateNode(format: text, argumentArray: []))
        var times: [Double] = [], cpu: [Double] = []
        for _ in 0..<timedParses {
            var wall = 0.0
            cpu.append(Timing.threadCPUNanoseconds {
                wall = Timing.nanoseconds { sink &+= Self.parse(text, times: 1) }
            })
            times.append(wall)
        }
        return Throughput(bytes: text.utf8.count, clauses: clauses, nanoseconds: Statistics.median(times),
                          cpuNanoseconds: Statistics.median(cpu))
    }

    // MARK: - The timed loop

    /// Folded into every result so the optimiser cannot drop a parse.
    private(set) var sink = 0

    /// Parses `predicate` `times` times (it is known to parse).
    @inline(never)
    static func parse(_ predicate: String, times: Int) -> Int {
        var total = 0
        for _ in 0..<times {
            do {
                total &+= digest(try PredicateNode(format: predicate, argumentArray: []))
            } catch {
                total &+= 1
            }
        }
        return total
    }

    /// A cheap value derived from the tree, so the parse has an observable result.
    @inline(__always)
    static func digest(_ p: PredicateNode) -> Int {
        switch p {
        case .constant(let b): return b ? 1 : 2
        case .comparison(let c): return c.op.rawValue
        case .and(let ps), .or(let ps): return ps.count
        case .not: return 7
        }
    }
}

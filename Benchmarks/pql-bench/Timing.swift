#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Clocks and the few statistics the benchmark reports.
enum Timing {
    /// Nanoseconds of CPU this thread spent in `body`: unlike the wall clock, it leaves out the
    /// time other processes held the core, which on a shared machine is most of a long run.
    @inline(__always)
    static func threadCPUNanoseconds(_ body: () throws -> Void) rethrows -> Double {
        var before = timespec(), after = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after)
        return Double(after.tv_sec - before.tv_sec) * 1e9 + Double(after.tv_nsec - before.tv_nsec)
    }

    /// Nanoseconds taken by `body`, on the monotonic clock.
    @inline(__always)
    static func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// Summary statistics over a list of measurements.
struct Statistics {
    var count: Int
    var min: Double
    var median: Double
    var mean: Double
    var p90: Double
    var max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        min = sorted.first!
        max = sorted.last!
        median = Statistics.median(sorted: sorted)
        mean = sorted.reduce(0, +) / Double(sorted.count)
        // Nearest-rank percentile.
        let rank = Int((0.9 * Double(sorted.count)).rounded(.up))
        p90 = sorted[Swift.max(0, rank - 1)]
    }

    static func median(_ values: [Double]) -> Double {
        median(sorted: values.sorted())
    }

    private static func median(sorted: [Double]) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}

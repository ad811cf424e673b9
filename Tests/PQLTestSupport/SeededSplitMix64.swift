import Foundation

/// A deterministic SplitMix64 generator for the randomized tests of every test target: the same
/// seed gives the same cases on every platform and run, so a failure is reproduced by its seed.
///
/// ```swift
/// var rng = SeededSplitMix64(seed: 42)
/// rng.int(in: 0...9)   // always the same number for seed 42
/// ```
public struct SeededSplitMix64: RandomNumberGenerator {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed of case `index` of a run with `seed`: cases are independent, so one failing
    /// case can be replayed alone.
    public static func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var g = SeededSplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }

    /// A seed from the environment variable `name` (decimal or 0x-hex), else `fallback`.
    public static func seed(fromEnvironment name: String, default fallback: UInt64) -> UInt64 {
        seed(fromEnvironment: name) ?? fallback
    }

    /// A seed from the environment variable `name` (decimal or 0x-hex), if it holds one.
    public static func seed(fromEnvironment name: String) -> UInt64? {
        guard let text = ProcessInfo.processInfo.environment[name] else { return nil }
        if text.lowercased().hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    public mutating func int(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    public mutating func pick<T>(_ items: [T]) -> T { items[int(in: 0...(items.count - 1))] }

    /// An index chosen with the given relative weights.
    public mutating func weightedIndex(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        var r = int(in: 0...(total - 1))
        for (i, w) in weights.enumerated() {
            if r < w { return i }
            r -= w
        }
        return weights.count - 1
    }
}

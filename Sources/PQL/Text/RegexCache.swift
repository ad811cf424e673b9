import Foundation

/// Patterns that are not constants (`name MATCHES $pattern`, `a MATCHES b`) are compiled once
/// per distinct text and options, not once per element. Bounded, and safe to share between
/// threads evaluating the same compiled predicate.
final class RegexCache: @unchecked Sendable {
    // @unchecked: every access to `entries` holds `lock`.
    private let lock = NSLock()
    private var entries: [Key: RegexPattern] = [:]
    private let capacity: Int

    /// By the pattern's bytes: PCRE2 matches code points, so "é" and "e" + U+0301 are
    /// different patterns and must not share a compiled one.
    private struct Key: Hashable {
        let pattern: ExactText
        let options: StringOptions
    }

    init(capacity: Int = 64) { self.capacity = capacity }

    func pattern(_ text: String, options: StringOptions) throws(EvalError) -> RegexPattern {
        let key = Key(pattern: ExactText(text), options: options)
        lock.lock()
        if let hit = entries[key] { lock.unlock(); return hit }
        lock.unlock()
        let compiled = try RegexPattern(text, options: options)
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = compiled
        lock.unlock()
        return compiled
    }

    /// One cache for every predicate: patterns are immutable once compiled.
    static let shared = RegexCache(capacity: 256)
}

/// The message for an object whose keys repeat. A dictionary keyed by `String` takes keys
/// that differ only in Unicode normalization (`é` as U+00E9, and as `e` + U+0301) for one,
/// as Swift's string equality does: keeping the last value would drop the first without a
/// word, so readers refuse both that and an exact repeat, naming the keys.
///
/// ```swift
/// JSONKeys.duplicate("a", "a", in: "an object")   // "the key 'a' appears twice in an object"
/// ```
package enum JSONKeys {
    /// Why `second` cannot follow `first` in one object (they are equal as Swift strings).
    package static func duplicate(_ first: String, _ second: String, in container: String) -> String {
        if first.unicodeScalars.elementsEqual(second.unicodeScalars) {
            return "the key '\(first)' appears twice in \(container)"
        }
        return "the keys '\(first)' (\(scalars(first))) and '\(second)' (\(scalars(second))) differ only in Unicode normalization, so they would be one key, in \(container)"
    }

    /// What to do about a repeated key.
    package static let hint = "keep one of the keys, or rename one: PQL would otherwise keep one value and drop the other"

    /// `U+0065 U+0301`: the scalars of a short key, so that two keys that look alike can be told apart.
    private static func scalars(_ key: String) -> String {
        let all = key.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true).leftPadded(to: 4) }
        return all.count > 8 ? all.prefix(8).joined(separator: " ") + " …" : all.joined(separator: " ")
    }
}

private extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

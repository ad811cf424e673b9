/// Seconds as decimal text, exactly: a double split into whole seconds and the digits of its
/// fraction, and back. Dates print and read through it (``ISO8601``) so that the text of a
/// date reads back as the same `Date`, to the last bit, before 1970 too.
enum DecimalSeconds {
    /// `t` as whole seconds (rounded down) and the digits after the point of the shortest
    /// decimal that reads back as `t` (Swift's `description`), without trailing zeros:
    /// `-0.25` is `(-1, "75")`, `1.5` is `(1, "5")`. `t` must be finite and below 2^63.
    static func parts(_ t: Double) -> (whole: Int, fraction: String) {
        var text = t.magnitude.description
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let point = text.firstIndex(of: ".") ?? text.endIndex
        var integer = Array(text[..<point])
        var fraction = point == text.endIndex ? [] : Array(text[text.index(after: point)...])
        if exponent > 0 {
            let moved = min(exponent, fraction.count)
            integer += fraction.prefix(moved) + Array(repeating: "0", count: exponent - moved)
            fraction.removeFirst(moved)
        } else if exponent < 0 {
            let moved = min(-exponent, integer.count)
            fraction = Array(repeating: "0", count: -exponent - moved) + integer.suffix(moved) + fraction
            integer.removeLast(moved)
        }
        while fraction.last == "0" { fraction.removeLast() }
        let magnitude = Int(String(integer)) ?? 0
        guard t < 0 else { return (magnitude, String(fraction)) }
        // -3.25 is -4 and 0.75.
        return fraction.isEmpty ? (-magnitude, "") : (-magnitude - 1, complement(fraction))
    }

    /// The double nearest `whole + 0.fraction` (digits without trailing zeros): decimal text
    /// Swift reads correctly rounded.
    static func value(whole: Int, fraction: String) -> Double? {
        guard !fraction.isEmpty else { return Double(whole) }
        if whole >= 0 { return Double("\(whole).\(fraction)") }
        // -4 and 0.75 is -3.25.
        return Double("-\(-(whole + 1)).\(complement(Array(fraction)))")
    }

    /// The digits of 1 - 0.d₁d₂…dₙ, for digits whose last is not 0: no borrow is needed
    /// (9 - dᵢ, then 10 - dₙ), and the last digit stays non-zero.
    private static func complement(_ digits: [Character]) -> String {
        var out = ""
        for (i, c) in digits.enumerated() {
            let d = Int(c.asciiValue ?? 48) - 48
            out.append(Character(String(i == digits.count - 1 ? 10 - d : 9 - d)))
        }
        return out
    }
}

import PQLStore

/// The compiler binds every constant of a predicate before it knows how the SQL uses it, so a
/// statement may carry a parameter its text never names (`name == nil` becomes `IS NULL`, its
/// NULL still bound). PostgreSQL cannot type such a parameter (`could not determine data type
/// of parameter $1`), and a listing of the SQL that showed it would not run as shown in psql
/// (`PREPARE … AS`, `\bind`). The statements are therefore sent, and shown, without them:
/// the parameters the text uses, renumbered `$1`, `$2`… in order.
enum UnusedParameters {
    /// `compiled` without the parameters its SQL does not name, the others renumbered in
    /// order; `kept[i]` is the 0-based slot in `compiled` of the new parameter `$(i + 1)`.
    /// The result's `description` names the parameters `$n`, as the SQL does.
    static func dropped(from compiled: CompiledSQL) -> (compiled: CompiledSQL, kept: [Int]) {
        let places = placeholders(in: compiled.sql)
        let used = Set(places.map(\.number))
        let kept = compiled.bindings.indices.filter { used.contains($0 + 1) }
        guard kept.count < compiled.bindings.count else {
            return (CompiledSQL(sql: compiled.sql, bindings: compiled.bindings, parameterPrefix: "$"), kept)
        }
        var renumbered: [Int: Int] = [:]
        for (new, old) in kept.enumerated() { renumbered[old + 1] = new + 1 }
        let utf8 = Array(compiled.sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var at = 0
        for place in places {
            out += utf8[at..<place.range.lowerBound]
            // A placeholder past the bindings has no value to renumber: it stays as written.
            out += Array((renumbered[place.number].map { "$\($0)" } ?? "$\(place.number)").utf8)
            at = place.range.upperBound
        }
        out += utf8[at...]
        return (CompiledSQL(sql: String(decoding: out, as: UTF8.self), bindings: kept.map { compiled.bindings[$0] }, parameterPrefix: "$"), kept)
    }

    /// The `$n` placeholders of `sql` and their byte ranges, outside quoted identifiers
    /// (`"a$1"`) and string literals (`'$1'`), and not inside a word (`a$1` is an identifier).
    static func placeholders(in sql: String) -> [(number: Int, range: Range<Int>)] {
        let b = Array(sql.utf8)
        var out: [(number: Int, range: Range<Int>)] = []
        var i = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isWordByte(_ c: UInt8) -> Bool {
            isDigit(c) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c >= 0x80
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") {
                // A doubled quote inside is the quote itself; the scan goes on to the closing one.
                i += 1
                while i < b.count {
                    if b[i] == c {
                        if i + 1 < b.count, b[i + 1] == c { i += 2; continue }
                        break
                    }
                    i += 1
                }
                i += 1
                continue
            }
            if c == UInt8(ascii: "$"), i + 1 < b.count, isDigit(b[i + 1]), i == 0 || !isWordByte(b[i - 1]) {
                var j = i + 1
                var n = 0
                while j < b.count, isDigit(b[j]) {
                    n = n > Int.max / 10 - 9 ? Int.max : n * 10 + Int(b[j] - 0x30)
                    j += 1
                }
                out.append((n, i..<j))
                i = j
                continue
            }
            i += 1
        }
        return out
    }
}

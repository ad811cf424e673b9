import Foundation

/// A file of predicates, one per line, read by the same rules as GNUstep's `nspredicate-oracle`
/// so that both tools see the same list in the same order:
///
/// - lines are split on `\n` and a trailing `\r` is removed; the line is otherwise used as written;
/// - blank lines and lines whose first non-blank characters are `//` are skipped;
/// - a line `json:"..."` is a JSON string literal (for tabs, newlines, or the empty predicate).
struct PredicateFile {
    var path: String
    var predicates: [String]

    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8) else {
            throw ReadError(description: "cannot read \(path) as UTF-8")
        }
        self.path = path
        self.predicates = try text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { raw in
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) || trimmed.hasPrefix("//") { return nil }
            guard line.hasPrefix("json:") else { return String(line) }
            let literal = "[" + line.dropFirst(5) + "]"
            guard let array = try? JSONSerialization.jsonObject(with: Data(literal.utf8)) as? [Any],
                  array.count == 1, let s = array[0] as? String else {
                throw ReadError(description: "\(path): bad json: line: \(line)")
            }
            return s
        }
    }
}

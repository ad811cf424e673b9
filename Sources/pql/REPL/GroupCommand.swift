import Foundation
import PQL

/// `.group KEYPATH[, …] AGGREGATE… [asc|desc] [where PREDICATE]`: a grouping query on the
/// current entity, one row per group, sorted by the first aggregate, largest first ("worst
/// first" for delays; `asc`: smallest first), then by the keys; `.limit` applies.
enum GroupCommand {
    static func run(_ argument: String, _ s: ReplSession) throws {
        var words = split(argument)
        var predicate = "TRUEPREDICATE"
        if let w = words.firstIndex(where: { $0.lowercased() == "where" }) {
            predicate = words[(w + 1)...].joined(separator: " ")
            words = Array(words[..<w])
            if predicate.isEmpty { throw ReplError("where needs a predicate", hint: "e.g. .group origin count:(dest) where dep_delay > 60") }
        }
        var ascending = false
        if let last = words.last?.lowercased(), words.count > 1, ["asc", "ascending", "desc", "descending"].contains(last) {
            ascending = last.hasPrefix("asc")
            words.removeLast()
        }
        // The keys: the first word and those a comma joins to it (`origin, dest` as `origin,dest`).
        var end = min(1, words.count)
        while end < words.count, words[end - 1].hasSuffix(",") || words[end].hasPrefix(",") { end += 1 }
        guard end < words.count else {
            throw ReplError("write .group KEYPATH AGGREGATE…", hint: "e.g. .group airline.name average:(dep_delay) where dep_delay != nil")
        }
        let keys = try keyPaths(words[..<end].joined(separator: " "), example: ".group origin, dest count:(flight)")
        var select: [GroupAggregate] = []
        for word in words[end...] {
            // NAME=AGGREGATE names a column; otherwise the aggregate's text does.
            var name = word, text = word
            if let eq = word.firstIndex(of: "="), !word[..<eq].isEmpty, word[..<eq].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                name = String(word[..<eq])
                text = String(word[word.index(after: eq)...])
            }
            select.append(GroupAggregate(name, try ExpressionNode(format: text)))
        }
        let query = GroupQuery(try s.currentEntity(), predicate: try PredicateNode(format: predicate), groupBy: keys, select: select,
                               sort: [SortRule(select[0].name, ascending: ascending)], limit: s.limit == 0 ? nil : s.limit,
                               variables: s.variables, limits: s.limits)
        let started = Date()
        let rows: [[String: PredicateValue]]
        rows = try s.interruptible { try s.source.groups(query) }
        let columns = keys + select.map(\.name)
        let (text, _) = s.resultRenderer().render(columns: columns, rows: rows.map { r in columns.map { r[$0] ?? .null } })
        var footer = "\(rows.count.formatted()) group\(rows.count == 1 ? "" : "s")"
        // A full page may have more groups behind it.
        if let limit = query.limit, rows.count == limit { footer = "the first \(footer) (.limit N or .limit 0 for more)" }
        if s.timer { footer += " (\(ReplSession.duration(Date().timeIntervalSince(started))))" }
        try s.deliver(s.format.needsAllRows && rows.isEmpty ? "" : text, notes: footer + "\n")
    }

    /// The key paths of a comma-separated list (`.group`, `.distinct`, `.columns`): a comma
    /// with no key path after it, or a key path with a space in it, is an error.
    static func keyPaths(_ text: String, example: String) throws -> [String] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count > 1, parts.last == "" {
            throw ReplError("a key path is missing after the last comma", hint: "leave the comma out, or name another key path: \(example)")
        }
        if parts.contains("") {
            throw ReplError("a key path is missing between two commas", hint: "separate key paths with one comma: \(example)")
        }
        for p in parts where p.contains(where: { $0.isWhitespace }) {
            throw ReplError("'\(p)' is not a key path", hint: "separate key paths with commas: \(example)")
        }
        return parts
    }

    /// Words separated by spaces outside parentheses, braces and quotes: `average:(a + b)` is one.
    static func split(_ text: String) -> [String] {
        var words: [String] = [], current = "", depth = 0
        var quote: Character? = nil
        for c in text {
            if let q = quote {
                current.append(c)
                if c == q { quote = nil }
                continue
            }
            switch c {
            case "\"", "'": quote = c
            case "(", "{", "[": depth += 1
            case ")", "}", "]": depth = max(0, depth - 1)
            default: break
            }
            if c.isWhitespace && depth == 0 {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

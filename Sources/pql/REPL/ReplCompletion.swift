import Foundation
import PQL

/// Tab completion: command names after `.`, entity names after `.use`/`.schema`, and in
/// predicates keywords, `$variables` and key paths that follow relationships from the current
/// entity (`airline.` offers the airline's attributes).
struct ReplCompletion {
    let session: ReplSession

    static let keywords = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "TRUE", "FALSE", "CAST", "TERNARY", "FUNCTION",
    ]
    static let operators = ["@count", "@sum", "@avg", "@min", "@max", "@distinctUnionOfObjects"]

    /// The word before the cursor and what could replace it.
    func complete(_ line: String, cursor: String.Index) -> (word: Range<String.Index>, candidates: [String]) {
        let head = line[..<cursor]
        var start = cursor
        while start > line.startIndex {
            let c = line[line.index(before: start)]
            if c.isLetter || c.isNumber || c == "_" || c == "." || c == "@" || c == "$" || c == ":" { start = line.index(before: start) } else { break }
        }
        let word = String(line[start..<cursor])
        let range = start..<cursor
        let trimmed = head.drop { $0 == " " }
        if trimmed.hasPrefix(".") {
            let name = trimmed.dropFirst()
            let before = name.prefix { !$0.isWhitespace }
            if before.endIndex == cursor {
                // The command name itself (the range excludes the dot).
                return (name.startIndex..<cursor, DotCommands.names.filter { $0.hasPrefix(before.lowercased()) }.sorted())
            }
            switch before.lowercased() {
            case "use", "schema": return (range, session.source.entityNames.filter { $0.lowercased().hasPrefix(word.lowercased()) })
            case "format": return (range, OutputFormat.allCases.map(\.rawValue).filter { $0.hasPrefix(word) })
            case "timer", "headers", "pager": return (range, ["on", "off"].filter { $0.hasPrefix(word) })
            case "open", "read", "output", "once", "nullvalue": return (range, [])
            case "help": return (range, (DotCommands.names + ["language"]).filter { $0.hasPrefix(word) })
            default: break
            }
        }
        if word.hasPrefix("$") {
            return (range, session.variables.keys.map { "$" + $0 }.filter { $0.hasPrefix(word) }.sorted())
        }
        var candidates = keyPaths(completing: word)
        if !word.contains(".") {
            candidates += Self.keywords.filter { !word.isEmpty && $0.lowercased().hasPrefix(word.lowercased()) }
        }
        return (range, candidates)
    }

    /// Key paths from the current entity that start with `word`; relationships end in `.`,
    /// and after a to-many the collection operators are offered too.
    func keyPaths(completing word: String) -> [String] {
        guard var entity = session.entity.flatMap({ session.source.entity(named: $0) }) else { return [] }
        var parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = parts.removeLast()
        var prefix = ""
        var followed: EntityInfo.Relationship?
        for p in parts {
            guard let r = entity.relationships.first(where: { $0.name == p }), let next = session.source.entity(named: r.target) else { return [] }
            prefix += p + "."
            followed = r
            entity = next
        }
        var names = entity.attributes.map(\.name) + entity.relationships.map { $0.name + "." }
        if followed?.toMany == true { names += Self.operators }
        return names.filter { $0.hasPrefix(last) }.map { prefix + $0 }
    }
}

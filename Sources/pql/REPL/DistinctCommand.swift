import Foundation
import PQL

/// `.distinct KEYPATH[,…] [where PREDICATE]`: the different values of key paths (through to-one
/// relationships) over the rows the predicate matches, sorted ascending; `.limit` and `.offset`
/// apply. A store answers with SQL's `SELECT DISTINCT`, a file in memory.
enum DistinctCommand {
    static func run(_ argument: String, _ s: ReplSession) throws {
        var words = GroupCommand.split(argument)
        var predicate = "TRUEPREDICATE"
        if let w = words.firstIndex(where: { $0.lowercased() == "where" }) {
            predicate = words[(w + 1)...].joined(separator: " ")
            words = Array(words[..<w])
            if predicate.isEmpty { throw ReplError("where needs a predicate", hint: "e.g. .distinct dest where origin == 'JFK'") }
        }
        guard !words.isEmpty else {
            throw ReplError("write .distinct KEYPATH[, KEYPATH…] [where PREDICATE]", hint: "e.g. .distinct dest where origin == 'JFK' AND airline.name BEGINSWITH 'Delta'")
        }
        let keys = try GroupCommand.keyPaths(words.joined(separator: " "), example: ".distinct origin, dest where …")
        let entity = try s.currentEntity()
        try s.source.checkKeyPaths(keys, entity: entity)
        var request = try s.request(predicate)
        request.sort = []
        let started = Date()
        let rows = try s.interruptible { try s.source.distinct(keys, request) }
        let renderer = ResultRenderer(format: s.format, width: s.interactive ? LineEditor.terminalWidth() : nil, color: s.color)
        let (text, _) = renderer.render(columns: keys, rows: rows)
        let noun = keys.count == 1 ? "value" : "combination"
        var footer = "\(rows.count.formatted()) distinct \(noun)\(rows.count == 1 ? "" : "s")"
        // A full page may have more values behind it.
        if let limit = request.limit, rows.count == limit { footer = "the first \(footer) (.limit N or .limit 0 for more)" }
        if request.offset > 0 { footer += " after .offset \(request.offset)" }
        if s.timer { footer += " (\(ReplSession.duration(Date().timeIntervalSince(started))))" }
        if s.format == .table {
            s.writeResult((rows.isEmpty ? "" : text) + TerminalText.visible(footer) + "\n")
        } else {
            s.writeResult(text)
            s.errorOutput(footer)
        }
    }
}

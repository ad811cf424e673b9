/// Lines typed so far for one entry: a line whose parentheses, braces or brackets are not yet
/// closed, or which ends inside a quoted string, goes on on the next line (as in psql), and the
/// whole entry runs, and enters the history, once it is complete.
struct PendingInput {
    private(set) var lines: [String] = []

    var isEmpty: Bool { lines.isEmpty }

    /// Adds a line; true when the entry is complete.
    mutating func add(_ line: String) -> Bool {
        lines.append(line)
        return !Self.isOpen(text)
    }

    /// The entry as it runs: the lines joined by newlines (inside a string a line break is part
    /// of the string).
    var text: String { lines.joined(separator: "\n") }

    /// The entry for the history, on one line where the breaks fall outside quotes (a recalled
    /// predicate is edited on one line).
    var historyText: String {
        var out = ""
        for (i, line) in lines.enumerated() {
            if i > 0 { out += Self.scan(out).quote == nil ? " " : "\n" }
            out += line
        }
        return out
    }

    mutating func clear() { lines = [] }

    /// The commands whose argument is a predicate or expression, which may span lines; the others
    /// (`.use`, `.open`, `.columns`…) take names, and a bracket in one is a mistake to report at once.
    static let continuingCommands: Set<String> = ["count", "sql", "explain", "group", "distinct", "let"]

    /// Whether `text` leaves a bracket or a quote open. Comments (`--`, `#`) and blank lines never
    /// continue; more closing brackets than opening ones are the parser's error to report.
    static func isOpen(_ text: String) -> Bool {
        let first = text.drop { $0.isWhitespace }
        if first.isEmpty || first.hasPrefix("--") || first.hasPrefix("#") { return false }
        if first.hasPrefix(".") && !continuingCommands.contains(first.dropFirst().prefix { !$0.isWhitespace }.lowercased()) { return false }
        let state = scan(text)
        return state.quote != nil || state.depth > 0
    }

    /// Brackets open outside quotes, and the quote a string is open in; a backslash escapes the
    /// next character inside a string.
    static func scan(_ text: String) -> (depth: Int, quote: Character?) {
        var depth = 0
        var quote: Character? = nil
        var escaped = false
        for c in text {
            if let q = quote {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == q { quote = nil }
                continue
            }
            switch c {
            case "\"", "'": quote = c
            case "(", "{", "[": depth += 1
            case ")", "}", "]": depth -= 1
            default: break
            }
        }
        return (max(0, depth), quote)
    }
}

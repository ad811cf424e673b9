import Foundation
import PQL
import PQLStore

/// The REPL's `.` commands.
enum DotCommands {
    struct Command {
        var name: String
        var usage: String
        var summary: String
    }

    static let all: [Command] = [
        Command(name: "help", usage: ".help [COMMAND|language]", summary: "this list, one command's use, or the predicate language"),
        Command(name: "entities", usage: ".entities", summary: "the entities and their row counts"),
        Command(name: "schema", usage: ".schema [ENTITY]", summary: "attributes and relationships (of the current entity)"),
        Command(name: "use", usage: ".use ENTITY", summary: "query another entity"),
        Command(name: "columns", usage: ".columns [KEYPATH, …|all]", summary: "the key paths tables show (to-one paths too)"),
        Command(name: "sort", usage: ".sort [KEYPATH [desc] [ci], …|none]", summary: "sort the results; no argument shows the order"),
        Command(name: "limit", usage: ".limit N", summary: "show at most N rows per query (0: all; 20 at a terminal, all in scripts)"),
        Command(name: "offset", usage: ".offset N", summary: "skip the first N rows"),
        Command(name: "count", usage: ".count [PREDICATE]", summary: "count the matches (of the last predicate; all rows before one)"),
        Command(name: "group", usage: ".group KEYPATH[, …] AGGREGATE… [asc] [where PREDICATE]",
                summary: "one row per group, by the first aggregate, largest first (asc: smallest first): e.g. .group airline.name average:(dep_delay)"),
        Command(name: "distinct", usage: ".distinct KEYPATH[,…] [where PREDICATE]",
                summary: "the different values, sorted: e.g. .distinct dest where origin == 'JFK' AND airline.name BEGINSWITH 'Delta'"),
        Command(name: "sql", usage: ".sql [PREDICATE]", summary: "the SQL and bound values (of the last predicate)"),
        Command(name: "explain", usage: ".explain [PREDICATE]", summary: "the syntax tree, the SQL and the database's query plan (SQLite's or PostgreSQL's)"),
        Command(name: "format", usage: ".format [table|box|csv|tsv|json|jsonl|markdown]", summary: "how rows are printed; alone: the format"),
        Command(name: "headers", usage: ".headers [on|off]", summary: "the header line of table, box, csv and tsv; alone: on or off"),
        Command(name: "nullvalue", usage: ".nullvalue [TEXT]", summary: "how nil shows in table, box, csv, tsv and markdown; alone: each format's own"),
        Command(name: "output", usage: ".output [FILE|stdout]", summary: "results go to FILE (emptied first) until .output alone"),
        Command(name: "once", usage: ".once FILE", summary: "the next result goes to FILE"),
        Command(name: "pager", usage: ".pager [on|off]", summary: "page results taller or wider than the terminal through $PAGER (less -FRX)"),
        Command(name: "read", usage: ".read FILE", summary: "run FILE's lines as if typed"),
        Command(name: "let", usage: ".let $NAME = VALUE", summary: "a variable for later predicates (a PQL constant, or JSON such as {\"$entity\": \"Folder\", \"$key\": 1}); .let alone lists them"),
        Command(name: "timer", usage: ".timer [on|off]", summary: "show how long each query took; alone: on or off"),
        Command(name: "limits", usage: ".limits [steps N] [regex N]", summary: "the work a query may do (0: no limit); alone: the limits"),
        Command(name: "open", usage: ".open FILE|URL|:demo:", summary: "an SQLite database, a postgres:// URL, JSON, JSON Lines, CSV or plist file"),
        Command(name: "quit", usage: ".quit", summary: "leave (also .exit, .q, or Ctrl-D)"),
    ]

    static var names: [String] { all.map(\.name) + ["exit"] }

    static func run(_ line: String, in s: ReplSession) throws {
        let body = line.dropFirst()
        let name = String(body.prefix { !$0.isWhitespace })
        let argument = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        switch name.lowercased() {
        case "help": help(argument, s)
        case "entities":
            let rows = s.source.entityNames.map { n -> String in
                let count = s.source.entity(named: n)?.rowCount.map { $0.formatted() } ?? "?"
                return "\(n == s.entity ? "*" : " ") \(n)  \(count) rows"
            }
            s.output((rows + s.source.skippedTableLines).joined(separator: "\n") + "\n")
        case "schema": try schema(argument, s)
        case "use":
            guard !argument.isEmpty else { throw ReplError("which entity?", hint: "write .use ENTITY; .entities lists them") }
            guard let match = resolveEntity(argument, s) else {
                let near = SharedSemantics.nearestNames(to: argument, in: s.source.entityNames)
                throw ReplError("no entity '\(argument)'", hint: near.isEmpty ? ".entities lists them" : "did you mean \(near.joined(separator: " or "))?")
            }
            s.use(match)
            s.output("using \(match)\n")
        case "columns": try columns(argument, s)
        case "sort": try sort(argument, s)
        case "limit": s.limit = try number(argument, ".limit")
        case "offset": s.offset = try number(argument, ".offset")
        case "count":
            let r = try s.request(try predicateText(argument, s))
            let n = try s.interruptible { try s.source.count(r.unpaged) }
            s.output(s.counted(n) + "\n")
        case "sql":
            let r = try s.request(try predicateText(argument, s))
            guard let sql = try s.source.sql(r) else {
                throw ReplError("\(s.source.title) is evaluated in memory: there is no SQL", hint: "open an SQLite database or a PostgreSQL URL to see SQL")
            }
            let prefix = s.source.parameterPrefix
            s.output(sql.sql + "\n" + sql.bindings.enumerated().map { "\(prefix)\($0.offset + 1) = \($0.element)\n" }.joined())
        case "group": try GroupCommand.run(argument, s)
        case "distinct": try DistinctCommand.run(argument, s)
        case "explain": try explain(argument, s)
        case "format":
            if argument.isEmpty { return s.output("format \(s.format.rawValue)\n") }
            guard let f = OutputFormat(rawValue: argument.lowercased()) else {
                throw ReplError("unknown format '\(argument)'", hint: "the formats are \(OutputFormat.names)")
            }
            s.format = f
        case "headers", "nullvalue", "output", "once", "pager": try s.setOutput(name.lowercased(), argument)
        case "read": try s.readScript(argument)
        case "let": try letVariable(argument, s)
        case "limits": try limits(argument, s)
        case "timer":
            switch argument.lowercased() {
            case "": s.output("timer \(s.timer ? "on" : "off")\n")
            case "on": s.timer = true
            case "off": s.timer = false
            default: throw ReplError("write .timer on or .timer off")
            }
        case "open":
            guard !argument.isEmpty else { throw ReplError("which file?", hint: "write .open FILE (or .open :demo:)") }
            let source = try SourceOpener.open(ReplSession.unquoted(argument))
            s.source = source
            s.use(source.defaultEntity)
            s.output("opened \(source.title)\n" + (s.entity.map { "using \($0)\n" } ?? ""))
        case "quit", "exit", "q": s.quitRequested = true
        default:
            let near = SharedSemantics.nearestNames(to: name, in: names)
            throw ReplError("unknown command '.\(name)'", hint: near.isEmpty ? ".help lists the commands" : "did you mean \(near.map { "." + $0 }.joined(separator: " or "))?")
        }
    }

    private static func help(_ argument: String, _ s: ReplSession) {
        let wanted = argument.hasPrefix(".") ? String(argument.dropFirst()) : argument
        if wanted.lowercased() == "language" { return s.output(LanguageSummary.text) }
        if !wanted.isEmpty, let c = all.first(where: { $0.name == wanted.lowercased() }) {
            return s.output("\(c.usage)\n  \(c.summary)\n")
        }
        let width = all.map(\.usage.count).max() ?? 0
        var out = "Type a predicate to query the current entity, e.g. dep_delay > 60 AND origin == 'JFK'.\n"
        out += "Key paths follow relationships (airline.name); $variables come from .let.\n"
        out += "An open parenthesis, brace or quote continues the entry on the next line; .help language summarises the language.\n\n"
        for c in all { out += c.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.summary + "\n" }
        s.output(out)
    }

    static func resolveEntity(_ name: String, _ s: ReplSession) -> String? {
        s.source.entityNames.first { $0 == name } ?? s.source.entityNames.first { $0.lowercased() == name.lowercased() }
    }

    private static func schema(_ argument: String, _ s: ReplSession) throws {
        let name = argument.isEmpty ? try s.currentEntity() : (resolveEntity(argument, s) ?? argument)
        guard let info = s.source.entity(named: name) else {
            throw ReplError("no entity '\(argument)'", hint: ".entities lists them")
        }
        var out = "\(info.name)" + (info.rowCount.map { " (\($0.formatted()) rows)" } ?? "") + "\n"
        let width = (info.attributes.map(\.name.count) + info.relationships.map(\.name.count)).max() ?? 0
        for a in info.attributes {
            out += "  " + a.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + a.type + (a.notes.isEmpty ? "" : "  (\(a.notes))") + "\n"
        }
        for r in info.relationships {
            out += "  " + r.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + (r.joinTable != nil ? "many-to-many " : r.toMany ? "to-many " : "to-one ") + r.target
                + (r.joinTable.map { " (through \($0))" } ?? "") + "\n"
        }
        s.output(out)
    }

    private static func columns(_ argument: String, _ s: ReplSession) throws {
        if argument.isEmpty {
            return s.output((try s.shownColumns()).joined(separator: ", ") + "\n")
        }
        if argument.lowercased() == "all" || argument.lowercased() == "none" {
            s.columns = nil
            return
        }
        let paths = try GroupCommand.keyPaths(argument, example: ".columns carrier, airline.name")
        // Refused now, with the nearest names, rather than at every later query.
        try s.source.checkKeyPaths(paths, entity: try s.currentEntity())
        s.columns = paths
    }

    private static func sort(_ argument: String, _ s: ReplSession) throws {
        if argument.isEmpty {
            return s.output(s.sort.isEmpty ? "no sort: rows come in the store's order\n" : s.sort.map(\.spec).joined(separator: ", ") + "\n")
        }
        if argument.lowercased() == "none" || argument.lowercased() == "off" {
            s.sort = []
            return
        }
        var rules: [SortRule] = []
        for part in argument.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            guard let key = words.first else { continue }
            var spec = key
            for w in words.dropFirst() {
                switch w.lowercased() {
                case "desc", "descending": spec += ":desc"
                case "asc", "ascending": spec += ":asc"
                case "ci", "[c]": spec += ":ci"
                default: throw ReplError("unknown sort word '\(w)'", hint: "write .sort KEY [desc] [ci], e.g. .sort dep_delay desc")
                }
            }
            do { rules.append(try SortRule(spec: spec)) } catch {
                throw ReplError("cannot sort by '\(part.trimmingCharacters(in: .whitespaces))'", hint: "write .sort KEY [desc] [ci]")
            }
        }
        // Refused now, with the nearest names, rather than at every later query.
        try s.source.checkKeyPaths(rules.map { $0.keyPath.joined(separator: ".") }, entity: try s.currentEntity())
        s.sort = rules
    }

    /// `.limits`, `.limits steps 1000000`, `.limits regex 0`, `.limits steps none regex 5e8`.
    private static func limits(_ argument: String, _ s: ReplSession) throws {
        func shown(_ n: Int?) -> String { n.map { $0.formatted() } ?? "none" }
        let words = argument.split(separator: " ").map { $0.lowercased() }
        if words.isEmpty {
            return s.output("steps \(shown(s.limits.maxSteps)), regex \(shown(s.limits.maxRegexSteps))\n")
        }
        guard words.count % 2 == 0 else { throw ReplError("write .limits steps N, .limits regex N or both", hint: "0 or none: no limit") }
        var limits = s.limits
        for i in stride(from: 0, to: words.count, by: 2) {
            let value: Int?
            if words[i + 1] == "none" || words[i + 1] == "0" { value = nil } else {
                guard let n = Int(words[i + 1].replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "_", with: "")), n > 0 else {
                    throw ReplError("\(words[i + 1]) is not a number of steps", hint: "e.g. .limits steps 1000000000; 0 or none: no limit")
                }
                value = n
            }
            switch words[i] {
            case "steps": limits.maxSteps = value
            case "regex": limits.maxRegexSteps = value
            default: throw ReplError("unknown limit '\(words[i])'", hint: "the limits are steps and regex: .limits steps N regex N")
            }
        }
        s.limits = limits
    }

    private static func number(_ argument: String, _ command: String) throws -> Int {
        guard let n = Int(argument), n >= 0 else { throw ReplError("\(command) needs a number, 0 or more", hint: "e.g. \(command) 50") }
        return n
    }

    /// The predicate a command applies to: its argument, the last one run, or all rows.
    private static func predicateText(_ argument: String, _ s: ReplSession) throws -> String {
        if !argument.isEmpty { return argument }
        return s.lastText ?? "TRUEPREDICATE"
    }

    private static func explain(_ argument: String, _ s: ReplSession) throws {
        let text = try predicateText(argument, s)
        let r = try s.request(text)
        var out = "predicate: \(r.predicate)\n"
        out += "tree:\n" + TreeOutline.lines(r.predicate).map { "  " + $0 + "\n" }.joined()
        if let sql = try s.source.sql(r) {
            out += "sql: \(sql.sql)\n"
            for (i, b) in sql.bindings.enumerated() { out += "  \(s.source.parameterPrefix)\(i + 1) = \(b)\n" }
            let plan = try s.interruptible { try s.source.plan(r) }
            out += "plan:\n" + (plan ?? []).map { "  " + $0 + "\n" }.joined()
        } else {
            out += "evaluated in memory by PQL's evaluator (no SQL)\n"
        }
        s.output(out)
    }

    private static func letVariable(_ argument: String, _ s: ReplSession) throws {
        if argument.isEmpty {
            if s.variables.isEmpty { return s.output("no variables; define one with .let $name = value\n") }
            return s.output(s.variables.sorted { $0.key < $1.key }.map { "$\($0.key) = \(ExpressionNode.constant($0.value))\n" }.joined())
        }
        guard let eq = argument.firstIndex(of: "=") else {
            throw ReplError("write .let $name = value", hint: "e.g. .let $late = 60, then dep_delay > $late")
        }
        var name = argument[..<eq].trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("$") { name.removeFirst() }
        guard let first = name.first, first.isLetter || first == "_", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ReplError("'\(name)' is not a variable name", hint: "a letter or _ then letters, digits or _, as in $minDelay")
        }
        let valueText = argument[argument.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        // JSON as --arg takes it, for object IDs ({"$entity": "Folder", "$key": 1}), arrays of
        // them and dates ({"$date": …}); PQL's own {1, 2} is no JSON and reads as PQL below.
        if valueText.first == "{" || valueText.first == "[", let json = try? JSONReader.value(from: valueText) {
            if let problem = json.objectProblem ?? json.collectionElements?.lazy.compactMap(\.objectProblem).first {
                throw ReplError("the value of $\(name) is no object ID: \(problem)", hint: ObjectID.formHint())
            }
            s.variables[name] = json
            return s.output("$\(name) = \(ExpressionNode.constant(json))\n")
        }
        let expression = try ExpressionNode(format: valueText)
        if let part = RowReadingPart.first(in: expression.substituting(s.variables)) {
            throw ReplError("the value of $\(name) reads a row (\(part)), and .let has none: it would be nil",
                            hint: "give a constant (.let $\(name) = 'Ann'), or write the key path in the predicate itself")
        }
        let value: PredicateValue
        do { value = try SharedSemantics.evaluateConstant(expression.substituting(s.variables)) } catch {
            throw ReplError("the value of $\(name) must be a constant: \(error.message)", hint: "numbers, strings, {lists}, CAST(…), functions of constants, or other $variables")
        }
        s.variables[name] = value
        s.output("$\(name) = \(ExpressionNode.constant(value))\n")
    }
}

/// The syntax tree, one node per line, indented by depth (for `.explain`).
enum TreeOutline {
    static func lines(_ p: PredicateNode, depth: Int = 0) -> [String] {
        let pad = String(repeating: "  ", count: depth)
        switch p {
        case .constant(let b): return [pad + (b ? "TRUEPREDICATE" : "FALSEPREDICATE")]
        case .comparison(let c): return [pad + "comparison: \(PredicateNode.comparison(c))"]
        case .and(let ps): return [pad + "AND"] + ps.flatMap { lines($0, depth: depth + 1) }
        case .or(let ps): return [pad + "OR"] + ps.flatMap { lines($0, depth: depth + 1) }
        case .not(let q): return [pad + "NOT"] + lines(q, depth: depth + 1)
        }
    }
}

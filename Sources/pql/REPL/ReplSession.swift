import Foundation
import PQL
import PQLStore

/// The REPL's state and what each line does: a predicate runs against the current entity; a
/// line starting with `.` is a command (see `DotCommands.swift`).
final class ReplSession {
    var source: QuerySource
    var entity: String?
    var sort: [SortRule] = []
    /// Rows shown per query; 0 shows all. A person at a terminal sees a page (20); a script
    /// (`-c`, piped input) gets every row, as sqlite3 and psql give them, unless it sets `.limit`.
    var limit: Int
    var offset = 0
    var format = OutputFormat.table
    /// `.headers`, `.nullvalue`, `.output`, `.once`, `.pager` and the `.read` files (ReplOutput.swift).
    var io = SessionIO()
    var variables: [String: PredicateValue] = [:]
    /// The work one query may do (`.limits`, or `--max-steps` and `--max-regex-steps`).
    var limits = EvaluationLimits.interactive
    var timer: Bool
    /// Key paths to show instead of the entity's attributes.
    var columns: [String]? = nil
    /// The last predicate that parsed, for `.sql`, `.explain` and `.count`.
    var lastText: String?
    let interactive: Bool
    /// ANSI styling in tables (`--color`, `NO_COLOR`); by default only at a terminal.
    var color: Bool
    /// Writes results as they are (their cells are escaped by the renderer where a format
    /// needs it; CSV keeps its data).
    let writeResult: (String) -> Void
    let errorOutput: (String) -> Void
    /// Whether the last line failed (scripts exit with 1 if any did).
    private(set) var failureCount = 0
    var quitRequested = false

    init(source: QuerySource, interactive: Bool, output: @escaping (String) -> Void, errorOutput: @escaping (String) -> Void) {
        self.source = source
        self.entity = source.defaultEntity
        self.interactive = interactive
        self.color = interactive
        self.timer = interactive
        self.limit = interactive ? 20 : 0
        self.writeResult = output
        self.errorOutput = errorOutput
    }

    /// Writes text for the person at the terminal (listings, settings, the SQL, the banner).
    /// It quotes names from the file (a foreign SQLite file's tables and columns) and values
    /// of the input: their control characters show as symbols (`␛`, `␇`), so that no file can
    /// send escape sequences to the terminal.
    func output(_ text: String) {
        writeResult(TerminalText.visible(text))
    }

    var prompt: String { "\(TerminalText.visible(entity ?? "pql", keepingLineBreaks: false))> " }

    /// A count as a person reads it at a terminal (`111,279`), or as a script parses it (`111279`).
    func counted(_ n: Int) -> String { interactive ? n.formatted() : String(n) }

    /// The prompt of an entry's further lines, as wide as ``prompt`` so the lines align.
    var continuationPrompt: String { String(repeating: " ", count: max(0, prompt.count - 5)) + "...> " }

    var banner: String {
        var lines = ["pql: Apple's NSPredicate language on \(source.title)"]
        let names = source.entityNames
        if !names.isEmpty {
            lines.append("entities: " + names.map { n in source.entity(named: n)?.rowCount.map { "\(n) (\($0.formatted()))" } ?? n }.joined(separator: ", "))
        }
        lines += source.skippedTableLines
        if let entity { lines.append("querying \(entity): type a predicate, e.g. \(example(for: entity))") }
        lines.append(".help lists the commands, Tab completes, Ctrl-D leaves.")
        return lines.joined(separator: "\n")
    }

    private func example(for entity: String) -> String {
        if entity == "Flight" { return "origin == 'JFK' AND dest == 'LAX' AND dep_delay > 60" }
        guard let info = source.entity(named: entity), let a = info.attributes.first(where: { $0.type == "string" }) ?? info.attributes.first else {
            return "TRUEPREDICATE"
        }
        return a.type == "string" ? "\(a.name) BEGINSWITH[c] 'a'" : "\(a.name) != nil"
    }

    /// Runs one line; returns false when the session should end.
    @discardableResult
    func handle(_ raw: String) -> Bool {
        let line = raw.trimmingCharacters(in: .whitespaces)
        InterruptFlag.clear()
        if line.isEmpty || line.hasPrefix("--") || line.hasPrefix("#") && !line.hasPrefix("#size") { return true }
        do {
            if line.hasPrefix(".") {
                try DotCommands.run(line, in: self)
            } else {
                try runQuery(line)
            }
        } catch {
            failureCount += 1
            report(error)
            // A script (-c, piped input) on PostgreSQL interrupted by Ctrl-C: the statement was
            // cancelled on the server, and the script ends there.
            if InterruptFlag.isRaised && !interactive { quitRequested = true }
        }
        return !quitRequested
    }

    func report(_ error: Error) {
        if InterruptFlag.isRaised {
            errorOutput("Interrupted.")
            return
        }
        switch error {
        case let e as PredicateFormatError: errorOutput(e.rendered)
        case let e as StoreError: errorOutput(e.userFacing.text)
        case let e as PredicateEvaluationError:
            // Where: the part of the predicate, and the row it failed on (1-based, as tables count).
            errorOutput(e.userText(at: e.elementIndex.map { "row \($0 + 1)" }))
        case let e as ReplError: errorOutput(e.rendered)
        default: errorOutput("error: \(error)")
        }
    }

    /// Switches to `entity`, dropping the settings that belonged to the previous one.
    func use(_ entity: String?) {
        self.entity = entity
        columns = nil
        sort = []
        offset = 0
        lastText = nil
    }

    func currentEntity() throws -> String {
        guard let entity else { throw ReplError("no entity is in use", hint: "choose one with .use ENTITY (.entities lists them)") }
        return entity
    }

    func request(_ text: String) throws -> QueryRequest {
        let (node, map) = try PredicateNode.parse(format: text)
        try UnboundVariables.check(node, text: text, sourceMap: map, bound: Set(variables.keys)) { name in
            "give it a value first: .let $\(name) = VALUE (.let lists the variables)"
        }
        var r = QueryRequest(entity: try currentEntity(), text: text, predicate: node, sort: sort,
                             offset: offset, limit: limit == 0 ? nil : limit, variables: variables, limits: limits)
        r.sourceMap = map
        return r
    }

    /// The columns a table shows: `.columns`, or the entity's attributes.
    func shownColumns() throws -> [String] {
        if let columns { return columns }
        let name = try currentEntity()
        return source.entity(named: name)?.attributes.map(\.name) ?? []
    }

    func runQuery(_ text: String) throws {
        let r = try request(text)
        lastText = text
        let columns = try shownColumns()
        let started = Date()
        let (rows, total) = try interruptible { () throws -> ([[PredicateValue]], Int) in
            let rows = try source.rows(r, columns: columns)
            // A full page may have more behind it: only then is the count a second query.
            if let limit = r.limit, rows.count == limit { return (rows, try source.count(r.unpaged)) }
            if rows.isEmpty && r.offset > 0 { return (rows, try source.count(r.unpaged)) }
            return (rows, r.offset + rows.count)
        }
        let elapsed = Date().timeIntervalSince(started)
        let (text, hidden) = resultRenderer().render(columns: columns, rows: rows)
        var footer = summary(shown: rows.count, total: total)
        if timer { footer += " (\(Self.duration(elapsed)))" }
        var notes = ""
        if format.needsAllRows && !hidden.isEmpty {
            notes = Self.hiddenColumnsNote(hidden, width: resultRenderer().width) + "\n"
        }
        try deliver(format.needsAllRows && rows.isEmpty ? "" : text, notes: notes + footer + "\n")
    }

    /// "(9 more columns: flight, tailnum, …; .columns chooses)": as many of the hidden columns' names
    /// (eight at most) as fit the terminal's width. A note one cell too wide wrapped, and the
    /// result no longer fitted the screen: a four-row table went to the pager.
    static func hiddenColumnsNote(_ hidden: [String], width: Int?) -> String {
        let head = "(\(hidden.count) more column\(hidden.count == 1 ? "" : "s")"
        let tail = "; .columns chooses)"
        for count in stride(from: min(8, hidden.count), through: 1, by: -1) {
            let names = hidden.prefix(count).joined(separator: ", ") + (count < hidden.count ? ", …" : "")
            let note = head + ": " + names + tail
            if let width, CellText.width(note) > width { continue }
            return note
        }
        return head + tail
    }

    private func summary(shown: Int, total: Int) -> String {
        let rows = { (n: Int) in "\(n.formatted()) row\(n == 1 ? "" : "s")" }
        if shown == 0 && offset > 0 && total <= offset { return "no rows past .offset \(offset) (\(rows(total)) in all)" }
        if shown == total && offset == 0 { return rows(total) }
        let first = offset + 1, last = offset + shown
        var s = "rows \(first.formatted())–\(last.formatted()) of \(total.formatted())"
        let more = total - last
        if more > 0 { s += " … \(more.formatted()) more (.limit N or .offset \(last) to see them)" }
        return s
    }

    static func duration(_ seconds: Double) -> String {
        seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    /// Runs `body` with Ctrl-C armed: a watcher thread turns the signal's flag into an
    /// interrupt of the running SQLite statement (signal handlers must not call into SQLite's
    /// connection objects themselves).
    func interruptible<T>(_ body: () throws -> T) throws -> T {
        InterruptFlag.clear()
        let done = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let target = InterruptTarget(source)
        let watcher = Thread {
            // Woken at once when the query ends, so that it lets go of the source before this
            // call returns (a store closed later than the REPL's exit would not tidy its files).
            while done.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
                if InterruptFlag.isRaised {
                    target.interrupt()
                    _ = done.wait(timeout: .distantFuture)
                    break
                }
            }
            finished.signal()
        }
        watcher.start()
        defer {
            done.signal()
            finished.wait()
            target.release()
        }
        let result = try body()
        if InterruptFlag.isRaised { throw ReplError("interrupted") }
        return result
    }
}

/// The source a watcher thread may interrupt: `QuerySource.interrupt()` is the one call made
/// from another thread (SQLite's `sqlite3_interrupt` is meant for exactly that). Released when
/// the query ends, so the thread, which may outlive the call by a moment, does not keep the
/// source open.
final class InterruptTarget: @unchecked Sendable {
    private let lock = NSLock()
    private var source: QuerySource?
    init(_ source: QuerySource) { self.source = source }
    func interrupt() { lock.withLock { source?.interrupt() } }
    func release() { lock.withLock { source = nil } }
}

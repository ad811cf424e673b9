import ArgumentParser
import Foundation
import PQL
import PQLStore

/// `pql [FILE]`: the REPL, on the demo database or on FILE.
struct ReplCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Query a database or data file interactively (the default: `pql`, `pql FILE`).",
        discussion: """
        With no FILE, opens the demo database: the nycflights13 airlines, airports, planes and 336,776 flights from New York City in 2013, with their relationships. FILE may be any SQLite database (its model is inferred), a JSON array, JSON Lines, CSV (.csv, .csv.zip) or property-list file, or a PostgreSQL database's URL, postgres://user:password@host:port/database (or postgresql://; a unix-socket directory as the host, percent-encoded: postgres://user@%2Fvar%2Frun%2Fpostgresql/database). On PostgreSQL, queries run on the server (its model is the one PQL saved there, else inferred from its tables), .sql and .explain show PostgreSQL's SQL and plan, and Ctrl-C cancels the running statement on the server; `pql demo URL` loads the demo there.

        Type a predicate to query the current entity; .help lists the commands, .help language the predicate language. A line with an open parenthesis, brace or quote goes on on the next line. When standard input is not a terminal, pql reads one predicate or command per line (or per entry, when brackets span lines), prints plain results, and exits with status 1 if any line failed.

        Tables are styled (a bold header, a dim NULL) only at a terminal, and not when the NO_COLOR environment variable is set; --color=always or --color=never decides instead.

        With -c, pql runs each command (a predicate or a .command) in order, prints plain results and exits, with status 1 if any failed. Before the first command, pql runs the startup file, $XDG_CONFIG_HOME/pql/pqlrc (by default ~/.config/pql/pqlrc) or else ~/.pqlrc, unless --no-rc. .read FILE runs a script; .format, .output, .once, .headers, .nullvalue and .pager choose how and where results go.

        Examples:
          pql
          echo "name BEGINSWITH 'A'" | pql :demo: --entity Airline
          echo "dep_delay > 600" | pql
          pql :demo: -c ".format csv" -c "origin == 'JFK' AND dep_delay > 1000"
          pql :demo: -c '.use Airport' -c '.count alt > 5000'
          pql postgres://me@localhost/flights -c ".count dep_delay > 600"
          echo ".group airline.name average:(dep_delay)" | pql
          echo ".distinct dest where origin == 'JFK' \\
            AND airline.name BEGINSWITH 'Delta'" | pql
        """
    )

    @Argument(help: ArgumentHelp("An SQLite database, a PostgreSQL URL (postgres://user:password@host:port/database) or a .json, .jsonl, .csv, .csv.zip or .plist file (default: the demo).", valueName: "file"))
    var file: String?

    @Option(help: "The entity to start on (default: the one with the most rows).")
    var entity: String?

    @Flag(help: "Neither read nor write the history file.")
    var noHistory = false

    @Option(name: [.customShort("c"), .customLong("command")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Run a predicate or .command, then exit (repeat for several, run in order).", valueName: "command"))
    var commands: [String] = []

    @Flag(name: .customLong("no-rc"), help: "Do not run the startup file (~/.config/pql/pqlrc or ~/.pqlrc).")
    var noRC = false

    @Option(help: ArgumentHelp("Style tables (a bold header, a dim NULL): auto (only at a terminal, and not when NO_COLOR is set), always or never.", valueName: "when"))
    var color: ColorChoice = .auto

    @OptionGroup var limitOptions: LimitOptions

    func validate() throws {
        // A bare word that names no file is more likely a mistyped command than a file.
        if let file, file != StoreLocation.demo, !file.contains("/"), !file.contains("."),
           !FileManager.default.fileExists(atPath: file) {
            throw ValidationError("'\(file)' is neither a file nor a command (repl, format, filter, import, query)")
        }
    }

    func run() throws {
        let source: QuerySource
        do { source = try SourceOpener.open(file ?? StoreLocation.demo) } catch let e as ReplError {
            throw UserFacingError(text: e.rendered)
        } catch let e as StoreError {
            throw e.userFacing
        }
        let interactive = commands.isEmpty && LineEditor.isTerminal
        let session = ReplSession(source: source, interactive: interactive, output: { text in
            Output.write(text)
        }, errorOutput: { Output.error($0) })
        session.limits = limitOptions.limits
        session.color = color.isEnabled()
        if let entity {
            guard let name = DotCommands.resolveEntity(entity, session) else {
                throw UserFacingError(text: "error: no entity '\(entity)' in \(source.title)\nhint: the entities are \(source.entityNames.joined(separator: ", "))")
            }
            session.entity = name
        }
        // A script on a server: Ctrl-C cancels the running statement there, then ends pql with
        // status 130 (the process killed at once would leave the server running the statement).
        let cancelsOnServer = !interactive && source is ServerSource
        if cancelsOnServer { ServerStore.cancelOnInterrupt() }
        if !noRC { StartupFile.run(in: session) }
        if !commands.isEmpty {
            for command in commands where !session.quitRequested && EndingSignal.received == nil { session.handle(command) }
            if let signal = EndingSignal.received { throw EndingSignal.exit(signal) }
            if cancelsOnServer && InterruptFlag.isRaised { throw ExitCode(130) }
            if session.failureCount > 0 { throw ExitCode(1) }
            return
        }
        if session.quitRequested { return }
        if interactive, let editor = LineEditor(program: "pql", historyFile: noHistory ? nil : Self.historyFile) {
            LineEditor.installInterruptHandler { _ in InterruptFlag.raise() }
            // A kill or a closed terminal stops the query as Ctrl-C does, then ends the session
            // below, which gives the terminal its settings back.
            EndingSignal.interruptFirst()
            editor.completer = { line, cursor in ReplCompletion(session: session).complete(line, cursor: cursor) }
            session.output(session.banner + "\n")
            if let problem = editor.historyProblem { Output.error("pql: \(problem) (set PQL_HISTORY to a file, or use --no-history)") }
            var pending = PendingInput()
            loop: while EndingSignal.received == nil {
                switch editor.read(prompt: pending.isEmpty ? session.prompt : session.continuationPrompt) {
                case .line(let line):
                    // An open bracket or quote: the entry goes on on the next line.
                    guard pending.add(line) else { continue }
                    // A password in an `.open postgres://…` line stays out of the history file.
                    editor.remember(ServerStore.redactingURLs(in: pending.historyText))
                    let entry = pending.text
                    pending.clear()
                    if !session.handle(entry) { break loop }
                case .interrupted:
                    // Ctrl-C drops the lines of an unfinished entry too.
                    pending.clear()
                    InterruptFlag.clear()
                case .end:
                    session.output("\n")
                    break loop
                }
            }
            // The terminal as the user had it, before pql ends (on a SIGTERM or SIGHUP too).
            editor.releaseTerminal()
        } else {
            session.runEntries(sequence(state: ()) { _ in EndingSignal.received == nil ? Swift.readLine(strippingNewline: true) : nil },
                               in: "standard input")
            if let signal = EndingSignal.received { throw EndingSignal.exit(signal) }
            if cancelsOnServer && InterruptFlag.isRaised { throw ExitCode(130) }
            if session.failureCount > 0 { throw ExitCode(1) }
        }
        if let signal = EndingSignal.received { throw EndingSignal.exit(signal) }
    }

    /// `$PQL_HISTORY`, else `$XDG_STATE_HOME/pql/history`, else `~/.local/state/pql/history`.
    static var historyFile: URL {
        let env = ProcessInfo.processInfo.environment
        if let p = env["PQL_HISTORY"], !p.isEmpty { return URL(fileURLWithPath: p) }
        let state = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return URL(fileURLWithPath: state).appendingPathComponent("pql/history")
    }
}

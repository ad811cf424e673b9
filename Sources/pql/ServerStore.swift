import ArgumentParser
import Foundation
import PQL
import PQLPostgres
import PQLStore

/// A PostgreSQL database as `pql`'s commands use it: a `PostgresPredicateStore` opened from the
/// URL the user gave (`postgres://` or `postgresql://`, TCP or a unix-socket directory, as
/// `PostgresConnectionURL` reads them), its async calls waited for through ``BlockingCalls``.
final class ServerStore {
    /// The URL without its password: what banners and messages show, so that a user can copy
    /// it into the next command (and give the password again) without pql ever printing it.
    let shownURL: String
    /// Whether the URL given had a password, which ``shownURL`` leaves out.
    let passwordLeftOut: Bool
    let store: PostgresPredicateStore
    private let calls: BlockingCalls

    /// Whether a store argument names a PostgreSQL database rather than a file.
    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// `text` with the password of every PostgreSQL URL in it replaced by `***` (for the REPL's
    /// history, which keeps `.open URL` lines).
    static func redactingURLs(in text: String) -> String {
        var out = "", rest = Substring(text)
        while let r = rest.range(of: "postgres", options: .caseInsensitive) {
            out += rest[..<r.lowerBound]
            let end = rest[r.lowerBound...].firstIndex { $0.isWhitespace || $0 == "'" || $0 == "\"" } ?? rest.endIndex
            let word = String(rest[r.lowerBound..<end])
            out += isURL(word) ? PostgresConnectionURL.redacted(word) : word
            rest = rest[end...]
        }
        return out + rest
    }

    /// Connects, with `model` or the model PQL saved in the database, else one inferred from its
    /// tables. PQL's SQL functions (`[c]`, `[d]`, `[cd]`) are installed in the schema `pql` when
    /// missing: `writing` commands need them; for reading ones a role that may not create them
    /// still queries, and only a predicate that needs them fails.
    init(url: String, model: StoreModel? = nil, writing: Bool) throws(StoreError) {
        shownURL = PostgresConnectionURL.withoutPassword(url)
        passwordLeftOut = shownURL != url
        calls = BlockingCalls()
        store = try calls.wait { () async throws(StoreError) in try await PostgresPredicateStore(url: url, model: model) }
        do {
            try call { (s) async throws(StoreError) in _ = try await s.installFunctions() }
        } catch {
            if writing || error.kind == .cancelled { throw error }
        }
    }

    deinit {
        let s = store
        // Ends the connections politely; the process may exit right after.
        try? calls.wait { () async throws(StoreError) in await s.close() }
    }

    /// Runs one of the store's async calls and waits for it; Ctrl-C cancels it on the server.
    func call<T: Sendable>(_ body: @escaping @Sendable (PostgresPredicateStore) async throws(StoreError) -> T) throws(StoreError) -> T {
        let s = store
        return try calls.wait { () async throws(StoreError) in try await body(s) }
    }

    /// Reads the server's indexes now, before showing SQL: `BEGINSWITH[c]` is written by them,
    /// and a fetch reads them when the store's reading is old, so that `--sql`, `.sql` and
    /// `.explain` show the statement a fetch would run. A catalog that cannot be read changes
    /// nothing here (the fetch does without it too).
    func readIndexes() {
        _ = try? call { (s) async throws(StoreError) in try await s.reloadIndexes() }
    }

    /// ``call(_:)`` for the commands: its error as pql prints it (see ``failure(_:)``).
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresPredicateStore) async throws(StoreError) -> T) throws -> T {
        do { return try call(body) } catch { throw Self.failure(error) }
    }

    /// Connects for a command (see ``init(url:model:writing:)``); its error as pql prints it.
    static func open(_ url: String, model: StoreModel? = nil, writing: Bool) throws -> ServerStore {
        do { return try ServerStore(url: url, model: model, writing: writing) } catch { throw failure(error) }
    }

    /// Cancels the running call from another thread (the REPL's Ctrl-C watcher).
    func interrupt() { calls.cancel() }

    var model: StoreModel { store.model }

    /// The entities a fetch can name, in the model's order.
    var entityNames: [String] { store.model.entities.filter { !$0.isAbstract }.map(\.name) }

    /// The attributes of `entity`, in model order (a table's columns when no record matched).
    func attributeNames(_ entity: String) -> [String] {
        guard let e = try? model.entity(named: entity) else { return [] }
        return model.allAttributes(e).map(\.name)
    }

    /// ``shownURL`` as a shell word for a command line to copy: quoted when the shell would
    /// read it otherwise (`?` is a glob, `&` ends a command).
    var shownURLArgument: String {
        let plain = shownURL.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "@%+=:,./_-".contains($0) }
        return plain ? shownURL : "'" + shownURL.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// What a command to copy adds when the URL lost its password on the way: where it went.
    var passwordNote: String {
        passwordLeftOut ? "\nnote: the password is left out of the URL shown; add it back (user:PASSWORD@host), or set PGPASSWORD, to connect" : ""
    }

    /// The SQL and its parameters as `pql` prints them: `$1 = value` lines, as PostgreSQL numbers
    /// them, control characters shown as symbols (a bound string may hold ESC).
    static func listing(_ compiled: CompiledSQL) -> String {
        TerminalText.visible(compiled.sql + "\n" + compiled.bindings.enumerated().map { "$\($0.offset + 1) = \($0.element)\n" }.joined())
    }

    /// The error for what the PostgreSQL store cannot do yet, naming it.
    static func notYet(_ what: String, hint: String) -> UserFacingError {
        UserFacingError(text: "error: \(what) is not available on PostgreSQL yet\nhint: \(hint)")
    }

    /// For the batch commands (`query`, `import`, `update`, `delete`, `demo`): Ctrl-C cancels
    /// the statement on the server, and pql then ends with status 130, instead of dying while
    /// the server goes on running it.
    static func cancelOnInterrupt() {
        LineEditor.installInterruptHandler { _ in InterruptFlag.raise() }
        // SIGTERM and SIGHUP (a closed terminal) too: killed at once, pql left the statement
        // running on the server for minutes.
        EndingSignal.interruptFirst()
        // A parent may start pql with SIGINT blocked (test runners' threads do): then the
        // signal would wait, pending, while the statement ran on.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// What a batch command throws for `error`: an interrupted call ends pql with status 130.
    static func failure(_ error: StoreError) -> Error {
        if let signal = EndingSignal.received {
            Output.error("pql: \(signal == SIGHUP ? "hung up" : "terminated"); the statement was cancelled on the server")
            return EndingSignal.exit(signal)
        }
        if InterruptFlag.isRaised {
            Output.error("pql: interrupted; the statement was cancelled on the server")
            return ExitCode(130)
        }
        return error.userFacing
    }
}

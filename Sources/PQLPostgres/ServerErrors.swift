import Foundation
import PostgresNIO
import PQL
import PQLStore

/// PostgresNIO's errors as `StoreError`s. `PSQLError`'s own description hides the server's
/// message (so that logs do not leak data); PQL's errors are for the person who ran the
/// statement, so they say what the server said, with its SQLSTATE.
enum ServerErrors {
    static func storeError(_ error: any Error, doing what: String) -> StoreError {
        if let e = error as? StoreError { return e }
        if error is CancellationError { return cancelled("\(what) was cancelled") }
        if error is ConnectionClosedError { return closed(what) }
        if let e = error as? PSQLError {
            if let info = e.serverInfo {
                let state = info[.sqlState] ?? ""
                if let (evaluation, node) = evaluationError(state: state, message: info[.message], detail: info[.detail], hint: info[.hint]) {
                    var e = StoreError(evaluation: evaluation)
                    // Each call that runs a predicate places it in the predicate's text
                    // (`placedAtSourceNode(of:)` with the query's source map), as memory does.
                    e.sourceNode = node
                    return e
                }
                var message = "\(what): PostgreSQL says: \(info[.message] ?? "an error") (SQLSTATE \(state))"
                if let detail = info[.detail] { message += "; \(detail)" }
                if let context = info[.locationContext] { message += " (\(context))" }
                let kind: StoreError.Kind = switch state {
                case "57014": .cancelled                       // query_canceled
                case "23505", "23503", "23502", "23514": .constraint
                case "42P01": .unknownEntity                   // undefined_table
                case "42703": .unknownKey                      // undefined_column
                case "22P02", "22003", "22007", "22008", "22021": .invalidValue
                default: .server
                }
                if state == "57014", (info[.message] ?? "").contains("statement timeout") {
                    // The session's statement_timeout, not a cancelled task: the predicate asked
                    // for more work than the server allows one statement.
                    return StoreError(.cancelled, "\(what) ran longer than the server's statement_timeout allows",
                                      hint: "narrow the predicate (fewer SUBQUERYs, an indexed key path first), or raise statement_timeout")
                }
                return cancellation(of: StoreError(kind, message, hint: info[.hint] ?? hint(for: state)), "\(what) was cancelled")
            }
            switch e.code {
            case .connectionError where e.underlying.map(Self.isConnectTimeout) == true:
                return StoreError(.timedOut, "\(what): the server did not answer within the time allowed to connect",
                                  hint: "check the host and port, and that the server is not overloaded; connect_timeout=SECONDS in the URL (or PostgresWaitLimits.connecting) waits longer")
            case .clientClosedConnection, .serverClosedConnection:
                return closed(what)
            case .connectionError, .poolClosed:
                let underlying = e.underlying.map { ": " + unreachable($0) } ?? ""
                return StoreError(.server, "\(what): cannot reach the PostgreSQL server\(underlying)",
                                  hint: "check the host, port and that the server is running (pg_isready)")
            case .authMechanismRequiresPassword:
                // What a URL copied from pql's messages (shown without its password) meets on a
                // server that wants one.
                return StoreError(.server, "\(what): the server asks for a password, and neither the URL, PGPASSWORD nor ~/.pgpass has one",
                                  hint: "add it to the URL (postgres://user:PASSWORD@host/database: pql shows URLs without their password), or set PGPASSWORD, or put it in ~/.pgpass as psql reads it")
            case .queryCancelled:
                return cancelled("\(what) was cancelled")
            case .tooManyParameters:
                // PostgreSQL's protocol counts a statement's parameters in 16 bits: the client
                // refuses before sending (an IN list of 70,000 values).
                return StoreError(.unsupported, "\(what): the statement needs more than 65,535 values, the most one PostgreSQL statement can take",
                                  hint: "use fewer values (an IN list of tens of thousands is better held in a table and matched by a subquery or a join)")
            default:
                return StoreError(.server, "\(what): \(e.code)", hint: "see the PostgreSQL server's log")
            }
        }
        // PostgresNIO's pool error lives in a module of its own (_ConnectionPoolModule) that
        // PQL does not import: known by its type's name and its case.
        if String(describing: type(of: error)) == "ConnectionPoolError" {
            if "\(error)".contains("requestCancelled") {
                return StoreError(.cancelled, "\(what) was cancelled while it waited for a free connection",
                                  hint: "every connection of the pool was in use (a transaction's body that calls the store itself, not the store it was given, holds two)")
            }
            return StoreError(.server, "\(what): no connection of the pool could be had (\(error))", hint: "check the connection to the PostgreSQL server")
        }
        return StoreError(.server, "\(what): \(error)", hint: "check the connection to the PostgreSQL server")
    }

    /// The evaluator's error that a fetch's SQL raised, with the node of the predicate's source
    /// map that raised it when known: PQL's `arg` function raises it whole (SQLSTATE `PQL01`,
    /// its kind and node in the detail, `integerOverflow node=3`; the integer arithmetic
    /// functions raise their overflow so, naming the operation), and PostgreSQL's own "bigint
    /// out of range", from anything else on 64 bits, is an overflow too (the operands are not
    /// known here).
    static func evaluationError(state: String, message: String?, detail: String?, hint: String?) -> (PredicateEvaluationError, Int?)? {
        switch (state, message) {
        case ("PQL01", let message?):
            var kindName = detail ?? "", node: Int? = nil
            if let mark = kindName.range(of: nodeSeparator) {
                node = Int(kindName[mark.upperBound...]).flatMap { $0 >= 0 ? $0 : nil }
                kindName = String(kindName[..<mark.lowerBound])
            }
            let kind = PredicateEvaluationError.Kind(rawValue: kindName) ?? .arithmetic
            return (PredicateEvaluationError(kind: kind, message: message, hint: hint.flatMap { $0.isEmpty ? nil : $0 }), node)
        case ("22003", "bigint out of range"?):
            return (PredicateEvaluationError(kind: .integerOverflow, message: "integer overflow: a result does not fit in 64 bits (PostgreSQL: bigint out of range)",
                                             hint: "compute in floating point: multiply an operand by 1.0"), nil)
        default:
            return nil
        }
    }

    /// A connection that closed under a call: the server ended the session (a restart,
    /// `pg_terminate_backend`, `idle_session_timeout`), or PostgresNIO closed it after the
    /// server's fatal error.
    static func closed(_ what: String) -> StoreError {
        StoreError(.server, "\(what): the connection to the PostgreSQL server was closed",
                   hint: "the server restarted or ended the session (pg_terminate_backend, idle_session_timeout); what an unfinished transaction wrote is rolled back; run the call again")
    }

    /// Why a connection could not be opened, in words: NIO's own descriptions name its types
    /// (`SingleConnectionFailure(target: [IPv4]…, error: connection reset (error set): …)`).
    static func unreachable(_ error: any Error) -> String {
        if let e = error as? NIOConnectionError {
            if let first = e.connectionErrors.first {
                let tried = e.connectionErrors.count > 1 ? " (and \(e.connectionErrors.count - 1) other address\(e.connectionErrors.count > 2 ? "es" : ""))" : ""
                return "\(unreachable(first.error)) at \(place(first.target))\(tried)"
            }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return "the host name '\(e.host)' has no address (DNS lookup failed)" }
            return "no address to connect to for '\(e.host)'"
        }
        if case .unknown(let host, _)? = error as? SocketAddressError { return "the host name '\(host)' has no address (DNS lookup failed)" }
        if let e = error as? IOError {
            switch e.errnoCode {
            case ECONNREFUSED: return "the connection was refused (no server listens there)"
            case ENOENT: return "there is no server socket (no such file)"
            case EACCES, EPERM: return "permission to connect was denied"
            case ETIMEDOUT: return "the connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "the host cannot be reached from here"
            case ECONNRESET: return "the server reset the connection"
            default: return String(cString: strerror(e.errnoCode)).lowercased()
            }
        }
        if let e = error as? ChannelError, case .connectTimeout = e { return "the connection timed out" }
        return "\(error)"
    }

    /// An address as a person reads it: `127.0.0.1:5432`, `[::1]:5432`, a socket's path.
    private static func place(_ address: SocketAddress) -> String {
        if let path = address.pathname { return path }
        guard let ip = address.ipAddress else { return "\(address)" }
        let port = address.port.map { ":\($0)" } ?? ""
        return (ip.contains(":") ? "[\(ip)]" : ip) + port
    }

    /// NIO's connect timeout, which PostgresNIO raises when opening a connection (login
    /// included) takes longer than `connectTimeout`.
    static func isConnectTimeout(_ error: any Error) -> Bool {
        if case .connectTimeout? = error as? ChannelError { return true }
        return false
    }

    /// The error of a call whose task was cancelled.
    static func cancelled(_ message: String) -> StoreError {
        StoreError(.cancelled, message, hint: "the task running it was cancelled")
    }

    /// `error`, or the cancellation when it is a server error met while the current task is
    /// cancelled: a statement the cancellation ended leaves a transaction aborted, and the next
    /// one fails with 25P02, possibly in a task the cancellation does not mark (a stream's
    /// fetch), whose error reaches the cancelled task as it is.
    static func cancellation(of error: StoreError, _ message: String) -> StoreError {
        Task.isCancelled && error.kind == .server ? cancelled(message) : error
    }

    /// Between the kind and the node in the DETAIL of the installed functions' errors.
    static let nodeSeparator = " node="
    /// ``nodeSeparator`` as an SQL literal, for the functions' `RAISE`.
    static var nodeMark: String { FoldFunctionSQL.quoteLiteral(nodeSeparator) }

    private static func hint(for state: String) -> String {
        switch state {
        case "28P01", "28000": return "check the user and password in the URL, and the server's pg_hba.conf"
        case "3D000": return "create the database (createdb) or name another in the URL"
        case "42501": return "grant the role the privilege, or connect as the table's owner"
        // PQL's functions missing: a store that never ran installFunctions() on this database.
        case "3F000", "42883": return "PQL's SQL functions ([c]/[d]/[cd] folds, arithmetic, uppercase:, …) are missing: call installFunctions() once on this database (pql does it when the role may)"
        case "23505": return "another record already has this value of a unique attribute (the message names it)"
        // The session ended under the call: the server's word for it, when it could say one.
        case "57P01", "57P02": return "the server restarted or ended the session (pg_terminate_backend); what an unfinished transaction wrote is rolled back; run the call again"
        case "25P02": return "an earlier statement of the transaction failed outside a call's savepoint (a cancelled statement); nothing of the transaction was written: run it again"
        // Date arithmetic in a predicate (date + seconds) past PostgreSQL's timestamps, which
        // memory and SQLite compute (dates there are doubles): a documented difference.
        case "22008": return "a date computed in the predicate lies outside PostgreSQL's timestamps (4713 BC to 294276 AD); keep date + seconds within that range, or filter in memory"
        default: return "see PostgreSQL's documentation of SQLSTATE \(state)"
        }
    }
}

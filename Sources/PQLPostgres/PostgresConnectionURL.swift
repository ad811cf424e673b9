import Foundation
import PostgresNIO
import PQLStore

/// A PostgreSQL connection URL (`postgres://user:password@host:port/database?sslmode=disable`)
/// read into PostgresNIO's client configuration.
///
/// The forms libpq accepts for the common cases: the scheme `postgres` or `postgresql`; user,
/// password and database percent-decoded; port 5432 unless given; `sslmode` `disable`,
/// `prefer` (the default) or `require` (the server's certificate is then checked as
/// `verify-full` would: `verify-ca` and `verify-full` mean the same here). A host that is a
/// directory (`%2Ftmp%2Fpg` percent-encoded, or the `host=/tmp/pg` parameter) is a unix-socket
/// directory, the socket being `.s.PGSQL.<port>` in it, as libpq finds it. Server settings
/// for the session go in `options` as libpq writes them (`options=-c%20statement_timeout%3D2s`,
/// several `-c name=value` separated by spaces) and `application_name`: a server that takes
/// filters from users should cap each statement's time this way. Sessions start with `jit=off`
/// unless `options` sets `jit` (JIT compilation of a long predicate cannot be cancelled).
///
/// ```swift
/// let url = try PostgresConnectionURL("postgres://app:secret@db.internal:5432/shop?sslmode=require")
/// print(url.database ?? "-", url.host ?? url.socketPath ?? "-")
/// ```
public struct PostgresConnectionURL: Sendable, Hashable {
    /// The server's host name or address, or nil for a unix socket.
    public var host: String?
    /// The TCP port, or the number in the socket's file name.
    public var port: Int
    /// The unix socket's path (directory and `.s.PGSQL.<port>`), or nil for TCP.
    public var socketPath: String?
    /// The role to connect as.
    public var user: String
    /// The role's password: the URL's, else where libpq (psql) would find it: the
    /// `PGPASSWORD` environment variable, else the line of the password file (`PGPASSFILE` or
    /// `~/.pgpass`, readable by its owner only) for this host, port, database and role; nil
    /// when none has one.
    public var password: String?
    /// The database, or nil for the role's own.
    public var database: String?
    /// The `sslmode` parameter: `disable`, `prefer` or `require` (`verify-ca`, `verify-full` read as `require`).
    public var sslMode: String
    /// Settings the server applies to every session of this URL (from `options` and
    /// `application_name`), such as `statement_timeout`.
    public var serverSettings: [String: String]
    /// Settings PQL gives each session unless `serverSettings` sets them: `jit=off` (see
    /// `configuration()`). A store opened from a URL leaves out one the server does not know
    /// (an engine that speaks PostgreSQL's protocol without its JIT) and connects again.
    ///
    /// ```swift
    /// var url = try PostgresConnectionURL("postgres://app@db/shop")
    /// url.sessionDefaults = [:]   // the server's own jit setting
    /// ```
    public var sessionDefaults: [String: String] = ["jit": "off", "client_connection_check_interval": "5s"]
    /// libpq's `connect_timeout` parameter (whole seconds, at least 2 as libpq reads it): how
    /// long opening a connection may take, reaching the server, TLS and the login; nil when
    /// the URL does not set it (the store's `PostgresWaitLimits.connecting` then applies).
    ///
    /// ```swift
    /// let url = try PostgresConnectionURL("postgres://app@db/shop?connect_timeout=3")
    /// print(url.connectTimeout as Any)   // Optional(3.0 seconds)
    /// ```
    public var connectTimeout: Duration?

    /// Reads `text`; a malformed URL is a `StoreError` of kind `StoreError.Kind.server` saying which part is wrong.
    ///
    /// ```swift
    /// let local = try PostgresConnectionURL("postgresql://postgres@%2Fvar%2Frun%2Fpostgresql/pql")
    /// ```
    public init(_ text: String) throws(StoreError) {
        func bad(_ what: String) -> StoreError {
            StoreError(.server, "'\(Self.withoutPassword(text))' is not a PostgreSQL URL: \(what)",
                       hint: "write it as postgres://user:password@host:port/database?sslmode=disable")
        }
        guard let c = URLComponents(string: text) else { throw bad("it does not parse as a URL") }
        guard let scheme = c.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw bad("the scheme must be postgres:// or postgresql://")
        }
        var parameters: [String: String] = [:]
        for item in c.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        let known: Set<String> = ["sslmode", "host", "port", "user", "password", "dbname", "options", "application_name", "connect_timeout"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw bad("the parameter '\(unknown)' is not one PQL reads (sslmode, host, port, user, password, dbname, options, application_name, connect_timeout)")
        }
        if let t = parameters["connect_timeout"] {
            // libpq: whole seconds; zero or negative waits for ever, and 1 counts as 2. PQL
            // bounds every wait, so zero is refused rather than read as "for ever".
            guard let n = Int(t.trimmingCharacters(in: .whitespaces)), n > 0, n <= 86_400 else {
                throw bad("connect_timeout '\(t)' is not a number of seconds from 1 to 86400")
            }
            connectTimeout = .seconds(max(n, 2))
        }
        serverSettings = [:]
        if let options = parameters["options"] {
            guard let settings = Self.settings(fromOptions: options) else {
                throw bad("options must be settings written -c name=value (or --name=value), separated by spaces")
            }
            serverSettings = settings
        }
        if let name = parameters["application_name"] { serverSettings["application_name"] = name }
        port = 5432
        if let p = parameters["port"] ?? c.port.map(String.init) {
            guard let n = Int(p), (1...65535).contains(n) else { throw bad("the port '\(p)' is not a number from 1 to 65535") }
            port = n
        }
        user = parameters["user"] ?? c.percentEncodedUser?.removingPercentEncoding ?? "postgres"
        password = parameters["password"] ?? c.percentEncodedPassword?.removingPercentEncoding
        let path = c.percentEncodedPath.removingPercentEncoding ?? ""
        let name = parameters["dbname"] ?? String(path.drop { $0 == "/" })
        database = name.isEmpty ? nil : name
        var hostText = parameters["host"] ?? c.percentEncodedHost?.removingPercentEncoding ?? ""
        // An IPv6 address is written in brackets in a URL (`postgres://[::1]:5432/db`).
        if hostText.hasPrefix("["), hostText.hasSuffix("]") { hostText = String(hostText.dropFirst().dropLast()) }
        if hostText.hasPrefix("/") {
            host = nil
            socketPath = (hostText.hasSuffix("/") ? hostText : hostText + "/") + ".s.PGSQL.\(port)"
        } else {
            host = hostText.isEmpty ? "localhost" : hostText
            socketPath = nil
        }
        if password == nil {
            password = PasswordFile.password(host: host, port: port, database: database ?? user, user: user)
        }
        sslMode = parameters["sslmode"] ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw bad("sslmode '\(sslMode)' is not disable, prefer, require, verify-ca or verify-full")
        }
    }

    /// libpq's `options` value read into settings: `-c name=value` or `--name=value` words, a
    /// backslash escaping the next character (a space in a value); nil when a word is neither.
    static func settings(fromOptions text: String) -> [String: String]? {
        var words: [String] = [], word = "", escaped = false, inWord = false
        for c in text {
            if escaped { word.append(c); escaped = false; inWord = true; continue }
            if c == "\\" { escaped = true; inWord = true; continue }
            if c == " " || c == "\t" {
                if inWord { words.append(word); word = ""; inWord = false }
                continue
            }
            word.append(c); inWord = true
        }
        if escaped { return nil }
        if inWord { words.append(word) }
        var settings: [String: String] = [:]
        var i = 0
        while i < words.count {
            var assignment: Substring
            if words[i] == "-c" {
                guard i + 1 < words.count else { return nil }
                assignment = words[i + 1][...]
                i += 2
            } else if words[i].hasPrefix("-c") {
                assignment = words[i].dropFirst(2)
                i += 1
            } else if words[i].hasPrefix("--") {
                assignment = words[i].dropFirst(2)
                i += 1
            } else {
                return nil
            }
            guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else { return nil }
            // PostgreSQL reads - and _ alike in a setting's name given this way.
            let name = assignment[..<eq].replacingOccurrences(of: "-", with: "_")
            settings[name] = String(assignment[assignment.index(after: eq)...])
        }
        return settings
    }

    /// The settings as startup parameters, in a stable order, with `jit=off` unless the URL
    /// sets `jit`: PostgreSQL's JIT compiles a statement's expressions with LLVM when the plan
    /// looks costly, and a long predicate from a user (2,000 ORed comparisons, 40 KB) then
    /// spent 38 s in LLVM on a 336,776-row table, where neither a cancel, `statement_timeout`
    /// nor `pg_terminate_backend` reaches it. Without JIT the same statement takes 1 s and
    /// stops when asked. PQL's statements are filters, which JIT rarely speeds up.
    private var startupParameters: [(String, String)] {
        let settings = serverSettings.merging(sessionDefaults) { given, _ in given }
        return settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The client configuration for this URL.
    ///
    /// ```swift
    /// let client = PostgresClient(configuration: try PostgresConnectionURL(text).configuration())
    /// ```
    public func configuration() -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = PostgresClient.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS = switch sslMode {
            case "disable": .disable
            case "allow", "prefer": .prefer(.makeClientConfiguration())
            default: .require(.makeClientConfiguration())
            }
            configuration = PostgresClient.Configuration(host: host ?? "localhost", port: port, username: user, password: password,
                                                         database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = startupParameters
        if let connectTimeout { configuration.options.connectTimeout = connectTimeout }
        return configuration
    }

    /// The same, for one `PostgresConnection` (the store's first connection, which reports a
    /// server that cannot be reached at once instead of the pool's retrying).
    func connectionConfiguration() throws(StoreError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketPath {
            configuration = PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
            configuration.options.additionalStartupParameters = startupParameters
            if let connectTimeout { configuration.options.connectTimeout = .init(connectTimeout) }
            return configuration
        }
        let tls: PostgresConnection.Configuration.TLS
        do {
            tls = switch sslMode {
            case "disable": .disable
            case "allow", "prefer": .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StoreError(.server, "cannot set up TLS for the connection: \(error)", hint: "use sslmode=disable for a server on this machine")
        }
        configuration = PostgresConnection.Configuration(host: host ?? "localhost", port: port, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options.additionalStartupParameters = startupParameters
        if let connectTimeout { configuration.options.connectTimeout = .init(connectTimeout) }
        return configuration
    }

    /// `text` with its password replaced by `***` (the user part's and a `password`
    /// parameter's), for logs and a REPL's history, where the mask shows where the password goes.
    ///
    /// ```swift
    /// print(PostgresConnectionURL.redacted("postgres://app:secret@db/shop"))   // postgres://app:***@db/shop
    /// ```
    public static func redacted(_ text: String) -> String {
        replacingPassword(in: text, with: "***")
    }

    /// `text` without its password (the user part's and a `password` parameter's), for what a
    /// user may copy into the next command: the same database and user, the password to be
    /// given again. Whatever the text, the password never shows.
    ///
    /// ```swift
    /// print(PostgresConnectionURL.withoutPassword("postgres://app:secret@db/shop"))   // postgres://app@db/shop
    /// ```
    public static func withoutPassword(_ text: String) -> String {
        replacingPassword(in: text, with: nil)
    }

    /// `text` with its password replaced by `mask`, or left out (with its `:`) when `mask` is
    /// nil, and the values of its `password` parameters (any case: `Password=` too) likewise.
    ///
    /// A password may hold characters a URL reserves (`/`, `#`, `?`, `@`, `:`) unencoded: the
    /// text then does not parse, or parses with the password's tail read as the port, path or
    /// query (`postgres://u:1/2@db` has host `u`, port 1 and path `/2@db`). So unless the URL
    /// parses with a password of its own, or with no `@` after its authority, everything from
    /// the first `:` after the scheme to the last `@` goes: no reading of the text leaks a
    /// password, at worst a host and port are left out too.
    private static func replacingPassword(in text: String, with mask: String?) -> String {
        func isPassword(_ name: some StringProtocol) -> Bool { name.lowercased() == "password" }
        if var c = URLComponents(string: text), c.percentEncodedPassword != nil || !Self.hasAtAfterAuthority(text) {
            guard c.percentEncodedPassword != nil || c.percentEncodedQueryItems?.contains(where: { isPassword($0.name) }) == true else { return text }
            if c.percentEncodedPassword != nil { c.percentEncodedPassword = mask }
            if let items = c.percentEncodedQueryItems, items.contains(where: { isPassword($0.name) }) {
                let kept = items.compactMap { item -> URLQueryItem? in
                    guard isPassword(item.name) else { return item }
                    return mask.map { URLQueryItem(name: item.name, value: $0) }
                }
                c.percentEncodedQueryItems = kept.isEmpty ? nil : kept
            }
            if let s = c.string { return s }
        }
        var out = text
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                out = String(text[..<colon]) + (mask.map { ":" + $0 } ?? "") + String(text[at...])
            }
        }
        guard let query = out.firstIndex(of: "?") else { return out }
        let parameters = out[out.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).compactMap { p -> String? in
            guard let eq = p.firstIndex(of: "="), isPassword(p[..<eq]) else { return String(p) }
            return mask.map { String(p[...eq]) + $0 }
        }
        return String(out[..<query]) + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// Whether an `@` comes after the URL's authority (in what reads as its path, query or
    /// fragment): a sign of a password holding `/`, `?` or `#`.
    private static func hasAtAfterAuthority(_ text: String) -> Bool {
        guard let scheme = text.range(of: "://") else { return text.contains("@") }
        let rest = text[scheme.upperBound...]
        guard let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return false }
        return rest[end...].contains("@")
    }
}

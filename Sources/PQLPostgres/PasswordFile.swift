import Foundation

/// Where a password comes from when the URL has none, as libpq (psql, pg_dump) looks for it:
/// the `PGPASSWORD` environment variable, then the password file (`PGPASSFILE`, else
/// `~/.pgpass`), whose lines read `host:port:database:user:password`, `*` matching anything,
/// `\:` and `\\` escaping. As libpq does, a file others may read (permissions beyond 0600) is
/// ignored: a password there is no secret.
enum PasswordFile {
    /// The password for a connection, or nil. `host` is nil for a unix socket, which the
    /// file's `localhost` matches.
    static func password(host: String?, port: Int, database: String, user: String,
                         environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["PGPASSWORD"], !p.isEmpty { return p }
        let path = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let path, let text = readPrivate(path) else { return nil }
        let wanted = [host ?? "localhost", String(port), database, user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The file's text, unless it is missing, not a regular file, or readable by others.
    private static func readPrivate(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, (info.st_mode & 0o077) == 0 else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// A line's fields, split at unescaped colons (the password, last, keeps any colon after).
    static func split(_ line: String) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for c in line {
            if escaped { current.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; continue }
            if c == ":" && fields.count < 4 { fields.append(current); current = ""; continue }
            current.append(c)
        }
        fields.append(current)
        return fields
    }
}

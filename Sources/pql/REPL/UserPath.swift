import Foundation

/// The paths REPL commands name (`.read`, `.output`, `.once`, `.open`), with `~` expanded as a
/// shell does.
enum UserPath {
    /// `~` and `~/…` from `$HOME` (the password file's home only when HOME is unset or empty:
    /// Foundation's `expandingTildeInPath` would take the password file's first), `~user/…` from
    /// that user's home; other paths as they are.
    static func expanded(_ path: String) -> String {
        guard path.hasPrefix("~") else { return path }
        guard path == "~" || path.hasPrefix("~/") else { return (path as NSString).expandingTildeInPath }
        let env = ProcessInfo.processInfo.environment["HOME"] ?? ""
        let home = env.isEmpty ? NSHomeDirectory() : env
        return home + path.dropFirst()
    }
}

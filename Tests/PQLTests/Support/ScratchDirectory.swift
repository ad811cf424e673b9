import Foundation

/// A new empty directory in the temporary directory, named `prefix-UUID`; the caller removes it.
func scratchDirectory(_ prefix: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

extension PQLProcess {
    /// `pql` with `home` as HOME and `home/.config` as XDG_CONFIG_HOME, so the startup file it
    /// runs is the one a test wrote there (or none), never the user's.
    static func run(_ arguments: [String], home: URL, stdin: String? = nil) throws -> PQLProcess {
        var env = DemoCache.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        return try run(arguments, stdin: stdin.map { Data($0.utf8) }, environment: env)
    }
}

import Foundation
import PQLTestSupport
@testable import PQLPostgres
import PQLStore

/// The built `pql` binary run as a user runs it, against the test server: arguments, standard
/// input, exit status, standard output and standard error.
struct CommandLineProcess {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The signal that ended it, if one did (`status` is then 128 + its number).
    var signal: Int32? = nil

    /// The `pql` built beside this test bundle (`swift build --build-tests` builds both).
    static var binary: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = bundle.deletingLastPathComponent()
        if bundle.pathExtension != "xctest" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("pql").path) {
            dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug")
        }
        return dir.appendingPathComponent("pql")
    }

    /// A home with no startup file; the demo's SQLite cache stays where it is.
    static let environment: [String: String] = {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pql-pg-home-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let env = ProcessInfo.processInfo.environment
        let cache = env["XDG_CACHE_HOME"] ?? (env["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return env.merging(["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_CACHE_HOME": cache]) { $1 }
    }()

    /// Starts `pql` with `arguments` (through `ChildProcess`, never Foundation's `Process`: see
    /// there); the caller may signal it, then calls ``finish(_:)``.
    static func start(_ arguments: [String], stdin: String? = nil, adding extra: [String: String] = [:]) throws -> ChildProcess.Running {
        try ChildProcess.start(binary.path, arguments, environment: environment.merging(extra) { $1 }, stdin: Data((stdin ?? "").utf8))
    }

    static func run(_ arguments: [String], stdin: String? = nil, adding extra: [String: String] = [:]) throws -> CommandLineProcess {
        try finish(try start(arguments, stdin: stdin, adding: extra))
    }

    /// Reads a started `pql`'s output to its end and waits for it (bounded: see `ChildProcess`).
    static func finish(_ child: ChildProcess.Running) throws -> CommandLineProcess {
        CommandLineProcess(try child.finish())
    }

    init(status: Int32, stdout: String, stderr: String, signal: Int32? = nil) {
        (self.status, self.stdout, self.stderr, self.signal) = (status, stdout, stderr, signal)
    }

    init(_ r: ChildProcess.Result) {
        self.init(status: r.status, stdout: r.stdoutText, stderr: r.stderrText, signal: r.signal)
    }
}

/// A database of its own on the test server for a command-line test, dropped afterwards.
enum ScratchDatabase {
    /// Runs `body` with the URL of a new empty database (the test server's URL, another database).
    static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        let url = try TestServer.url()
        let name = "pqlcli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try await PostgresPredicateStore(url: url, model: try StoreModel([]))
        try await admin.execute("CREATE DATABASE \(name)")
        var c = URLComponents(string: url)!
        c.path = "/" + name
        do {
            let result = try await body(c.string!)
            try await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
            await admin.close()
            return result
        } catch {
            try? await admin.execute("DROP DATABASE \(name) WITH (FORCE)")
            await admin.close()
            throw error
        }
    }
}

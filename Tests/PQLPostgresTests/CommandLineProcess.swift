import Foundation
@testable import PQLPostgres
import PQLStore

/// The built `pql` binary run as a user runs it, against the test server: arguments, standard
/// input, exit status, standard output and standard error.
struct CommandLineProcess {
    var status: Int32
    var stdout: String
    var stderr: String

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

    /// Starts `pql` with `arguments`; the caller reads its pipes and waits.
    static func start(_ arguments: [String], stdin: String? = nil, adding extra: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        return (process, out, err)
    }

    static func run(_ arguments: [String], stdin: String? = nil, adding extra: [String: String] = [:]) throws -> CommandLineProcess {
        let (process, out, err) = try start(arguments, stdin: stdin, adding: extra)
        return finish(process, out, err)
    }

    static func finish(_ process: Process, _ out: Pipe, _ err: Pipe) -> CommandLineProcess {
        // Standard error is a few lines at most: read after standard output, as PQLTests' PQLProcess does.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandLineProcess(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                                  stderr: String(decoding: e, as: UTF8.self))
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

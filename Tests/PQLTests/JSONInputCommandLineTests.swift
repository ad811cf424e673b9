import Foundation
import PQL
import Testing

/// JSON files as `pql query FILE`, `pql filter` and `pql import` read them (adversarial run):
/// keys equal as Swift strings were merged and the last value kept (F17), a byte order mark
/// broke the first line (F23), and integers beyond 64 bits were doubles in memory, text in a
/// store, and the original text in `pql filter` (F34).
@Suite("JSON input: repeated keys, byte order marks, integers beyond 64 bits")
struct JSONInputCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-json-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test("keys that differ only in normalization, or repeat, are refused by every reader")
    func repeatedKeys() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let normalized = try Self.write(Array("{\"id\":1,\"\u{E9}\":5,\"e\u{301}\":6}\n".utf8), "nf.jsonl", in: dir)
        let repeated = try Self.write(Array(#"{"a":1,"a":2}"#.utf8) + [0x0A], "dup.jsonl", in: dir)
        let both = "the keys '\u{E9}' (U+00E9) and 'e\u{301}' (U+0065 U+0301) differ only in Unicode normalization"
        for (file, message) in [(normalized, both), (repeated, "the key 'a' appears twice")] {
            let store = dir.appendingPathComponent("s.sqlite").path
            for arguments in [["query", file], ["filter", "TRUEPREDICATE", file], ["import", store, file, "--entity", "T"]] {
                let r = try PQLProcess.run(arguments)
                #expect(r.status == 1, "\(arguments)")
                #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
                #expect(r.stderr.contains("keep one of the keys, or rename one"), "\(arguments): \(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: store))
        }
        // The in-memory reader, as the library reads JSON.
        #expect(throws: JSONReadError.self) { try JSONReader.value(from: #"{"a": 1, "b": {"a": 2}, "a": 3}"#) }
        #expect((try? JSONReader.value(from: #"{"a": 1, "b": {"a": 2}}"#)) != nil)
    }

    @Test("a byte order mark before JSON is skipped, and positions after it are the text's")
    func byteOrderMark() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let file = try Self.write(bom + Array(#"[{"a": 1}, {"a": 2}]"#.utf8), "bom.json", in: dir)
        #expect(try PQLProcess.run(["query", file, "--where", "a == 2"]).stdout == "{\"a\":2}\n")
        #expect(try PQLProcess.run(["filter", "a == 2", file]).stdout == "[\n  {\"a\": 2}\n]\n")
        let broken = try Self.write(bom + Array(#"[{"a": 1}, {"a": }]"#.utf8), "broken.json", in: dir)
        #expect(try PQLProcess.run(["query", broken]).stderr.contains("line 1, column 18: expected a JSON value, found '}'"))
        #expect(try JSONReader.value(from: "\u{FEFF}[1]") == .array([1]))
    }

    @Test("a script's byte order mark is no part of its first command")
    func byteOrderMarkInAScript() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = try Self.write([0xEF, 0xBB, 0xBF] + Array("carrier == 'UA'\n".utf8), "s.pql", in: dir)
        let read = try PQLProcess.run([":demo:", "--entity", "Airline", "-c", ".read \(script)"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("United Air Lines Inc."))
        let piped = try PQLProcess.run([":demo:", "--entity", "Airline"], stdin: Data([0xEF, 0xBB, 0xBF] + Array(".entities\n".utf8)))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("Airline"))
    }

    @Test("an integer beyond 64 bits keeps every digit in memory, in a store and in CSV")
    func integersBeyond64Bits() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.write(Array("{\"n\":18446744073709551617}\n{\"n\":5}\n".utf8), "big.jsonl", in: dir)
        // 2^64 (what a double makes of …617) matches no row, in memory as in pql filter.
        let near = "n == 18446744073709551616"
        #expect(try PQLProcess.run(["query", file, "--where", near]).stdout == "")
        #expect(try PQLProcess.run(["filter", near, file]).stdout == "")
        #expect(try PQLProcess.run(["query", file, "--where", near, "--count"]).stdout == "0\n")
        #expect(try PQLProcess.run(["query", file, "--format", "csv"]).stdout == "n\n18446744073709551617\n5\n")
        #expect(try PQLProcess.run(["query", file]).stdout == "{\"n\":18446744073709551617}\n{\"n\":5}\n")
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try PQLProcess.run(["import", store, file, "--entity", "B"]).status == 0)
        #expect(try PQLProcess.run(["query", store, "--where", near, "--count"]).stdout == "0\n")
        #expect(try PQLProcess.run(["query", store, "--format", "csv"]).stdout == "n\n18446744073709551617\n5\n")
        // Beyond what a decimal keeps (38 digits), the reader refuses rather than rounds.
        let huge = try Self.write(Array(("{\"n\":" + String(repeating: "9", count: 40) + "}\n").utf8), "huge.jsonl", in: dir)
        let r = try PQLProcess.run(["query", huge])
        #expect(r.status == 1)
        #expect(r.stderr.contains("has more digits than can be kept exactly (38)"), "\(r.stderr)")
        #expect(try JSONReader.value(from: "18446744073709551617") == PredicateValue.decimal(Decimal(string: "18446744073709551617")!))
    }
}

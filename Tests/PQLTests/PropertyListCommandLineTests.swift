import Foundation
import Testing

/// Property lists as `pql query FILE` reads them (adversarial run): a 400-byte binary plist
/// whose arrays each hold the previous one twice never finished (F9: Foundation expands every
/// shared reference), and a damaged one was "The data is not in the correct format" (F12).
@Suite("pql query on property lists: bounded, and errors with a place")
struct PropertyListCommandLineTests {
    private static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// "Billion laughs": objects 0 and 1 are the strings "x" and "y", object k + 1 a dictionary
    /// holding object k under both keys; the top object expands to 2^levels strings.
    static func laughs(_ levels: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets = [bytes.count]
        bytes += [0x51, UInt8(ascii: "x")]
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "y")]
        for k in 1...levels {
            offsets.append(bytes.count)
            bytes += [0xD2, 0, 1, UInt8(k == 1 ? 0 : k), UInt8(k == 1 ? 0 : k)]
        }
        let table = bytes.count
        for o in offsets { bytes += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        func be64(_ v: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1] + be64(offsets.count) + be64(offsets.count - 1) + be64(table)
        return Data(bytes)
    }

    @Test("shared references that expand past the bound are refused at once, with the reason")
    func billionLaughs() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bomb = dir.appendingPathComponent("laughs.plist")
        try Self.laughs(40).write(to: bomb)
        let r = try PQLProcess.run(["query", bomb.path, "--count"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("laughs.plist is not a binary property list PQL can read: byte "), "\(r.stderr)")
        #expect(r.stderr.contains("shared references expand to more than 10,000,000 values (it holds 42 objects)"), "\(r.stderr)")
        #expect(r.stderr.contains("hint: PQL refuses property lists whose objects are shared this often"), "\(r.stderr)")
        // Sharing below the bound reads as the values it stands for.
        let small = dir.appendingPathComponent("small.plist")
        try Self.laughs(2).write(to: small)
        let s = try PQLProcess.run(["query", small.path])
        #expect(s.status == 0, "\(s.stderr)")
        #expect(s.stdout == #"{"x":{"x":"x","y":"x"},"y":{"x":"x","y":"x"}}"# + "\n")
    }

    @Test("a binary property list reads as Foundation's XML reading of the same data does")
    func binaryAgreesWithXML() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows: [[String: Any]] = [
            ["name": "Ann", "age": 30, "score": 1.5, "born": Date(timeIntervalSinceReferenceDate: 0), "blob": Data([0, 1]),
             "tags": ["a", "é"], "ok": true, "nested": ["k": "ü😀"], "big": UInt64.max],
            ["name": "Bo", "age": -12, "ok": false, "tags": [String]()],
        ]
        for (name, format) in [("b.plist", PropertyListSerialization.PropertyListFormat.binary), ("x.plist", .xml)] {
            try PropertyListSerialization.data(fromPropertyList: rows, format: format, options: 0).write(to: dir.appendingPathComponent(name))
        }
        let binary = try PQLProcess.run(["query", dir.appendingPathComponent("b.plist").path, "--sort", "name"])
        let xml = try PQLProcess.run(["query", dir.appendingPathComponent("x.plist").path, "--sort", "name"])
        #expect(binary.status == 0 && xml.status == 0, "\(binary.stderr) \(xml.stderr)")
        #expect(binary.stdout == xml.stdout)
        #expect(binary.stdout.contains(#""big":18446744073709551615"#), "\(binary.stdout)")
    }

    @Test("damaged property lists are errors with a line or a byte and the reason")
    func damagedFilesSayWhere() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        func query(_ name: String, _ data: Data) throws -> PQLProcess {
            let url = dir.appendingPathComponent(name)
            try data.write(to: url)
            return try PQLProcess.run(["query", url.path])
        }
        let xml = try query("bad.plist", Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            <dict><key>a</key><integer>x1</integer></dict>
            </array>
            </plist>
            """.utf8))
        #expect(xml.stderr.hasPrefix("error: bad.plist is not a property list: Unknown character 'x' (0x78) in <integer> on line 4"), "\(xml.stderr)")
        #expect(!xml.stderr.contains("correct format"))
        let cut = try query("cut.plist", Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<array>\n<string>a</string>\n".utf8))
        #expect(cut.stderr.contains("the text ends (line 5) before the property list does"), "\(cut.stderr)")
        let binary = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .binary, options: 0)
        let truncated = try query("short.plist", binary.prefix(binary.count - 5))
        #expect(truncated.stderr.contains("is not a binary property list PQL can read: byte "), "\(truncated.stderr)")
        #expect(truncated.stderr.contains("the file is cut short or damaged"), "\(truncated.stderr)")
        // A reference to an object the file does not hold.
        var bad = Array(binary)
        let table = Int(bad[bad.count - 1])
        bad[table] = 0xFF
        let outside = try query("outside.plist", Data(bad))
        #expect(outside.stderr.contains("object 0 is said to start at byte 255"), "\(outside.stderr)")
        for r in [xml, cut, truncated, outside] { #expect(r.status == 1) }
    }
}

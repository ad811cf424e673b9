import Foundation
@testable import PQL
import Testing

/// `--color` and `NO_COLOR`, and the cells characters take in tables: CJK and emoji two, marks none.
@Suite(.serialized) struct ColorAndWidthTests {
    static let boldHeader = "\u{1B}[1myear"

    @Test func noEscapesWhenOutputIsNotATerminal() throws {
        let script = Data("origin == 'JFK' AND dep_delay > 1000\n".utf8)
        let plain = try PQLProcess.run([], stdin: script, environment: DemoCache.environment)
        #expect(plain.status == 0 && plain.stdout.hasPrefix("year") && !plain.stdout.contains("\u{1B}"), "\(plain.stdout.debugDescription)")
        let always = try PQLProcess.run(["--color=always"], stdin: script, environment: DemoCache.environment)
        #expect(always.status == 0 && always.stdout.hasPrefix(Self.boldHeader), "\(always.stdout.debugDescription)")
        // The flag, given, wins over NO_COLOR.
        var noColor = DemoCache.environment
        noColor["NO_COLOR"] = "1"
        let forced = try PQLProcess.run(["repl", "--color", "always"], stdin: script, environment: noColor)
        #expect(forced.stdout.hasPrefix(Self.boldHeader), "\(forced.stdout.debugDescription)")
        let never = try PQLProcess.run(["--color=never"], stdin: script, environment: DemoCache.environment)
        #expect(never.status == 0 && !never.stdout.contains("\u{1B}"))
        let bad = try PQLProcess.run(["--color=sometimes"], stdin: script, environment: DemoCache.environment)
        #expect(bad.status == 2 && bad.stderr.contains("auto") && bad.stderr.contains("never"), "\(bad.stderr)")
    }

    /// At a terminal tables are styled unless NO_COLOR is set or --color=never.
    /// (An empty NO_COLOR counts as unset, as no-color.org says; it also overrides the test's own environment.)
    @Test(arguments: [("", [], true), ("1", [], false), ("", ["--color=never"], false), ("1", ["--color=always"], true)] as [(String, [String], Bool)])
    func atATerminal(noColor: String, arguments: [String], styled: Bool) throws {
        var env = DemoCache.environment
        env["PQL_HISTORY"] = DemoCache.directory + "/history-color-\(UUID().uuidString)"
        env["NO_COLOR"] = noColor
        let t = try PseudoTerminal(executable: PQLProcess.binary, arguments: arguments, environment: env, columns: 120, rows: 40)
        defer { t.kill() }
        #expect(t.waitFor("Flight> ", timeout: 120), "\(t.screen.text)")
        t.type("origin == 'JFK' AND dep_delay > 1000")
        t.press(.enter)
        #expect(t.waitFor("4 rows ("), "\(t.screen.text)")
        #expect(t.output.contains(Self.boldHeader) == styled, "\(t.output.suffix(2000).debugDescription)")
        t.press(.ctrlD)
        #expect(t.waitForExit() == 0)
    }

    @Test(arguments: [
        ("a", 1), ("日本", 4), ("Ａ", 2), ("ｶ", 1), ("한국", 4), ("\u{1100}\u{1161}\u{11A8}", 2), ("e\u{301}", 1), ("Zoe\u{308}", 3),
        ("👍", 2), ("👍🏽", 2), ("👩‍💻", 2), ("👨‍👩‍👧‍👦", 2), ("🇯🇵", 2), ("❤", 1), ("❤️", 2), ("1️⃣", 2), ("☺︎", 1), ("⌚", 2),
        ("\u{200B}", 0), ("a\u{200D}b", 2), ("。", 2), ("〜", 2), ("😀x", 3), ("𠀋", 2),
    ])
    func cells(_ text: String, _ width: Int) {
        #expect(TerminalText.cells(text) == width, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func tablesAlignWideAndZeroWidthCharacters() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-widths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("names.csv")
        // Each name with the cells a terminal gives it: CJK 2 each, e + combining diaeresis 1, a ZWJ
        // sequence 2, a flag 2, a heart with variation selector 16 2, a Hangul syllable in jamo 2,
        // halfwidth katakana 1 each.
        let names: [(String, Int)] = [("東京", 4), ("Zoe\u{308}", 3), ("👩\u{200D}💻", 2), ("🇯🇵", 2), ("\u{2764}\u{FE0F}", 2),
                                      ("\u{1100}\u{1161}\u{11A8}", 2), ("ab", 2), ("ｶﾀｶﾅ", 4)]
        try ("label,num\n" + names.enumerated().map { "\($0.element.0),\($0.offset + 1)" }.joined(separator: "\n") + "\n")
            .write(to: csv, atomically: true, encoding: .utf8)
        let r = try PQLProcess.run([csv.path], stdin: Data("TRUEPREDICATE\n".utf8), environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        // The label column is 5 cells wide (its header), then two spaces, then the number right-aligned in 3.
        var expected = "label  num\n-----  ---\n"
        for (i, (name, cells)) in names.enumerated() { expected += name + String(repeating: " ", count: 5 - cells + 2 + 2) + "\(i + 1)\n" }
        expected += "8 rows\n"
        #expect(r.stdout.unicodeScalars.elementsEqual(expected.unicodeScalars), "\(r.stdout)\nexpected:\n\(expected)")
    }
}

import Foundation
import Testing
@testable import PQL

/// Control characters from the input (ESC, BEL, CR, C1 controls) never reach standard error
/// raw: every error rendering shows them as symbols, and carets stay under the shown text.
@Suite("Errors are safe for terminals")
struct TerminalSafetyTests {
    /// ESC starts escape sequences, BEL rings, CR rewrites the line, U+009B is CSI.
    static let controls = ["\u{1B}", "\u{07}", "\r", "\u{9B}", "\u{7F}", "\u{0}"]

    static func expectNoControls(_ text: String, _ comment: Comment? = nil) {
        let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
        #expect(raw.isEmpty, "raw control characters \(raw.map { $0.value }) in: \(text.debugDescription) \(comment.map { "\($0)" } ?? "")")
    }

    @Test("pql format: the caret rendering shows controls as symbols, the caret under the token")
    func formatErrors() throws {
        let r = try PQLProcess.run(["format", "name == 'a' AND \u{1B}]0;pwned\u{07} x"])
        #expect(r.status == 1)
        Self.expectNoControls(r.stderr)
        #expect(r.stderr.contains("1 | name == 'a' AND ␛]0;pwned␇ x\n  |                 ^\n"), "\(r.stderr)")

        // An error after controls inside a string: the caret is still under the error.
        let s = try PQLProcess.run(["format", "name == \"\u{1B}[2J\u{9B}31m\" AND"])
        Self.expectNoControls(s.stderr)
        let lines = s.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let shown = try #require(lines.first { $0.hasPrefix("1 | ") })
        let caret = try #require(lines.first { $0.hasPrefix("  | ") && $0.contains("^") })
        #expect(shown == "1 | name == \"␛[2J\\u{9B}31m\" AND", "\(s.stderr)")
        #expect(caret.count == shown.count + 1, "the caret sits just past the last character: \(s.stderr)")
    }

    @Test("pql filter: evaluation errors quote the predicate with controls shown")
    func filterErrors() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pql-terminal-\(UUID().uuidString).json")
        try Data(#"[{"a": "x"}]"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try PQLProcess.run(["filter", "a MATCHES \"\u{1B}[(\"", file.path])
        #expect(r.status == 1)
        Self.expectNoControls(r.stderr)
        #expect(r.stderr.contains("␛[("), "\(r.stderr)")
        // Usage errors quote arguments too.
        let u = try PQLProcess.run(["filter", "--sort", "a:\u{1B}[31m", "TRUEPREDICATE", file.path])
        #expect(u.status == 2)
        Self.expectNoControls(u.stderr)
    }

    @Test("the REPL: predicate, command and key errors show controls as symbols")
    func replErrors() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pql-terminal-\(UUID().uuidString).json")
        try Data(#"[{"a": "x"}]"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = ["\u{1B}k == 1", ".use \u{1B}[31m", "b\u{07}x == 1", "a == 1 AND \u{9B}"]
        let r = try PQLProcess.run([file.path], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(r.status == 1)
        Self.expectNoControls(r.stderr)
        #expect(r.stderr.contains("no entity '␛[31m'"), "\(r.stderr)")
    }

    @Test("a store error's caret rendering shows controls as symbols")
    func storeErrors() throws {
        let r = try PQLProcess.run(["query", ":demo:", "--entity", "Airline", "--where", "name == '\u{1B}[1m' AND nmae == 'x'"],
                                   environment: DemoCache.environment)
        #expect(r.status == 1)
        Self.expectNoControls(r.stderr)
        #expect(r.stderr.contains("1 | name == '␛[1m' AND nmae == 'x'\n  |                    ^~~~\n"), "\(r.stderr)")
    }

    @Test("a long line is cut around the caret")
    func longLines() throws {
        let text = String(repeating: "a == 1 AND ", count: 100_000) + "AND"
        do {
            _ = try PredicateNode(format: text)
            Issue.record("parsed")
        } catch {
            let rendered = error.rendered
            #expect(rendered.utf8.count < 1_000, "\(rendered.utf8.count) bytes")
            let lines = rendered.split(separator: "\n").map(String.init)
            let shown = try #require(lines.first { $0.hasPrefix("1 | …") })
            let caret = try #require(lines.first { $0.contains("^~~") })
            #expect(shown.hasSuffix("a == 1 AND AND"))
            // The caret is under the second AND.
            #expect(caret.count == shown.count, "\(rendered)")
        }
    }

    @Test("visible text keeps tabs and line breaks, shows every other control")
    func visibleText() {
        for c in Self.controls {
            Self.expectNoControls(TerminalText.visible("x\(c)y"))
        }
        #expect(TerminalText.visible("a\tb\nc") == "a\tb\nc")
        #expect(TerminalText.visible("a\nb", keepingLineBreaks: false) == "a↵b")
        #expect(TerminalText.visible("\u{1B}\u{7}\r\u{7F}\u{9B}") == "␛␇␍␡\\u{9B}")
    }
}

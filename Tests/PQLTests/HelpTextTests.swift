import Foundation
import PQLTestSupport
import PQL
import Testing

/// The help `pql` prints: paragraphs ArgumentParser wraps (not pre-wrapped), examples that run,
/// `.help` naming every command, and `pql help language` covering the whole language.
@Suite(.serialized) struct HelpTextTests {
    static let commands = ["repl", "format", "lint", "filter", "import", "query", "update", "delete", "codegen"]

    /// `pql [COMMAND] --help` at a given width (ArgumentParser reads `COLUMNS`).
    static func help(_ command: String?, columns: Int) throws -> String {
        var env = DemoCache.environment
        env["COLUMNS"] = String(columns)
        let r = try PQLProcess.run((command.map { [$0] } ?? []) + ["--help"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    /// The example commands of a help text: its indented lines that start with `pql` or `echo`,
    /// with the lines a trailing backslash continues.
    static func examples(_ help: String) -> [String] {
        var out: [String] = []
        var continued = false
        for line in help.split(separator: "\n").map(String.init) {
            let t = String(line.drop { $0 == " " })
            if continued {
                out[out.count - 1] += "\n" + line
            } else if line.hasPrefix("  ") && (t.hasPrefix("pql ") || t == "pql" || t.hasPrefix("echo ")) {
                out.append(t)
            } else {
                continue
            }
            continued = line.hasSuffix("\\")
        }
        return out
    }

    @Test func paragraphsAreNotPreWrapped() throws {
        let wide = try Self.help("query", columns: 2000)
        #expect(wide.contains("or with --count their number, or with --sql the SQL and its bound parameters."), "\(wide)")
        let update = try Self.help("update", columns: 2000)
        #expect(update.contains("computes the value from each record with an expression of the predicate language (price * 1.1, stock - 1, uppercase:(code), 'a string', 42), with"), "\(update)")
        // At 80 columns ArgumentParser wraps the paragraphs, but no example: they fit, continued with backslashes.
        for command in [nil] + Self.commands + ["demo"] {
            let narrow = try Self.help(command, columns: 80)
            #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 80 || $0.hasPrefix("USAGE:") }, "\(narrow)")
            #expect(Self.examples(narrow) == Self.examples(try Self.help(command, columns: 2000)), "\(command ?? "pql"): \(narrow)")
        }
    }

    @Test func everyExampleInTheHelpRuns() throws {
        let bin = PQLProcess.binary.deletingLastPathComponent().path
        var total = 0
        for command in [nil] + Self.commands {
            let examples = Self.examples(try Self.help(command, columns: 2000))
            #expect(!examples.isEmpty, "\(command ?? "pql") has no examples")
            // Each command's examples run in order in a directory of their own (some save a file the next one reads).
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pql-examples-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            // The PostgreSQL examples need a server: PQLPostgresTests runs them (PostgresCommandLine).
            for example in examples where !example.contains("postgres://") {
                var env = ProcessInfo.processInfo.environment.merging(DemoCache.environment) { $1 }
                env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
                let r = try ChildProcess.run("/bin/sh", ["-c", example], environment: env, directory: dir.path)
                let (o, e) = (r.stdout, r.stderr)
                #expect(r.status == 0, "\(example)\n\(r.stderrText)")
                // It says something (an import reports on standard error), unless a redirection saves its answer.
                if !example.contains(" > ") && example != "pql" {
                    #expect(!o.isEmpty || !e.isEmpty, "\(example) printed nothing")
                }
                total += 1
            }
        }
        #expect(total >= 25)
    }

    /// The names `DotCommands.run` dispatches on, read from its source.
    static func dispatchedCommands() throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/pql/REPL/DotCommands.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        let start = try #require(source.range(of: "static func run("))
        let end = try #require(source.range(of: "private static func help(", range: start.upperBound..<source.endIndex))
        let body = source[start.upperBound..<end.lowerBound]
        // The command switch's cases, not those of switches nested in them (.timer's on and off).
        let regex = try NSRegularExpression(pattern: #"^ {8}case ((?:"[a-z]+"(?:, )?)+):"#, options: .anchorsMatchLines)
        let text = String(body)
        var names: [String] = []
        for m in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let labels = String(text[Range(m.range(at: 1), in: text)!])
            names += labels.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"")) }
        }
        return names
    }

    @Test func dotHelpListsEveryCommand() throws {
        let names = try Self.dispatchedCommands()
        #expect(names.count >= 20 && names.contains("distinct") && names.contains("group"), "\(names)")
        let r = try PQLProcess.run([], stdin: Data(".help\n".utf8), environment: DemoCache.environment)
        #expect(r.status == 0, "\(r.stderr)")
        for name in names {
            #expect(r.stdout.contains("." + name + " ") || r.stdout.contains("." + name + ",") || r.stdout.contains("." + name + "\n"),
                    ".\(name) is missing from .help:\n\(r.stdout)")
        }
    }

    /// Words in backticks in the lines of a section of the language reference.
    static func referenceWords(section: String, until end: String, firstColumnOnly: Bool) throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/language-reference.md")
        let doc = try String(contentsOf: file, encoding: .utf8)
        let start = try #require(doc.range(of: section))
        let stop = try #require(doc.range(of: end, range: start.upperBound..<doc.endIndex))
        var words: [String] = []
        for line in doc[start.upperBound..<stop.lowerBound].split(separator: "\n") {
            var text = String(line)
            if firstColumnOnly {
                guard text.hasPrefix("| `") else { continue }
                text = String(text.dropFirst(2).prefix { $0 != "|" })
            }
            let parts = text.components(separatedBy: "`")
            words += stride(from: 1, to: parts.count, by: 2).map { parts[$0] }
        }
        return words
    }

    @Test func helpForAnUnknownCommandIsAnError() throws {
        let r = try PQLProcess.run(["help", "nope"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("no command 'nope'") && r.stderr.contains("pql help language"), "\(r.stderr)")
        let known = try PQLProcess.run(["help", "query"])
        #expect(known.status == 0 && known.stdout.contains("OVERVIEW: Fetch the records"), "\(known.stderr)")
    }

    @Test func helpLanguageCoversTheLanguage() throws {
        let r = try PQLProcess.run(["help", "language"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = r.stdout
        #expect(page.hasPrefix("PQL LANGUAGE"), "\(page)")
        // ArgumentParser's own help goes on working beside it.
        let query = try PQLProcess.run(["help", "query"])
        #expect(query.status == 0 && query.stdout.contains("USAGE: pql query"), "\(query.stdout)")
        var missing: [String] = []
        for f in BuiltinFunction.allCases where !page.contains(f.rawValue) { missing.append(f.rawValue) }
        let reserved = try Self.referenceWords(section: "### 1.3 Reserved words", until: "\n- ", firstColumnOnly: false)
        #expect(reserved.count >= 30, "\(reserved)")
        let operators = try Self.referenceWords(section: "### 3.1 Comparison operators", until: "Options after", firstColumnOnly: true)
        let options = try Self.referenceWords(section: "### 3.4 Option letters", until: "Letters combine", firstColumnOnly: true)
        let collection = try Self.referenceWords(section: "### 4.3 Collection operators", until: "- On nil", firstColumnOnly: true)
        let functions = try Self.referenceWords(section: "### 4.7 Built-in functions", until: "### 4.8", firstColumnOnly: true)
        let forms = try Self.referenceWords(section: "### 4.1 Forms at a glance", until: "### 4.2", firstColumnOnly: true)
        #expect(operators.count >= 10 && options.count == 5 && collection.count >= 8 && functions.count >= 25, "\(operators) \(options) \(collection) \(functions)")
        for word in reserved + operators + collection + forms {
            // Collection operators are listed without their `.k`.
            let w = word.hasSuffix(".k") ? String(word.dropLast(2)) : word
            if !page.contains(w) { missing.append(w) }
        }
        for letter in options where !page.contains("[\(letter)]") { missing.append("[\(letter)]") }
        for f in functions {
            for name in f.split(separator: " ") where !page.contains(name) { missing.append(String(name)) }
        }
        #expect(page.contains("[cd]"))
        for topic in ["SUBQUERY", "%@", "%K", "$", "--var", ".let"] where !page.contains(topic) { missing.append(topic) }
        #expect(missing.isEmpty, "missing from pql help language: \(missing)")
        // The REPL prints the same page.
        let repl = try PQLProcess.run([], stdin: Data(".help language\n".utf8), environment: DemoCache.environment)
        #expect(repl.stdout == page, "\(repl.stdout)")
    }
}

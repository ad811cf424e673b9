import ArgumentParser
import Foundation
import PQL

/// `--arg JSON` and `--var NAME=JSON`, shared by every command that takes a predicate.
struct PredicateValueOptions: ParsableArguments {
    // Values are taken unconditionally (`--arg -5`, `--var 'MIN=-1'`): a JSON value may start
    // with a minus, which the parser would otherwise read as an option.
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A value for the next % specifier, as JSON (numbers, strings, true/false, null, arrays, objects, {\"$date\": \"<ISO-8601>\"}, an object ID {\"$entity\": \"Folder\", \"$key\": 1}).",
        valueName: "json"))
    var arguments: [String] = []

    @Option(name: .customLong("var"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "Bind $NAME to a JSON value; the predicate is printed and run with the value in place.",
        valueName: "name=json"))
    var variables: [String] = []

    /// Parses the predicate with the `--arg` values.
    /// The predicate with the place of each of its nodes, for errors found later (an unknown
    /// key in the store, a failing sub-expression in memory). The parse's warnings (an
    /// argument no specifier takes) go to standard error; they do not stop the command.
    func parse(_ text: String) throws -> (tree: PredicateNode, sourceMap: SourceMap) {
        let values = try argumentValues()
        do {
            let parsed = try PredicateNode.parseWithPositionsAndWarnings(format: text, argumentArray: values)
            for warning in parsed.warnings { Output.error(warning.rendered) }
            return (parsed.tree, parsed.sourceMap)
        } catch {
            throw UserFacingError(text: error.rendered)
        }
    }

    /// The `--arg` values, read from their JSON.
    func argumentValues() throws -> [Any?] {
        var values: [Any?] = []
        for (i, json) in arguments.enumerated() {
            do {
                values.append(try JSONReader.value(from: json))
            } catch {
                if error.isAboutAValue { throw Self.valueError(error, in: json, of: "--arg \(i + 1)") }
                throw ValidationError("--arg \(i + 1) is not valid JSON (\(error)): \(json)")
            }
        }
        return values
    }

    /// The `--var` bindings.
    func bindings() throws -> [String: PredicateValue] {
        var out: [String: PredicateValue] = [:]
        for binding in variables {
            guard let eq = binding.firstIndex(of: "=") else {
                throw ValidationError("--var needs NAME=JSON, as in --var 'MIN=18'; got: \(binding)")
            }
            var name = String(binding[..<eq])
            if name.hasPrefix("$") { name.removeFirst() }
            guard !name.isEmpty else { throw ValidationError("--var needs a name before '=': \(binding)") }
            let json = String(binding[binding.index(after: eq)...])
            do {
                out[name] = try JSONReader.value(from: json)
            } catch {
                if error.isAboutAValue { throw Self.valueError(error, in: json, of: "--var \(name)") }
                throw ValidationError("--var \(name) is not valid JSON (\(error)); strings need quotes, as in --var 'CITY=\"Paris\"'")
            }
        }
        return out
    }

    /// Well-formed JSON with a value PQL cannot take (a `{"$date": …}` that is no date): an
    /// error in an argument, shown as the predicate's errors are, with a caret under the part
    /// at fault. Text that is not JSON stays a usage error.
    static func valueError(_ error: JSONReadError, in json: String, of option: String) -> UserFacingError {
        let message = "\(option): \(error.message)"
        let range = SourceRange(offset: error.offset, length: 1, line: error.line, column: error.column)
        return UserFacingError(text: CaretRenderer.render(message: message, source: json, range: range,
                                                          hint: error.valueHint(otherwise: "write an ISO-8601 date, as in {\"$date\": \"2024-05-01T12:00:00Z\"} or {\"$date\": \"2024-05-01\"}")))
    }

    /// Every `$variable` the predicate reads has a `--var` (checked before any record is read).
    func checkBound(_ tree: PredicateNode, text: String, sourceMap: SourceMap, variables: [String: PredicateValue]) throws {
        do {
            try UnboundVariables.check(tree, text: text, sourceMap: sourceMap, bound: Set(variables.keys)) { name in
                "give it a value with --var \(name)=JSON, as in --var '\(name)=18' or --var '\(name)=\"Paris\"'"
            }
        } catch {
            throw UserFacingError(text: error.rendered)
        }
    }

    func substitute(into node: PredicateNode) throws -> PredicateNode {
        let b = try bindings()
        return b.isEmpty ? node : node.substituting(b)
    }
}

/// `--max-steps` and `--max-regex-steps`: the work one evaluation may do (see
/// `EvaluationLimits`), for every command that evaluates a predicate.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-steps"), help: ArgumentHelp(
        "Stop an evaluation after this many steps (0: no limit). In a store, SQLite's instructions count.",
        valueName: "n"))
    var maxSteps: Int = EvaluationLimits.interactive.maxSteps!

    @Option(name: .customLong("max-regex-steps"), help: ArgumentHelp(
        "Stop when the MATCHES of an evaluation have backtracked this many PCRE2 steps in all (0: no limit).",
        valueName: "n"))
    var maxRegexSteps: Int = EvaluationLimits.interactive.maxRegexSteps!

    func validate() throws {
        if maxSteps < 0 || maxRegexSteps < 0 { throw ValidationError("--max-steps and --max-regex-steps must be 0 (no limit) or more") }
    }

    var limits: EvaluationLimits {
        EvaluationLimits(maxSteps: maxSteps == 0 ? nil : maxSteps, maxRegexSteps: maxRegexSteps == 0 ? nil : maxRegexSteps)
    }
}

/// The predicate argument, or standard input for `-`.
enum PredicateSource {
    static func read(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        // One trailing newline is the shell's, not the predicate's. The text is made from the
        // bytes read, without an intermediate copy (a predicate may be 16 MiB).
        var end = data.endIndex
        if end > data.startIndex, data[end - 1] == 0x0A {
            end -= 1
            if end > data.startIndex, data[end - 1] == 0x0D { end -= 1 }
        }
        let bytes = data[data.startIndex..<end]
        guard let text = String(validating: bytes, as: UTF8.self) else {
            do { _ = try PredicateNode(utf8: bytes) } catch { throw UserFacingError(text: error.rendered) }
            throw UserFacingError(text: "error: standard input is not valid UTF-8")
        }
        return text
    }
}

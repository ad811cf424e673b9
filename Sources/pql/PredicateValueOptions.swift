import ArgumentParser
import Foundation
import PQL

/// `--arg JSON` and `--var NAME=JSON`, shared by every command that takes a predicate.
struct PredicateValueOptions: ParsableArguments {
    // Values are taken unconditionally (`--arg -5`, `--var 'MIN=-1'`): a JSON value may start
    // with a minus, which the parser would otherwise read as an option.
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "A value for the next % specifier, as JSON (numbers, strings, true/false, null, arrays, objects, {\"$date\": \"<ISO-8601>\"}).",
        valueName: "json"))
    var arguments: [String] = []

    @Option(name: .customLong("var"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "Bind $NAME to a JSON value; the predicate is printed and run with the value in place.",
        valueName: "name=json"))
    var variables: [String] = []

    /// Parses the predicate with the `--arg` values.
    func parse(_ text: String) throws -> PredicateNode {
        var values: [Any?] = []
        for (i, json) in arguments.enumerated() {
            do {
                values.append(try JSONReader.value(from: json))
            } catch {
                throw ValidationError("--arg \(i + 1) is not valid JSON (\(error)): \(json)")
            }
        }
        do {
            return try PredicateNode(format: text, argumentArray: values)
        } catch {
            throw UserFacingError(text: error.rendered)
        }
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
            do {
                out[name] = try JSONReader.value(from: String(binding[binding.index(after: eq)...]))
            } catch {
                throw ValidationError("--var \(name) is not valid JSON (\(error)); strings need quotes, as in --var 'CITY=\"Paris\"'")
            }
        }
        return out
    }

    func substitute(into node: PredicateNode) throws -> PredicateNode {
        let b = try bindings()
        return b.isEmpty ? node : node.substituting(b)
    }
}

/// The predicate argument, or standard input for `-`.
enum PredicateSource {
    static func read(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        var bytes = [UInt8](data)
        // One trailing newline is the shell's, not the predicate's.
        if bytes.last == 0x0A { bytes.removeLast(); if bytes.last == 0x0D { bytes.removeLast() } }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            do { _ = try PredicateNode(utf8: bytes) } catch { throw UserFacingError(text: error.rendered) }
            throw UserFacingError(text: "error: standard input is not valid UTF-8")
        }
        return text
    }
}

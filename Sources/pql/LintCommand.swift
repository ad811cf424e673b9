import ArgumentParser
import Foundation
import PQL

/// `pql lint`: what in a predicate is legal but probably not meant (``PredicateLinter``).
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a predicate for likely mistakes: exit 1 when there are findings, 0 when there are none.",
        discussion: """
        Parses the predicate with its --arg values and prints each finding with a caret under the text at fault and a hint: a quoted '%@' when arguments are given, more arguments than specifiers (fewer is an error, reported too), a constant compared with a constant (keys passed with %@ instead of %K, a key name in quotes), a comparison that can never be true ('5' == 5, x < nil, BETWEEN {9, 1}, IN {}), [c] or [d] on a number, a LIKE pattern written without * or ?, and parts that are always true or false (TRUEPREDICATE inside AND, 1 == 1). Findings go to standard output; nothing is printed when there are none.

        For example, pql lint --arg '"x"' "id == '%@'" exits 1 and says that the quoted %@ is text and its argument is never used. pql format prints the same warnings on standard error and still prints the predicate.

        Examples:
          pql lint --arg '"x"' 'id == %@' && echo 'no findings'
          pql lint --arg '"name"' --arg '"a*"' '%K LIKE[c] %@' && echo 'no findings'
          echo "age between {18, 65}" | pql lint - && echo 'no findings'
        """
    )

    @OptionGroup var values: PredicateValueOptions

    @Argument(help: ArgumentHelp("The predicate format string, or - to read it from standard input.", valueName: "predicate"))
    var predicate: String

    /// `--var` comes with the shared option group, but a finding is about the text as
    /// written: `$variables` are linted as variables, so a value given for one is refused
    /// rather than ignored.
    func validate() throws {
        guard values.variables.isEmpty else {
            throw ValidationError("pql lint takes --arg values only: it checks $variables as they are written, so --var has no effect here")
        }
    }

    func run() throws {
        let text = try PredicateSource.read(predicate)
        let findings = PredicateLinter.lint(format: text, argumentArray: try values.argumentValues())
        guard !findings.isEmpty else { return }
        Output.write(findings.map(\.rendered).joined(separator: "\n\n") + "\n")
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        var summary: [String] = []
        if errors > 0 { summary.append("\(errors) error\(errors == 1 ? "" : "s")") }
        if warnings > 0 { summary.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        // Exit status 1, with the count on standard error.
        throw UserFacingError(text: "pql lint: " + summary.joined(separator: ", "))
    }
}

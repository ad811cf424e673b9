import ArgumentParser
import Foundation
import PQL

/// `pql format`: the canonical form of a predicate.
struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Print a predicate in canonical form (Apple's predicateFormat).",
        discussion: """
        Reads the predicate (or standard input, with -) and prints it as Apple's predicateFormat would, with %@ and %K arguments and $variables put in place. `pql help language` summarises the language. What `pql lint` would find (an argument no specifier takes, a quoted '%@', a LIKE without a wildcard…) is printed as warnings on standard error; the predicate is printed all the same, exit 0.

        Examples:
          pql format "name like[cd] 'a*' && age => 18"
          pql format --arg '"firstName"' --arg '"Adam"' '%K LIKE %@'
          pql format --var 'MIN=18' 'age > $MIN'
          echo "age between {1,5}" | pql format -
        """
    )

    @OptionGroup var values: PredicateValueOptions

    @Argument(help: ArgumentHelp("The predicate format string, or - to read it from standard input.", valueName: "predicate"))
    var predicate: String

    func run() throws {
        let text = try PredicateSource.read(predicate)
        let (tree, map) = try values.parse(text)
        // What pql lint would say goes to standard error; the predicate is printed all the same.
        for finding in PredicateLinter.treeFindings(tree, sourceMap: map) { Output.error(finding.rendered) }
        let node = try values.substitute(into: tree)
        Output.line(node.description)
    }
}

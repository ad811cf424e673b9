import ArgumentParser
import Foundation
import PQL

/// `pql format`: the canonical form of a predicate.
struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Print a predicate in canonical form (Apple's predicateFormat).",
        discussion: """
        Reads the predicate (or standard input, with -) and prints it as Apple's predicateFormat would, with %@ and %K arguments and $variables put in place. `pql help language` summarises the language.

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
        var node = try values.parse(text).tree
        node = try values.substitute(into: node)
        Output.line(node.description)
    }
}

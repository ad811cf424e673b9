import ArgumentParser

/// `pql`: NSPredicate format strings on the command line.
struct PQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pql",
        abstract: "Apple's NSPredicate language, everywhere: parse, print and run predicates.",
        discussion: """
        Exit status: 0 on success, 1 for an error in a predicate, an argument value or the data, 2 for a usage error.

        Wherever a command takes an SQLite store, a PostgreSQL URL works too: postgres://user:password@host:port/database (or postgresql://), and `pql demo URL` loads the demo into one.

        `pql help language` prints a summary of the predicate language (operators, options, functions, SUBQUERY, arguments and variables); `pql help COMMAND` the use of a command.

        Examples:
          pql query :demo: --entity Airline --where "name BEGINSWITH 'United'"
          pql format "name like[cd] 'a*' && age => 18"
          pql lint --arg '"Adam"' 'firstName == %@' && echo 'no findings'
          pql query postgres://me@localhost/flights --entity Flight --count \\
            --where "dest == 'HNL'"
          pql help language
        """,
        version: "pql \(PQLVersion.number)",
        subcommands: [ReplCommand.self, FormatCommand.self, LintCommand.self, FilterCommand.self, ImportCommand.self, QueryCommand.self,
                      UpdateCommand.self, DeleteCommand.self, DemoCommand.self, CodegenCommand.self],
        defaultSubcommand: ReplCommand.self
    )
}

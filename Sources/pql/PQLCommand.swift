import ArgumentParser

/// `pql`: NSPredicate format strings on the command line.
struct PQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pql",
        abstract: "Apple's NSPredicate language, everywhere: parse, print and run predicates.",
        discussion: """
        Exit status: 0 on success, 1 for an error in a predicate, an argument value or the data,
        2 for a usage error.
        """,
        version: "pql \(PQLVersion.number)",
        subcommands: [ReplCommand.self, FormatCommand.self, FilterCommand.self, ImportCommand.self, QueryCommand.self,
                      UpdateCommand.self, DeleteCommand.self],
        defaultSubcommand: ReplCommand.self
    )
}

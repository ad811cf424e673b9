import ArgumentParser
import PQL
import PQLStore

/// `--where` with its `%@` arguments and `$variables`: how `pql query`, `pql update` and
/// `pql delete` select the records of their entity.
struct RecordSelection: ParsableArguments {
    /// Taken unconditionally, so a predicate may start with a minus (`--where '-1 < x'`).
    @Option(name: .customLong("where"), parsing: .unconditional, help: ArgumentHelp("The predicate (default: every record); - reads it from standard input.", valueName: "predicate"))
    var predicate: String = "TRUEPREDICATE"

    @OptionGroup var values: PredicateValueOptions

    @OptionGroup var limitOptions: LimitOptions

    /// The fetch request for `entity`. Keeps the predicate's text so that errors the store
    /// finds (an unknown key path) are shown with a caret under it.
    func query(_ entity: String) throws -> EntityQuery {
        let text = try PredicateSource.read(predicate)
        let (tree, map) = try values.parse(text)
        let variables = try values.bindings()
        try values.checkBound(tree, text: text, sourceMap: map, variables: variables)
        var query = EntityQuery(entity, predicate: tree, variables: variables,
                                limits: limitOptions.limits)
        query.predicateText = text
        query.sourceMap = map
        return query
    }
}

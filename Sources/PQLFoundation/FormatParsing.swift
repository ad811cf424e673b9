#if !canImport(Darwin)
import PQL

/// Parsing with NSPredicate's tolerance of surplus arguments.
///
/// Apple ignores arguments beyond the format's specifiers; PQL reports them
/// (`.surplusArgument`). Ported code that passes one too many must still run, so the arguments
/// are cut to the number the format uses. (When PQL's own parser gains a lenient mode, this
/// becomes one call to it.)
enum FormatParsing {
    static func predicate(_ format: String, _ arguments: [Any?]) throws(PredicateFormatError) -> PredicateNode {
        try tolerant(arguments) { args throws(PredicateFormatError) in try PredicateNode(format: format, argumentArray: args) }
    }

    static func expression(_ format: String, _ arguments: [Any?]) throws(PredicateFormatError) -> ExpressionNode {
        try tolerant(arguments) { args throws(PredicateFormatError) in try ExpressionNode(format: format, argumentArray: args) }
    }

    /// Parses with all the arguments; on a surplus, searches for the count the format uses:
    /// too many reports `.surplusArgument`, too few `.missingArgument`. A binary search, so a
    /// call with thousands of surplus arguments parses a dozen times, not thousands.
    private static func tolerant<T>(_ arguments: [Any?],
                                    _ parse: ([Any?]) throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        let surplus: PredicateFormatError
        do throws(PredicateFormatError) {
            return try parse(arguments)
        } catch where error.kind == .surplusArgument {
            surplus = error
        }
        var low = 0, high = arguments.count - 1
        while low <= high {
            let count = (low + high) / 2
            do throws(PredicateFormatError) {
                return try parse(Array(arguments.prefix(count)))
            } catch where error.kind == .surplusArgument {
                high = count - 1
            } catch where error.kind == .missingArgument {
                low = count + 1
            }
        }
        // Unreachable for a parser whose counts are consistent; the original error is the truth.
        throw surplus
    }
}
#endif

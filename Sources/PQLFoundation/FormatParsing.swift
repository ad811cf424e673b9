#if !canImport(Darwin)
import PQL

/// Parsing with NSPredicate's tolerance of surplus arguments: PQL's parser accepts them and
/// reports each as a warning (``PredicateNode/parseWithWarnings(format:argumentArray:)``),
/// which ported code has no place to read, as Apple's has none, so they are dropped here.
enum FormatParsing {
    static func predicate(_ format: String, _ arguments: [Any?]) throws(PredicateFormatError) -> PredicateNode {
        try PredicateNode.parseWithWarnings(format: format, argumentArray: arguments).tree
    }

    static func expression(_ format: String, _ arguments: [Any?]) throws(PredicateFormatError) -> ExpressionNode {
        try ExpressionNode.parseWithWarnings(format: format, argumentArray: arguments).tree
    }
}
#endif

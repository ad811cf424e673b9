#if !canImport(Darwin)
import Foundation
import PQL

/// What `NSPredicate(format:)` and `NSExpression(format:)` do with a format string that does not
/// parse. Apple raises `NSInvalidArgumentException`, which Swift cannot catch: the program
/// ends. PQL must not end a program over its input, and these initializers cannot throw, so the
/// mistake is reported on standard error (message, text, caret, hint) and the result is inert:
/// a predicate that matches nothing, an expression whose value is nil. The throwing
/// `init(validatingFormat:)` forms are the ones to use for text the program does not control.
enum MalformedFormat {
    /// Writes the error, naming the initializer and what it returned instead.
    static func report(_ error: PredicateFormatError, in initializer: String, result: String) {
        let text = "warning: \(initializer): \(error.rendered)\n"
            + "  = note: \(result); use \(initializer.replacingOccurrences(of: "format:", with: "validatingFormat:")), which throws, to handle it\n"
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The evaluation error `evaluateOrThrow(with:)` throws for a predicate whose format did
    /// not parse.
    static func evaluationError(_ error: PredicateFormatError) -> PredicateEvaluationError {
        PredicateEvaluationError(kind: .unsupported, message: "the predicate's format string did not parse: \(error.message)",
                                 hint: error.hint ?? "create it with NSPredicate(validatingFormat:), which throws the parse error")
    }
}
#endif

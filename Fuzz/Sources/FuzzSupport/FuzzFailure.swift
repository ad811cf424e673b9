import PQL

/// A broken invariant found by a fuzz target. Aborting (rather than throwing) is how a target
/// tells libFuzzer that this input is a finding: libFuzzer saves it as `crash-…`.
public func fuzzFailure(_ what: String, input: String) -> Never {
    let shown = input.count > 2_000 ? String(input.prefix(2_000)) + "…" : input
    fatalError("\(what)\n  input: \(shown.debugDescription)")
}

/// The printed form of a parsed predicate must parse again and print the same (decision D9).
public func checkRoundTrip(_ tree: PredicateNode, input: String) {
    let printed = tree.description
    let again: PredicateNode
    do {
        again = try PredicateNode(format: printed)
    } catch {
        fuzzFailure("the printed form does not parse: \(error)\n  printed: \(printed.debugDescription)", input: input)
    }
    let reprinted = again.description
    if reprinted != printed {
        fuzzFailure("printing is not stable:\n  printed:   \(printed.debugDescription)\n  reprinted: \(reprinted.debugDescription)",
                    input: input)
    }
}

/// The resource oracle's limits: every input of up to 4 KB must parse, print and evaluate on
/// the fuzz document within 1 s and 64 MB (`scripts/fuzz` runs libFuzzer with `-timeout=1`,
/// `-malloc_limit_mb=64` and an RSS limit). Parsing and printing are linear; evaluation is
/// bounded by these limits, about a tenth of a second each under the address sanitizer.
public let fuzzLimits = EvaluationLimits(maxSteps: 200_000, maxRegexSteps: 5_000_000)

/// Fuzz input as format-string text. Invalid UTF-8 is exercised by the parser target through
/// ``PredicateNode/init(utf8:argumentArray:)``; the other targets repair it so that every input
/// reaches evaluation or compilation.
public func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// Whether two runs of a predicate may disagree by design: `random()` and `randomn:` draw new
/// numbers on every call, so their results are not compared.
public func isNondeterministic(_ tree: PredicateNode) -> Bool {
    tree.description.contains("random")
}

import FuzzSupport
import PQL

/// The fixed document every input is evaluated on: strings that need folding (composed and
/// decomposed é, ß, İ, Kelvin sign, fullwidth, emoji, NUL), numbers at the edges, NULLs,
/// missing keys, dates, nested objects and arrays, empty collections.
let document: [PredicateValue] = {
    let text = #"""
    [
      {"name": "José", "age": 40, "score": 55.5, "city": "Paris", "tags": ["vip", "new"], "born": {"$date": "1984-03-01T10:00:00Z"},
       "employer": {"name": "Acme", "size": 10, "staff": [{"name": "A", "pay": 100}, {"name": "B", "pay": null}]}},
      {"name": "ángel", "age": 17, "score": -0.0, "city": "Lima", "tags": [], "employer": null},
      {"name": "Zoë e\u0301 Straße İı \u212A", "age": null, "score": 1e308, "tags": ["a", 1, null, [2, 3], {"k": "v"}]},
      {"name": "\u0000nul%_*?\\", "age": 9223372036854775807, "score": -1e-300, "flags": [true, false], "city": ""},
      {"name": "Ａｎｎａ 🎉 ǆ ς", "age": -9223372036854775808, "score": 3, "matrix": [[1, 2], [3, 4]], "nested": {"a": {"b": {"c": [1]}}}},
      {},
      {"name": 42, "age": "40", "score": "x", "tags": "vip", "employer": [1, 2]}
    ]
    """#
    do {
        return try JSONDocument(bytes: Array(text.utf8)).values
    } catch {
        fatalError("the fuzz document is invalid JSON: \(error)")
    }
}()

let variables: [String: PredicateValue] = [
    "x": .int(1), "s": .string("Paris"), "list": .array([.int(1), .string("a"), .null]), "nothing": .null,
]

/// Evaluate fuzz target: the input is a predicate format string; every tree the parser accepts
/// is evaluated on each element of a fixed JSON document, one by one and through the array filter. Each
/// step either succeeds or throws a typed error: never a crash, a hang or a leak, and within
/// the resource oracle's time and memory (``fuzzLimits``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvaluate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    guard let tree = try? PredicateNode(format: text) else { return 0 }
    guard let compiled = try? tree.compiled(for: PredicateValue.self) else { return 0 }
    var matches = 0
    for value in document {
        do {
            if try compiled.evaluate(value, variables: variables, limits: fuzzLimits) { matches += 1 }
        } catch {
            if error.message.isEmpty { fuzzFailure("an evaluation error without a message", input: text) }
        }
    }
    // The same rows through the array filter, which takes its own fast paths.
    if !isNondeterministic(tree), let filtered = try? document.filter(compiled, variables: variables, limits: fuzzLimits),
       filtered.count != matches {
        fuzzFailure("filter kept \(filtered.count) elements, evaluate accepted \(matches)", input: text)
    }
    return 0
}

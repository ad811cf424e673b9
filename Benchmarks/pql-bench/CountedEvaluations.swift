import BenchmarkPeople
import Foundation
import PQL

/// `pql-bench count-eval N`: the process `eval --instructions` runs under callgrind. It runs
/// P1–P8 once per method on N people, each run inside ``countedEvaluation(_:)`` (one call,
/// hence one callgrind dump, per run), and prints one JSON line per run, in call order.
enum CountedEvaluations {
    /// The counted function's symbol, named so that callgrind's `--toggle-collect` finds it.
    static let functionName = "pql_bench_counted_evaluation"

    /// The methods counted, as `eval --methods` names them. `#Predicate` is left out: it is
    /// 8–40x slower than the others, which would make the run take most of an hour.
    static let methods = ["pql", "closure", "pqldict", "dict"]

    static func main(_ arguments: [String]) -> Int32 {
        guard let n = arguments.first.flatMap(Int.init), n > 0 else {
            log("usage: pql-bench count-eval N   (what `eval --instructions` runs under callgrind)")
            return 2
        }
        let people = generatePeople(n)
        let dicts = people.map(toDict)
        for spec in EvalBenchmark.specs {
            let (typed, forDicts) = spec.compiled()
            for method in methods {
                let body: () -> Int
                switch method {
                case "pql": body = { pqlFilter(typed, people) }
                case "closure": body = { closureFilter(spec.id, people) }
                case "pqldict": body = { pqlFilter(forDicts, dicts) }
                default: body = { dictFilter(spec.id, dicts) }
                }
                let matches = countedEvaluation(body)
                print(#"{"p": \#(spec.id), "method": "\#(method)", "n": \#(n), "matches": \#(matches)}"#)
            }
        }
        return 0
    }
}

/// One counted run: the only code callgrind counts in `count-eval`.
@_silgen_name("pql_bench_counted_evaluation") @inline(never)
func countedEvaluation(_ body: () -> Int) -> Int { body() }

/// `pql-bench eval --instructions`: instructions per element of each P and method, counted by
/// callgrind (which a loaded machine does not disturb), and the ratios the timed table gives.
struct EvalInstructions {
    var count: Int
    var callgrind: Callgrind

    func run() throws -> String {
        log("eval --instructions: running count-eval \(count) under callgrind (a few minutes)…")
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let run = try callgrind.run(me, ["count-eval", String(count)], countingInside: CountedEvaluations.functionName)
        var perElement: [Int: [String: Double]] = [:]
        var matches: [Int: [String: Int]] = [:]
        var dumps = run.instructionsPerCall[...]
        for line in run.output.split(separator: UInt8(ascii: "\n")) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let p = o["p"] as? Int, let method = o["method"] as? String, let m = o["matches"] as? Int,
                  let instructions = dumps.popFirst() else {
                throw Callgrind.Failure(description: "unexpected count-eval output, or fewer dumps than runs: \(String(decoding: line, as: UTF8.self))")
            }
            perElement[p, default: [:]][method] = Double(instructions) / Double(count)
            matches[p, default: [:]][method] = m
        }
        guard dumps.isEmpty, perElement.count == EvalBenchmark.specs.count else {
            throw Callgrind.Failure(description: "callgrind dumped \(run.instructionsPerCall.count) profiles for \(perElement.count) predicates")
        }
        var out = ["## PQL evaluation, instructions per element (callgrind)", "",
                   "- N = \(EvalBenchmark.thousands(count)) people as in Benchmarks/README.md; each cell: the instructions of one `filter(…).count` divided by N (result array included)",
                   "- counted inside one function per run (`--toggle-collect=\(CountedEvaluations.functionName)`): generation, compiling and printing are not counted",
                   "",
                   "| P | format string | PQL typed | closure | PQL / closure | PQL dict | dict closure | PQL dict / dict closure |",
                   "|---|---|---:|---:|---:|---:|---:|---:|"]
        var typed: [Double] = [], dict: [Double] = []
        var disagreements: [String] = []
        for spec in EvalBenchmark.specs {
            let c = perElement[spec.id]!, m = matches[spec.id]!
            if Set(m.values).count != 1 { disagreements.append("P\(spec.id): \(m)") }
            let t = c["pql"]! / c["closure"]!, d = c["pqldict"]! / c["dict"]!
            typed.append(t)
            dict.append(d)
            out.append("| P\(spec.id) | \(Report.code(spec.format)) | \(Int(c["pql"]!.rounded())) | \(Int(c["closure"]!.rounded())) | "
                       + "\(EvalBenchmark.ratio(t)) | \(Int(c["pqldict"]!.rounded())) | \(Int(c["dict"]!.rounded())) | \(EvalBenchmark.ratio(d)) |")
        }
        out.append("")
        out.append("PQL typed / closure: median \(EvalBenchmark.ratio(Statistics.median(typed))), max \(EvalBenchmark.ratio(typed.max()!)); "
                   + "PQL dict / dict closure: median \(EvalBenchmark.ratio(Statistics.median(dict))), max \(EvalBenchmark.ratio(dict.max()!))")
        out.append("Match counts: " + (disagreements.isEmpty ? "all methods agree on every predicate" : "**DISAGREE**: " + disagreements.joined(separator: "; ")))
        return out.joined(separator: "\n")
    }
}

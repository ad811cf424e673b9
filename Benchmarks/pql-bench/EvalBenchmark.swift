import Foundation
import BenchmarkPeople
import PQL

/// `pql-bench eval`: P1–P8 of the anchors (Benchmarks/README.md) on the anchors' generated people, PQL
/// beside the hand-written closure and #Predicate (typed structs) and beside the dictionary
/// closure (`[String: Any]`), all in one run. Every cell is `filter(…).count`, so it includes
/// building the result array, as in the anchors.
struct EvalBenchmark {
    var count = 1_000_000
    var runs = 5
    /// For profiling: only these predicates (P numbers) and methods; nil means all.
    var only: Set<Int>? = nil
    var methods: Set<String>? = nil
    /// `--instructions`: count instructions under callgrind instead of timing.
    var instructions = false
    var valgrind: String? = nil

    static let usage = """
        usage: pql-bench eval [--n N] [--runs R]
               pql-bench eval --instructions [--n N] [--valgrind PATH]

          eval         ns per element of P1–P8 (Benchmarks/README.md) over N generated people:
                       PQL on typed structs and on [String: Any] dictionaries, beside the
                       hand-written closure, #Predicate and the dictionary closure
          --n N        people (default 1000000)
          --runs R     timed runs per cell after 1 warm-up; the median counts (default 5)
          --instructions
                       instructions per element instead of time, counted by valgrind's
                       callgrind (load does not change them): PQL typed, closure, PQL dict and
                       dict closure (not #Predicate); N defaults to 100000 here
          --valgrind PATH
                       valgrind to use (default: valgrind on the PATH)
          --only 1,3   (profiling) only these predicates; the summary is then partial
          --methods pql,dict
                       (profiling) only these of pql, closure, predicate, pqldict, dict
        """

    /// One benchmark predicate: its format string and the anchors' number.
    struct Spec {
        var id: Int
        var format: String

        /// The predicate compiled for the typed people and for their dictionaries.
        func compiled() -> (typed: CompiledPredicate<Person>, dicts: CompiledPredicate<[String: Any]>) {
            do {
                let node = try PredicateNode(format: format)
                return (try node.compiled(for: Person.self), try node.compiled(for: [String: Any].self))
            } catch {
                fail("P\(id) `\(format)`: \(error)")
            }
        }
    }

    /// The anchors' format strings, verbatim.
    static let specs: [Spec] = [
        Spec(id: 1, format: "age > 30"),
        Spec(id: 2, format: "age BETWEEN {18, 65} AND score >= 50.0"),
        Spec(id: 3, format: "name == \"José\""),
        Spec(id: 4, format: "name BEGINSWITH[c] \"a\""),
        Spec(id: 5, format: "city IN {\"Paris\", \"Berlin\", \"Tokyo\", \"Lima\"}"),
        Spec(id: 6, format: "name CONTAINS[cd] \"ang\""),
        Spec(id: 7, format: "ANY tags == \"vip\""),
        Spec(id: 8, format: "(age < 20 OR age > 60) AND NOT (city == \"Paris\") AND email != nil"),
    ]

    /// Nanoseconds of each timed run, and the match count every run returned.
    struct Sample {
        var runsNs: [Double]
        var matches: Int
        var median: Double { Statistics.median(runsNs) }
    }

    struct Row {
        var spec: Spec
        var pql: Sample
        var pqlDict: Sample
        var closure: Sample
        /// nil for P6, which #Predicate cannot express on Linux.
        var predicate: Sample?
        var dict: Sample
    }

    static func parse(_ arguments: [String]) -> EvalBenchmark {
        var b = EvalBenchmark()
        var rest = arguments[...]
        func count(_ flag: String) -> Int {
            guard let v = rest.popFirst(), let n = Int(v), n > 0 else { fail("\(flag) needs a positive integer") }
            return n
        }
        while let arg = rest.popFirst() {
            switch arg {
            case "--n", "-n": b.count = count(arg)
            case "--runs": b.runs = count(arg)
            case "--only":
                guard let v = rest.popFirst() else { fail("--only needs a list such as 1,3") }
                b.only = Set(v.split(separator: ",").compactMap { Int($0.trimmingPrefix("P")) })
            case "--methods":
                guard let v = rest.popFirst() else { fail("--methods needs a list such as pql,pqldict") }
                b.methods = Set(v.split(separator: ",").map(String.init))
            case "--instructions": b.instructions = true
            case "--valgrind":
                guard let v = rest.popFirst() else { fail("--valgrind needs a path") }
                b.valgrind = v
            case "-h", "--help", "help": print(usage); exit(0)
            default: fail("unknown argument '\(arg)'\n\(usage)")
            }
        }
        if b.instructions && !arguments.contains("--n") && !arguments.contains("-n") { b.count = 100_000 }
        return b
    }

    /// The five ways each predicate is run; the raw values are the `--methods` names.
    enum Method: String {
        case pql, closure, predicate, pqldict, dict

        var label: String {
            switch self {
            case .pql: "PQL typed"
            case .closure: "closure"
            case .predicate: "#Predicate"
            case .pqldict: "PQL dict"
            case .dict: "dict closure"
            }
        }
    }

    /// 1 warm-up, then `runs` timed runs; every run must return the same count.
    func measure(_ p: String, _ method: Method, _ body: () throws -> Int) rethrows -> Sample {
        if let methods, !methods.contains(method.rawValue) { return Sample(runsNs: [0], matches: -1) }
        log("eval: \(p) \(method.label)")
        let label = "\(p) \(method.label)"
        let expected = try body()
        var ns: [Double] = []
        for _ in 0..<runs {
            var got = 0
            ns.append(try Timing.nanoseconds { got = try body() })
            if got != expected { fail("\(label): unstable result \(got) vs \(expected)") }
        }
        return Sample(runsNs: ns, matches: expected)
    }

    func run() -> String {
        if instructions {
            do {
                return try EvalInstructions(count: count, callgrind: Callgrind.locate(valgrind)).run()
            } catch {
                fail("\(error)")
            }
        }
        log("eval: generating \(count) people…")
        var people: [Person] = []
        let generating = Timing.nanoseconds { people = generatePeople(count) }
        log(String(format: "eval: generated in %.2f s", generating / 1e9))
        var dicts: [[String: Any]] = []
        if methods.map({ $0.contains("dict") || $0.contains("pqldict") }) ?? true {
            let converting = Timing.nanoseconds { dicts = people.map(toDict) }
            log(String(format: "eval: converted to [String: Any] in %.2f s", converting / 1e9))
        }

        let predicates = makePredicates()
        var rows: [Row] = []
        for spec in Self.specs where only?.contains(spec.id) ?? true {
            let (typed, forDicts) = spec.compiled()
            let p = "P\(spec.id)"
            let pql = measure(p, .pql) { pqlFilter(typed, people) }
            let closure = measure(p, .closure) { closureFilter(spec.id, people) }
            var predicate: Sample? = nil
            if let pred = predicates[spec.id] {
                do {
                    predicate = try measure(p, .predicate) { try predicateFilter(pred, people) }
                } catch {
                    fail("\(p) #Predicate: \(error)")
                }
            }
            let pqlDict = measure(p, .pqldict) { pqlFilter(forDicts, dicts) }
            let dict = measure(p, .dict) { dictFilter(spec.id, dicts) }
            rows.append(Row(spec: spec, pql: pql, pqlDict: pqlDict, closure: closure, predicate: predicate, dict: dict))
        }
        return report(rows, n: people.count)
    }

    func report(_ rows: [Row], n: Int) -> String {
        let perElement = { (s: Sample) in s.median / Double(n) }
        var out: [String] = []
        out.append("## PQL evaluation benchmark")
        out.append("")
        out.append("- N = \(Self.thousands(n)) people generated as in Benchmarks/README.md (SplitMix64 seed 0x5EED1234ABCD0001)")
        out.append("- each cell: `filter(…).count` in ns per element (result array included), median of \(runs) runs after 1 warm-up")
        out.append("- PQL typed: `people.filter(compiled)` with `Person: PredicateReadable`; PQL dict: `dicts.filter(compiled)` on `[String: Any]`")
        out.append("- closure, #Predicate and dict closure: the anchors' bodies (#Predicate P4 is `$0.name.localizedLowercase.starts(with: \"a\")`; P6 is not expressible)")
        out.append("")
        out.append("| P | format string | matches | PQL typed | closure | #Predicate | PQL dict | dict closure | PQL / closure | #Predicate / PQL | PQL dict / dict closure |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        var typedRatios: [Double] = [], predicateRatios: [Double] = [], dictRatios: [Double] = []
        var mismatches: [String] = []
        for r in rows {
            let m = r.closure.matches
            let p = "P\(r.spec.id)"
            if r.pql.matches != m { mismatches.append("\(p): PQL typed \(r.pql.matches) ≠ closure \(m)") }
            if r.pqlDict.matches != m { mismatches.append("\(p): PQL dict \(r.pqlDict.matches) ≠ closure \(m)") }
            if r.dict.matches != m { mismatches.append("\(p): dict closure \(r.dict.matches) ≠ closure \(m)") }
            var predicateNote = ""
            if let s = r.predicate, s.matches != m {
                // P4's #Predicate body differs from the closure's (Benchmarks/README.md, P4).
                if r.spec.id == 4 { predicateNote = " (\(Self.thousands(s.matches)) matches)" } else {
                    mismatches.append("\(p): #Predicate \(s.matches) ≠ closure \(m)")
                }
            }
            let pql = perElement(r.pql), closure = perElement(r.closure), pqlDict = perElement(r.pqlDict), dict = perElement(r.dict)
            let predicate = r.predicate.map(perElement)
            typedRatios.append(pql / closure)
            dictRatios.append(pqlDict / dict)
            if let predicate { predicateRatios.append(predicate / pql) }
            let footnote = r.spec.id == 4 ? " ¹" : ""
            out.append("| \(p) | \(Report.code(r.spec.format)) | \(Self.thousands(m)) | \(Self.ns(pql)) | \(Self.ns(closure)) | "
                + (predicate.map { Self.ns($0) + footnote + predicateNote } ?? "skipped ²") + " | \(Self.ns(pqlDict)) | \(Self.ns(dict)) | "
                + Self.ratio(pql / closure) + " | " + (predicate.map { Self.ratio($0 / pql) } ?? "n/a") + " | " + Self.ratio(pqlDict / dict) + " |")
        }
        out.append("")
        out.append("¹ #Predicate P4 is `$0.name.localizedLowercase.starts(with: \"a\")`: the macro rejects the closure's `range(of:options:)`.")
        out.append("² #Predicate cannot express `[cd]` on Linux (Benchmarks/README.md, P6); PQL's P6 count is checked against the closure's Foundation search.")
        out.append("")
        if predicateRatios.isEmpty { predicateRatios = [.nan] }
        out.append(String(format: "PQL typed / closure: median %@ over P1–P8 (min %@, max %@); target every P ≤ 1.5x: %@",
                          Self.ratio(Statistics.median(typedRatios)), Self.ratio(typedRatios.min()!), Self.ratio(typedRatios.max()!),
                          typedRatios.max()! <= 1.5 ? "met" : "MISSED"))
        out.append(String(format: "#Predicate / PQL typed: min %@ over the %d predicates it expresses (median %@); target ≥ 5x each: %@",
                          Self.ratio(predicateRatios.min()!), predicateRatios.count, Self.ratio(Statistics.median(predicateRatios)),
                          predicateRatios.min()! >= 5 ? "met" : "MISSED"))
        out.append(String(format: "PQL dict / dict closure: median %@ over P1–P8 (min %@, max %@); target median ≤ 1.15x: %@",
                          Self.ratio(Statistics.median(dictRatios)), Self.ratio(dictRatios.min()!), Self.ratio(dictRatios.max()!),
                          Statistics.median(dictRatios) <= 1.15 ? "met" : "MISSED"))
        let p6 = rows.first { $0.spec.id == 6 }
        out.append("P6 `[cd]`: " + (p6.map { r in
            r.pql.matches == r.closure.matches && r.pqlDict.matches == r.closure.matches
                ? "PQL typed and dict both find \(Self.thousands(r.pql.matches)), as the closure's range(of:options: [.caseInsensitive, .diacriticInsensitive])"
                : "**WRONG**: PQL typed \(r.pql.matches), PQL dict \(r.pqlDict.matches), closure \(r.closure.matches)"
        } ?? "not run"))
        out.append("Match counts: " + (mismatches.isEmpty ? "all methods agree on every predicate" : "**DISAGREE**: " + mismatches.joined(separator: "; ")))
        out.append("")
        out.append("Raw runs (ms): PQL typed | closure | #Predicate | PQL dict | dict closure")
        out.append("")
        for r in rows {
            let ms = { (s: Sample?) in s.map { $0.runsNs.map { String(format: "%.1f", $0 / 1e6) }.joined(separator: ", ") } ?? "-" }
            out.append("- P\(r.spec.id): \(ms(r.pql)) | \(ms(r.closure)) | \(ms(r.predicate)) | \(ms(r.pqlDict)) | \(ms(r.dict))")
        }
        if !mismatches.isEmpty {
            log("eval: match counts disagree: " + mismatches.joined(separator: "; "))
        }
        return out.joined(separator: "\n")
    }

    static func ns(_ value: Double) -> String { String(format: "%.1f", value) }
    static func ratio(_ value: Double) -> String { String(format: value < 10 ? "%.2fx" : "%.1fx", value) }

    static func thousands(_ x: Int) -> String {
        let digits = Array(String(x.magnitude))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (x < 0 ? "-" : "") + out
    }
}

/// PQL's filter, kept out of line like the baselines.
@inline(never)
func pqlFilter<T>(_ predicate: CompiledPredicate<T>, _ values: [T]) -> Int {
    do {
        return try values.filter(predicate).count
    } catch {
        fail("PQL evaluation failed: \(error)")
    }
}

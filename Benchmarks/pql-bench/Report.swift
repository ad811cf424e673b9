import Foundation

/// The Markdown report: one table of predicates, then summary lines.
struct Report {
    var file: String
    var iterations: Int
    var runs: Int
    var pql: [ParseBenchmark.Result]
    /// nil when GNUstep was not run; `peerNote` says why or what ran.
    var gnustep: [GNUstepPeer.Result]?
    var peerNote: String
    var large: ParseBenchmark.Throughput?
    var largeError: String?

    func render() -> String {
        var out: [String] = []
        out.append("## PQL parse benchmark")
        out.append("")
        out.append("- input: `\(file)`, \(pql.count) predicates")
        out.append("- PQL: `PredicateNode(format:argumentArray:)` with no arguments, median of \(runs) runs of \(iterations) parses after a warm-up")
        out.append("- GNUstep: \(peerNote)")
        out.append("")

        let peer = gnustep.map { Self.match(pql: pql, gnustep: $0) }
        out.append("| predicate | PQL ns | GNUstep ns | ratio |")
        out.append("|---|---:|---:|---:|")
        var shared: [(pql: Double, gnustep: Double)] = []
        for (i, r) in pql.enumerated() {
            let g = peer?[i]
            let pqlCell = r.nsPerParse.map(Self.ns) ?? "error: \(r.error ?? "?")"
            let gCell: String
            if gnustep == nil {
                gCell = "—"
            } else if let ns = g?.nsPerParse {
                gCell = Self.ns(ns)
            } else {
                gCell = g == nil ? "missing" : "parse error"
            }
            var ratio = "—"
            if let a = r.nsPerParse, let b = g?.nsPerParse {
                shared.append((a, b))
                ratio = String(format: "%.1fx", b / a)
            }
            out.append("| \(Self.code(r.predicate)) | \(pqlCell) | \(gCell) | \(ratio) |")
        }
        out.append("")

        let parsed = pql.compactMap(\.nsPerParse)
        if let s = Statistics(parsed) {
            out.append("PQL, all \(s.count) predicates it parses: " + Self.summary(s))
        }
        let failed = pql.filter { $0.nsPerParse == nil }
        if !failed.isEmpty {
            out.append("PQL parse errors: \(failed.count) (\(failed.map { Self.code($0.predicate) }.joined(separator: ", ")))")
        }
        if gnustep != nil {
            if let p = Statistics(shared.map(\.pql)), let g = Statistics(shared.map(\.gnustep)) {
                out.append("PQL, the \(p.count) predicates both parse: " + Self.summary(p))
                out.append("GNUstep, the same \(g.count) predicates: " + Self.summary(g))
                let ratios = shared.map { $0.gnustep / $0.pql }
                out.append(String(format: "Ratio GNUstep/PQL: median %.1fx (min %.1fx, max %.1fx); ratio of medians %.1fx",
                                  Statistics.median(ratios), ratios.min()!, ratios.max()!, g.median / p.median))
            }
            let gnustepErrors = gnustep?.filter { $0.nsPerParse == nil }.count ?? 0
            out.append("GNUstep parse errors: \(gnustepErrors) (excluded from the comparison)")
        }
        if let large {
            out.append(String(format: "Large input: %d bytes (%d OR clauses of `(age > 30 AND name BEGINSWITH[c] 'a')`) parsed in %.2f ms: %.1f MB/s (this thread's CPU time: %.2f ms, %.1f MB/s)",
                              large.bytes, large.clauses, large.nanoseconds / 1e6, large.megabytesPerSecond,
                              large.cpuNanoseconds / 1e6, large.cpuMegabytesPerSecond))
        } else if let largeError {
            out.append("Large input: \(largeError)")
        }
        return out.joined(separator: "\n")
    }

    /// GNUstep's result for each PQL row. Both tools read the file by the same rules, so rows
    /// line up by position; a predicate that does not is looked up by text instead.
    static func match(pql: [ParseBenchmark.Result], gnustep: [GNUstepPeer.Result]) -> [GNUstepPeer.Result?] {
        var byText: [String: GNUstepPeer.Result] = [:]
        for g in gnustep where byText[g.predicate] == nil { byText[g.predicate] = g }
        return pql.enumerated().map { i, r in
            i < gnustep.count && gnustep[i].predicate == r.predicate ? gnustep[i] : byText[r.predicate]
        }
    }

    static func summary(_ s: Statistics) -> String {
        "median \(ns(s.median)) ns, mean \(ns(s.mean)) ns, p90 \(ns(s.p90)) ns, min \(ns(s.min)) ns, max \(ns(s.max)) ns"
    }

    static func ns(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    /// A predicate as a Markdown code span inside a table cell.
    static func code(_ s: String) -> String {
        let escaped = s.replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
        return "`" + escaped + "`"
    }
}

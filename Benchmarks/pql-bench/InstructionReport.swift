import Foundation

/// The Markdown report of `parse --instructions`: a table of predicates, then the medians,
/// totals and their ratios over the predicates both parse, then the large predicate.
///
/// The ratio is defined the same way on both sides: instructions per parse of predicate i is
/// the count inside the counted call divided by its N parses; "median" is the median of those
/// per-predicate figures over the predicates both parse, "total" their sum (every predicate
/// weighted once, so it is the mean times their number).
struct InstructionReport {
    var file: String
    var iterations: Int
    var pql: [InstructionBenchmark.Row]
    /// nil when GNUstep was not run.
    var gnustep: [InstructionBenchmark.Row]?
    var gnustepPath: String?
    var large: InstructionBenchmark.Large

    func render() -> String {
        var out: [String] = []
        out.append("## PQL parse benchmark: instructions per parse (callgrind)")
        out.append("")
        out.append("- input: `\(file)`, \(pql.count) predicates; each is parsed once uncounted, then \(iterations) times inside one counted call")
        out.append("- PQL: `PredicateNode(format:argumentArray:)` with no arguments, the tree then freed (`pql-bench count-parse`)")
        if let gnustepPath {
            out.append("- GNUstep: `+[NSPredicate predicateWithFormat:argumentArray:]` with an empty array, inside an autorelease pool that frees the result (`\(gnustepPath) count-parse`)")
        } else {
            out.append("- GNUstep: not run (--no-gnustep)")
        }
        out.append("")

        let peer = gnustep.map { Self.match(pql, $0) }
        out.append("| predicate | PQL instructions | GNUstep instructions | ratio |")
        out.append("|---|---:|---:|---:|")
        var shared: [(pql: Double, gnustep: Double)] = []
        for (i, row) in pql.enumerated() {
            let g = peer?[i]
            let pqlCell = row.instructions.map(Self.count) ?? "error: \(row.error ?? "?")"
            let gCell = gnustep == nil ? "—" : (g?.instructions.map(Self.count) ?? (g == nil ? "missing" : "parse error"))
            var ratio = "—"
            if let a = row.instructions, let b = g?.instructions {
                shared.append((a, b))
                ratio = String(format: "%.1fx", b / a)
            }
            out.append("| \(Report.code(row.predicate)) | \(pqlCell) | \(gCell) | \(ratio) |")
        }
        out.append("")

        let parsed = pql.compactMap(\.instructions)
        if let s = Statistics(parsed) {
            out.append("PQL, all \(s.count) predicates it parses: " + Self.summary(s, total: parsed.reduce(0, +)))
        }
        if gnustep != nil, let p = Statistics(shared.map(\.pql)), let g = Statistics(shared.map(\.gnustep)) {
            let pTotal = shared.map(\.pql).reduce(0, +), gTotal = shared.map(\.gnustep).reduce(0, +)
            out.append("PQL, the \(p.count) predicates both parse: " + Self.summary(p, total: pTotal))
            out.append("GNUstep, the same \(g.count) predicates: " + Self.summary(g, total: gTotal))
            let ratios = shared.map { $0.gnustep / $0.pql }
            out.append(String(format: "Ratio GNUstep/PQL: of the medians %.1fx, of the totals %.1fx; per predicate median %.1fx (min %.1fx, max %.1fx)",
                              g.median / p.median, gTotal / pTotal, Statistics.median(ratios), ratios.min()!, ratios.max()!))
            out.append("GNUstep parse errors: \(gnustep!.filter { $0.instructions == nil }.count) (excluded from the comparison)")
        }
        if let instructions = large.instructions, let perByte = large.perByte {
            out.append(String(format: "Large input: %d bytes (%d OR clauses of `(age > 30 AND name BEGINSWITH[c] 'a')`), one parse: %@ instructions, %.1f per byte",
                              large.bytes, large.clauses, Self.count(Double(instructions)), perByte))
        } else {
            out.append("Large input: \(large.bytes) bytes, does not parse: \(large.error ?? "?")")
        }
        return out.joined(separator: "\n")
    }

    /// GNUstep's row for each PQL row: by position when the texts agree (both read the file by
    /// the same rules), else by text.
    static func match(_ pql: [InstructionBenchmark.Row], _ gnustep: [InstructionBenchmark.Row]) -> [InstructionBenchmark.Row?] {
        var byText: [String: InstructionBenchmark.Row] = [:]
        for g in gnustep where byText[g.predicate] == nil { byText[g.predicate] = g }
        return pql.enumerated().map { i, r in
            i < gnustep.count && gnustep[i].predicate == r.predicate ? gnustep[i] : byText[r.predicate]
        }
    }

    static func summary(_ s: Statistics, total: Double) -> String {
        "median \(count(s.median)), total \(count(total)) (mean \(count(s.mean))), min \(count(s.min)), max \(count(s.max)) instructions per parse"
    }

    /// An instruction count with thousands separators.
    static func count(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}

import Foundation

/// `pql-bench parse --instructions`: instructions per parse, counted by callgrind, for PQL and
/// GNUstep on the same predicates. This process runs itself (`count-parse`, see
/// ``CountedParses``) and GNUstep's `nspredicate-oracle count-parse` under callgrind; each
/// counts only its own parse loop, so start-up, file reading and printing are left out, and a
/// loaded machine changes nothing.
struct InstructionBenchmark {
    /// Absolute path of the predicate file.
    var file: String
    /// Parses per predicate inside the counted call.
    var iterations: Int
    var largeBytes: Int
    var callgrind: Callgrind
    /// nil with `--no-gnustep`.
    var gnustep: GNUstepPeer?

    /// One predicate: instructions per parse, or why there is no count.
    struct Row {
        var predicate: String
        var instructions: Double?
        var error: String?
    }

    /// The large generated predicate, parsed once.
    struct Large {
        var bytes: Int
        var clauses: Int
        var instructions: UInt64?
        var error: String?
        var perByte: Double? { instructions.map { Double($0) / Double(bytes) } }
    }

    func run() throws -> InstructionReport {
        log("PQL: counting instructions under callgrind (\(iterations) parses per predicate, then one \(largeBytes)-byte parse)…")
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let pqlRun = try callgrind.run(me, ["count-parse", file, String(iterations), "--large-bytes", String(largeBytes)],
                                       countingInside: CountedParses.functionName)
        let (pql, lines) = try Self.rows(from: pqlRun, iterations: iterations, tool: "pql-bench count-parse")
        guard let largeLine = lines.last, let bytes = largeLine["large"] as? Int else {
            throw Callgrind.Failure(description: "pql-bench count-parse printed no line for the large predicate")
        }
        var large = Large(bytes: bytes, clauses: largeLine["clauses"] as? Int ?? 0, instructions: nil,
                          error: largeLine["parse_error"] as? String)
        if large.error == nil {
            guard let count = pqlRun.instructionsPerCall.last, pqlRun.instructionsPerCall.count == pql.filter({ $0.instructions != nil }).count + 1 else {
                throw Callgrind.Failure(description: "callgrind dumped \(pqlRun.instructionsPerCall.count) profiles, not one per counted call")
            }
            large.instructions = count
        }

        var peer: [Row]? = nil
        if let gnustep {
            log("GNUstep: counting instructions under callgrind (\(gnustep.executable) count-parse, \(iterations) parses per predicate)…")
            let gnustepRun: Callgrind.Run
            do {
                gnustepRun = try callgrind.run(gnustep.executable, ["count-parse", file, String(iterations)],
                                               countingInside: "nspredicate_counted_parses")
            } catch {
                throw Callgrind.Failure(description: "\(error)\n(an nspredicate-oracle built from the unchanged source has no "
                                        + "count-parse mode: add it as Benchmarks/README.md describes, or pass --no-gnustep)")
            }
            let rows = try Self.rows(from: gnustepRun, iterations: iterations, tool: "nspredicate-oracle count-parse").rows
            // Both read the file by the same rules: another count means another program.
            guard rows.count == pql.count else {
                throw Callgrind.Failure(description: "\(gnustep.executable) count-parse gave \(rows.count) results for the "
                                        + "\(pql.count) predicates of \(file): is it nspredicate-oracle with count-parse?")
            }
            peer = rows
        }
        return InstructionReport(file: file, iterations: iterations, pql: pql, gnustep: peer,
                                 gnustepPath: gnustep?.executable, large: large)
    }

    /// The predicate lines of a `count-parse` run, each counted one paired with the next dump;
    /// other lines (the large predicate's) are returned as they are.
    static func rows(from run: Callgrind.Run, iterations: Int, tool: String) throws -> (rows: [Row], extra: [[String: Any]]) {
        var rows: [Row] = []
        var extra: [[String: Any]] = []
        var dumps = run.instructionsPerCall[...]
        for line in run.output.split(separator: UInt8(ascii: "\n")) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw Callgrind.Failure(description: "unexpected \(tool) output: \(String(decoding: line, as: UTF8.self))")
            }
            guard let predicate = object["predicate"] as? String else {
                extra.append(object)
                continue
            }
            if let error = object["parse_error"] as? String {
                rows.append(Row(predicate: predicate, instructions: nil, error: error))
                continue
            }
            guard let n = object["n"] as? Int, n == iterations, let count = dumps.popFirst() else {
                throw Callgrind.Failure(description: "\(tool): callgrind dumped fewer profiles than predicates counted")
            }
            rows.append(Row(predicate: predicate, instructions: Double(count) / Double(n), error: nil))
        }
        if extra.isEmpty, !dumps.isEmpty {
            throw Callgrind.Failure(description: "\(tool): callgrind dumped more profiles than predicates counted")
        }
        return (rows, extra)
    }
}

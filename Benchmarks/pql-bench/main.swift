import Foundation

// pql-bench: release-mode benchmarks for PQL (not tests).
//
//   swift build -c release --scratch-path .build-bench --product pql-bench
//   .build-bench/release/pql-bench parse [--file F] [--iterations N] [--gnustep PATH | --no-gnustep]
//                                        [--gnustep-runs R] [--large-bytes B]
//   .build-bench/release/pql-bench parse --instructions [--file F] [--iterations N] [--no-gnustep]
//   .build-bench/release/pql-bench eval [--n N] [--runs R]
//   .build-bench/release/pql-bench records [--n N] [--runs R]
//
// With no arguments it runs `parse` with the defaults.

let usage = """
    usage: pql-bench [parse] [--file F] [--iterations N] [--gnustep PATH | --no-gnustep]
                             [--gnustep-runs R] [--large-bytes B]
           pql-bench parse --instructions [--file F] [--iterations N] [--gnustep PATH | --no-gnustep]
                             [--large-bytes B] [--valgrind PATH]

      parse             ns per parse for every predicate of F, beside GNUstep's bench-parse on
                        the same file with the same N, then the throughput on one large predicate
      --file F          predicates, one per line (default: Benchmarks/parse-predicates.txt)
      --iterations N    parses per timed run (default 5000); PQL reports the median of 5 runs
      --gnustep PATH    nspredicate-oracle to compare with (default: the one below, if it exists)
                        \(GNUstepPeer.defaultPath)
                        GNUstep's NSPredicate, built outside PQL (Benchmarks/README.md)
      --no-gnustep      do not run GNUstep
      --gnustep-runs R  runs of GNUstep's bench-parse; per predicate the median counts (default 3)
      --large-bytes B   size of the large predicate (default 1000000)
      --instructions    instructions per parse instead of time, counted by valgrind's callgrind
                        (reproducible on a loaded machine): PQL and GNUstep each run under
                        callgrind, counting only their parse loops; N defaults to 100 here.
                        Needs valgrind, and an nspredicate-oracle with count-parse
                        (Benchmarks/README.md) unless --no-gnustep
      --valgrind PATH   valgrind to use (default: valgrind on the PATH)

    \(CountedParses.usage)

    \(EvalBenchmark.usage)
    \(StoreBenchmark.usage)
    \(GroupBenchmark.usage)
    \(RecordsBenchmark.usage)
    """

struct Options {
    var file: String?
    var iterations = 5000
    var gnustep: String?
    var useGnustep = true
    var gnustepRuns = 3
    var largeBytes = 1_000_000
    /// `--instructions`: count instructions under callgrind instead of timing.
    var instructions = false
    var valgrind: String?
    /// Whether `--iterations` was given (`--instructions` has its own default).
    var iterationsGiven = false
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pql-bench: \(message)\n".utf8))
    exit(2)
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var rest = arguments[...]
    if rest.first == "parse" { rest = rest.dropFirst() }
    func value(_ flag: String) -> String {
        guard let v = rest.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
        return v
    }
    func count(_ flag: String) -> Int {
        guard let n = Int(value(flag)), n > 0 else { fail("\(flag) needs a positive integer") }
        return n
    }
    while let arg = rest.popFirst() {
        switch arg {
        case "--file": options.file = value(arg)
        case "--iterations", "-n": options.iterations = count(arg); options.iterationsGiven = true
        case "--gnustep": options.gnustep = value(arg)
        case "--no-gnustep": options.useGnustep = false
        case "--gnustep-runs": options.gnustepRuns = count(arg)
        case "--large-bytes": options.largeBytes = count(arg)
        case "--instructions": options.instructions = true
        case "--valgrind": options.valgrind = value(arg)
        case "-h", "--help", "help": print(usage); exit(0)
        default: fail("unknown argument '\(arg)'\n\(usage)")
        }
    }
    return options
}

/// `Benchmarks/parse-predicates.txt` from the working directory, else next to this source file.
func defaultPredicateFile() -> String {
    let relative = "Benchmarks/parse-predicates.txt"
    if FileManager.default.fileExists(atPath: relative) { return relative }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("parse-predicates.txt").path
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The sub-commands, each a benchmark of its own: its figures printed, then the exit.
let subcommands: [String: ([String]) -> String] = [
    "store": { StoreBenchmark.parse($0).run() },
    "group": { GroupBenchmark.parse($0).run() },
    "records": { RecordsBenchmark.parse($0).run() },
    "eval": { EvalBenchmark.parse($0).run() },
]
if let name = CommandLine.arguments.dropFirst().first, let run = subcommands[name] {
    #if DEBUG
    log("warning: this is a debug build; build with -c release for meaningful figures")
    #endif
    print(run(Array(CommandLine.arguments.dropFirst(2))))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "count-eval" {
    exit(CountedEvaluations.main(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "count-parse" {
    exit(CountedParses.main(Array(CommandLine.arguments.dropFirst(2))))
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let path = options.file ?? defaultPredicateFile()
let file: PredicateFile
do { file = try PredicateFile(path: path) } catch { fail("\(error)") }

#if DEBUG
log("warning: this is a debug build; build with -c release for meaningful figures")
#endif

if options.instructions {
    let gnustep: GNUstepPeer?
    if !options.useGnustep {
        gnustep = nil
    } else if let peer = GNUstepPeer.locate(options.gnustep),
              FileManager.default.isExecutableFile(atPath: peer.executable) {
        gnustep = peer
    } else {
        fail("GNUstep's nspredicate-oracle not found at \(options.gnustep ?? GNUstepPeer.defaultPath): build it as "
             + "Benchmarks/README.md describes, pass --gnustep PATH, or count PQL alone with --no-gnustep")
    }
    do {
        let benchmark = InstructionBenchmark(file: URL(fileURLWithPath: path).standardizedFileURL.path,
                                             iterations: options.iterationsGiven ? options.iterations : 100,
                                             largeBytes: options.largeBytes,
                                             callgrind: try Callgrind.locate(options.valgrind), gnustep: gnustep)
        print(try benchmark.run().render())
    } catch {
        fail("\(error)")
    }
    exit(0)
}

var bench = ParseBenchmark(iterations: options.iterations)
log("PQL: timing \(file.predicates.count) predicates, \(bench.runs) runs of \(options.iterations) parses each…")
let pqlResults = bench.run(file.predicates)

var gnustepResults: [GNUstepPeer.Result]? = nil
var peerNote = "not run (--no-gnustep)"
if options.useGnustep {
    if let peer = GNUstepPeer.locate(options.gnustep) {
        log("GNUstep: \(peer.executable) bench-parse, \(options.gnustepRuns) runs of \(options.iterations) parses each…")
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        do {
            gnustepResults = try peer.benchParse(file: absolute, iterations: options.iterations,
                                                 runs: options.gnustepRuns)
            peerNote = "`\(peer.executable) bench-parse` on the same file, median of \(options.gnustepRuns) runs of \(options.iterations) parses"
        } catch {
            peerNote = "failed: \(error)"
        }
    } else {
        peerNote = "not run: \(GNUstepPeer.defaultPath) not found (see Benchmarks/README.md, or pass --gnustep PATH)"
    }
}

log("PQL: parsing a \(options.largeBytes)-byte predicate…")
let (largeText, clauses) = ParseBenchmark.largePredicate(bytes: options.largeBytes)
var large: ParseBenchmark.Throughput? = nil
var largeError: String? = nil
do { large = try bench.throughput(of: largeText, clauses: clauses) } catch { largeError = "does not parse: \(error.message)" }

let report = Report(file: path, iterations: options.iterations, runs: bench.runs, pql: pqlResults,
                    gnustep: gnustepResults, peerNote: peerNote, large: large, largeError: largeError)
print(report.render())
// Every parse folds a digest of its tree into `sink`; reading it keeps the parses observable.
if bench.sink == Int.min { log("") }

// PQLPostgres in release builds, on the server PQL_POSTGRES_URL names:
//   scripts/postgres run -- swift run -c release pql-postgres-bench queries [--n N] [--runs R] [--keep]
//   scripts/postgres run -- swift run -c release pql-postgres-bench copy [nycflights13 directory]
//   scripts/postgres run -- swift run -c release pql-postgres-bench records [--n N] [--runs R]
//   scripts/postgres run -- swift run -c release pql-postgres-bench insertRows [--n N] [--runs R]
// `queries`: P1–P8 of the anchors through PostgresPredicateStore beside hand-written SQL on
// the same server and connection pool, without and with indexes (QueryBenchmark.swift).
// `copy`: import throughput through COPY (CopyBenchmark.swift).
// `records`: rows decoded into a Codable struct beside PostgresNIO by hand (RecordsBenchmark.swift).
// `insertRows`: rows given as values, through COPY (InsertRowsBenchmark.swift).
import Foundation

guard let url = ProcessInfo.processInfo.environment["PQL_POSTGRES_URL"] else {
    FileHandle.standardError.write(Data("pql-postgres-bench: set PQL_POSTGRES_URL (scripts/postgres run -- swift run -c release pql-postgres-bench …)\n".utf8))
    exit(2)
}
let usage = "usage: pql-postgres-bench queries [--n N] [--runs R] [--keep] | copy [nycflights13 directory] | records [--n N] [--runs R] | insertRows [--n N] [--runs R]"

/// A bad argument: what was wrong and the usage, on standard error, and exit status 2.
func usageError(_ problem: String) -> Never {
    FileHandle.standardError.write(Data("pql-postgres-bench: \(problem)\n\(usage)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "queries":
    print(try await QueryBenchmark.parse(Array(arguments.dropFirst())).run(url: url))
case "records":
    print(try await RecordsBenchmark.parse(Array(arguments.dropFirst())).run(url: url))
case "copy":
    try await copyBenchmark(url: url, data: arguments.count > 1 ? arguments[1] : "Sources/PQLDemo/Resources/nycflights13")
case "insertRows":
    try await insertRowsBenchmark(url: url, arguments: Array(arguments.dropFirst()))
default:
    usageError(arguments.first.map { "unknown benchmark '\($0)'" } ?? "which benchmark?")
}

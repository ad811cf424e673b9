// swift-tools-version:6.2
// PQL: Apple's NSPredicate format-string language for Swift on every platform.
// Tools 6.2 because the first compiler with SendableMetatype is 6.2 (see PredicateEvaluable).
import Foundation
import PackageDescription

// The documentation's Swift code (README, language reference, DocC articles), one executable
// target per block in Examples/Snippets/Sources/NAME: compiled with the rest (one build, the
// libraries built once), checked against the text and run by `scripts/snippets --run`. They
// import PQL's modules as a user's code does, without `@testable`.
let snippetRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Examples/Snippets/Sources")
let snippets = ((try? FileManager.default.contentsOfDirectory(atPath: snippetRoot.path)) ?? [])
    .filter { !$0.hasPrefix(".") }.sorted()

let package = Package(
    name: "PQL",
    // The Swift 6 runtime: stored closures with typed throws (`throws(EvalError)`) need its
    // metadata, which Apple's compilers refuse before macOS 15 / iOS 18. (Linux has no minimum.)
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "PQL", targets: ["PQL"]),
        .library(name: "PQLStore", targets: ["PQLStore"]),
        .library(name: "PQLPostgres", targets: ["PQLPostgres"]),
        // Darwin's NSPredicate code on Linux: depends on PQL alone, so it builds no SQLite or NIO.
        .library(name: "PQLFoundation", targets: ["PQLFoundation"]),
        .executable(name: "pql", targets: ["pql"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Build-time only: `swift package generate-documentation` (scripts/docs). A plugin, so
        // nothing of it is compiled into PQL's products or into packages that depend on them.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // PostgreSQL's client for the PQLPostgres product only: PQL and PQLStore do not depend
        // on it, so a package that uses them alone does not build NIO.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // For pql-bench only (`records` beside GRDB's Codable records): no library or test
        // target may depend on it, so PQL's users never build it.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // For the README's Hummingbird service example only (ReadmeHummingbirdService): packages
        // that use PQL's products resolve it but never build it. Compiled here rather than in a
        // package of its own, which built NIO, swift-crypto and BoringSSL a second time (12 of
        // CI's minutes).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // PCRE2 (Debian's libpcre2-dev) for MATCHES, as decision D7 requires.
        .systemLibrary(name: "CPCRE2", path: "Sources/CPCRE2", pkgConfig: "libpcre2-8",
                       providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]),
        // The language: text ⇄ tree, arguments and variables, evaluation on values. No SQL.
        .target(name: "PQL", dependencies: ["CPCRE2"], path: "Sources/PQL"),
        // NSPredicate(format:), NSCompoundPredicate and NSExpression(format:) on Linux, where
        // swift-corelibs-foundation declares them unavailable. Empty on Apple platforms.
        .target(name: "PQLFoundation", dependencies: ["PQL"], path: "Sources/PQLFoundation"),
        // SQLite (Debian's libsqlite3-dev) under the store; zlib to import zipped CSV and JSON.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The fetch-request backend: entity model, SQLite store, predicate-to-SQL compiler, import.
        .target(name: "PQLStore", dependencies: ["PQL", "CSQLite", "CZlib"], path: "Sources/PQLStore"),
        // The PostgreSQL store: opening, model inference, PQL's SQL functions, DDL, COPY import.
        .target(name: "PQLPostgres", dependencies: ["PQL", "PQLStore", .product(name: "PostgresNIO", package: "postgres-nio")],
                path: "Sources/PQLPostgres"),
        // The nycflights13 demo store and its 8 MB of data: not a product, so a package that
        // depends on PQL or PQLStore neither builds it nor ships the data; `pql` and the tests do.
        .target(name: "PQLDemo", dependencies: ["PQL", "PQLStore"], path: "Sources/PQLDemo",
                resources: [.copy("Resources/nycflights13")]),
        // libedit (Debian's libedit-dev) behind plain C functions, for the REPL's line editing.
        .target(name: "CLineEdit", path: "Sources/CLineEdit", linkerSettings: [.linkedLibrary("edit")]),
        // The command line (SQLite files, data files and PostgreSQL URLs).
        .executableTarget(
            name: "pql",
            dependencies: ["PQL", "PQLStore", "PQLPostgres", "PQLDemo", "CLineEdit", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/pql"
        ),
        // Release-mode benchmarks (not tests): `swift run -c release pql-bench`.
        .executableTarget(name: "pql-bench", dependencies: ["PQL", "PQLStore", "PQLDemo", "CSQLite", "BenchmarkPeople", "BenchmarkRecords",
                                                          .product(name: "GRDB", package: "GRDB.swift")],
                          path: "Benchmarks/pql-bench"),
        // Release-mode P1–P8 and COPY import on a server: `scripts/postgres run -- swift run -c release pql-postgres-bench`.
        .executableTarget(name: "pql-postgres-bench", dependencies: ["PQL", "PQLStore", "PQLPostgres", "BenchmarkPeople", "BenchmarkRecords",
                                                                    .product(name: "PostgresNIO", package: "postgres-nio")],
                          path: "Benchmarks/pql-postgres-bench"),
        // The anchors' people (same generator, seed and vocabularies), for both benchmarks.
        .target(name: "BenchmarkPeople", dependencies: ["PQL"], path: "Benchmarks/BenchmarkPeople"),
        // The rows of `records` (a Codable struct), for both benchmarks.
        .target(name: "BenchmarkRecords", dependencies: ["PQL", "PQLStore"], path: "Benchmarks/BenchmarkRecords"),
        // The documentation's examples that need PostgreSQL (the snippets of Examples/Snippets build
        // without NIO): compiled here, run by `scripts/snippets --run` against PQL_POSTGRES_URL.
        .executableTarget(name: "ReadmePostgresServer", dependencies: ["PQL", "PQLStore", "PQLPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
                          path: "Examples/PostgresSnippets/Sources/ReadmePostgresServer"),
        // The README's web service: Hummingbird 2 in a ServiceGroup with the PostgresClient;
        // `scripts/snippets --run` starts it on a free port, asks it and stops it.
        .executableTarget(name: "ReadmeHummingbirdService", dependencies: ["PQLPostgres",
                                                                           .product(name: "Hummingbird", package: "hummingbird"),
                                                                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                          path: "Examples/ServiceSnippets/Sources/ReadmeHummingbirdService"),
        // What the test targets share: the seeded random generator, fuzz regression inputs, deep trees,
        // the differential data and predicate generator and their model.
        .target(name: "PQLTestSupport", dependencies: ["PQL", "PQLStore"], path: "Tests/PQLTestSupport"),
        .testTarget(name: "PQLTests", dependencies: ["PQL", "PQLStore", "CSQLite", "PQLTestSupport"], path: "Tests/PQLTests",
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "PQLStoreTests", dependencies: ["PQL", "PQLStore", "PQLDemo", "CSQLite", "PQLTestSupport"], path: "Tests/PQLStoreTests",
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "PQLFoundationTests", dependencies: ["PQL", "PQLFoundation"], path: "Tests/PQLFoundationTests"),
        // Needs a server: PQL_POSTGRES_URL, as scripts/test and scripts/postgres run set it.
        .testTarget(name: "PQLPostgresTests", dependencies: ["PQL", "PQLStore", "PQLPostgres", "PQLDemo", "PQLTestSupport"], path: "Tests/PQLPostgresTests"),
    ] + snippets.map {
        .executableTarget(name: $0, dependencies: ["PQL", "PQLStore", "PQLFoundation"], path: "Examples/Snippets/Sources/\($0)")
    }
)

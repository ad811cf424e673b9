// swift-tools-version:6.0
// PQL: Apple's NSPredicate format-string language for Swift on every platform.
import PackageDescription

let package = Package(
    name: "PQL",
    products: [
        .library(name: "PQL", targets: ["PQL"]),
        .executable(name: "pql", targets: ["pql"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // PCRE2 (Debian's libpcre2-dev) for MATCHES, as decision D7 requires.
        .systemLibrary(name: "CPCRE2", path: "Sources/CPCRE2", pkgConfig: "libpcre2-8",
                       providers: [.apt(["libpcre2-dev"])]),
        // The language: text ⇄ tree, arguments and variables, evaluation on values. No SQL.
        .target(name: "PQL", dependencies: ["CPCRE2"], path: "Sources/PQL"),
        // The command line.
        .executableTarget(
            name: "pql",
            dependencies: ["PQL", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/pql"
        ),
        // Release-mode benchmarks (not tests): `swift run -c release pql-bench`.
        .executableTarget(name: "pql-bench", dependencies: ["PQL"], path: "Benchmarks/pql-bench"),
        .testTarget(name: "PQLTests", dependencies: ["PQL"], path: "Tests/PQLTests",
                    resources: [.copy("Fixtures")]),
    ]
)

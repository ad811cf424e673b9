// swift-tools-version:6.0
// Coverage-guided fuzz targets for PQL (libFuzzer through `-sanitize=fuzzer`, with address
// sanitizer). A package of its own because each target is a library-style executable whose
// `main` comes from libFuzzer: see `scripts/fuzz`, which builds and runs them.
import PackageDescription

// No Swift `main`: libFuzzer's main calls `LLVMFuzzerTestOneInput`.
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "PQLFuzz",
    dependencies: [.package(name: "PQL", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "PQL", package: "PQL")]),
        .executableTarget(name: "FuzzParser", dependencies: ["FuzzSupport", .product(name: "PQL", package: "PQL")],
                          swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzEvaluate", dependencies: ["FuzzSupport", .product(name: "PQL", package: "PQL")],
                          swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzSQL", dependencies: ["FuzzSupport", .product(name: "PQL", package: "PQL"),
                                                          .product(name: "PQLStore", package: "PQL")],
                          swiftSettings: fuzzTarget),
    ]
)

// swift-tools-version:6.0
// The documentation's examples that run PQL in a web service (Hummingbird 2 in a swift-service-
// lifecycle ServiceGroup): a package of their own, so that PQL's own package and its users never
// resolve Hummingbird. `scripts/snippets --run` builds it, starts each service on a free port
// (PORT) against PQL_POSTGRES_URL, asks it one request, checks the answer and stops it.
import PackageDescription

let package = Package(
    name: "PQLServiceSnippets",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PQL", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(name: "ReadmeHummingbirdService", dependencies: [
            .product(name: "PQLPostgres", package: "PQL"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ]
)

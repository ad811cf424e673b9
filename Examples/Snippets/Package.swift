// swift-tools-version:6.0
// The code shown in PQL's documentation, compiled and run so that it cannot rot: every ```swift
// block of README.md, docs/language-reference.md and the DocC articles is one target here
// (Sources/NAME/main.swift), and scripts/snippets checks that the text shown is this code.
import Foundation
import PackageDescription

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let snippets = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path))?
    .filter { !$0.hasPrefix(".") }.sorted() ?? []

let package = Package(
    name: "PQLSnippets",
    dependencies: [.package(name: "PQL", path: "../..")],
    targets: snippets.map {
        .executableTarget(name: $0, dependencies: [.product(name: "PQL", package: "PQL"),
                                                   .product(name: "PQLStore", package: "PQL")])
    }
)

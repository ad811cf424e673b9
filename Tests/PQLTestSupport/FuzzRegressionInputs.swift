import Foundation

/// The inputs the fuzzers found for one target (`Fuzz/Regressions/<target>/`), as file paths,
/// for the test suites that replay them.
public enum FuzzRegressionInputs {
    public static func paths(_ target: String, testFile: String = #filePath) -> [String] {
        // Tests/<target>/<file>.swift → the package root.
        let root = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.appendingPathComponent("Fuzz/Regressions/\(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().filter { !$0.hasSuffix(".md") }.map { dir.appendingPathComponent($0).path }
    }
}

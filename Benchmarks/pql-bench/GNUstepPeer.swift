import Foundation

/// GNUstep's NSPredicate as a speed peer: runs `nspredicate-oracle bench-parse FILE N` from
/// a GNUstep build outside PQL (Benchmarks/README.md) and reads its JSON lines
/// (`{"predicate", "n", "ns_per_parse"}` or `{"predicate", "parse_error"}`).
struct GNUstepPeer {
    /// Where GNUstep's build script leaves the binary when built in /tmp (Benchmarks/README.md).
    static let defaultPath = "/tmp/gnustep-nspredicate/build/nspredicate-oracle"

    var executable: String

    /// One line of `bench-parse` output.
    struct Result {
        var predicate: String
        var nsPerParse: Double?
        var error: String?
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The peer at `path`, or at the default path when none is given and it exists.
    static func locate(_ path: String?) -> GNUstepPeer? {
        if let path { return GNUstepPeer(executable: path) }
        return FileManager.default.isExecutableFile(atPath: defaultPath) ? GNUstepPeer(executable: defaultPath) : nil
    }

    /// Runs `bench-parse` `runs` times and keeps, per predicate, the median ns/parse, so that
    /// one disturbed run on a shared machine counts no more for GNUstep than for PQL.
    func benchParse(file: String, iterations: Int, runs: Int) throws -> [Result] {
        var all: [[Result]] = []
        for _ in 0..<max(1, runs) { all.append(try benchParse(file: file, iterations: iterations)) }
        return all[0].indices.map { i in
            var r = all[0][i]
            let times = all.compactMap { $0.indices.contains(i) ? $0[i].nsPerParse : nil }
            r.nsPerParse = times.count == all.count ? Statistics.median(times) : nil
            return r
        }
    }

    /// Runs `bench-parse` once on `file` with `iterations` parses per predicate. GNUstep logs
    /// every parse failure to stderr, so stderr is discarded.
    func benchParse(file: String, iterations: Int) throws -> [Result] {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "\(executable) is not an executable file")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["bench-parse", file, String(iterations)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) bench-parse exited with status \(process.terminationStatus)")
        }
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let predicate = object["predicate"] as? String else {
                throw Failure(description: "unexpected bench-parse output: \(String(decoding: line, as: UTF8.self))")
            }
            let ns = (object["ns_per_parse"] as? NSNumber)?.doubleValue
            let error = object["parse_error"] as? String ?? object["crash"] as? String
            return Result(predicate: predicate, nsPerParse: ns, error: ns == nil ? (error ?? "no timing") : nil)
        }
    }
}

import Foundation

/// Valgrind's callgrind as an instruction counter: runs a program with collection off except
/// inside one function, and dumps a profile after every call of it, so each call's
/// instructions are known on their own. Instruction counts do not depend on the machine's
/// load, which timings on a shared machine do.
struct Callgrind {
    var valgrind: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `path` if given, else `valgrind` on the PATH.
    static func locate(_ path: String?) throws(Failure) -> Callgrind {
        if let path {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw Failure(description: "--valgrind \(path) is not an executable file")
            }
            return Callgrind(valgrind: path)
        }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories {
            let candidate = String(directory) + "/valgrind"
            if FileManager.default.isExecutableFile(atPath: candidate) { return Callgrind(valgrind: candidate) }
        }
        throw Failure(description: "valgrind is not installed (not found on the PATH): --instructions counts instructions with "
                      + "valgrind's callgrind; install it (Debian/Ubuntu: apt-get install valgrind) or pass --valgrind PATH")
    }

    /// What one run gave: the program's standard output, and the instructions executed inside
    /// each call of the counted function, in call order.
    struct Run {
        var output: Data
        var instructionsPerCall: [UInt64]
    }

    /// Runs `executable` with `arguments` under callgrind, counting instructions only while
    /// `function` runs (the functions it calls included), with a profile dump after each call.
    func run(_ executable: String, _ arguments: [String], countingInside function: String) throws -> Run {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pql-bench-callgrind-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outFile = directory.appendingPathComponent("callgrind.out").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = ["--tool=callgrind", "--collect-atstart=no",
                             "--toggle-collect=\(function)", "--dump-after=\(function)",
                             "--callgrind-out-file=\(outFile)", executable] + arguments
        // Callgrind's own messages go to a file: read only when the run fails.
        let errorFile = directory.appendingPathComponent("stderr.txt").path
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        guard let errors = FileHandle(forWritingAtPath: errorFile) else {
            throw Failure(description: "cannot write \(errorFile)")
        }
        defer { try? errors.close() }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let tail = String(decoding: (FileManager.default.contents(atPath: errorFile) ?? Data()).suffix(2000), as: UTF8.self)
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) under callgrind exited with status "
                          + "\(process.terminationStatus); its last messages:\n\(tail)")
        }
        return Run(output: outputData, instructionsPerCall: try Self.dumps(at: outFile))
    }

    /// The totals of the dumps `FILE.1`, `FILE.2`… in order (the final dump at exit, `FILE`
    /// itself, holds only what ran after the last call, which is nothing: collection is off).
    static func dumps(at outFile: String) throws(Failure) -> [UInt64] {
        var totals: [UInt64] = []
        while true {
            let path = "\(outFile).\(totals.count + 1)"
            guard let data = FileManager.default.contents(atPath: path) else { return totals }
            guard let total = Self.total(in: String(decoding: data, as: UTF8.self)) else {
                throw Failure(description: "no totals line in callgrind's dump \(path)")
            }
            totals.append(total)
        }
    }

    /// The first event (Ir, instructions: callgrind's only event by default) of the
    /// `totals:` line, or of `summary:` in dumps that have no totals line.
    static func total(in dump: String) -> UInt64? {
        var summary: UInt64? = nil
        for line in dump.split(separator: "\n") {
            if line.hasPrefix("totals:") {
                return line.dropFirst(7).split(separator: " ").first.flatMap { UInt64($0) }
            }
            if line.hasPrefix("summary:") { summary = line.dropFirst(8).split(separator: " ").first.flatMap { UInt64($0) } }
        }
        return summary
    }
}
